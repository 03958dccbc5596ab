// The thread's CPU clock, shared by the benchmark programs that time their own loops (the machine is shared,
// so CPU time of the measuring thread is the comparable figure, not wall time).
#pragma once

#include <ctime>

namespace simpulse::bench {

inline double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace simpulse::bench
