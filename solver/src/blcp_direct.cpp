// Direct solve of an island's boxed LCP: assemble A = J M^-1 J^T (dense or sparse, block structure by body),
// then a primal-dual active-set method (a semismooth Newton method for the complementarity conditions): guess
// which rows are free and which sit at a bound, solve the linear system of the free rows exactly, correct the
// guess where a bound or a sign condition is violated, repeat. Friction rows at their bound are substituted
// as
// +-mu lambda_normal, so the Coulomb pyramid is solved together with the normal impulses, not staggered.
// Redundant contacts make A singular: the free system is solved with a tiny Tikhonov term and iterative
// refinement, which converges to the minimum-norm solution of the consistent singular system.
#include "blcp.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse::detail {
namespace {

struct BodyPart {
    double sign = 0;  // the row's linear coefficient on the body along dir: -1 as a, +1 as b, or its weight
    double inv_mass = 0;
    const Vec3* ang = nullptr;
    const Vec3* inv_ang = nullptr;
};

const Vec3 kNoAngularPart = Vec3::Zero();

BodyPart part(const Row& r, std::uint32_t body) {
    if (r.spread == nullptr) {
        if (r.a == body) return {-1.0, r.inv_mass_a, &r.ang_a, &r.inv_ang_a};
        return {1.0, r.inv_mass_b, &r.ang_b, &r.inv_ang_b};
    }
    BodyPart p{0.0, 0.0, &kNoAngularPart, &kNoAngularPart};
    if (r.a == body) p = {-1.0, r.inv_mass_a, &r.ang_a, &r.inv_ang_a};
    if (r.b == body) p = {p.sign + 1.0, r.inv_mass_b, &r.ang_b, &r.inv_ang_b};
    for_each_spread_term(r, [&](std::uint32_t term, double weight, double inverse_mass) {
        if (term != body) return;
        p.sign += weight;
        p.inv_mass = inverse_mass;
    });
    return p;
}

// Appends the contribution of `body` to A_ij for every pair of rows acting on it.
template <class Add>
void assemble_by_body(std::span<const Row> rows, BlcpWorkspace& ws, std::size_t body_count, Add&& add) {
    ws.rows_of_body.resize(body_count);
    ws.touched_bodies.clear();
    for (std::uint32_t i = 0; i < rows.size(); ++i) {
        for_each_row_body(rows[i], [&](std::uint32_t body) {
            auto& list = ws.rows_of_body[body];
            if (list.empty()) ws.touched_bodies.push_back(body);
            if (list.empty() || list.back() != i) list.push_back(i);  // a body twice in a row counts once
        });
    }
    for (std::uint32_t body : ws.touched_bodies) {
        const auto& list = ws.rows_of_body[body];
        for (std::size_t x = 0; x < list.size(); ++x) {
            const Row& ri = rows[list[x]];
            const BodyPart pi = part(ri, body);
            for (std::size_t y = x; y < list.size(); ++y) {
                const Row& rj = rows[list[y]];
                const BodyPart pj = part(rj, body);
                const double value =
                    pi.sign * pj.sign * pi.inv_mass * ri.dir.dot(rj.dir) + pi.ang->dot(*pj.inv_ang);
                add(list[x], list[y], value);
            }
        }
    }
    for (std::uint32_t body : ws.touched_bodies) ws.rows_of_body[body].clear();
}

// Solves K x = rhs for a possibly singular but consistent K: factorise K + eps I, then refine against K until
// the residual is at round-off (at most three refinements; none for well-conditioned systems).
template <class Factor, class Matrix>
void regularized_solve(const Factor& factor, const Matrix& k, Eigen::Ref<const Eigen::VectorXd> rhs,
                       Eigen::Ref<Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> residual,
                       Eigen::Ref<Eigen::VectorXd> correction) {
    x = factor.solve(rhs);
    const double floor = 1e-14 * std::max(rhs.cwiseAbs().maxCoeff(), 1e-300);
    for (int refinement = 0; refinement < 3; ++refinement) {
        residual.noalias() = rhs - k * x;
        if (residual.cwiseAbs().maxCoeff() <= floor) break;
        correction = factor.solve(residual);
        x += correction;
    }
}

double regularization(double max_diagonal) {
    return 1e-10 * std::max(max_diagonal, 1e-300);
}

}  // namespace

