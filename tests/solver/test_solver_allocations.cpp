// The solver allocates nothing in a step once its buffers have grown to the island sizes it has seen: the
// direct active-set method changes the size of its free system in every iteration, and its matrices, vectors
// and factors live in leading blocks of buffers that only grow (solver/src/blcp.h). Counted by interposing
// malloc in this test executable (glibc's __libc_* functions do the work), so Eigen's allocations, which do
// not go through operator new, are counted too.
#include "solver_problems.h"

#include <simpulse/solver/solver.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#if !defined(__SANITIZE_ADDRESS__)
// Test-only process-wide counter: the interposed allocation functions below have no other place to count.
std::atomic<long> g_allocations{0};

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

void* malloc(std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_realloc(pointer, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    *out = __libc_memalign(alignment, size);
    return *out ? 0 : 12;  // ENOMEM
}
}
#endif

namespace simpulse {
namespace {

using test::Problem;
using test::stack_problem;

TEST(SolverAllocations, DirectMethodAllocatesNothingOnceGrown) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer owns malloc: the counting interposer is not built";
#else
    SolverSettings settings;
    Solver solver;
    auto solve = [&](Problem& p) {
        solver.solve_velocities(p.bodies, p.contacts, p.joints, 1.0 / 60, settings);
    };
    // Towers of 4 boxes with friction, masses 1:1000, pushed by random velocities: contacts that stick, slide
    // and separate change the direct method's free set from iteration to iteration. Grow the buffers on them
    // first (every seed has the same rows).
    std::vector<Problem> problems;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) problems.push_back(stack_problem(seed, 4, 0.5));
    const long at_start = g_allocations.load();
    for (int round = 0; round < 2; ++round)
        for (Problem p : problems) solve(p);  // copies: each solve starts from the same state
    ASSERT_GT(g_allocations.load(), at_start) << "the interposed malloc does not count";

    long allocations = 0;
    int iterations = 0;
    for (Problem& p : problems) {
        const long before = g_allocations.load();
        solve(p);
        allocations += g_allocations.load() - before;
        iterations += solver.stats().iterations;
    }
    EXPECT_GT(iterations, 2 * static_cast<int>(problems.size()))
        << "the towers should take the direct method several active-set iterations each";
    EXPECT_EQ(allocations, 0) << "allocation calls in 40 solves after the buffers have grown";
#endif
}

}  // namespace
}  // namespace simpulse
