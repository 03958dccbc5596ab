// Internal state of the Solver: the step's rows, islands and warm-start caches (Solver::Impl), and the
// island workers that solve islands, one per thread, each with its own scratch and statistics.
#pragma once

#include "blcp.h"
#include "joints/joint_rows.h"
#include "newton.h"
#include "rows.h"

#include <simpulse/solver/solver.h>

#include <memory>
#include <vector>

namespace simpulse::detail {

struct WarmStart {
    std::uint64_t key = 0;
    double normal = 0;
    double tangent1 = 0;
    double tangent2 = 0;
    double twist = 0;
    Vec3 t1 = Vec3::Zero();
};

// The warm starts of one step, found by key (warm_start_cache.cpp): an open-addressing hash table over the
// entries in the order they were stored. No allocation once grown.
struct WarmStartCache {
    std::vector<WarmStart> entries;
    std::vector<std::uint32_t> slots;  // entry index + 1 per slot, 0 when empty; a power of two in size
    // Rebuilds the table over `entries`; of equal keys, the last entry is the one found.
    void index();
    const WarmStart* find(std::uint64_t key) const;
};

// Where a contact's rows ended up, for the position projection and the warm-start cache.
struct ContactRows {
    std::int32_t normal = -1;   // global row index
    std::int32_t tangent = -1;  // first of two tangent rows, or -1
    std::int32_t spread = -1;   // its rows' RowSpread in Solver::Impl::spreads, or -1
    // Spread sides: sum of w_i x_i of their point masses at the solve (the projection moves the contact point
    // on that side by the change of this sum).
    Vec3 spread_origin_a = Vec3::Zero();
    Vec3 spread_origin_b = Vec3::Zero();
    Vec3 local_a = Vec3::Zero();  // contact point relative to A's centre of mass, A's body frame
    Vec3 local_b = Vec3::Zero();
    // Restitution at a speculative contact whose gap closed inside the step: the bodies bounced at the moment
    // of impact, not at the start of the step, so the projection moves them closer by (1 + e) * gap.
    double restitution_pull = 0;
};

// The points a joint's rows act at, relative to its bodies' centres of mass (world frame, at the solve), for
// the curvature of their paths over the step (exact mode); for a distance joint also its direction and length
// (the centripetal part of its target).
struct JointLevers {
    std::uint32_t body_a = 0;
    std::uint32_t body_b = 0;
    Vec3 lever_a = Vec3::Zero();
    Vec3 lever_b = Vec3::Zero();
    JointType type = JointType::ball;
    Vec3 direction = Vec3::Zero();
    double length = 0;
    double limit_restitution = 0;  // of its limit rows (JointLimit::restitution)
};

// The restitution coefficient of a row: its contact's or its joint limit's; 0 for the other kinds.
inline double row_restitution(const Row& r, std::span<const ContactConstraint> contacts,
                              std::span<const JointLevers> joints) {
    if (r.kind == RowKind::normal) return contacts[r.source].restitution;
    if (r.kind == RowKind::limit) return joints[r.source].limit_restitution;
    return 0;
}

// Warm-start slots per joint: the most rows a joint has (its type's rows, limits and motor).
inline constexpr std::size_t kJointSlots = static_cast<std::size_t>(kMaxJointRows);

// Momentum, angular momentum (about the origin), kinetic energy, mass, centre of mass and inertia tensor
// about it of a set of bodies (world frame).
struct IslandMotion {
    Vec3 momentum = Vec3::Zero();
    Vec3 angular_momentum = Vec3::Zero();
    double kinetic_energy = 0;
    double mass = 0;
    Vec3 centre = Vec3::Zero();
    Mat3 inertia = Mat3::Zero();
};
IslandMotion island_motion(std::span<const SolverBody> bodies, std::span<const std::uint32_t> island);

// One island's state through the phases of solve_exact.
struct IslandPass {
    bool may_bounce = false;          // some contact may restitute in phase 2
    bool jointed = false;             // the island has joint rows
    bool curved = false;              // its joints get curvature targets this step
    bool targets_in_phase_1 = false;  // ... already in the inelastic phase (no contact may bounce)
    bool reachable = false;           // the joint targets were made reachable (redundant rows)
    int cycles = -1;                  // joints on a cycle of the body graph: unknown (-1), no (0), yes (1)
    bool plain_from_now = false;      // the joints keep J v = 0 for the next steps
    double residual_before = 0;       // stats.residual before the island: an undone solve leaves no trace
    double energy_before_impact = 0;  // kinetic energy of the island's bodies before the solve (may_bounce)
    BlcpResult phase_1;
};

// Saved velocities of a set of bodies, each once (an island's bodies). Restoring them is exact, where
// applying impulse differences loses the velocities to rounding after huge impulses (a direct method that
// blew up).
struct BodyVelocities {
    std::vector<std::uint32_t> body;  // ascending
    std::vector<Vec3> velocity, angular_velocity;
    std::vector<std::uint8_t> listed;  // per body of the world: met by collect (all 0 between calls)
    // The bodies the rows read, each once, and their velocities now.
    void collect(std::span<const Row> rows, std::span<const SolverBody> bodies);
    void save(std::span<const SolverBody> bodies);  // the same bodies' velocities now
    void restore(std::span<SolverBody> bodies) const;
};

// One answer of an island: its rows' impulses and its bodies' velocities, which hold them.
struct IslandAnswer {
    std::vector<double> lambda;
    BodyVelocities velocities;
};

// Solves islands of the exact mode through the phases of solve_exact. Every island touches only its own rows,
// contacts, joints and movable bodies, so workers on different threads solve different islands at once; a
// worker's scratch carries nothing from one island to the next that changes an answer, so the results do not
// depend on which worker (or how many) solved an island. The references are the Solver's shared per-row,
// per-contact and per-joint arrays; a worker writes only the entries of its island.
struct IslandWorker {
    IslandWorker(std::vector<Row>& rows_, std::vector<ContactRows>& contact_rows_,
                 std::vector<std::int32_t>& local_index_, const std::vector<JointLevers>& joint_levers_,
                 std::vector<std::uint8_t>& joint_plain_steps_, std::vector<std::uint8_t>& joint_redundant_,
                 const std::vector<RowSpread>& spreads_)
        : rows(rows_),
          contact_rows(contact_rows_),
          local_index(local_index_),
          spreads(spreads_),
          joint_levers(joint_levers_),
          joint_plain_steps(joint_plain_steps_),
          joint_redundant(joint_redundant_) {}