bool warm_start_solves(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                       double tolerance) {
    bool any = false;
    for (const Row& r : rows) {
        const auto [lo, hi] = row_bounds(r, rows);
        if (r.lambda < lo || r.lambda > hi) return false;
        any |= r.lambda != 0;
    }
    if (!any) return false;
    copy_velocities_in(rows, bodies, ws);
    for (const Row& r : rows) apply_to_copies(r, r.lambda, ws);
    auto w = leading(ws.w, static_cast<Eigen::Index>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i)
        w[static_cast<Eigen::Index>(i)] = copied_row_velocity(rows[i], ws);
    if (blcp_residual(rows, ws.w) > tolerance) return false;
    copy_velocities_out(bodies, ws);
    return true;
}

void drop_unusable_start(std::span<Row> rows, double tolerance) {
    const double largest = tolerance / std::numeric_limits<double>::epsilon();
    const bool usable = std::all_of(rows.begin(), rows.end(),
                                    [&](const Row& r) { return std::abs(r.lambda) * r.diagonal <= largest; });
    if (!usable)
        for (Row& r : rows) r.lambda = 0;
}

double blcp_residual(std::span<const Row> rows, const Eigen::VectorXd& w) {
    double worst = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        const double v = w[static_cast<Eigen::Index>(i)] - r.target;
        const auto [lo, hi] = row_bounds(r, rows);
        double violation;
        const double tol = 1e-12 * (1 + std::abs(r.lambda));
        if (r.lambda <= lo + tol && r.lambda >= hi - tol)
            violation = 0;  // zero-width box: any w is fine
        else if (r.lambda <= lo + tol)
            violation = std::max(0.0, -v);
        else if (r.lambda >= hi - tol)
            violation = std::max(0.0, v);
        else
            violation = std::abs(v);
        worst = std::max(worst, violation);
    }
    return worst;
}

namespace {

// One primal-dual active-set solve of an island: its rows, the assembled A, and the active set in ws.status
// (-1 at the lower bound, 0 free, +1 at the upper bound). Unknowns are the free rows; normal rows at their
// bound carry 0, a friction row at its bound carries s mu (sum of its patch's free normal impulses), a
// friction row whose patch has no free normal carries 0.
class ActiveSet {
  public:
    ActiveSet(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws, bool dense)
        : rows_(rows),
          bodies_(bodies),
          ws_(ws),
          dense_(dense),
          n_(static_cast<Eigen::Index>(rows.size())),
          a_(leading_block(ws.dense, dense ? n_ : 0)) {}

    void assemble();
    void initial_status();
    // Lists the free rows (ws.free_rows, ws.column); false if a friction row at its bound makes K
    // unsymmetric.
    bool list_free_rows();
    void solve_free_rows(bool symmetric);
    // The impulses of all rows from the unknowns (rows' lambda and `lambda`), and w = A lambda + q.
    void impulses(Eigen::Ref<Eigen::VectorXd> lambda);
    struct Changes {
        int count = 0;
        std::size_t worst_row = 0;  // the row with the largest violation among the changes
    };
    // ws.new_status: the active set corrected where a bound or a sign condition is violated.
    Changes correct(double velocity_tolerance);
    // Projects the impulses onto their bounds (round-off), applies them to the bodies and sets ws.w.
    void finish(Eigen::Ref<Eigen::VectorXd> lambda);
    // The island's A when dense (a leading block of ws.dense).
    Eigen::Ref<const Eigen::MatrixXd> dense_a() const { return a_; }

  private:
    bool active_normal(std::size_t friction, std::int32_t k) const {
        return ws_.status[static_cast<std::size_t>(rows_[friction].normal + k)] == 0;
    }
    bool inactive_friction(std::size_t i) const {
        if (rows_[i].kind != RowKind::friction) return false;
        for (std::int32_t k = 0; k < rows_[i].normal_count; ++k)
            if (active_normal(i, k)) return false;
        return true;
    }
    // Calls add(column, factor) for each unknown that row j's impulse depends on.
    template <class Add>
    void for_each_feed(std::size_t j, Add&& add) const {
        if (inactive_friction(j)) return;
        if (ws_.status[j] == 0) {
            add(ws_.column[j], 1.0);
        } else if (rows_[j].kind == RowKind::friction) {
            for (std::int32_t k = 0; k < rows_[j].normal_count; ++k)
                if (active_normal(j, k))
                    add(ws_.column[static_cast<std::size_t>(rows_[j].normal + k)],
                        ws_.status[j] * rows_[j].mu);
        }
    }
    void multiply_a(Eigen::Ref<const Eigen::VectorXd> x, Eigen::Ref<Eigen::VectorXd> y) const {
        if (dense_)
            y.noalias() = a_ * x;
        else
            y = ws_.sparse_a * x;
    }
    void solve_dense(Eigen::Index m, bool symmetric, double eps);
    void solve_sparse(Eigen::Index m, bool symmetric, double eps);

