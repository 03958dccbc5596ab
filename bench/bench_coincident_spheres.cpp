// Bodies created inside each other, the densest island there is: a box resting on the ground and a contact
// listener that creates a sphere (radius 0.1 m) at one point for every contact event, for the first four
// steps (72 spheres, each touching every other and the box). The spheres' island is one complete graph of
// bodies, which the Newton method factorises densely (solver/src/newton.cpp, Island::nearly_complete); the
// program prints each step's wall time and the solver's account of it (rows, Newton factorisations,
// residual). A fuzzed call sequence found this shape (docs/reliability.md, "Callbacks, cables and prisms in
// fuzz_world").
//
// Run: bench_coincident_spheres [STEPS (default 8)] [CREATING_STEPS (default 4)]   (dt = 0.016 s)
#include <simpulse/world.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    using namespace simpulse;
    const int steps = argc > 1 ? std::atoi(argv[1]) : 8;
    const int creating_steps = argc > 2 ? std::atoi(argv[2]) : 4;
    if (steps < 1 || creating_steps < 0 || creating_steps > 6) {
        std::fprintf(stderr, "usage: bench_coincident_spheres [STEPS >= 1] [CREATING_STEPS in 0..6]\n");
        return 2;
    }
    World world;
    const Result<ShapePtr> ground = create_plane({0, 0, 1}, 0);
    const Result<ShapePtr> box = create_box({0.5, 0.5, 0.5});
    const Result<ShapePtr> sphere = create_sphere(0.1);
    if (!ground || !box || !sphere || !world.create_body({.shape = ground.value(), .is_static = true}) ||
        !world.create_body({.shape = box.value(), .pose = {Vec3(0, 0, 0.5)}})) {
        std::fprintf(stderr, "bench_coincident_spheres: could not build the world\n");
        return 1;
    }
    bool creating = true;
    const Status listening = world.set_contact_listener([&](const ContactEvent&) {
        if (creating) (void)world.create_body({.shape = sphere.value(), .pose = {Vec3(0, 0, 0.016)}});
    });
    if (!listening) return 1;
    double total_ms = 0;
    for (int s = 0; s < steps; ++s) {
        creating = s < creating_steps;
        const auto start = std::chrono::steady_clock::now();
        const Status stepped = world.step(0.016);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        total_ms += ms;
        const SolverStats& st = world.solver_stats();
        std::printf(
            "step %d: %8.1f ms  bodies %zu  rows %d (largest island %d)  Newton factorisations %d%s  "
            "residual %.2g m/s%s\n",
            s + 1, ms, world.body_count(), st.rows, st.largest_island_rows, st.factorizations,
            st.newton_capped > 0 ? " (capped)" : "", st.residual, stepped ? "" : "  (step failed)");
    }
    std::printf("%d steps: %.1f ms\n", steps, total_ms);
    return 0;
}
