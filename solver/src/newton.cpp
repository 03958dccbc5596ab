// Exact island solve for islands of any size: a body-space Newton method inside a proximal-point outer loop.
//
// The island's boxed LCP (blcp.h): impulses lambda, row velocities w = J v with v = v0 + M^-1 J^T lambda;
// normal rows lambda >= 0 complementary to w >= t, joint rows w = t, friction rows |lambda| <= mu times their
// patch's normal impulses, complementary to the sign of w (Coulomb's pyramid with torsion).
//
// Outer loop: the proximal-point method (Rockafellar 1976, "Monotone operators and the proximal point
// algorithm", SIAM J. Control Optim. 14(5), eq. (1.6)). Each iteration solves the problem with a compliance
// p_i = eps A_ii added around the previous impulses c (the centre), with the friction bounds held:
//   lambda_i = clamp(c_i - (w_i - t_i) / p_i, lo_i, hi_i),   hi_i = -lo_i = B_i  (friction),
// and B_i then moved to mu sum(lambda_normal) of the new iterate (all or part of the way, see below). The
// fixed point lambda = c, B = mu sum(lambda_normal) solves the boxed LCP exactly: the compliance vanishes at
// convergence, and the friction bounds are those of the answer's own normal impulses (holding the bounds
// keeps each subproblem convex; coupling them inside the Newton step makes its Jacobian unsymmetric and its
// merit function kinked, and the line search then stalls on heaps). eps starts compliant (1e-2 A_ii), so the
// first subproblems find which rows load, stick or slide in a few Newton steps (from 1e-3, a cold 27-level
// pyramid spent the whole budget on its first subproblem), and is lowered after an iteration that gains less
// than a factor 4 (an iterate drifting along redundant rows, a face patch whose points cannot all meet their
// targets, moves by the residual over the compliance per iteration until a row unloads).
// Two schedules, chosen by measurement (docs/BENCHMARKS.md, "Large islands"):
//   Contact and joint islands: the bounds follow the normal impulses all the way and eps drops by 0.3.
//   Bounds that lag behind (moved part of the way after an iteration that raised the residual) keep every
//   iterate's friction inconsistent with its own loads: on the landing 1,000-box heap half of the Newton
//   solves then ran out of factorisations, against a fifth; below eps ~ 1e-3 a heap's subproblems take one
//   factorisation per Newton step (rows change state at every step), and drops of 0.1 spent more there.
//   Cable islands (rows with point-mass terms): lagging bounds and drops of 0.1. Their friction rows along a
//   straight cable are redundant with its rods, and there the full update made more solves miss at rest: of
//   nine boxes dropped on three cables (Cables.BoxDroppedOnCablesRestsOnThem with three masses and three
//   offsets), seven then had steps above the tolerance after landing, against two.
//
// Inner loop: each subproblem is the minimum of a convex piecewise-quadratic function of the body velocities
// alone (6 unknowns per body however many rows touch it), as in MuJoCo's Newton solver (Todorov 2014,
// "Convex and analytically-invertible dynamics with contacts and constraints", ICRA, section IV;
// engine_solver.c). With u = v - v_c the change from the centre's velocities v_c = v0 + M^-1 J^T c:
//   f(u) = 1/2 u^T M u + sum_i phi_i(w_i),   phi_i' = -(lambda_i - c_i),   gradient M u - J^T (lambda - c),
// Hessian H = M + sum over the free rows (strictly inside their bounds) of J_i^T J_i / p_i. Newton steps
// with an exact line search (the root of the piecewise-linear derivative of f along the step) converge in a
// finite number of steps; the subproblem is solved when M^-1 times the gradient is far below the tolerance.
// Working in u keeps the round-off of the stiff rows (1 / p) proportional to the remaining correction, not to
// the velocities.
//
// A row may also have point-mass terms (Row::spread, cable contacts): J then has a linear block weight dir on
// each of up to eight more bodies, and a free row adds J_i^T J_i / p_i between every two of them.
// H is factorised as a dense LDL^T for small islands, as a dense blocked Cholesky for islands of bodies
// placed inside each other (half of all body pairs joined: Island::nearly_complete), and as a sparse LDL^T
// otherwise, on the pattern of the body pairs that free rows join, ordered by approximate minimum degree on
// the graph of bodies (Eigen's AMDOrdering); the ordering and the symbolic analysis are kept while that
// pattern does not change, and a factorisation while no row changes state and the compliance stays.
#include "newton.h"