    std::span<Row> rows_;
    std::span<SolverBody> bodies_;
    BlcpWorkspace& ws_;
    bool dense_;
    Eigen::Index n_;
    Eigen::Ref<Eigen::MatrixXd> a_;
    double max_diagonal_ = 0;
};

void ActiveSet::assemble() {
    for (const Row& r : rows_) max_diagonal_ = std::max(max_diagonal_, r.diagonal);
    if (dense_) {
        a_.setZero();
        assemble_by_body(rows_, ws_, bodies_.size(), [&](std::uint32_t i, std::uint32_t j, double v) {
            a_(i, j) += v;
            if (i != j) a_(j, i) += v;
        });
    } else {
        ws_.triplets.clear();
        assemble_by_body(rows_, ws_, bodies_.size(), [&](std::uint32_t i, std::uint32_t j, double v) {
            ws_.triplets.emplace_back(i, j, v);
            if (i != j) ws_.triplets.emplace_back(j, i, v);
        });
        ws_.sparse_a.resize(n_, n_);
        ws_.sparse_a.setFromTriplets(ws_.triplets.begin(), ws_.triplets.end());
    }
}

// From the warm-start impulses.
void ActiveSet::initial_status() {
    ws_.status.assign(rows_.size(), 0);
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& r = rows_[i];
        if (unilateral(r.kind)) ws_.status[i] = r.lambda > 0 ? 0 : -1;
    }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& r = rows_[i];
        if (r.kind != RowKind::friction && r.kind != RowKind::motor) continue;
        const double bound = r.kind == RowKind::motor ? r.mu : r.mu * patch_normal_impulse(r, rows_);
        if (bound > 0 && r.lambda >= bound * (1 - 1e-9))
            ws_.status[i] = 1;
        else if (bound > 0 && r.lambda <= -bound * (1 - 1e-9))
            ws_.status[i] = -1;
    }
}

bool ActiveSet::list_free_rows() {
    ws_.column.assign(rows_.size(), -1);
    ws_.free_rows.clear();
    bool symmetric = true;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const bool inactive = inactive_friction(i);
        if (ws_.status[i] == 0 && !inactive) {
            ws_.column[i] = static_cast<std::int32_t>(ws_.free_rows.size());
            ws_.free_rows.push_back(static_cast<std::int32_t>(i));
        }
        if (ws_.status[i] != 0 && rows_[i].kind == RowKind::friction && !inactive) symmetric = false;
    }
    return symmetric;
}

// K x = rhs over the free rows, K the columns of A each unknown feeds, rhs = target - q.
void ActiveSet::solve_free_rows(bool symmetric) {
    const auto m = static_cast<Eigen::Index>(ws_.free_rows.size());
    auto rhs = leading(ws_.free_rhs, m);
    for (Eigen::Index c = 0; c < m; ++c) {
        const auto i = ws_.free_rows[static_cast<std::size_t>(c)];
        rhs[c] = rows_[static_cast<std::size_t>(i)].target - ws_.q[i];
    }
    // A motor at its bound carries a known impulse: its part of A lambda moves to the right-hand side.
    for (std::size_t j = 0; j < rows_.size(); ++j) {
        if (rows_[j].kind != RowKind::motor || ws_.status[j] == 0) continue;
        const double lambda = ws_.status[j] * rows_[j].mu;
        const auto col = static_cast<Eigen::Index>(j);
        if (dense_) {
            for (Eigen::Index c = 0; c < m; ++c)
                rhs[c] -= a_(ws_.free_rows[static_cast<std::size_t>(c)], col) * lambda;
        } else {
            for (Eigen::SparseMatrix<double>::InnerIterator it(ws_.sparse_a, col); it; ++it)
                if (const std::int32_t row = ws_.column[static_cast<std::size_t>(it.row())]; row >= 0)
                    rhs[row] -= it.value() * lambda;
        }
    }
    const double eps = regularization(max_diagonal_);
    if (m == 0) return;
    if (dense_)
        solve_dense(m, symmetric, eps);
    else
        solve_sparse(m, symmetric, eps);
}

