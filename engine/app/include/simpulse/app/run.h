// Running a scene: building a World from a scene description, stepping it for the scene's duration while
// collecting contact events (by body, in scene order) and trajectory samples, and writing the result document
// (docs/scene-format.md). The command line is a thin layer over these functions.
//
//   auto scene = simpulse::load_scene("scenes/projectile.json");
//   auto world = simpulse::build_world(scene.value());
//   simpulse::RunReport report = simpulse::run_scene(scene.value(), world.value());
//   std::string json = simpulse::result_json(scene.value(), world.value(), report);
#pragma once

#include <simpulse/app/scene.h>
#include <simpulse/world.h>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace simpulse {

// A World built from a scene, with the handles of its bodies, joints, springs and cables in scene order.
struct SceneWorld {
    World world;
    std::vector<BodyId> bodies;
    std::vector<JointId> joints;
    std::vector<SpringId> springs;
    std::vector<CableId> cables;
};

// Creates the materials, bodies, joints, springs and cables of the scene. Fails with "FILE: /pointer:
// message" if the World rejects an entry that the reader accepted.
Result<SceneWorld> build_world(const SceneDesc& scene);

// The World's description of a scene joint; `bodies` are the handles of the scene's bodies (SceneWorld).
JointDesc joint_desc(const SceneJoint& joint, const std::vector<BodyId>& bodies);

// A contact event with the two bodies as scene indices, a < b.
struct SceneEvent {
    double time = 0;  // simulated time at the end of the step in which it happened
    ContactEvent::Type type = ContactEvent::Type::begin;
    std::size_t a = 0;
    std::size_t b = 0;
};

// Solver statistics (World::solver_stats) aggregated over the steps of a run.
struct SolverSummary {
    int max_islands = 0;
    int max_rows = 0;
    int max_island_rows = 0;
    int max_iterations = 0;  // in one step
    std::uint64_t total_iterations = 0;
    std::uint64_t total_pivots = 0;
    double max_residual = 0;           // m/s
    double max_relative_residual = 0;  // violation / A_ii over the island's largest impulse
    std::uint64_t missed_islands = 0;  // island solves that ended above SolverSettings::tolerance
    std::uint64_t steps_missed = 0;    // steps with at least one such island
    std::uint64_t newton_islands = 0;
    std::uint64_t newton_capped = 0;  // Newton solves stopped by their caps above the tolerance
    std::uint64_t total_factorizations = 0;
    std::uint64_t max_workspace_bytes =
        0;  // memory the solver held at its peak (SolverStats::workspace_bytes)
};

struct RunReport {
    std::uint64_t steps = 0;  // steps the world completed (World::step_count)
    double time = 0;          // simulated time the world reached, s
    double wall_seconds = 0;
    std::vector<SceneEvent> events;
    double max_joint_error = 0;  // largest joint anchor separation after any step, m
    SolverSummary solver;
    bool ok = true;
    // When !ok: what went wrong, e.g. `body "ball" became non-finite at step 12 (t = 0.05 s)`.
    std::string error;
    std::uint64_t failed_step = 0;          // number of the step that failed (1-based)
    std::size_t failed_body = kSceneWorld;  // scene index of the body named in `error`, if any
    // Or the cable (scene index) and its control point named in `error`.
    std::size_t failed_cable = kSceneWorld;
    std::size_t failed_cable_point = 0;
};

struct RunOptions {
    std::ostream* trajectory = nullptr;  // receives JSON Lines (see trajectory_line); none if null
    // Called with the world at each trajectory sample (the same states as the trajectory's lines, whether or
    // not a trajectory is written): the replay's Recording (replay.h) is filled from it.
    std::function<void(const SceneWorld& world)> on_sample;
    // Called after every successful step with the number of steps done and the total.
    std::function<void(const SceneWorld& world, std::uint64_t step, std::uint64_t total)> after_step;
};

// Steps a scene's world one step of scene.dt at a time and collects what a run reports: contact events by
// scene index, solver statistics, the largest joint error, the failed step. run_scene is a loop over it; the
// Python module takes as many steps with it as it is asked for. Bodies added to the world and the scene after
// some steps (SceneWorld::bodies and SceneDesc::bodies in step) are picked up at the next step.
class SceneStepper {
  public:
    // One step; false if it failed (a body's state became non-finite): report().ok is then false, the error
    // names the body and the step, and the world keeps its last good state.
    bool step(const SceneDesc& scene, SceneWorld& world);
    const RunReport& report() const { return report_; }
    RunReport& report() { return report_; }

  private:
    std::size_t index_of(BodyId id) const;
    RunReport report_;
    std::vector<std::size_t> scene_index_;  // world body slot -> scene index
    std::size_t indexed_bodies_ = 0;        // SceneWorld::bodies covered by scene_index_
};

// Takes step_count(scene.duration, scene.dt) steps of scene.dt. The trajectory gets the initial state, then
// the state after the first step at or past each multiple of scene.sample_every (after every step without
// one). Stops at the first step that fails (a body's state became non-finite); the world keeps the last good
// state, the one before that step. A run whose state stays finite but whose final energy or momenta overflow
// fails too.
RunReport run_scene(const SceneDesc& scene, SceneWorld& world, const RunOptions& options = {});

// The result document (--out): JSON, one top-level key per line and one line per event and per body, with a
// final newline. Non-finite numbers appear as null.
std::string result_json(const SceneDesc& scene, const SceneWorld& world, const RunReport& report);

// 64-bit FNV-1a hash of the bit patterns of every body's pose, velocity and angular velocity, in scene order,
// then of every cable's control points and their velocities (nothing for a scene without cables): equal
// hashes at equal steps mean bit-identical runs (`simpulse run --hash-every N`).
std::uint64_t state_hash(const SceneWorld& world);

// The current state as one trajectory line, without the newline: {"t": ..., "bodies": [...]}, and
// "cables": [...] when the scene has cables.
std::string trajectory_line(const SceneDesc& scene, const SceneWorld& world);

}  // namespace simpulse