#include <Eigen/OrderingMethods>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace simpulse::detail {
namespace {

using Vec6 = Eigen::Matrix<double, 6, 1>;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Rounding of the velocities, relative to the largest one: neither the residual of a row (a sum of a few
// products) nor the subproblem's gradient (M^-1 times a sum of forces over the rows) can be trusted below
// 1000 ulps of it. At 1 m/s that is 2e-13 m/s, below the subproblem's target of 1e-3 times the tolerance;
// from about 5 m/s up it is the target. A floor of 10 ulps for the gradient left subproblems at 100 m/s
// running their Newton steps in the rounding (test BlcpPaths.NewtonMethodMeetsItsToleranceAtHighSpeeds); at
// 1e20 m/s (a step of 1e19 s under gravity) the residual's floor is what can be reached at all. The residual
// has the same floor relative to its rows' terms (Island::row_term_scale), which exceed the velocities by the
// lever arms: a fuzzed world of boxes 1e9 m wide stepped at dt = 1e9 s sat at that floor, far above the one
// of its velocities, and spent the whole budget (2,000 Newton steps with their line searches) in every
// substep.
constexpr double kResidualRounding = 1000 * std::numeric_limits<double>::epsilon();
constexpr double kGradientRounding = 1000 * std::numeric_limits<double>::epsilon();
// Newton steps per allowed factorisation, those that reuse a factorisation included (each costs a
// back-substitution and an exact line search of up to 60 passes over the rows). Solves take at most 15 per
// factorisation in the shipped scenes and the 1,000-box heap, 36 on stacks hit at up to 800 m/s (1,394 in
// all; BlcpPaths.NewtonMethodMeetsItsToleranceAtHighSpeeds), and took 67 on a fuzzed world of velocities
// near 1e16 m/s, where they made a 1 s step.
constexpr long long kStepsPerFactorization = 20;

int max_newton_steps(const NewtonSettings& settings) {
    return static_cast<int>(std::min<long long>(kStepsPerFactorization * settings.max_factorizations,
                                                std::numeric_limits<int>::max()));
}

Vec6 jacobian_a(const Row& r) {
    Vec6 j;
    j << -r.dir, r.ang_a;
    return j;
}
Vec6 jacobian_b(const Row& r) {
    Vec6 j;
    j << r.dir, r.ang_b;
    return j;
}

double row_velocity_of(const Row& r, std::int32_t a, std::int32_t b, const Eigen::VectorXd& x) {
    double w = 0;
    if (a >= 0) w += jacobian_a(r).dot(x.segment<6>(6 * a));
    if (b >= 0) w += jacobian_b(r).dot(x.segment<6>(6 * b));
    return w;
}

// Total normal impulse of friction row r's patch in `lambda`.
double patch_load(const Row& r, const std::vector<double>& lambda) {
    double total = 0;
    for (std::int32_t k = 0; k < r.normal_count; ++k)
        total += std::max(0.0, lambda[static_cast<std::size_t>(r.normal + k)]);
    return total;
}

class Island {
  public:
    Island(std::span<Row> rows, std::span<SolverBody> bodies, NewtonWorkspace& ws)
        : rows_(rows), bodies_(bodies), ws_(ws) {}

    // Lists the island's bodies and sizes the scratch; factorises densely up to dense_max_bodies bodies, and
    // above where they nearly all touch each other.
    void gather(int dense_max_bodies);
    bool nearly_complete(std::size_t nb);  // half of all pairs of the nb bodies share a row
    std::size_t body_count() const { return ws_.body_of.size(); }
    // Normal impulses >= 0, then friction impulses within the bounds their normals give.
    void make_feasible(std::vector<double>& lambda) const;
    // v = v0 + M^-1 J^T lambda, applied row by row exactly as apply_row_impulse applies impulses.
    void velocities_from(const std::vector<double>& lambda);
    // Complementarity violation of `lambda` at ws.v: the largest in m/s, and in impulse terms relative to the
    // largest impulse. Stores J v - t in ws.offset.
    std::pair<double, double> residual(const std::vector<double>& lambda);
    void set_compliance(double eps);
    // Moves the friction bounds held over a subproblem a fraction `relaxation` of the way to mu times the
    // normal impulses of `lambda`.
    void update_bounds(const std::vector<double>& lambda, double relaxation);
    // Solves the subproblem with centre ws.centre from ws.v, leaving its impulses in ws.impulse; true if it
    // converged within the caps.
    bool solve_subproblem(const NewtonSettings& settings, NewtonResult& result);
    // The largest velocity of the island (warm start or current iterate), which bounds what rounding allows.
    void set_velocity_scale(double scale) { velocity_scale_ = scale; }
    double velocity_scale() const { return velocity_scale_; }
    // The largest sum of the magnitudes of a row's terms (its target and the products J_i x of each body) at
    // x, times the row's lever: the rounding of that row's residual is relative to this, and it exceeds the
    // velocity scale where the targets or the lever arms are far larger than the velocities.
    double row_term_scale(const Eigen::VectorXd& x) const;
    void write_back(const std::vector<double>& lambda);

  private:
    void set_bounds();  // friction bounds from the centre's normal impulses
    // J_i x: the row's a and b terms, then its point-mass terms.
    double row_velocity(std::size_t i, const Eigen::VectorXd& x) const;
    void evaluate(const Eigen::VectorXd& u);  // w, impulses, free rows and the gradient at u
    double gradient_velocity() const;         // largest |M^-1 gradient| component, m/s or rad/s
    void factorise();
    // H += s j j^T on body x's diagonal block; H += s (jx jy^T + jy jx^T) between bodies x != y.
    void add_diagonal_block(std::int32_t x, const Vec6& j, double s);
    void add_cross_blocks(std::int32_t x, const Vec6& jx, std::int32_t y, const Vec6& jy, double s);
    void add_free_row(std::size_t i);  // J_i^T J_i / p_i of a free row
    void solve_step();
    double line_search();
    void build_sparse_pattern();

    std::span<Row> rows_;
    std::span<SolverBody> bodies_;
    NewtonWorkspace& ws_;
    bool dense_ = true;
    bool blocked_ = false;
    int dense_max_bodies_ = 0;
    bool have_factor_ = false;
    double velocity_scale_ = 0;
};

void Island::gather(int dense_max_bodies) {
    NewtonWorkspace& ws = ws_;
    if (ws.local_of.size() < bodies_.size()) ws.local_of.resize(bodies_.size(), -1);
    for (std::uint32_t g : ws.body_of) ws.local_of[g] = -1;
    ws.body_of.clear();
    const std::size_t n = rows_.size();
    ws.row_a.resize(n);
    ws.row_b.resize(n);
    auto local = [&](std::uint32_t g) -> std::int32_t {
        if (g == kNoBody) return -1;
        if (ws.local_of[g] < 0) {
            ws.local_of[g] = static_cast<std::int32_t>(ws.body_of.size());
            ws.body_of.push_back(g);
        }
        return ws.local_of[g];
    };
    ws.spread_start.assign(n + 1, 0);
    ws.spread_body.clear();
    ws.spread_weight.clear();
    for (std::size_t i = 0; i < n; ++i) {
        ws.row_a[i] = local(rows_[i].a);
        ws.row_b[i] = local(rows_[i].b);
        const auto first = ws.spread_body.size();
        for_each_spread_term(rows_[i], [&](std::uint32_t g, double weight, double) {
            const std::int32_t body = local(g);
            for (std::size_t k = first; k < ws.spread_body.size(); ++k)
                if (ws.spread_body[k] == body) {
                    ws.spread_weight[k] += weight;
                    return;
                }
            ws.spread_body.push_back(body);
            ws.spread_weight.push_back(weight);
        });
        ws.spread_start[i + 1] = static_cast<std::int32_t>(ws.spread_body.size());
    }
    const std::size_t nb = ws.body_of.size();
    ws.mass.resize(nb);
    ws.inertia.resize(nb);
    ws.v0.resize(static_cast<Eigen::Index>(6 * nb));
    for (std::size_t k = 0; k < nb; ++k) {
        const SolverBody& b = bodies_[ws.body_of[k]];
        ws.mass[k] = 1.0 / b.inverse_mass;
        ws.inertia[k] = b.inverse_inertia.inverse();
        ws.v0.segment<3>(static_cast<Eigen::Index>(6 * k)) = b.velocity;
        ws.v0.segment<3>(static_cast<Eigen::Index>(6 * k + 3)) = b.angular_velocity;
    }
    for (auto* v :
         {&ws.w, &ws.offset, &ws.centre, &ws.impulse, &ws.penalty, &ws.lo, &ws.hi, &ws.d, &ws.bound})
        v->assign(n, 0.0);
    ws.free.assign(n, 0);
    ws.factored_free.assign(n, 0);
    dense_max_bodies_ = dense_max_bodies;
    dense_ = static_cast<int>(nb) <= dense_max_bodies || nearly_complete(nb);
}

// Bodies resting on each other touch a handful of neighbours each (equal spheres at most 12), so the graph of
// an island's body pairs is sparse and its factor stays sparse under the minimum-degree ordering. Bodies
// placed inside each other (created at one point) can touch every other: with half of all pairs present the
// factor is full, and a dense blocked factorisation of the same size is faster than the sparse one
// (docs/reliability.md, "Callbacks, cables and prisms in fuzz_world").
bool Island::nearly_complete(std::size_t nb) {
    NewtonWorkspace& ws = ws_;
    ws.row_pairs.clear();
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (ws.row_a[i] >= 0 && ws.row_b[i] >= 0 && ws.row_a[i] != ws.row_b[i])
            ws.row_pairs.push_back((static_cast<std::uint64_t>(std::min(ws.row_a[i], ws.row_b[i])) << 32) |
                                   static_cast<std::uint32_t>(std::max(ws.row_a[i], ws.row_b[i])));
    std::sort(ws.row_pairs.begin(), ws.row_pairs.end());
    const auto pairs =
        static_cast<double>(std::unique(ws.row_pairs.begin(), ws.row_pairs.end()) - ws.row_pairs.begin());
    const double all = 0.5 * static_cast<double>(nb) * static_cast<double>(nb - 1);
    return pairs >= 0.5 * all;
}

void Island::make_feasible(std::vector<double>& lambda) const {
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (unilateral(rows_[i].kind)) lambda[i] = std::max(0.0, lambda[i]);
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        if (rows_[i].kind == RowKind::motor) lambda[i] = std::clamp(lambda[i], -rows_[i].mu, rows_[i].mu);
        if (rows_[i].kind == RowKind::friction) {
            const double bound = rows_[i].mu * patch_load(rows_[i], lambda);
            lambda[i] = std::clamp(lambda[i], -bound, bound);
        }
    }
}

void Island::velocities_from(const std::vector<double>& lambda) {
    NewtonWorkspace& ws = ws_;
    ws.v = ws.v0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& r = rows_[i];
        const double l = lambda[i];
        if (l == 0) continue;
        if (const std::int32_t a = ws.row_a[i]; a >= 0) {
            ws.v.segment<3>(6 * a) -= (r.inv_mass_a * l) * r.dir;
            ws.v.segment<3>(6 * a + 3) += l * r.inv_ang_a;
        }
        if (const std::int32_t b = ws.row_b[i]; b >= 0) {
            ws.v.segment<3>(6 * b) += (r.inv_mass_b * l) * r.dir;
            ws.v.segment<3>(6 * b + 3) += l * r.inv_ang_b;
        }
        for (auto k = static_cast<std::size_t>(ws.spread_start[i]);
             k < static_cast<std::size_t>(ws.spread_start[i + 1]); ++k) {
            const std::int32_t p = ws.spread_body[k];
            ws.v.segment<3>(6 * p) +=
                (ws.spread_weight[k] * bodies_[ws.body_of[static_cast<std::size_t>(p)]].inverse_mass * l) *
                r.dir;
        }
    }
}

