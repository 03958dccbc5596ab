// The solver allocates nothing in a step once its buffers have grown to the island sizes it has seen: the
// direct active-set method changes the size of its free system in every iteration, and its matrices, vectors
// and factors live in leading blocks of buffers that only grow (solver/src/blcp.h). Counted by interposing
// malloc in this test executable (glibc's __libc_* functions do the work), so Eigen's allocations, which do
// not go through operator new, are counted too.
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

struct Problem {
    std::vector<SolverBody> bodies;
    std::vector<ContactConstraint> contacts;
    std::vector<JointConstraint> joints;
};

// A tower of `boxes` boxes of random mass (1:30) on a static floor (index 0), 4 coplanar contacts per
// interface with friction, pushed by random velocities: contacts that stick, slide and separate change the
// free set of the direct method from iteration to iteration.
Problem tower(std::uint64_t seed, int boxes) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Problem p;
    p.bodies.emplace_back();  // static floor
    for (int i = 0; i < boxes; ++i) {
        SolverBody b;
        const double m = std::pow(10.0, 0.75 * u(rng));
        b.position = Vec3(0.05 * u(rng), 0.05 * u(rng), 0.5 + i);
        b.velocity = Vec3(0.5 * u(rng), 0.5 * u(rng), -0.5 + 0.4 * u(rng));
        b.angular_velocity = Vec3(0.5 * u(rng), 0.5 * u(rng), 0.5 * u(rng));
        b.inverse_mass = 1 / m;
        b.inverse_inertia_local = Mat3::Identity() * 6 / m;
        b.inverse_inertia = b.inverse_inertia_local;
        p.bodies.push_back(b);
    }
    for (int i = 0; i < boxes; ++i)
        for (int corner = 0; corner < 4; ++corner) {
            ContactConstraint c;
            c.body_a = static_cast<std::uint32_t>(i);
            c.body_b = static_cast<std::uint32_t>(i + 1);
            c.point = Vec3(corner & 1 ? 0.5 : -0.5, corner & 2 ? 0.5 : -0.5, i);
            c.normal = Vec3::UnitZ();
            c.depth = 0.001;
            c.friction = 0.3 + 0.2 * u(rng);
            c.key = static_cast<std::uint64_t>(4 * i + corner);
            c.patch = static_cast<std::uint32_t>(i);
            p.contacts.push_back(c);
        }
    return p;
}

TEST(SolverAllocations, DirectMethodAllocatesNothingOnceGrown) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer owns malloc: the counting interposer is not built";
#else
    SolverSettings settings;
    Solver solver;
    auto solve = [&](Problem& p) {
        solver.solve_velocities(p.bodies, p.contacts, p.joints, 1.0 / 60, settings);
    };
    // Grow the buffers on the largest island of the test (every seed has the same rows).
    std::vector<Problem> problems;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) problems.push_back(tower(seed, 4));
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
