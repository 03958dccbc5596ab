// Cost of the rotation step (dynamics/src/integrator.cpp) against the rotation per step dt |w|: one free
// 1 x 2 x 3 m box (principal moments 6.5, 5, 2.5 kg m^2) without gravity, spinning about a generic axis,
// stepped through DynamicsWorld::step at dt = 1/60 s. Up to 0.05 rad per step the midpoint step, above it the
// chord-midpoint step, sub-stepped above 0.5 rad (by a bound from the energy), beyond 256 sub-steps one turn
// about the angular momentum. Each figure is a whole world step for one body (collision and solver stages
// included, empty here); the step's rotation path shows in the difference to the slowest-spinning case.
// The counter `energy_drift` is |E - E0| / E0 after the timed steps (round-off on every path from 0.05 rad).
//
// Run: bench_integrator [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include <simpulse/dynamics/world.h>

#include <benchmark/benchmark.h>

#include <cmath>

namespace {

using namespace simpulse;

void BM_RotationStep(benchmark::State& state) {
    const double rad_per_step = static_cast<double>(state.range(0)) / 1000.0;
    const double dt = 1.0 / 60;
    WorldSettings settings;
    settings.gravity = Vec3::Zero();
    DynamicsWorld world(settings);
    BodyDesc d;
    d.shape = make_box(Vec3(0.5, 1.0, 1.5));
    d.mass = 6.0;
    d.pose.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, -2, 0.5).normalized()));
    d.angular_velocity = Vec3(0.3, 1, 0.2).normalized() * (rad_per_step / dt);
    world.create_body(d);
    const double e0 = world.energy().kinetic;
    for (auto _ : state) {
        world.step(dt);
        benchmark::ClobberMemory();
    }
    state.counters["energy_drift"] = std::abs(world.energy().kinetic - e0) / e0;
}

// dt |w| in milli-radians per step: 0.01, 0.1 (chord-midpoint from 0.05), 1, 5, 50 and 200 rad.
BENCHMARK(BM_RotationStep)->Arg(10)->Arg(100)->Arg(1000)->Arg(5000)->Arg(50000)->Arg(200000);

}  // namespace

BENCHMARK_MAIN();