double Island::row_velocity(std::size_t i, const Eigen::VectorXd& x) const {
    const NewtonWorkspace& ws = ws_;
    const Row& r = rows_[i];
    double w = row_velocity_of(r, ws.row_a[i], ws.row_b[i], x);
    for (auto k = static_cast<std::size_t>(ws.spread_start[i]);
         k < static_cast<std::size_t>(ws.spread_start[i + 1]); ++k)
        w += ws.spread_weight[k] * r.dir.dot(x.segment<3>(6 * ws.spread_body[k]));
    return w;
}

double Island::row_term_scale(const Eigen::VectorXd& x) const {
    const NewtonWorkspace& ws = ws_;
    double scale = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& r = rows_[i];
        double terms = std::abs(r.target);
        if (const std::int32_t a = ws.row_a[i]; a >= 0)
            terms += jacobian_a(r).cwiseAbs().dot(x.segment<6>(6 * a).cwiseAbs());
        if (const std::int32_t b = ws.row_b[i]; b >= 0)
            terms += jacobian_b(r).cwiseAbs().dot(x.segment<6>(6 * b).cwiseAbs());
        for (auto k = static_cast<std::size_t>(ws.spread_start[i]);
             k < static_cast<std::size_t>(ws.spread_start[i + 1]); ++k)
            terms += std::abs(ws.spread_weight[k]) *
                     r.dir.cwiseAbs().dot(x.segment<3>(6 * ws.spread_body[k]).cwiseAbs());
        scale = std::max(scale, terms * r.lever);
    }
    return scale;
}

