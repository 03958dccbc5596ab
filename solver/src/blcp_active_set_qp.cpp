// Fallback direct method for an island's BLCP when the primal-dual active set (blcp_direct.cpp) cycles: with
// the friction bounds held fixed the problem is the convex QP  min 1/2 l^T A l + (q - target)^T l,  lo <= l
// <= hi, solved by the classical primal active-set method (Nocedal & Wright, Numerical Optimization,
// alg. 16.3): every iteration either moves to the minimiser on the current working set, stops at the first
// blocking bound, or releases the bound with the most negative multiplier. The objective decreases
// monotonically, so it cannot cycle the way the primal-dual method can on matrices that are not M-matrices
// (in round-off it can, on a singular free block; `release_bound` ends a round there).
// Friction bounds mu lambda_n are then updated from the new normal impulses and the QP solved again until
// they stop changing (fixed point = Coulomb).
#include "blcp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace simpulse::detail {
namespace {

// The primal active-set iteration on one island with its friction bounds held fixed (lo, hi), working set in
// ws.status (-1 at the lower bound, +1 at the upper, 0 free).
class ConvexQp {
  public:
    // The vectors are leading blocks of the workspace's qp_* buffers.
    ConvexQp(std::span<Row> rows, BlcpWorkspace& ws, Eigen::Ref<const Eigen::MatrixXd> a,
             Eigen::Ref<const Eigen::VectorXd> q)
        : lambda(leading(ws.qp_lambda, static_cast<Eigen::Index>(rows.size()))),
          rows_(rows),
          ws_(ws),
          a_(a),
          q_(q),
          n_(static_cast<Eigen::Index>(rows.size())),
          lo_(leading(ws.qp_lo, n_)),
          hi_(leading(ws.qp_hi, n_)),
          gradient_(leading(ws.qp_gradient, n_)),
          step_(leading(ws.qp_step, n_)),
          working_(ws.status) {
        for (Eigen::Index i = 0; i < n_; ++i)
            scale = std::max({scale, std::abs(q[i]), std::abs(rows[static_cast<std::size_t>(i)].target)});
        tolerance_ = 1e-12 * scale;
        eps_ = 1e-10 * std::max(a.diagonal().maxCoeff(), 1e-300);
        for (Eigen::Index i = 0; i < n_; ++i) lambda[i] = rows[static_cast<std::size_t>(i)].lambda;
    }
    // The bounds from the impulses in `lambda` (friction: mu times the patch's normal impulse); true if they
    // did not change since the last call (not on the first).
    bool update_bounds(bool first);
    // Solves the QP for the current bounds from `lambda`; counts iterations and pivots into `result`.
    void solve(BlcpResult& result);

    Eigen::Ref<Eigen::VectorXd> lambda;
    double scale = 1e-9;  // of the velocities and targets, m/s

  private:
    void start_working_set();
    // The step to the minimiser on the working set (refined; least squares along unbounded rows that cannot
    // reach their targets), into step_.
    void newton_step();
    // At the minimiser on the working set: releases the bound whose multiplier has the wrong sign the most;
    // false if there is none (the QP is solved) or if releasing it would repeat a cycle (below).
    bool release_bound(BlcpResult& result);
    // The objective 1/2 l^T A l + (q - target)^T l at `lambda` from the gradient there, and its round-off.
    std::pair<double, double> objective() const;

    std::span<Row> rows_;
    BlcpWorkspace& ws_;
    Eigen::Ref<const Eigen::MatrixXd> a_;
    Eigen::Ref<const Eigen::VectorXd> q_;
    Eigen::Index n_;

