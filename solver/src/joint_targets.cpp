// Exact mode: the targets of joint rows. A joint's rows ask its anchors' relative velocity to cancel the
// curvature of their paths over the step (angular rows: no change) (the first half of SHAKE/RATTLE, so a
// joint's rotation keeps its energy), and targets that redundant rows (a hinge of two ball joints) cannot all
// reach are projected onto what impulses can produce, for the joints that lie on cycles of the joint graph
// (Tarjan's bridges).
#include "solver_impl.h"

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// Where a point of a body rotating at its current angular velocity ends a step of length dt, relative to
// where the start velocity of that point would take it: (R(w dt) - 1) r - dt w x r with r from the centre of
// mass (the integrator turns bodies by exactly R(w dt)). Second order in dt: the sagitta of the point's arc,
// dt^2 |w|^2 |r| / 2 towards the axis, plus a third-order part along the arc.
Vec3 arc_offset(std::span<const SolverBody> bodies, std::uint32_t body, const Vec3& lever, double dt) {
    if (body == kFixedFrame || body >= bodies.size() || !detail::movable(bodies[body])) return Vec3::Zero();
    const Vec3 turn = dt * bodies[body].angular_velocity;
    const double angle = turn.norm();
    if (!(angle > 0)) return Vec3::Zero();
    const Vec3 axis = turn / angle;
    const double half_sine = std::sin(0.5 * angle);
    // cos - 1 = -2 sin^2(angle / 2): no cancellation at small angles.
    return -2 * half_sine * half_sine * (lever - axis.dot(lever) * axis) +
           (std::sin(angle) - angle) * axis.cross(lever);
}

Vec3 point_velocity(std::span<const SolverBody> bodies, std::uint32_t body, const Vec3& lever) {
    if (body == kFixedFrame || body >= bodies.size() || !detail::movable(bodies[body])) return Vec3::Zero();
    return bodies[body].velocity + bodies[body].angular_velocity.cross(lever);
}

// A distance joint's anchors, moved apart by u over the step (their relative velocity and the curvature of
// their arcs), keep their distance L when n . u = -|u_perp|^2 / (2 L) to second order (|x + u| = L with x =
// L n): the speed the row's target lowers by that, |u_perp|^2 / (2 L dt). Zero for the other joint types,
// whose rows hold anchors together.
double distance_centripetal_speed(std::span<const SolverBody> bodies, const detail::JointLevers& j,
                                  const Vec3& curvature, double dt) {
    if (j.type != JointType::distance || !(j.length > 0)) return 0;
    const Vec3 u =
        dt * (point_velocity(bodies, j.body_b, j.lever_b) - point_velocity(bodies, j.body_a, j.lever_a)) +
        curvature;
    const Vec3 across = u - u.dot(j.direction) * j.direction;
    return across.squaredNorm() / (2 * j.length * dt);
}

// A hinge's angular row along p (perpendicular to the axis, turning with A) measures p . (a x b), which after
// a step of constant spins w_a, w_b is p . theta with theta = log(exp(-dt w_a) exp(dt w_b)) = dt (w_b - w_a)
// + dt^2 / 2 (w_b x w_a) + O(dt^3) (Baker-Campbell-Hausdorff): the row keeps the axes aligned to third order
// when p . (w_b - w_a) = dt / 2 p . (w_a x w_b). Without it, a hinge whose bodies both tumble opens by the
// second-order term every step and the projection takes its energy. A planar joint's angular rows are the
// hinge's (p turning with B differs at third order). Zero for the other types' angular rows: they hold
// w_b = w_a, where the term vanishes.
double hinge_twist_speed(std::span<const SolverBody> bodies, const detail::JointLevers& j,
                         const detail::Row& r, double dt) {
    if (j.type != JointType::hinge && j.type != JointType::planar) return 0;
    auto spin = [&](std::uint32_t body) {
        return body == kFixedFrame || body >= bodies.size() || !detail::movable(bodies[body])
                   ? Vec3(Vec3::Zero())
                   : bodies[body].angular_velocity;
    };
    const Vec3 axis = r.b != detail::kNoBody ? r.ang_b : Vec3(-r.ang_a);
    return 0.5 * dt * axis.dot(spin(j.body_a).cross(spin(j.body_b)));
}

}  // namespace

using detail::Row;
using detail::RowKind;