// K and the regularised K live in leading blocks of the workspace, the factor in its inline factors: an
// iteration allocates nothing.
void ActiveSet::solve_dense(Eigen::Index m, bool symmetric, double eps) {
    auto k = leading_block(ws_.reduced, m);
    k.setZero();
    for (std::size_t j = 0; j < rows_.size(); ++j)
        for_each_feed(j, [&](std::int32_t col, double factor) {
            for (Eigen::Index c = 0; c < m; ++c)
                k(c, col) +=
                    factor * a_(ws_.free_rows[static_cast<std::size_t>(c)], static_cast<Eigen::Index>(j));
        });
    Eigen::Ref<Eigen::MatrixXd> regularized = leading_block(ws_.regularized, m);
    regularized = k;
    regularized.diagonal().array() += eps;
    auto rhs = leading(ws_.free_rhs, m);
    auto x = leading(ws_.free_x, m);
    auto residual = leading(ws_.free_residual, m);
    auto correction = leading(ws_.free_correction, m);
    with_dense_factor(ws_, regularized, symmetric, [&](const auto& factor) {
        regularized_solve(factor, k, rhs, x, residual, correction);
    });
}

void ActiveSet::solve_sparse(Eigen::Index m, bool symmetric, double eps) {
    ws_.triplets.clear();
    for (Eigen::Index j = 0; j < n_; ++j)
        for_each_feed(static_cast<std::size_t>(j), [&](std::int32_t col, double factor) {
            for (Eigen::SparseMatrix<double>::InnerIterator it(ws_.sparse_a, j); it; ++it) {
                const std::int32_t row = ws_.column[static_cast<std::size_t>(it.row())];
                if (row >= 0) ws_.triplets.emplace_back(row, col, factor * it.value());
            }
        });
    for (Eigen::Index c = 0; c < m; ++c) ws_.triplets.emplace_back(c, c, 0.0);  // keep the diagonal
    ws_.sparse_k.resize(m, m);
    ws_.sparse_k.setFromTriplets(ws_.triplets.begin(), ws_.triplets.end());
    Eigen::SparseMatrix<double> regularized = ws_.sparse_k;
    for (Eigen::Index c = 0; c < m; ++c) regularized.coeffRef(c, c) += eps;
    auto rhs = leading(ws_.free_rhs, m);
    auto x = leading(ws_.free_x, m);
    auto residual = leading(ws_.free_residual, m);
    auto correction = leading(ws_.free_correction, m);
    if (symmetric) {
        const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> factor(regularized);
        regularized_solve(factor, ws_.sparse_k, rhs, x, residual, correction);
    } else {
        Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> factor;
        factor.compute(regularized);
        regularized_solve(factor, ws_.sparse_k, rhs, x, residual, correction);
    }
}

void ActiveSet::impulses(Eigen::Ref<Eigen::VectorXd> lambda) {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        double value = 0;
        for_each_feed(i, [&](std::int32_t col, double factor) { value += factor * ws_.free_x[col]; });
        lambda[static_cast<Eigen::Index>(i)] = value;
    }
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].kind == RowKind::motor && ws_.status[i] != 0)
            lambda[static_cast<Eigen::Index>(i)] = ws_.status[i] * rows_[i].mu;
    for (std::size_t i = 0; i < rows_.size(); ++i) rows_[i].lambda = lambda[static_cast<Eigen::Index>(i)];
    multiply_a(lambda, ws_.w.head(n_));
    ws_.w.head(n_) += ws_.q.head(n_);
}

// Tolerances are relative to the island's impulses, so round-off in a redundant (singular) system does not
// flip statuses back and forth.
ActiveSet::Changes ActiveSet::correct(double velocity_tolerance) {
    double lambda_scale = 1e-300;
    for (const Row& r : rows_)
        if (r.kind != RowKind::friction) lambda_scale = std::max(lambda_scale, std::abs(r.lambda));
    ws_.new_status = ws_.status;
    Changes changes;
    double worst_violation = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& r = rows_[i];
        const double v = ws_.w[static_cast<Eigen::Index>(i)] - r.target;
        std::int8_t& s = ws_.new_status[i];
        const std::int8_t before = s;
        if (unilateral(r.kind)) {
            if (s == 0 && r.lambda < -1e-10 * lambda_scale)
                s = -1;
            else if (s == -1 && v < -velocity_tolerance)
                s = 0;
        } else if (r.kind == RowKind::friction || r.kind == RowKind::motor) {
            if (inactive_friction(i)) {
                s = 0;  // starts free when its patch becomes active; not a change of the active set
                continue;
            }
            const bool motor = r.kind == RowKind::motor;
            const double bound = motor ? r.mu : r.mu * patch_normal_impulse(r, rows_);
            const double lambda_tolerance = 1e-10 * (motor ? r.mu : r.mu * lambda_scale);
            if (s == 0 && r.lambda > bound + lambda_tolerance)
                s = 1;
            else if (s == 0 && r.lambda < -bound - lambda_tolerance)
                s = -1;
            else if (s == 1 && v > velocity_tolerance && bound > 0)
                s = 0;
            else if (s == -1 && v < -velocity_tolerance && bound > 0)
                s = 0;
        }
        if (s != before) {
            ++changes.count;
            // Size of the violation that triggers the change, in velocity units (impulse violations scaled by
            // the row's effective mass) so rows of different kinds compare.
            const double violation = before == 0 ? std::abs(r.lambda) * r.diagonal : std::abs(v);
            if (violation > worst_violation) worst_violation = violation, changes.worst_row = i;
        }
    }
    return changes;
}