    Eigen::Ref<Eigen::VectorXd> lo_, hi_, gradient_, step_;
    std::vector<std::int8_t>& working_;
    double tolerance_ = 0, eps_ = 0;
    // The bound released last in this round and the objective then.
    Eigen::Index released_ = -1;
    double objective_at_release_ = std::numeric_limits<double>::infinity();
};

bool ConvexQp::update_bounds(bool first) {
    for (Eigen::Index i = 0; i < n_; ++i) rows_[static_cast<std::size_t>(i)].lambda = lambda[i];
    bool settled = true;
    for (Eigen::Index i = 0; i < n_; ++i) {
        const auto [l, h] = row_bounds(rows_[static_cast<std::size_t>(i)], rows_);
        if (!first && (std::abs(l - lo_[i]) > 1e-12 * (1 + std::abs(l)) ||
                       std::abs(h - hi_[i]) > 1e-12 * (1 + std::abs(h))))
            settled = false;
        lo_[i] = l;
        hi_[i] = h;
    }
    return !first && settled;
}

void ConvexQp::start_working_set() {
    released_ = -1;
    objective_at_release_ = std::numeric_limits<double>::infinity();
    working_.assign(rows_.size(), 0);
    for (Eigen::Index i = 0; i < n_; ++i) {
        lambda[i] = std::clamp(lambda[i], lo_[i], hi_[i]);
        if (lambda[i] <= lo_[i])
            working_[static_cast<std::size_t>(i)] = -1;
        else if (lambda[i] >= hi_[i])
            working_[static_cast<std::size_t>(i)] = 1;
    }
}

// K and the regularised K live in leading blocks of the workspace, the factor in its inline factors.
void ConvexQp::newton_step() {
    const auto m = static_cast<Eigen::Index>(ws_.free_rows.size());
    auto k = leading_block(ws_.reduced, m);
    auto rhs = leading(ws_.free_rhs, m);
    auto x = leading(ws_.free_x, m);
    auto residual = leading(ws_.free_residual, m);
    auto correction = leading(ws_.free_correction, m);
    for (Eigen::Index r = 0; r < m; ++r) {
        rhs[r] = -gradient_[ws_.free_rows[static_cast<std::size_t>(r)]];
        for (Eigen::Index c = 0; c < m; ++c)
            k(r, c) =
                a_(ws_.free_rows[static_cast<std::size_t>(r)], ws_.free_rows[static_cast<std::size_t>(c)]);
    }
    Eigen::Ref<Eigen::MatrixXd> regularized = leading_block(ws_.regularized, m);
    regularized = k;
    regularized.diagonal().array() += eps_;
    with_dense_factor(ws_, regularized, true, [&](const auto& factor) {
        x = factor.solve(rhs);
        for (int refinement = 0; refinement < 3; ++refinement) {
            residual.noalias() = rhs - k * x;
            correction = factor.solve(residual);
            x += correction;
        }
    });
    // Refinement reaches the minimum-norm solution when the free rows can meet their targets. When they
    // cannot, each refinement adds the unreachable part divided by the regularisation. A bounded row stops
    // such a step at its bound (the redundant points of a box on the ground: the null-space step lowers some
    // of their impulses to 0), but rows without bounds (joints) do not: the six rows of a hinge of two ball
    // joints have rank five, and with targets that have a part along the sixth direction the steps grew until
    // the impulses overflowed (bench/stress_findings/unreduced_s126.json). So when a free row has no bounds
    // and the refinements left a residual above 1e-6 of the right-hand side (three of them shrink it by (eps
    // / pivot)^3, below 1e-9 for every pivot above the threshold below), the unbounded rows take the
    // least-squares step of least norm instead, and the objective's flat direction along them stops there;
    // the bounded rows keep the refined step, which takes them to their bounds as before.
    const auto unbounded = [&](std::int32_t i) { return std::isinf(lo_[i]) && std::isinf(hi_[i]); };
    bool unreachable = false;
    if (std::any_of(ws_.free_rows.begin(), ws_.free_rows.end(), unbounded)) {
        residual.noalias() = rhs - k * x;
        unreachable = !(residual.norm() <= 1e-6 * rhs.norm());
    }
    if (unreachable) {
        // Pivots below 1e-7 of the largest count as redundant, as for the joint targets (joint_targets.cpp):
        // two ball joints a distance L apart with a joint error e are redundant up to a pivot ratio of about
        // (e / L)^2, which the default threshold (machine epsilon) would take as full rank (a 10 um error on
        // a 1.7 m hinge: steps of 3.6e10).
        auto least_squares_x = leading(ws_.least_squares_x, m);
        const auto solve = [&](auto& least_squares) {
            least_squares.setThreshold(1e-7);
            least_squares.compute(k);
            least_squares_x = least_squares.solve(rhs);
        };
        if (m <= kInlineFactorRows)
            solve(ws_.factors->least_squares);  // made by with_dense_factor above
        else
            solve(ws_.least_squares);
        for (Eigen::Index r = 0; r < m; ++r) {
            const std::int32_t i = ws_.free_rows[static_cast<std::size_t>(r)];
            if (unbounded(i)) x[r] = least_squares_x[r];
        }
    }
    for (Eigen::Index r = 0; r < m; ++r) step_[ws_.free_rows[static_cast<std::size_t>(r)]] = x[r];
}

// The method is monotone: in exact arithmetic the step after a release moves off the released bound and
// lowers the objective (Nocedal & Wright, thm. 16.5, with the free block positive definite). Where the free
// block is singular to working precision (a diverging island: A's diagonal spanning 1e-24 to 1e4, impulses of
// 1e16 N s) the regularised step after a release can point back through the released bound, which then blocks
// it with no move; a full step along the flat direction changes nothing but round-off, and the same bound is
// released again, until the iteration cap, one dense factorisation each. So a second release of the same
// bound in a row without a lower objective (beyond 1e-12 of the sum of its terms' magnitudes) ends the round.
// lambda is then not a minimiser: the island stays unconverged (its residual says so) but the solve ends.
// Longer cycles (bounds j, k, j, k) are not caught.
bool ConvexQp::release_bound(BlcpResult& result) {
    Eigen::Index worst = -1;
    double worst_value = tolerance_;
    for (Eigen::Index i = 0; i < n_; ++i) {
        const std::int8_t s = working_[static_cast<std::size_t>(i)];
        const double violation = s == -1 ? -gradient_[i] : s == 1 ? gradient_[i] : 0.0;
        if (lo_[i] < hi_[i] && violation > worst_value) worst_value = violation, worst = i;
    }
    if (worst < 0) return false;
    const auto [value, round_off] = objective();
    if (worst == released_ && !(value < objective_at_release_ - round_off)) return false;
    released_ = worst;
    objective_at_release_ = value;
    working_[static_cast<std::size_t>(worst)] = 0;
    ++result.pivots;
    return true;
}

std::pair<double, double> ConvexQp::objective() const {
    double value = 0, magnitude = 0;
    for (Eigen::Index i = 0; i < n_; ++i) {
        const double linear = q_[i] - rows_[static_cast<std::size_t>(i)].target;
        value += 0.5 * lambda[i] * (gradient_[i] + linear);
        magnitude += std::abs(lambda[i]) * (std::abs(gradient_[i]) + std::abs(linear));
    }
    return {value, 1e-12 * magnitude};
}

// A full step (no bound in the way) ends at the minimiser on the working set, and the next solve returns a
// step of round-off size. Not so where the free block of A is singular (redundant contacts): if the gradient
// has a part along its null space, the objective is linear along that direction and every solve returns the
// same step again; and steps of round-off size need not pass the test below. Taking them one unit at a time
// crept until the iteration cap (19,200 iterations of one solve, each a factorisation, on a pile of
// dominoes). So a full step that did not shrink to under half the previous one is taken as a ray, followed to
// the line minimiser or the first bound it meets (with neither, or no descent along it, lambda is a
// minimiser); and after three full steps on one working set lambda is taken as its minimiser: only the
// multipliers are checked.
void ConvexQp::solve(BlcpResult& result) {
    constexpr int kMaxFullSteps = 3;
    start_working_set();
    double last_full_step = std::numeric_limits<double>::infinity();
    int full_steps = 0;
    bool at_minimiser = false;
    for (int iteration = 0; iteration < 10 * static_cast<int>(n_) + 10; ++iteration) {
        ++result.iterations;
        gradient_.noalias() = a_ * lambda;
        for (Eigen::Index i = 0; i < n_; ++i)
            gradient_[i] += q_[i] - rows_[static_cast<std::size_t>(i)].target;
        ws_.free_rows.clear();
        for (Eigen::Index i = 0; i < n_; ++i)
            if (working_[static_cast<std::size_t>(i)] == 0)
                ws_.free_rows.push_back(static_cast<std::int32_t>(i));
        step_.setZero();
        if (!ws_.free_rows.empty() && !at_minimiser) newton_step();
        if (step_.cwiseAbs().maxCoeff() * std::max(1.0, a_.diagonal().maxCoeff()) <= tolerance_) {
            if (!release_bound(result)) break;
            last_full_step = std::numeric_limits<double>::infinity();
            full_steps = 0;
            at_minimiser = false;
            continue;
        }
        // Longest feasible step along step_, stopping at the first bound it would cross: up to 1 (the
        // minimiser on the working set), or, along a ray, up to the line minimiser of the quadratic.
        const double size = step_.cwiseAbs().maxCoeff();
        const bool ray = !(size < 0.5 * last_full_step);
        double alpha = 1.0;
        if (ray) {
            const double slope = gradient_.dot(step_);
            auto a_step = leading(ws_.w, n_);  // scratch here: ws.w is only the result's velocity at the end
            a_step.noalias() = a_ * step_;
            const double curvature = step_.dot(a_step);
            if (!(slope < 0)) {  // no descent along it: lambda is a minimiser on the working set
                at_minimiser = true;
                continue;
            }
            alpha = curvature > 0 ? -slope / curvature : std::numeric_limits<double>::infinity();
        }
        Eigen::Index blocking = -1;
        for (Eigen::Index i = 0; i < n_; ++i) {
            if (working_[static_cast<std::size_t>(i)] != 0) continue;
            if (step_[i] < 0 && std::isfinite(lo_[i]) && lambda[i] + alpha * step_[i] < lo_[i])
                alpha = (lo_[i] - lambda[i]) / step_[i], blocking = i;
            if (step_[i] > 0 && std::isfinite(hi_[i]) && lambda[i] + alpha * step_[i] > hi_[i])
                alpha = (hi_[i] - lambda[i]) / step_[i], blocking = i;
        }
        if (!std::isfinite(alpha)) {  // flat and no bound ahead: nothing to gain along the ray
            at_minimiser = true;
            continue;
        }
        lambda += std::max(alpha, 0.0) * step_;
        last_full_step = blocking < 0 ? size : std::numeric_limits<double>::infinity();
        full_steps = blocking < 0 ? full_steps + 1 : 0;
        if (full_steps >= kMaxFullSteps) at_minimiser = true;
        if (blocking >= 0) {
            working_[static_cast<std::size_t>(blocking)] = step_[blocking] < 0 ? -1 : 1;
            lambda[blocking] = step_[blocking] < 0 ? lo_[blocking] : hi_[blocking];
            ++result.pivots;
        }
    }
}

}  // namespace

BlcpResult solve_blcp_active_set_qp(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                                    Eigen::Ref<const Eigen::MatrixXd> a, Eigen::Ref<const Eigen::VectorXd> q,
                                    int max_outer) {
    BlcpResult result;
    ConvexQp qp(rows, ws, a, q);
    for (int outer = 0; outer < max_outer; ++outer) {
        if (qp.update_bounds(outer == 0)) break;
        qp.solve(result);
    }
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i].lambda = qp.lambda[static_cast<Eigen::Index>(i)];
    for (const Row& r : rows) apply_row_impulse(r, r.lambda, bodies);
    auto w = leading(ws.w, static_cast<Eigen::Index>(rows.size()));
    w.noalias() = a * qp.lambda;
    w += q;
    result.residual = blcp_residual(rows, ws.w);
    result.converged = result.residual <= 1e-9 * qp.scale;
    return result;
}

}  // namespace simpulse::detail
