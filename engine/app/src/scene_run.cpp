// Runs a scene: fixed steps for the scene's duration, contact events translated to scene body indices,
// trajectory sampling, solver statistics and joint error aggregated over the run, and the non-finite stop.
#include <simpulse/app/run.h>

#include "scene_json.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <sstream>

namespace simpulse {
namespace {

void aggregate(SolverSummary& summary, const SolverStats& stats) {
    summary.max_islands = std::max(summary.max_islands, stats.islands);
    summary.max_rows = std::max(summary.max_rows, stats.rows);
    summary.max_island_rows = std::max(summary.max_island_rows, stats.largest_island_rows);
    summary.max_iterations = std::max(summary.max_iterations, stats.iterations);
    summary.total_iterations += static_cast<std::uint64_t>(std::max(stats.iterations, 0));
    summary.total_pivots += static_cast<std::uint64_t>(std::max(stats.pivots, 0));
    summary.max_residual = std::max(summary.max_residual, stats.residual);
    summary.max_relative_residual = std::max(summary.max_relative_residual, stats.relative_residual);
    summary.missed_islands += static_cast<std::uint64_t>(std::max(stats.missed_islands, 0));
    summary.steps_missed += stats.missed_islands > 0;
    summary.newton_islands += static_cast<std::uint64_t>(std::max(stats.newton_islands, 0));
    summary.newton_capped += static_cast<std::uint64_t>(std::max(stats.newton_capped, 0));
    summary.total_factorizations += static_cast<std::uint64_t>(std::max(stats.factorizations, 0));
    summary.max_workspace_bytes = std::max<std::uint64_t>(summary.max_workspace_bytes, stats.workspace_bytes);
}

// The result's energy and momenta are sums of squares and products of the state, so a finite state can
// still overflow them (speeds above ~1e154 m/s, heights near 1e308 m, huge gravity): a run that ends there
// fails, naming the figures, rather than writing them as null.
void require_finite_totals(const SceneWorld& sw, RunReport& report) {
    const Energy energy = sw.world.energy();
    const Vec3 momentum = sw.world.linear_momentum(), angular = sw.world.angular_momentum(Vec3::Zero());
    if (std::isfinite(energy.kinetic) && std::isfinite(energy.potential) && momentum.allFinite() &&
        angular.allFinite())
        return;
    std::ostringstream message;
    message.precision(6);
    message << "the state after step " << report.steps << " (t = " << report.time
            << " s) is finite but its totals are not (kinetic energy " << energy.kinetic
            << " J, potential energy " << energy.potential << " J, momentum " << momentum.stableNorm()
            << " kg m/s, angular momentum " << angular.stableNorm()
            << " kg m^2/s): speeds, positions or gravity too large for doubles";
    report.ok = false;
    report.failed_step = report.steps;
    report.error = message.str();
}

// Decides which steps go into the trajectory: the first step at or past each multiple of `interval`.
class Sampler {
  public:
    Sampler(std::optional<double> interval, double dt)
        : interval_(interval.value_or(0)), tolerance_(1e-6 * dt) {}

    bool due(double time) {
        if (interval_ <= 0) return true;
        // time = steps * dt and k * interval are each a few ulps off; tolerance_ (a millionth of a step)
        // keeps an exact multiple from being missed by rounding. Up to kMaxSteps steps that is still several
        // ulps.
        if (time + tolerance_ < static_cast<double>(next_) * interval_) return false;
        next_ = static_cast<std::uint64_t>(std::floor((time + tolerance_) / interval_)) + 1;
        return true;
    }

  private:
    double interval_;
    double tolerance_;
    std::uint64_t next_ = 1;
};

}  // namespace

std::size_t SceneStepper::index_of(BodyId id) const {
    return id.index < scene_index_.size() ? scene_index_[id.index] : kSceneWorld;
}

bool SceneStepper::step(const SceneDesc& scene, SceneWorld& sw) {
    // Events name bodies by scene index; a fresh world gives slot i to the i-th body, but the map does not
    // rely on it.
    for (; indexed_bodies_ < sw.bodies.size(); ++indexed_bodies_) {
        const std::size_t slot = sw.bodies[indexed_bodies_].index;
        if (slot >= scene_index_.size()) scene_index_.resize(slot + 1, kSceneWorld);
        scene_index_[slot] = indexed_bodies_;
    }
    const Status status = sw.world.step(scene.dt);
    report_.steps = sw.world.step_count();
    report_.time = sw.world.time();
    for (const ContactEvent& e : sw.world.contact_events()) {
        if (e.type == ContactEvent::Type::persist) continue;  // results list begins and ends
        const std::size_t a = index_of(e.a), b = index_of(e.b);
        report_.events.push_back({e.time, e.type, std::min(a, b), std::max(a, b)});
    }
    if (!status) {
        // A failed step is not counted by the world (it is put back to the last good state), so the failed
        // step's number is the next one.
        const std::uint64_t n = sw.world.step_count() + 1;
        report_.ok = false;
        report_.failed_step = n;
        if (const std::optional<BodyId> body = sw.world.non_finite_body())
            report_.failed_body = index_of(*body);
        if (const std::optional<CablePoint> point = sw.world.non_finite_cable_point()) {
            const auto at = std::find(sw.cables.begin(), sw.cables.end(), point->cable);
            if (at != sw.cables.end()) {
                report_.failed_cable = static_cast<std::size_t>(at - sw.cables.begin());
                report_.failed_cable_point = point->index;
            }
        }
        std::ostringstream message;
        message.precision(6);
        const double step_end = static_cast<double>(n) * scene.dt;
        if (report_.failed_body != kSceneWorld)
            message << "body " << scene_detail::json_quoted(scene.bodies[report_.failed_body].name)
                    << " became non-finite at step " << n << " (t = " << step_end << " s)";
        else if (report_.failed_cable != kSceneWorld)
            message << "cable " << scene_detail::json_quoted(scene.cables[report_.failed_cable].name)
                    << " point " << report_.failed_cable_point << " became non-finite at step " << n
                    << " (t = " << step_end << " s)";
        else
            message << "step " << n << " (t = " << step_end << " s) failed: " << status.error().message;
        report_.error = message.str();
        return false;
    }
    aggregate(report_.solver, sw.world.solver_stats());
    report_.max_joint_error = std::max(report_.max_joint_error, sw.world.max_joint_error());
    return true;
}

RunReport run_scene(const SceneDesc& scene, SceneWorld& sw, const RunOptions& options) {
    const std::uint64_t total = step_count(scene.duration, scene.dt);
    SceneStepper stepper;
    auto sample = [&] {
        if (options.trajectory) *options.trajectory << trajectory_line(scene, sw) << '\n';
        if (options.on_sample) options.on_sample(sw);
    };
    const bool sampling = options.trajectory || options.on_sample;
    if (sampling) sample();
    Sampler sampler(scene.sample_every, scene.dt);
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t n = 1; n <= total; ++n) {
        if (!stepper.step(scene, sw)) break;
        if (sampling && sampler.due(stepper.report().time)) sample();
        if (options.after_step) options.after_step(sw, n, total);
    }
    RunReport report = std::move(stepper.report());
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (report.ok) require_finite_totals(sw, report);
    if (options.trajectory) options.trajectory->flush();
    return report;
}

}  // namespace simpulse