std::pair<double, double> Island::residual(const std::vector<double>& lambda) {
    NewtonWorkspace& ws = ws_;
    double worst = 0, worst_impulse = 0, scale = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& r = rows_[i];
        const double v = row_velocity(i, ws.v) - r.target;
        ws.offset[i] = v;
        double lo = -kInfinity, hi = kInfinity;
        if (unilateral(r.kind)) lo = 0;
        if (r.kind == RowKind::friction) hi = r.mu * patch_load(r, lambda), lo = -hi;
        if (r.kind == RowKind::motor) hi = r.mu, lo = -r.mu;
        // The natural map: how far the impulse is from its projection after a step of the row's own
        // effective mass, in velocity units (A_ii times impulse): |w - t| inside the bounds, the wrong-signed
        // part of w - t at a bound, and never more than A_ii times the distance to the bound.
        const double l = lambda[i];
        const double violation =
            std::abs(l - std::clamp(l - v / std::max(r.diagonal, 1e-300), lo, hi)) * r.diagonal;
        worst = std::max(worst, violation * r.lever);
        worst_impulse = std::max(worst_impulse, violation / std::max(r.diagonal, 1e-300) / r.lever);
        scale = std::max(scale, std::abs(l) / r.lever);
    }
    return {worst, scale > 0 ? worst_impulse / scale : worst_impulse};
}

void Island::set_compliance(double eps) {
    for (std::size_t i = 0; i < rows_.size(); ++i) ws_.penalty[i] = eps * std::max(rows_[i].diagonal, 1e-300);
    have_factor_ = false;
}

void Island::update_bounds(const std::vector<double>& lambda, double relaxation) {
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].kind == RowKind::friction)
            ws_.bound[i] += relaxation * (rows_[i].mu * patch_load(rows_[i], lambda) - ws_.bound[i]);
}

void Island::set_bounds() {
    NewtonWorkspace& ws = ws_;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& r = rows_[i];
        ws.lo[i] = unilateral(r.kind) ? 0.0 : -kInfinity;
        ws.hi[i] = kInfinity;
        if (r.kind == RowKind::friction) ws.hi[i] = ws.bound[i], ws.lo[i] = -ws.bound[i];
        if (r.kind == RowKind::motor) ws.hi[i] = r.mu, ws.lo[i] = -r.mu;
    }
}