// With J v = 0 alone an anchor on a rotating body leaves its joint by the sagitta of its arc every step; the
// position projection pulls it back and the next step's J v = 0 removes the velocity that has turned radial:
// a loss of about (w dt)^2 of the kinetic energy per step (a pendulum released horizontally at 60 Hz lost 70
// % of its energy in 20 s). Asking the anchors' relative velocity to cancel the curvature instead makes the
// velocity solve the first half of SHAKE/RATTLE (the anchors end the step together to third order), which
// keeps the energy of a joint's rotation. The curvature depends on the angular velocities after the solve,
// which the caller checks (solve_exact).
bool detail::IslandWorker::set_joint_targets(std::span<Row> island, std::span<const SolverBody> bodies,
                                             double dt, double tolerance, bool strict) {
    // The targets are compared with the curvature targets of the previous call on this island (or, on the
    // first, with the rows' targets), not with targets made reachable since: the fit is a property of the
    // curvature alone.
    if (raw_targets.size() != island.size()) {
        raw_targets.resize(island.size());
        for (std::size_t i = 0; i < island.size(); ++i) raw_targets[i] = island[i].target;
    }
    bool misfit = false;
    for (std::size_t i = 0; i < island.size();) {
        if (island[i].kind != RowKind::joint) {
            ++i;
            continue;
        }
        // A joint's rows are consecutive (build_rows adds them together and islands keep the order):
        // its curvature is computed once, and its targets are compared as one vector, so that the fit does
        // not depend on how the world's axes lie.
        const std::uint32_t joint = island[i].source;
        const detail::JointLevers& j = joint_levers[joint];
        const Vec3 curvature =
            arc_offset(bodies, j.body_b, j.lever_b, dt) - arc_offset(bodies, j.body_a, j.lever_a, dt);
        const double centripetal = distance_centripetal_speed(bodies, j, curvature, dt);
        Vec3 change = Vec3::Zero(), targets = Vec3::Zero();
        for (; i < island.size() && island[i].kind == RowKind::joint && island[i].source == joint; ++i) {
            Row& r = island[i];
            const double target = r.dir.isZero(0) ? hinge_twist_speed(bodies, j, r, dt)
                                                  : -r.dir.dot(curvature) / dt - centripetal;
            change += (target - raw_targets[i]) * r.dir;
            targets += target * r.dir;
            r.target = raw_targets[i] = target;
        }
        misfit = misfit || (change.norm() > tolerance && (strict || change.norm() > 0.5 * targets.norm()));
    }
    return misfit;
}

bool detail::IslandWorker::mark_joints_on_cycles(std::span<const Row> island, std::size_t body_count) {
    // The joint graph: one node per body a joint touches and one for the ground (static bodies and the fixed
    // frame), one edge per joint (its rows are consecutive).
    const auto ground = static_cast<std::uint32_t>(body_count);
    auto node = [&](std::uint32_t body) { return body == detail::kNoBody ? ground : body; };
    cycle_edge_rows.clear();
    graph_nodes.clear();
    for (std::size_t i = 0; i < island.size(); ++i) {
        const Row& r = island[i];
        if (r.kind != RowKind::joint ||
            (i > 0 && island[i - 1].kind == RowKind::joint && island[i - 1].source == r.source))
            continue;
        cycle_edge_rows.push_back(static_cast<std::uint32_t>(i));
        graph_nodes.push_back(node(r.a));
        graph_nodes.push_back(node(r.b));
    }
    edge_ends.assign(graph_nodes.begin(), graph_nodes.end());
    std::sort(graph_nodes.begin(), graph_nodes.end());
    graph_nodes.erase(std::unique(graph_nodes.begin(), graph_nodes.end()), graph_nodes.end());
    for (std::uint32_t& end : edge_ends)
        end = static_cast<std::uint32_t>(std::lower_bound(graph_nodes.begin(), graph_nodes.end(), end) -
                                         graph_nodes.begin());
    const std::size_t nodes = graph_nodes.size(), edges = cycle_edge_rows.size();
    // Adjacency in compressed rows: (neighbour, edge) pairs.
    adjacency_start.assign(nodes + 1, 0);
    for (const std::uint32_t end : edge_ends) ++adjacency_start[end + 1];
    for (std::size_t k = 0; k < nodes; ++k) adjacency_start[k + 1] += adjacency_start[k];
    adjacency.resize(2 * edges);
    dfs_cursor.assign(adjacency_start.begin(), adjacency_start.end() - 1);
    for (std::uint32_t e = 0; e < edges; ++e) {
        const std::uint32_t u = edge_ends[2 * e], v = edge_ends[2 * e + 1];
        adjacency[dfs_cursor[u]++] = {v, e};
        adjacency[dfs_cursor[v]++] = {u, e};
    }
    // Bridges by Tarjan's low-link depth-first search (iterative): a tree edge into v is a bridge when
    // nothing below v reaches above it; every other edge lies on a cycle.
    constexpr std::uint32_t kNone = 0xffffffffu;
    edge_on_cycle.assign(edges, 1);
    discovery.assign(nodes, kNone);
    low_link.assign(nodes, 0);
    dfs_cursor.assign(adjacency_start.begin(), adjacency_start.end() - 1);
    dfs_stack.clear();
    std::uint32_t time = 0;
    for (std::uint32_t root = 0; root < nodes; ++root) {
        if (discovery[root] != kNone) continue;
        discovery[root] = low_link[root] = time++;
        dfs_stack.push_back({root, kNone});
        while (!dfs_stack.empty()) {
            const auto [v, via] = dfs_stack.back();
            if (dfs_cursor[v] < adjacency_start[v + 1]) {
                const auto [w, e] = adjacency[dfs_cursor[v]++];
                if (e == via) continue;
                if (discovery[w] == kNone) {
                    discovery[w] = low_link[w] = time++;
                    dfs_stack.push_back({w, e});
                } else {
                    low_link[v] = std::min(low_link[v], discovery[w]);
                }
                continue;
            }
            dfs_stack.pop_back();
            if (dfs_stack.empty()) break;
            const std::uint32_t parent = dfs_stack.back().first;
            low_link[parent] = std::min(low_link[parent], low_link[v]);
            if (low_link[v] > discovery[parent]) edge_on_cycle[via] = 0;
        }
    }
    return std::find(edge_on_cycle.begin(), edge_on_cycle.end(), 1) != edge_on_cycle.end();
}

