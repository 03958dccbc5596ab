// The memory the solver holds between steps: the capacities of its row buffers and scratch, dense matrices
// and sparse factors, reported in SolverStats::workspace_bytes. Buffers are reused and never shrink, so this
// is the peak of all steps so far; it grows with the rows of the largest island and the fill of its
// factorisation, and a dense matrix appears only for islands up to SolverSettings::dense_max_rows (and, in
// the Newton method, for islands whose bodies nearly all touch each other, whose sparse factor would be
// full). The dense factors count at their fixed inline size (blcp.h); above it they factorise in place, and
// the convex-QP fallback's least-squares decomposition there (Eigen gives no size of it) is not counted.
#include "solver_impl.h"

#include <Eigen/Dense>
#include <Eigen/Sparse>

namespace simpulse {
namespace {

template <class T>
std::size_t bytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}
template <class T>
std::size_t bytes(const std::vector<std::vector<T>>& v) {
    std::size_t total = v.capacity() * sizeof(std::vector<T>);
    for (const auto& inner : v) total += bytes(inner);
    return total;
}
template <class Derived>
std::size_t bytes(const Eigen::PlainObjectBase<Derived>& m) {
    return static_cast<std::size_t>(m.size()) * sizeof(typename Derived::Scalar);
}
std::size_t bytes(const Eigen::SparseMatrix<double>& m) {
    return static_cast<std::size_t>(m.data().allocatedSize()) * (sizeof(double) + sizeof(int)) +
           static_cast<std::size_t>(m.outerSize() + 1) * sizeof(int);
}

std::size_t blcp_bytes(const detail::BlcpWorkspace& ws) {
    return bytes(ws.dense) + bytes(ws.reduced) + bytes(ws.regularized) + bytes(ws.q) + bytes(ws.w) +
           bytes(ws.rhs) + bytes(ws.x) + bytes(ws.residual_vector) + bytes(ws.least_squares_x) +
           bytes(ws.lambda) + bytes(ws.free_rhs) + bytes(ws.free_x) + bytes(ws.free_residual) +
           bytes(ws.free_correction) + bytes(ws.qp_lambda) + bytes(ws.qp_lo) + bytes(ws.qp_hi) +
           bytes(ws.qp_gradient) + bytes(ws.qp_step) + (ws.factors ? sizeof(detail::InlineFactors) : 0) +
           bytes(ws.status) + bytes(ws.new_status) + bytes(ws.column) + bytes(ws.free_rows) +
           bytes(ws.triplets) + bytes(ws.sparse_a) + bytes(ws.sparse_k) + bytes(ws.rows_of_body) +
           bytes(ws.touched_bodies) + bytes(ws.linear_velocity) + bytes(ws.angular_velocity) +
           bytes(ws.copied_bodies) + bytes(ws.copy_stamp) + bytes(ws.body_changed) + bytes(ws.row_settled) +
           bytes(ws.sweep_change) + bytes(ws.direction) + bytes(ws.is_moving) + bytes(ws.moving);
}

std::size_t newton_bytes(const detail::NewtonWorkspace& ws) {
    return bytes(ws.body_of) + bytes(ws.local_of) + bytes(ws.mass) + bytes(ws.inertia) + bytes(ws.row_a) +
           bytes(ws.row_b) + bytes(ws.v0) + bytes(ws.v) + bytes(ws.u) + bytes(ws.force) + bytes(ws.step) +
           bytes(ws.scratch) + bytes(ws.w) + bytes(ws.offset) + bytes(ws.centre) + bytes(ws.impulse) +
           bytes(ws.penalty) + bytes(ws.lo) + bytes(ws.hi) + bytes(ws.d) + bytes(ws.best) + bytes(ws.bound) +
           bytes(ws.free) + bytes(ws.factored_free) + bytes(ws.block_pairs) + bytes(ws.position) +
           bytes(ws.column_blocks_start) + bytes(ws.block_rows) + bytes(ws.shape) + bytes(ws.factored_shape) +
           bytes(ws.h) + ws.factor_nonzeros * (sizeof(double) + sizeof(int)) + bytes(ws.dense_h) +
           bytes(ws.row_pairs) + ws.dense_factor_bytes;
}

std::size_t velocities_bytes(const detail::BodyVelocities& v) {
    return bytes(v.body) + bytes(v.velocity) + bytes(v.angular_velocity) + bytes(v.listed);
}

std::size_t answer_bytes(const detail::IslandAnswer& a) {
    return bytes(a.lambda) + velocities_bytes(a.velocities);
}

}  // namespace

std::size_t detail::IslandWorker::workspace_bytes() const {
    return bytes(island_rows) + bytes(approach) + answer_bytes(iterative_answer) + bytes(recheck_rows) +
           bytes(limit_kick) + bytes(kick_rows) + blcp_bytes(workspace) + newton_bytes(newton) +
           bytes(raw_targets) + bytes(joint_coupling) + bytes(current_row_velocities) +
           bytes(phase_1_lambda) + velocities_bytes(guard) + velocities_bytes(solve_start) +
           answer_bytes(spread_start) + answer_bytes(spread_best);
}

std::size_t Solver::Impl::workspace_bytes() const {
    std::size_t total = bytes(rows) + bytes(contact_rows) + bytes(local_index) + bytes(frictions) +
                        bytes(recheck_source) + bytes(contact_impulse) + bytes(cache.entries) +
                        bytes(cache.slots) + bytes(next_cache.entries) + bytes(next_cache.slots) +
                        bytes(discarded_cache.entries) + bytes(discarded_cache.slots) + bytes(joint_levers) +
                        bytes(joint_cache) + bytes(joint_cache_before) + bytes(scratch_bodies) +
                        bytes(island_schedule);
    for (const auto& worker : workers) total += worker->workspace_bytes();
    return total;
}

}  // namespace simpulse