void Island::evaluate(const Eigen::VectorXd& u) {
    NewtonWorkspace& ws = ws_;
    const std::size_t nb = body_count();
    ws.force.resize(u.size());
    for (std::size_t k = 0; k < nb; ++k) {
        const auto o = static_cast<Eigen::Index>(6 * k);
        ws.force.segment<3>(o) = ws.mass[k] * u.segment<3>(o);
        ws.force.segment<3>(o + 3) = ws.inertia[k] * u.segment<3>(o + 3);
    }
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& r = rows_[i];
        const std::int32_t a = ws.row_a[i], b = ws.row_b[i];
        ws.w[i] = ws.offset[i] + row_velocity(i, u);  // J v - t
        const double z = ws.centre[i] - ws.w[i] / ws.penalty[i];
        ws.free[i] = z > ws.lo[i] && z < ws.hi[i];
        ws.impulse[i] = std::clamp(z, ws.lo[i], ws.hi[i]);
        const double change = ws.impulse[i] - ws.centre[i];
        if (change == 0) continue;
        if (a >= 0) ws.force.segment<6>(6 * a) -= change * jacobian_a(r);
        if (b >= 0) ws.force.segment<6>(6 * b) -= change * jacobian_b(r);
        for (auto k = static_cast<std::size_t>(ws.spread_start[i]);
             k < static_cast<std::size_t>(ws.spread_start[i + 1]); ++k)
            ws.force.segment<3>(6 * ws.spread_body[k]) -= (change * ws.spread_weight[k]) * r.dir;
    }
}

double Island::gradient_velocity() const {
    const NewtonWorkspace& ws = ws_;
    double worst = 0;
    for (std::size_t k = 0; k < body_count(); ++k) {
        const auto o = static_cast<Eigen::Index>(6 * k);
        const SolverBody& b = bodies_[ws.body_of[k]];
        worst = std::max(worst, b.inverse_mass * ws.force.segment<3>(o).lpNorm<Eigen::Infinity>());
        worst = std::max(worst, (b.inverse_inertia * ws.force.segment<3>(o + 3)).lpNorm<Eigen::Infinity>());
    }
    return worst;
}

void Island::build_sparse_pattern() {
    NewtonWorkspace& ws = ws_;
    const auto nb = static_cast<std::int32_t>(body_count());
    std::vector<std::pair<std::int32_t, std::int32_t>>& pairs = ws.block_pairs;
    pairs.clear();
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const std::int32_t a = ws.row_a[i], b = ws.row_b[i];
        if (!ws.free[i]) continue;
        if (a >= 0 && b >= 0 && a != b) pairs.emplace_back(std::min(a, b), std::max(a, b));
        // A row with point-mass terms joins every two of its bodies.
        const auto first = static_cast<std::size_t>(ws.spread_start[i]);
        for (auto k = first; k < static_cast<std::size_t>(ws.spread_start[i + 1]); ++k) {
            const std::int32_t p = ws.spread_body[k];
            for (std::int32_t other : {a, b})
                if (other >= 0 && other != p) pairs.emplace_back(std::min(other, p), std::max(other, p));
            for (auto l = first; l < k; ++l)
                pairs.emplace_back(std::min(ws.spread_body[l], p), std::max(ws.spread_body[l], p));
        }
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    ws.shape.clear();
    ws.shape.push_back(static_cast<std::uint64_t>(nb));
    for (std::uint32_t g : ws.body_of) ws.shape.push_back(g);
    for (const auto& [a, b] : pairs)
        ws.shape.push_back((static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b));
    if (ws.shape == ws.factored_shape) return;
    ws.factored_shape = ws.shape;

    // Approximate minimum degree on the graph of bodies.
    Eigen::SparseMatrix<double> graph(nb, nb);
    {
        std::vector<Eigen::Triplet<double>> t;
        t.reserve(2 * pairs.size() + static_cast<std::size_t>(nb));
        for (std::int32_t k = 0; k < nb; ++k) t.emplace_back(k, k, 1.0);
        for (const auto& [a, b] : pairs) t.emplace_back(a, b, 1.0), t.emplace_back(b, a, 1.0);
        graph.setFromTriplets(t.begin(), t.end());
    }
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> inverse_order;
    Eigen::AMDOrdering<int>()(graph, inverse_order);  // inverse_order[new] = old
    ws.position.assign(static_cast<std::size_t>(nb), 0);
    for (std::int32_t p = 0; p < nb; ++p)
        ws.position[static_cast<std::size_t>(inverse_order.indices()[p])] = p;
    // Off-diagonal blocks (column, row) of the upper triangle in the new order: row block < column block.
    std::vector<std::pair<std::int32_t, std::int32_t>> blocks;
    blocks.reserve(pairs.size());
    for (const auto& [a, b] : pairs) {
        const std::int32_t pa = ws.position[static_cast<std::size_t>(a)];
        const std::int32_t pb = ws.position[static_cast<std::size_t>(b)];
        blocks.emplace_back(std::max(pa, pb), std::min(pa, pb));
    }
    std::sort(blocks.begin(), blocks.end());
    ws.column_blocks_start.assign(static_cast<std::size_t>(nb) + 1, 0);
    ws.block_rows.resize(blocks.size());
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        ++ws.column_blocks_start[static_cast<std::size_t>(blocks[k].first) + 1];
        ws.block_rows[k] = blocks[k].second;
    }
    for (std::size_t c = 0; c < static_cast<std::size_t>(nb); ++c)
        ws.column_blocks_start[c + 1] += ws.column_blocks_start[c];
    // Scalar CSC of the upper triangle: column 6c+q holds 6 rows per off-diagonal block of block column c,
    // then the diagonal block's rows 0..q (the column's last q + 1 entries).
    const Eigen::Index n = 6 * nb;
    ws.h.resize(n, n);
    ws.h.resizeNonZeros(static_cast<Eigen::Index>(21 * nb + 36 * static_cast<std::int64_t>(blocks.size())));
    int* outer = ws.h.outerIndexPtr();
    int* inner = ws.h.innerIndexPtr();
    int at = 0;
    for (std::int32_t c = 0; c < nb; ++c)
        for (int q = 0; q < 6; ++q) {
            outer[6 * c + q] = at;
            for (std::int32_t k = ws.column_blocks_start[static_cast<std::size_t>(c)];
                 k < ws.column_blocks_start[static_cast<std::size_t>(c) + 1]; ++k)
                for (int r = 0; r < 6; ++r) inner[at++] = 6 * ws.block_rows[static_cast<std::size_t>(k)] + r;
            for (int r = 0; r <= q; ++r) inner[at++] = 6 * c + r;
        }
    outer[n] = at;
    ws.sparse.analyzePattern(ws.h);
}