    std::vector<Row>& rows;  // all rows of the step, global order
    std::vector<ContactRows>& contact_rows;
    std::vector<std::int32_t>& local_index;  // global row -> index within its island
    // The step's point-mass terms (Solver::Impl::spreads): empty when no cable touches anything, so islands
    // need not look for spread rows.
    const std::vector<RowSpread>& spreads;
    const std::vector<JointLevers>& joint_levers;
    // Per joint: steps left during which it keeps J v = 0, because its curvature targets did not fit the
    // spins the solve left (set_joint_targets).
    std::vector<std::uint8_t>& joint_plain_steps;
    // Per joint: its rows were redundant with others' (a hinge of two ball joints) when its island's targets
    // were last made reachable; such islands get reachable targets from the start of a step.
    std::vector<std::uint8_t>& joint_redundant;

    SolverStats stats;             // of the islands this worker solved in this step (Impl sums them)
    std::vector<Row> island_rows;  // rows of the island being solved, contiguous
    std::vector<double> approach;  // pre-solve w of the island's rows
    // The sweeps' answer of a mid-size island (try_iterative_first), kept if the direct polish fails.
    IslandAnswer iterative_answer;
    // The velocities of an island's bodies before a direct solve that may be undone (solve_island).
    BodyVelocities solve_start;
    // Answers of an island with cable contacts (solve_spread_island): the warm start, the best so far.
    IslandAnswer spread_start, spread_best;
    std::vector<Row> recheck_rows;
    BlcpWorkspace workspace;
    NewtonWorkspace newton;
    std::vector<double> raw_targets;  // set_joint_targets: the island's curvature targets
    // mark_joints_on_cycles: the island's joint graph (one edge per joint) and its bridges.
    std::vector<std::uint32_t> cycle_edge_rows;  // first island row of each edge's joint
    std::vector<std::uint32_t> graph_nodes;      // body index (or the ground) of each node, sorted
    std::vector<std::uint32_t> edge_ends;        // two node ids per edge
    std::vector<std::uint32_t> adjacency_start;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> adjacency;  // (neighbour node, edge)
    std::vector<std::uint32_t> dfs_cursor, discovery, low_link;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> dfs_stack;  // (node, edge it was reached by)
    std::vector<std::uint8_t> edge_on_cycle;
    std::vector<double> current_row_velocities;  // the island's row velocities before a further solve
    // limit_restitution.cpp: each island row's kick through the joints (limit rows) and the joint rows that
    // measure it.
    std::vector<double> limit_kick;
    std::vector<Row> kick_rows;
    std::vector<std::uint32_t> joint_row_index;  // make_joint_targets_reachable: the joint rows on cycles
    Eigen::MatrixXd joint_coupling;              // ... their A = J M^-1 J^T
    Eigen::VectorXd joint_rhs;
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> joint_decomposition;
    std::vector<double> phase_1_lambda;  // warm start of an island's phase 1
    // Energy safeguards of solve_exact: the island's bodies (each once) and their velocities before phase 1,
    // after it where the restitution phase follows.
    BodyVelocities guard;