bool detail::IslandWorker::make_joint_targets_reachable(std::span<Row> island,
                                                        std::span<const double> row_velocities) {
    // The rows of joints on cycles (mark_joints_on_cycles): a bridge's rows can always be met by moving the
    // part of the island beyond it, so only the cycles' rows decide what is reachable.
    joint_row_index.clear();
    for (std::size_t e = 0; e < cycle_edge_rows.size(); ++e)
        if (edge_on_cycle[e])
            for (std::uint32_t i = cycle_edge_rows[e];
                 i < island.size() && island[i].kind == RowKind::joint &&
                 island[i].source == island[cycle_edge_rows[e]].source;
                 ++i)
                joint_row_index.push_back(i);
    const auto n = static_cast<Eigen::Index>(joint_row_index.size());
    joint_coupling.resize(n, n);
    joint_rhs.resize(n);
    for (Eigen::Index a = 0; a < n; ++a) {
        const std::uint32_t i = joint_row_index[static_cast<std::size_t>(a)];
        joint_rhs[a] = island[i].target - row_velocities[i];
        for (Eigen::Index b = 0; b <= a; ++b)
            joint_coupling(a, b) = joint_coupling(b, a) =
                detail::coupling(island[i], island[joint_row_index[static_cast<std::size_t>(b)]]);
    }
    // Directions whose pivot is below 1e-7 of the largest count as redundant: reaching a target there would
    // take impulses 1e7 times those of the other rows. Two ball joints a distance L apart with a joint error
    // e are redundant up to a pivot ratio of about (e / L)^2, so the threshold holds for errors up to 0.03 %
    // of L (seen: 6.4e-10 after a bounce left a hinge 0.17 mm open).
    joint_decomposition.setThreshold(1e-7);
    joint_decomposition.compute(joint_coupling);
    const bool redundant = joint_decomposition.rank() < n;
    for (const std::uint32_t i : joint_row_index) joint_redundant[island[i].source] = redundant;
    if (!redundant) return false;
    // The right-hand side, not the targets alone: with a joint error the rows are only nearly redundant and
    // J v has a part along the dropped directions too.
    joint_rhs = joint_coupling * joint_decomposition.solve(joint_rhs);
    for (Eigen::Index a = 0; a < n; ++a) {
        const std::uint32_t i = joint_row_index[static_cast<std::size_t>(a)];
        island[i].target = joint_rhs[a] + row_velocities[i];
    }
    return true;
}

double detail::IslandWorker::joint_target_miss(std::span<const Row> island,
                                               std::span<const SolverBody> bodies) const {
    double miss = 0;
    for (const Row& r : island)
        if (r.kind == RowKind::joint)
            miss = std::max(miss, std::abs(detail::row_velocity(r, bodies) - r.target));
    return miss;
}

}  // namespace simpulse
