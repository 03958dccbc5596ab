// Public solver configuration: the method (thesis or exact), its numerical options, the statistics of a
// step, and the joint types the solver holds. Part of the installed API (WorldSettings::solver,
// World::solver_stats, JointDesc::type).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace simpulse {

enum class SolverMode {
    thesis,  // Ermolin's method as stated in the thesis (linear system of the penetrating points, SVD-like
             // solve)
    exact,   // the same simultaneous system made complementarity-correct, with Coulomb friction (default)
};

const char* to_string(SolverMode mode);
std::optional<SolverMode> parse_solver_mode(std::string_view name);

// What a joint holds between two bodies (or a body and the fixed world frame). Each type's rows, Jacobian and
// position error are in solver/src/joints/<type>_joint.cpp.
enum class JointType {
    ball,      // one point of A and one of B coincide (3 rows)
    hinge,     // ... and the bodies turn only about the joint axis (5 rows)
    fixed,     // the bodies move as one (weld, 6 rows)
    slider,    // the bodies translate only along the joint axis and do not turn (prismatic, 5 rows)
    distance,  // two anchor points keep their distance within [min, max] (rod when min = max, else a rope)
    planar,    // A's anchor stays in B's plane through B's anchor across the joint axis, and A turns relative
               // to B only about that axis (3 rows; a planar world holds every body so against the world)
};

const char* to_string(JointType type);
std::optional<JointType> parse_joint_type(std::string_view name);

// A joint's limit: a hinge's angle (rad, in [-pi, pi]) or a slider's travel (m) stays in [lower, upper] when
// `enabled` (both 0 at the configuration where the joint was added; an infinite bound is no bound).
// `restitution` (in [0, 1]) is the share of the approach speed the joint leaves the limit with when it
// reaches it in an impact; it also applies to a distance joint's min and max length (rope and strut).
struct JointLimit {
    bool enabled = false;
    double lower = 0;
    double upper = 0;
    double restitution = 0;
};

// A joint's motor (hinge and slider): drives the angle's or travel's rate towards `speed` (rad/s or m/s)
// with at most `max_force` (N m for a hinge, N for a slider; >= 0) when `enabled`.
struct JointMotor {
    bool enabled = false;
    double speed = 0;
    double max_force = 0;
};

struct SolverSettings {
    SolverMode mode = SolverMode::exact;
    // Approach speeds below this get no restitution (resting contact), m/s. The effective threshold is never
    // below 2 |g| dt, the speed a resting body gains from gravity in one step, so resting bodies do not
    // bounce.
    double restitution_threshold = 0.05;
    // Every island solve aims at this largest complementarity violation (m/s; torsional rows at their patch
    // radius) and reports what it reached; SolverStats counts the islands that ended above it.
    double tolerance = 1e-9;
    // Islands with at most this many constraint rows are solved by the direct method (active set with a dense
    // or sparse LDL^T factorisation); larger islands by the iterative method on the same system, and by the
    // Newton method (newton.cpp) where the sweeps end above iterative_accept.
    int direct_max_rows = 96;
    // Islands with more rows than this (and at most direct_max_rows) try the iterative method first and
    // keep its answer if it reaches iterative_tolerance; the direct method takes over where it does not.
    int direct_first_max_rows = 48;
    // Direct islands up to this many rows use a dense factorisation, larger ones a sparse one.
    int dense_max_rows = 96;
    int max_active_set_iterations = 30;
    // Iterative method: sweeps stop at iterative_tolerance (m/s) or after max_iterations. An island above
    // direct_max_rows whose sweeps end within iterative_accept (m/s) keeps their answer, and counts as missed
    // if that is above `tolerance`; otherwise the Newton method solves it to `tolerance`. The sweeps stall on
    // long load paths (tall stacks, heavy bodies on light ones, heaps), whose answers ended at 0.0088-0.12
    // m/s and let towers collapse; they end within 1e-3 m/s on loosely coupled islands of sliding bodies
    // (rows of leaning dominoes), where the Newton method costs 3-6 times the whole run (docs/BENCHMARKS.md).
    // iterative_accept = 0 (or at most `tolerance`) makes every island solve aim at `tolerance`.
    double iterative_tolerance = 1e-5;
    double iterative_accept = 1e-3;
    int max_iterations = 60;
    // Newton method: numeric factorisations per island solve at most, and 20 times as many Newton steps
    // (those that reuse a factorisation included); an island still above `tolerance` then keeps the iterate
    // with the smallest residual. Within a world step, an island holding a body of an island whose Newton
    // solve stopped at its caps (these, or 200 proximal iterations) in an earlier substep gets a tenth of
    // them, at least 1 (SolverBody::newton_capped, solver/src/island_method.cpp).
    int newton_max_factorizations = 100;
    // Newton method: islands with more bodies (cable control points included) keep their sweeps' answer
    // (counted as missed). A landing heap
    // of 1,000 boxes (one island of 30,000 rows) takes the Newton method its 100 factorisations of 0.1 s each
    // per step without reaching 1e-9 m/s, where the sweeps take 10 ms (docs/BENCHMARKS.md, "Large islands").
    int newton_max_bodies = 256;
    bool warm_start = true;
    // Threads that solve the islands of a step in parallel (exact mode). The results are bit-identical for
    // any count: each island is solved by one thread from the same inputs. The workers are OpenMP threads:
    // under libgomp's default wait policy an idle worker spins for a while before it sleeps, so it holds its
    // core through much of the step's serial part (collision); OMP_WAIT_POLICY=passive in the environment
    // makes it sleep at once, for a little wall time (docs/reliability.md, "Soak").
    int threads = 1;
    // Friction pyramid: 4 facets (two tangent rows with box bounds mu * lambda_n).
    // Position projection (exact mode): penetration allowed without correction, and the fraction of the
    // remaining penetration removed per step (1 = all at once); joints are always projected to convergence.
    double penetration_slop = 0.0005;
    double penetration_correction = 0.8;
    // Largest position correction per contact per step, m; in mode thesis the largest joint drift a joint
    // row's target corrects per step.
    double max_correction = 0.02;
    double joint_tolerance = 1e-9;  // m
    // A cap, not a count: most steps converge in a few. 20 left one step of the S4 chain (1:1000, 1/60 s) at
    // 2.8e-5 m once split substeps restagger their velocities (bench_scenes --scenes s4); 40 converges there.
    int max_projection_iterations = 40;
    // How many times the re-check loop may solve again for points that became approaching after the
    // restitution impulses (both modes).
    int recheck_iterations = 8;
};