    std::size_t workspace_bytes() const;  // workspace_memory.cpp
    // One island of solve_exact: the global rows order[begin, end) through all phases; their impulses go back
    // to `rows` (the next step's warm start).
    void solve(std::span<const std::uint32_t> order, std::uint32_t begin, std::uint32_t end,
               std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts, double dt,
               const SolverSettings& settings);

    // The phases of solve for one island (solver.cpp): island_rows from the global rows in `order`, then the
    // IslandPass through the inelastic, restitution and joint-target phases.
    void gather_island(std::span<const std::uint32_t> order, std::uint32_t begin, std::uint32_t end);
    IslandPass prepare_island(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                              double dt, const SolverSettings& settings);
    bool island_is_cyclic(IslandPass& pass, std::size_t body_count);
    void inelastic_phase(IslandPass& pass, std::span<SolverBody> bodies, const SolverSettings& settings);
    void undo_inelastic_phase(IslandPass& pass, std::span<SolverBody> bodies);
    void restitution_phase(IslandPass& pass, std::span<SolverBody> bodies,
                           std::span<const ContactConstraint> contacts, double dt,
                           const SolverSettings& settings);
    bool solve_joints_again(std::span<SolverBody> bodies, const SolverSettings& settings);
    void fit_joint_targets(IslandPass& pass, std::span<SolverBody> bodies, double dt,
                           const SolverSettings& settings);
    // Phase 2 of solve_exact for island_rows: restitution and re-checks (island_phases.cpp). True if any
    // contact restituted; adds to `allowance` what that may add to the energy before the impact.
    bool restitute(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts, double dt,
                   const SolverSettings& settings, double phase_1_residual, double& allowance);
    // The re-check rounds of phase 2 after restitution impulses were applied (island_phases.cpp).
    void recheck_restitution(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                             const SolverSettings& settings, double& allowance);
    // Exact mode: sets each joint row's target to cancel the curvature of its anchors' paths over a step of
    // length dt at the bodies' current angular velocities. True if some joint's old targets did not fit these
    // velocities: off, as a vector, by more than half the new one (unless `strict`) and by more than
    // `tolerance` (m/s).
    bool set_joint_targets(std::span<Row> island, std::span<const SolverBody> bodies, double dt,
                           double tolerance, bool strict = false);
    // Finds the island's joints that lie on a cycle of the graph of bodies and the ground (all static bodies
    // and the fixed frame are one node; two joints between the same bodies form a cycle): only their rows can
    // be redundant. True if there are any. Fills edge_on_cycle for make_joint_targets_reachable.
    bool mark_joints_on_cycles(std::span<const Row> island, std::size_t body_count);
    // Removes the part of the island's joint rows' right-hand sides (target - J v, with J v from
    // `row_velocities`, the velocities the next solve starts from) that no impulse can produce (redundant
    // rows: the two ball joints of a hinge both fix the motion along its axis): rhs <- A A^+ rhs over the
    // rows of the joints on cycles (mark_joints_on_cycles, called before for this island), A = J M^-1 J^T,
    // whose range is the range of J. Records in joint_redundant whether the rows were redundant; true if they
    // were (the targets changed).
    bool make_joint_targets_reachable(std::span<Row> island, std::span<const double> row_velocities);
    // recheck_rows = the island's normal and joint rows with lambda 0 (friction left out): a further solve on
    // top of the velocities the island has now.
    void rows_to_solve_again();
    // Largest distance of a joint row's velocity from its target, m/s.
    double joint_target_miss(std::span<const Row> island, std::span<const SolverBody> bodies) const;
    // Solves an island's BLCP by the direct method when small enough, else iteratively; polishes with the
    // iterative method if the active set does not settle.
    bool try_iterative_first(std::span<Row> island, std::span<SolverBody> bodies,
                             const SolverSettings& settings, BlcpResult& result);
    BlcpResult solve_spread_island(std::span<Row> island, std::span<SolverBody> bodies,
                                   const SolverSettings& settings);
    // Saves the island's impulses and its bodies' velocities; restore_answer puts both back exactly.
    void save_answer(std::span<const Row> island, std::span<const SolverBody> bodies,
                     IslandAnswer& answer) const;
    void restore_answer(std::span<Row> island, std::span<SolverBody> bodies,
                        const IslandAnswer& answer) const;
    BlcpResult solve_island(std::span<Row> island, std::span<SolverBody> bodies,
                            const SolverSettings& settings);
    // Energy safeguards of solve_exact (energy_guards.cpp). Phase 1: true if the island's impulses (rows'
    // lambda, already applied) are finite and raise its kinetic energy, 1/2 sum lambda_i (q_i + w_i) with q
    // the row velocities before the solve, by no more than a solution of the complementarity problem can (the
    // joints' targets) plus what its residual allows.
    bool inelastic_energy_ok(std::span<const Row> island, std::span<const double> before,
                             std::span<const SolverBody> bodies, double residual) const;
    // Re-solves island_rows (phase 1) from the velocities `guard` saved before it if its answer fails
    // inelastic_energy_ok.
    void guard_inelastic_phase(std::span<SolverBody> bodies, BlcpResult& phase_1,
                               const SolverSettings& settings);
    void remove_island_impulses(std::span<SolverBody> bodies);  // back to guard's velocities; lambda = 0
    double guard_kinetic_energy(std::span<const SolverBody> bodies) const;  // of guard's bodies
    // Restitution: blends the guard bodies back towards their saved velocities until the kinetic energy is at
    // most `limit`.
    void limit_restitution_energy(std::span<SolverBody> bodies, double limit);
    // Restitution at joint limits (limit_restitution.cpp): the external forces' kick along each limit row
    // through the island's joints (after guard.collect), and the share of a limit row's inelastic
    // impulse its restitution e gives back.
    void measure_limit_kicks(std::span<SolverBody> bodies, const SolverSettings& settings);
    double limit_rebound_factor(std::size_t i, std::span<const SolverBody> bodies, double e) const;
    // Adds an island's answer to stats: record counts it as a direct or iterative island, record_answer only
    // its iterations and residual (and a miss above the tolerance).
    void record(const BlcpResult& result, bool direct, const SolverSettings& settings);
    void record_answer(const BlcpResult& result, const SolverSettings& settings);
    // Islands above direct_max_rows: the iterative method, then the Newton method where it ends above
    // iterative_tolerance.
    BlcpResult solve_large_island(std::span<Row> island, std::span<SolverBody> bodies,
                                  const SolverSettings& settings);
    // The Newton method (newton.h) from the rows' impulses, which the bodies' velocities do not contain;
    // records the Newton island, its factorisations and relative residual in stats (not its answer). `cable`:
    // the island has rows with point-mass terms, solved with their own schedule (newton.cpp).
    BlcpResult solve_newton(std::span<Row> island, std::span<SolverBody> bodies,
                            const SolverSettings& settings, int earlier_iterations, bool cable);
};
}  // namespace simpulse::detail