void Island::add_diagonal_block(std::int32_t x, const Vec6& j, double s) {
    NewtonWorkspace& ws = ws_;
    if (dense_) {
        ws.dense_h.block<6, 6>(6 * x, 6 * x).noalias() += s * j * j.transpose();
        return;
    }
    double* value = ws.h.valuePtr();
    const int* outer = ws.h.outerIndexPtr();
    const std::int32_t p = ws.position[static_cast<std::size_t>(x)];
    // Entry (r, c), r <= c, is (s j[c]) j[r].
    for (int c = 0; c < 6; ++c) {
        double* diagonal_rows = value + outer[6 * p + c + 1] - (c + 1);
        for (int r = 0; r <= c; ++r) diagonal_rows[r] += s * j[c] * j[r];
    }
}

void Island::add_cross_blocks(std::int32_t x, const Vec6& jx, std::int32_t y, const Vec6& jy, double s) {
    NewtonWorkspace& ws = ws_;
    if (dense_) {
        ws.dense_h.block<6, 6>(6 * x, 6 * y).noalias() += s * jx * jy.transpose();
        ws.dense_h.block<6, 6>(6 * y, 6 * x).noalias() += s * jy * jx.transpose();
        return;
    }
    if (x == y) return;
    const std::int32_t px = ws.position[static_cast<std::size_t>(x)];
    const std::int32_t py = ws.position[static_cast<std::size_t>(y)];
    // Block (row block R, column block C), R < C: entry (r, q) is (s j_R[r]) j_C[q].
    const std::int32_t c = std::max(px, py), row_block = std::min(px, py);
    const Vec6& jr = px > py ? jy : jx;
    const Vec6& jc = px > py ? jx : jy;
    const auto first = ws.block_rows.begin() + ws.column_blocks_start[static_cast<std::size_t>(c)];
    const auto last = ws.block_rows.begin() + ws.column_blocks_start[static_cast<std::size_t>(c) + 1];
    const auto slot = static_cast<int>(std::lower_bound(first, last, row_block) - first);
    double* value = ws.h.valuePtr();
    const int* outer = ws.h.outerIndexPtr();
    const Vec6 f = s * jr;
    for (int q = 0; q < 6; ++q) {
        double* column = value + outer[6 * c + q] + 6 * slot;
        for (int r = 0; r < 6; ++r) column[r] += f[r] * jc[q];
    }
}

void Island::add_free_row(std::size_t i) {
    const NewtonWorkspace& ws = ws_;
    const Row& row = rows_[i];
    const double s = 1.0 / ws.penalty[i];
    const std::int32_t a = ws.row_a[i], b = ws.row_b[i];
    const Vec6 ja = a >= 0 ? jacobian_a(row) : Vec6::Zero();
    const Vec6 jb = b >= 0 ? jacobian_b(row) : Vec6::Zero();
    if (a >= 0) add_diagonal_block(a, ja, s);
    if (b >= 0) add_diagonal_block(b, jb, s);
    if (a >= 0 && b >= 0) add_cross_blocks(a, ja, b, jb, s);
    const auto first = static_cast<std::size_t>(ws.spread_start[i]);
    for (auto k = first; k < static_cast<std::size_t>(ws.spread_start[i + 1]); ++k) {
        const std::int32_t p = ws.spread_body[k];
        Vec6 jp;
        jp << ws.spread_weight[k] * row.dir, Vec3::Zero();
        add_diagonal_block(p, jp, s);
        if (a >= 0) add_cross_blocks(a, ja, p, jp, s);
        if (b >= 0) add_cross_blocks(b, jb, p, jp, s);
        for (auto l = first; l < k; ++l) {
            Vec6 jl;
            jl << ws.spread_weight[l] * row.dir, Vec3::Zero();
            add_cross_blocks(ws.spread_body[l], jl, p, jp, s);
        }
    }
}