struct SolverStats {
    int islands = 0;
    int rows = 0;  // constraint rows of all islands
    int largest_island_rows = 0;
    int direct_islands = 0;
    int iterative_islands = 0;
    int newton_islands = 0;
    int factorizations = 0;  // numeric factorisations of the Newton method, summed over islands
    int newton_capped = 0;   // Newton solves stopped by their caps short of the tolerance
    int missed_islands = 0;  // island solves (restitution and joint-target rounds included) that ended
                             // above SolverSettings::tolerance
    // Largest violation in impulse terms (violation / A_ii) relative to the island's largest impulse.
    double relative_residual = 0;
    // Memory the solver holds after the solve (row buffers, scratch, factorisations), bytes: the peak over
    // all solves so far, as buffers are reused and never shrink.
    std::size_t workspace_bytes = 0;
    int iterations = 0;      // active-set iterations (direct) plus sweeps (iterative), summed over islands
    int pivots = 0;          // active-set changes, summed
    double residual = 0;     // largest complementarity residual of an island after its solve, m/s
    int recheck_rounds = 0;  // extra solves for points that became penetrating (restitution phase)
    // Exact mode: extra solves of jointed islands for their joint targets (the curvature of the anchors'
    // paths over the step): after a bounce, and where the targets did not fit the spins the solve left or
    // could not be reached (then solved again with J v = 0).
    int joint_target_rounds = 0;
    // Exact mode: the widest open gap (m, speculative contact) across which a restitution impulse acted in
    // this solve. Such an impact is resolved before the bodies touch; the position projection places the pair
    // where the bounce would have left it, but the impulses it passes on act from the step's start
    // configuration.
    double impact_gap = 0;
    int projection_iterations = 0;
    // Exact mode, energy safeguards (never triggered by a converged, consistent solve): islands whose
    // inelastic phase raised their kinetic energy beyond what its residual and joint targets allow (solved
    // again iteratively, or left without impulses) or gave non-finite impulses, and islands whose restitution
    // phase (e lambda and the re-check loop) ended with more kinetic energy than before the impact (its
    // restitution impulses scaled back until it does not).
    int inelastic_energy_guards = 0;
    int restitution_energy_guards = 0;
    double joint_drift = 0;  // largest joint separation before the position projection, m
    double joint_error = 0;  // largest joint separation after the position projection, m
};

}  // namespace simpulse