namespace simpulse {

struct Solver::Impl {
    SolverStats stats;
    std::vector<detail::Row> rows;           // all rows of the step, global order
    std::vector<detail::RowSpread> spreads;  // point-mass terms of the cable contacts' rows (Row::spread)
    std::vector<detail::ContactRows> contact_rows;
    std::vector<std::int32_t> local_index;  // global row -> index within its island
    std::vector<detail::Row> frictions;     // thesis mode: sliding friction impulses of a round
    std::vector<std::uint32_t> recheck_source;
    detail::IslandBuilder islands;
    std::vector<double> contact_impulse;  // per input contact, see Solver::contact_impulses
    detail::WarmStartCache cache;         // impulses of the previous step
    detail::WarmStartCache next_cache;
    bool cache_replaced = false;  // the last solve swapped next_cache (now the cache before it) into cache
    // discard_last_solve(true): the discarded solve's impulses, the contacts' warm start of the next solve.
    detail::WarmStartCache discarded_cache;
    bool warm_from_discarded = false;
    // A contact's warm start for this solve (the discarded solve's with warm_from_discarded).
    const detail::WarmStart* warm_start_of(std::uint64_t key) const {
        return warm_from_discarded ? discarded_cache.find(key) : cache.find(key);
    }
    std::vector<detail::JointLevers> joint_levers;  // per joint, this step (exact mode)
    std::vector<double> joint_cache;          // joint row impulses of the previous step, kJointSlots each
    std::vector<JointImpulse> joint_impulse;  // per joint, of the last solve (Solver::joint_impulses)
    std::vector<double> joint_cache_before;   // joint_cache before the last solve (discard_last_solve)
    // Per joint: steps left during which it keeps J v = 0, because its curvature targets did not fit the
    // spins the solve left (exact mode; set_joint_targets).
    std::vector<std::uint8_t> joint_plain_steps;
    std::vector<std::uint8_t> joint_plain_steps_before;
    // Per joint: its rows were redundant with others' (a hinge of two ball joints) when its island's targets
    // were last made reachable; such islands get reachable targets from the start of a step.
    std::vector<std::uint8_t> joint_redundant;
    std::vector<std::uint8_t> joint_redundant_before;
    std::vector<SolverBody> scratch_bodies;  // pseudo-velocities of the position projection
    std::vector<Vec3> saved_positions;       // line search of the position projection
    std::vector<Quat> saved_orientations;
    // The position projection's isolated islands (no static body, no fixed frame): their bodies, island k's
    // in isolated_bodies[isolated_offsets[k], isolated_offsets[k + 1]), and their motion before it.
    std::vector<std::uint32_t> isolated_bodies;
    std::vector<std::uint32_t> isolated_offsets;
    std::vector<detail::IslandMotion> isolated_before;
    std::vector<std::uint32_t> body_stamp;
    // One island worker per thread of the last parallel solve (at least one). The thesis mode and the
    // position projection, which run on one thread, borrow the first worker's row and BLCP scratch.
    std::vector<std::unique_ptr<detail::IslandWorker>> workers;
    std::vector<std::uint32_t> island_schedule;  // islands, largest first, for the parallel solve