void Island::factorise() {
    NewtonWorkspace& ws = ws_;
    const std::size_t nb = body_count();
    if (dense_) {
        const auto n = static_cast<Eigen::Index>(6 * nb);
        ws.dense_h.setZero(n, n);
        for (std::size_t k = 0; k < nb; ++k) {
            const auto o = static_cast<Eigen::Index>(6 * k);
            ws.dense_h.block<3, 3>(o, o).diagonal().setConstant(ws.mass[k]);
            ws.dense_h.block<3, 3>(o + 3, o + 3) = ws.inertia[k];
        }
        for (std::size_t i = 0; i < rows_.size(); ++i)
            if (ws.free[i]) add_free_row(i);
        // Above the small size (a nearly complete graph of bodies), the blocked Cholesky: H is positive
        // definite, and the unblocked LDL^T runs at the speed of a matrix-vector product.
        blocked_ = static_cast<int>(nb) > dense_max_bodies_;
        if (blocked_) {
            ws.dense_llt.compute(ws.dense_h);
            blocked_ = ws.dense_llt.info() == Eigen::Success;
        }
        if (!blocked_) ws.dense.compute(ws.dense_h);
        ws.dense_factor_bytes =
            std::max(ws.dense_factor_bytes, static_cast<std::size_t>(n * n) * sizeof(double));
    } else {
        build_sparse_pattern();
        double* value = ws.h.valuePtr();
        const int* outer = ws.h.outerIndexPtr();
        std::fill(value, value + ws.h.nonZeros(), 0.0);
        for (std::size_t k = 0; k < nb; ++k) {
            const std::int32_t p = ws.position[k];
            for (int q = 0; q < 3; ++q) {
                value[outer[6 * p + q + 1] - 1] = ws.mass[k];  // diagonal entry (q, q), its column's last
                double* inertia_rows = value + outer[6 * p + 3 + q + 1] - (q + 1);  // rows 3..3+q
                for (int r = 0; r <= q; ++r) inertia_rows[r] = ws.inertia[k](q, r);
            }
        }
        for (std::size_t i = 0; i < rows_.size(); ++i)
            if (ws.free[i]) add_free_row(i);
        ws.sparse.factorize(ws.h);
        ws.factor_nonzeros = std::max(
            ws.factor_nonzeros, static_cast<std::size_t>(ws.sparse.matrixL().nestedExpression().nonZeros()));
    }
    ws.factored_free = ws.free;
    have_factor_ = true;
}

void Island::solve_step() {
    NewtonWorkspace& ws = ws_;
    if (dense_) {
        if (blocked_)
            ws.step = -ws.dense_llt.solve(ws.force);
        else
            ws.step = -ws.dense.solve(ws.force);
        return;
    }
    const std::size_t nb = body_count();
    ws.scratch.resize(ws.force.size());
    for (std::size_t k = 0; k < nb; ++k)
        ws.scratch.segment<6>(6 * ws.position[k]) = ws.force.segment<6>(static_cast<Eigen::Index>(6 * k));
    ws.scratch = ws.sparse.solve(ws.scratch);
    ws.step.resize(ws.force.size());
    for (std::size_t k = 0; k < nb; ++k)
        ws.step.segment<6>(static_cast<Eigen::Index>(6 * k)) = -ws.scratch.segment<6>(6 * ws.position[k]);
}

// Exact line search along ws.step: the root of the piecewise-linear, increasing derivative of f along it, by
// Newton's method safeguarded with a bracket. Returns the step length.
double Island::line_search() {
    NewtonWorkspace& ws = ws_;
    double step_m_step = 0, step_m_u = 0;
    for (std::size_t k = 0; k < body_count(); ++k) {
        const auto o = static_cast<Eigen::Index>(6 * k);
        const Vec3 lin = ws.mass[k] * ws.step.segment<3>(o);
        const Vec3 ang = ws.inertia[k] * ws.step.segment<3>(o + 3);
        step_m_step += lin.dot(ws.step.segment<3>(o)) + ang.dot(ws.step.segment<3>(o + 3));
        step_m_u += lin.dot(ws.u.segment<3>(o)) + ang.dot(ws.u.segment<3>(o + 3));
    }
    for (std::size_t i = 0; i < rows_.size(); ++i) ws.d[i] = row_velocity(i, ws.step);
    auto derivative = [&](double alpha, double& slope, double& scale) {
        double h = step_m_u + alpha * step_m_step;
        slope = step_m_step;
        scale = std::abs(step_m_u) + std::abs(alpha * step_m_step);
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            const double d = ws.d[i];
            if (d == 0) continue;
            const double z = ws.centre[i] - (ws.w[i] + alpha * d) / ws.penalty[i];
            const double change = std::clamp(z, ws.lo[i], ws.hi[i]) - ws.centre[i];
            h -= d * change;
            scale += std::abs(d * change);
            if (z > ws.lo[i] && z < ws.hi[i]) slope += d * d / ws.penalty[i];
        }
        return h;
    };
    double slope = 0, scale = 0;
    if (!(derivative(0.0, slope, scale) < 0)) return 0.0;  // no descent left
    double low = 0, high = kInfinity, alpha = 1;
    for (int iteration = 0; iteration < 60; ++iteration) {
        const double h = derivative(alpha, slope, scale);
        if (std::abs(h) <= 1e-14 * scale) return alpha;
        (h < 0 ? low : high) = alpha;
        double next = alpha - h / slope;
        if (!(next > low && next < high)) next = std::isfinite(high) ? 0.5 * (low + high) : 2 * alpha;
        if (std::abs(next - alpha) <= 1e-15 * alpha) return next;
        alpha = next;
    }
    return alpha;
}