// Normals first, since friction bounds follow them.
void ActiveSet::finish(Eigen::Ref<Eigen::VectorXd> lambda) {
    for (Row& r : rows_)
        if (r.kind != RowKind::friction) {
            const auto [lo, hi] = row_bounds(r, rows_);
            r.lambda = std::clamp(r.lambda, lo, hi);
        }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        Row& r = rows_[i];
        if (r.kind == RowKind::friction) {
            const auto [lo, hi] = row_bounds(r, rows_);
            r.lambda = std::clamp(r.lambda, lo, hi);
        }
        lambda[static_cast<Eigen::Index>(i)] = r.lambda;
        apply_row_impulse(r, r.lambda, bodies_);
    }
    multiply_a(lambda, ws_.w.head(n_));
    ws_.w.head(n_) += ws_.q.head(n_);
}

}  // namespace

BlcpResult solve_blcp_direct(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                             int max_iterations, int dense_max_rows, bool give_up) {
    const auto n = static_cast<Eigen::Index>(rows.size());
    const bool dense = n <= dense_max_rows;
    BlcpResult result;
    auto q = leading(ws.q, n);
    leading(ws.w, n);  // the active set writes its row velocities there
    double scale = 1e-9;
    for (Eigen::Index i = 0; i < n; ++i) {
        q[i] = row_velocity(rows[static_cast<std::size_t>(i)], bodies);
        scale = std::max({scale, std::abs(q[i]), std::abs(rows[static_cast<std::size_t>(i)].target)});
    }
    const double velocity_tolerance = 1e-10 * scale;

    // Resting islands: the previous step's impulses often solve this step's problem already (gravity adds the
    // same approach every step). Check them matrix-free, O(rows), and keep them if every condition holds to
    // 1e-9 m/s.
    if (warm_start_solves(rows, bodies, ws, std::max(velocity_tolerance, 1e-9))) {
        result.converged = true;
        result.residual = rows.empty() ? 0.0 : blcp_residual(rows, ws.w);
        return result;
    }

    ActiveSet active_set(rows, bodies, ws, dense);
    active_set.assemble();
    active_set.initial_status();
    auto lambda = leading(ws.lambda, n);
    int fewest_changes = std::numeric_limits<int>::max();
    int stalled = 0;
    bool single_pivot = false;
    int last_iteration = max_iterations;
    for (int iteration = 1; iteration <= last_iteration; ++iteration) {
        result.iterations = iteration;
        active_set.solve_free_rows(active_set.list_free_rows());
        active_set.impulses(lambda);
        const ActiveSet::Changes changes = active_set.correct(velocity_tolerance);
        result.pivots += changes.count;
        if (changes.count == 0) {
            result.converged = true;
            break;
        }
        // Block pivoting (all changes at once) converges fast but can cycle on matrices that are not
        // M-matrices. When the number of violations has not decreased for six iterations, change only the
        // most violated row per iteration (Judice & Pires' safeguard for block principal pivoting); single
        // pivots get one extra iteration per row.
        if (changes.count < fewest_changes) {
            fewest_changes = changes.count;
            stalled = 0;
        } else if (++stalled >= 6 && !single_pivot && !give_up) {
            single_pivot = true;
            last_iteration = iteration + static_cast<int>(rows.size());
        }
        if (single_pivot) {
            const std::int8_t chosen = ws.new_status[changes.worst_row];
            ws.new_status = ws.status;
            ws.new_status[changes.worst_row] = chosen;
        }
        ws.status.swap(ws.new_status);
    }

    if (!result.converged && dense && !give_up) {
        // The primal-dual iteration cycled: fall back to the monotone convex-QP active-set method.
        for (Row& r : rows)
            if (unilateral(r.kind)) r.lambda = std::max(0.0, r.lambda);
        BlcpResult qp = solve_blcp_active_set_qp(rows, bodies, ws, active_set.dense_a(), q, 20);
        qp.iterations += result.iterations;
        qp.pivots += result.pivots;
        return qp;
    }
    active_set.finish(lambda);
    result.residual = blcp_residual(rows, ws.w);
    return result;
}

}  // namespace simpulse::detail