    Impl();
    Impl(const Impl&) = delete;  // the workers refer to the arrays above
    Impl& operator=(const Impl&) = delete;
    void add_worker();
    // Bytes held by the buffers, scratch and factorisations above (workspace_memory.cpp).
    std::size_t workspace_bytes() const;
    void build_rows(std::span<const SolverBody> bodies, std::span<const ContactConstraint> contacts,
                    std::span<const JointConstraint> joints, double dt, const SolverSettings& settings);
    // build_rows' parts (solver.cpp): the rows of one contact patch contacts[patch_begin, last), its friction
    // rows, and the joints' rows.
    void add_patch_rows(std::span<const SolverBody> bodies, std::span<const ContactConstraint> contacts,
                        std::size_t patch_begin, std::size_t last, double dt, const SolverSettings& settings);
    void add_patch_friction(std::span<const SolverBody> bodies, std::span<const ContactConstraint> contacts,
                            std::size_t patch_begin, std::size_t last, std::int32_t first_normal,
                            const Vec3& centre, const SolverSettings& settings);
    void add_joint_rows(std::span<const SolverBody> bodies, std::span<const JointConstraint> joints,
                        double dt, const SolverSettings& settings);
    void solve_exact(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts, double dt,
                     const SolverSettings& settings);
    // The next step's warm starts from the rows' impulses (cache, joint_cache).
    void store_warm_starts(std::span<const ContactConstraint> contacts);
    void solve_thesis(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                      std::span<const JointConstraint> joints, double dt, const SolverSettings& settings);
    void project(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                 std::span<const JointConstraint> joints, const SolverSettings& settings);
    // project's parts (position_projection.cpp).
    struct ProjectionError {
        double joint = 0;               // largest joint error, m (rotational errors in rad)
        bool contact_violated = false;  // a contact deeper than its goal (or a pulled one off it)
    };
    void projection_goals(std::span<const SolverBody> bodies, std::span<const ContactConstraint> contacts,
                          const SolverSettings& settings, std::vector<double>& goal) const;
    bool contacts_need_projection(std::span<const SolverBody> bodies,
                                  std::span<const ContactConstraint> contacts,
                                  std::span<const double> goal) const;
    ProjectionError projection_rows(std::span<const SolverBody> bodies,
                                    std::span<const ContactConstraint> contacts,
                                    std::span<const JointConstraint> joints, std::span<const double> goal);
    void solve_displacements(std::span<const SolverBody> bodies, const SolverSettings& settings);
    void move_bodies(std::span<SolverBody> bodies, std::span<const JointConstraint> joints);
    void record_isolated_islands(std::span<const SolverBody> bodies);
    void keep_angular_momentum(std::span<SolverBody> bodies);
};

}  // namespace simpulse