bool Island::solve_subproblem(const NewtonSettings& settings, NewtonResult& result) {
    NewtonWorkspace& ws = ws_;
    set_bounds();
    ws.u.setZero(ws.v.size());
    evaluate(ws.u);
    const double tolerance = std::max(1e-3 * settings.tolerance, kGradientRounding * velocity_scale_);
    for (int iteration = 0; iteration < settings.max_newton; ++iteration) {
        if (gradient_velocity() <= tolerance) return true;
        if (result.factorizations >= settings.max_factorizations ||
            result.newton >= max_newton_steps(settings))
            return false;
        ++result.newton;
        if (!have_factor_ || ws.free != ws.factored_free) {
            factorise();
            ++result.factorizations;
        }
        solve_step();
        const double alpha = line_search();
        if (alpha == 0) return gradient_velocity() <= tolerance;
        ws.u += alpha * ws.step;
        evaluate(ws.u);
    }
    return gradient_velocity() <= tolerance;
}

void Island::write_back(const std::vector<double>& lambda) {
    NewtonWorkspace& ws = ws_;
    for (std::size_t k = 0; k < body_count(); ++k) {
        SolverBody& b = bodies_[ws.body_of[k]];
        b.velocity = ws.v.segment<3>(static_cast<Eigen::Index>(6 * k));
        b.angular_velocity = ws.v.segment<3>(static_cast<Eigen::Index>(6 * k + 3));
    }
    for (std::size_t i = 0; i < rows_.size(); ++i) rows_[i].lambda = lambda[i];
}

}  // namespace

NewtonResult solve_blcp_newton(std::span<Row> rows, std::span<SolverBody> bodies, NewtonWorkspace& ws,
                               const NewtonSettings& settings) {
    NewtonResult result;
    Island island(rows, bodies, ws);
    island.gather(settings.dense_max_bodies);
    std::vector<double>& lambda = ws.centre;  // the iterate is the next subproblem's centre
    for (std::size_t i = 0; i < rows.size(); ++i) lambda[i] = rows[i].lambda;
    island.make_feasible(lambda);
    island.velocities_from(lambda);
    auto [residual, relative] = island.residual(lambda);
    ws.best = lambda;
    double best_residual = residual;
    double eps = settings.proximal_start;
    island.set_compliance(eps);
    island.update_bounds(lambda, 1.0);
    double relaxation = 1.0;
    island.set_velocity_scale(std::max(ws.v0.lpNorm<Eigen::Infinity>(), ws.v.lpNorm<Eigen::Infinity>()));
    const double reachable = std::max(
        settings.tolerance,
        kResidualRounding *
            std::max({island.velocity_scale(), island.row_term_scale(ws.v0), island.row_term_scale(ws.v)}));
    while (residual > reachable && result.outer < settings.max_outer &&
           result.factorizations < settings.max_factorizations &&
           result.newton < max_newton_steps(settings)) {
        ++result.outer;
        const bool solved = island.solve_subproblem(settings, result);
        const double previous = residual;
        lambda.swap(ws.impulse);
        island.make_feasible(lambda);  // friction within the bounds of the new normal impulses
        island.velocities_from(lambda);
        std::tie(residual, relative) = island.residual(lambda);
        if (residual < best_residual) best_residual = residual, ws.best = lambda;
        // Lagging bounds (lag_friction_bounds): an iteration that raised the residual halves their steps, one
        // that lowered it doubles them again (up to the whole way).
        if (settings.lag_friction_bounds)
            relaxation =
                residual > previous ? std::max(0.125, 0.5 * relaxation) : std::min(1.0, 2 * relaxation);
        island.update_bounds(lambda, relaxation);
        if (solved && residual > 0.25 * previous && residual <= previous && eps > settings.proximal_min)
            island.set_compliance(eps = std::max(settings.proximal_min, eps * settings.proximal_drop));
    }
    result.capped = residual > reachable;
    if (residual > best_residual) {
        lambda = ws.best;
        island.velocities_from(lambda);
        std::tie(residual, relative) = island.residual(lambda);
    }
    result.residual = residual;
    result.relative = relative;
    result.converged = residual <= settings.tolerance;
    island.write_back(lambda);
    return result;
}

}  // namespace simpulse::detail
