// Constraint rows of the simultaneous impulse solver (internal). Every row is one scalar constraint on the
// relative velocity of two bodies along a direction d:
//   w = J v = d . (v_b - v_a) + ang_a . w_a + ang_b . w_b
// with ang_a = -(r_a x d), ang_b = r_b x d; an impulse lambda on the row changes the velocities by M^-1 J^T
// lambda. Every contact point gives a normal row; with friction, each contact patch (the points of one
// manifold) gives two tangent rows and, with two or more points, a torsional row at the patch centre, bounded
// by mu times the patch's total normal impulse ("patch friction"): per-point friction rows would be redundant
// (8 rows for 3 tangential degrees of freedom of a face contact) and make the simultaneous system degenerate.
// A joint gives its type's rows (joints/joint_rows.h).
#pragma once

#include <simpulse/solver/solver.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace simpulse::detail {

inline constexpr std::uint32_t kNoBody = 0xffffffffu;  // static body or the fixed frame: no velocity

// normal: a contact point's row (lambda >= 0); friction: a patch's tangent or torsion row (|lambda| <= mu
// lambda_n); joint: a joint's equality row (lambda free); limit: a joint's one-sided row (a limit of its
// angle, travel or length: lambda >= 0 like a contact, with the limit's restitution and no friction); motor:
// a joint's drive, w = target (the speed) with |lambda| <= mu (the largest force or torque times the step),
// like a friction row with a fixed bound.
enum class RowKind : std::uint8_t { normal, friction, joint, limit, motor };

// Rows whose impulse only pushes (lambda >= 0, w >= target, complementary).
inline bool unilateral(RowKind kind) {
    return kind == RowKind::normal || kind == RowKind::limit;
}
// A joint's rows: equality, limit or motor.
inline bool of_joint(RowKind kind) {
    return kind == RowKind::joint || kind == RowKind::limit || kind == RowKind::motor;
}
// Rows the restitution phase's re-checks solve again on top of the first answer: not the rows whose impulse
// is bounded by a value (friction, motors), which a second solve could push past their bound.
inline bool solved_again(RowKind kind) {
    return kind != RowKind::friction && kind != RowKind::motor;
}

// The point-mass terms of a row with spread contact sides (PointSpread): term k changes the row velocity by
// weight[k] dir . v of body[k] (weight negative on side A), and only the movable bodies are kept. Rows of one
// contact (normal and tangents) share it.
struct RowSpread {
    static constexpr int kCapacity = 8;  // both sides spread (cable against cable)
    std::array<std::uint32_t, kCapacity> body{};
    std::array<double, kCapacity> weight{};
    std::array<double, kCapacity> inverse_mass{};
    int count = 0;
};

struct Row {
    std::uint32_t a = kNoBody;  // movable body indices (kNoBody when static/fixed)
    std::uint32_t b = kNoBody;
    Vec3 dir = Vec3::Zero();  // unit direction, acts +dir on b and -dir on a
    Vec3 ang_a = Vec3::Zero();
    Vec3 ang_b = Vec3::Zero();
    Vec3 inv_ang_a = Vec3::Zero();  // I_a^-1 ang_a
    Vec3 inv_ang_b = Vec3::Zero();
    double inv_mass_a = 0;
    double inv_mass_b = 0;
    double diagonal = 0;  // A_ii
    double target = 0;    // desired w (speculative approach, joint drift in thesis mode)
    double lambda = 0;    // accumulated impulse
    double mu = 0;        // friction rows: coefficient (torsional row: coefficient times patch radius)
    // Length that turns the row's velocity into a speed at the contact, m: 1 for rows along a direction, the
    // patch radius for torsional rows (whose w is a spin, rad/s), so residuals of all rows compare in m/s.
    double lever = 1;
    std::int32_t normal =
        -1;  // friction rows: first of their patch's normal rows (consecutive), island index
    std::int32_t normal_count = 0;
    RowKind kind = RowKind::normal;
    bool persistent =
        false;  // normal and limit rows: it carried an impulse in the previous step (not an impact)
    std::uint8_t slot = 0;              // joint rows: the row's place among its joint's rows (warm start)
    std::uint32_t source = 0;           // contact or joint index
    const RowSpread* spread = nullptr;  // point-mass terms besides a and b (cable contacts), else null
};

// f(body, weight, inverse_mass) for each point-mass term of the row.
template <class F>
inline void for_each_spread_term(const Row& r, F&& f) {
    if (r.spread == nullptr) return;
    for (int k = 0; k < r.spread->count; ++k)
        f(r.spread->body[static_cast<std::size_t>(k)], r.spread->weight[static_cast<std::size_t>(k)],
          r.spread->inverse_mass[static_cast<std::size_t>(k)]);
}

// f(body) for every body whose velocity the row reads: a, b and the point-mass terms.
template <class F>
inline void for_each_row_body(const Row& r, F&& f) {
    if (r.a != kNoBody) f(r.a);
    if (r.b != kNoBody) f(r.b);
    for_each_spread_term(r, [&](std::uint32_t body, double, double) { f(body); });
}

inline double row_velocity(const Row& r, std::span<const SolverBody> bodies) {
    double w = 0;
    if (r.a != kNoBody) w += -r.dir.dot(bodies[r.a].velocity) + r.ang_a.dot(bodies[r.a].angular_velocity);
    if (r.b != kNoBody) w += r.dir.dot(bodies[r.b].velocity) + r.ang_b.dot(bodies[r.b].angular_velocity);
    for_each_spread_term(r, [&](std::uint32_t body, double weight, double) {
        w += weight * r.dir.dot(bodies[body].velocity);
    });
    return w;
}

inline void apply_row_impulse(const Row& r, double impulse, std::span<SolverBody> bodies) {
    if (r.a != kNoBody) {
        bodies[r.a].velocity -= (r.inv_mass_a * impulse) * r.dir;
        bodies[r.a].angular_velocity += impulse * r.inv_ang_a;
    }
    if (r.b != kNoBody) {
        bodies[r.b].velocity += (r.inv_mass_b * impulse) * r.dir;
        bodies[r.b].angular_velocity += impulse * r.inv_ang_b;
    }
    for_each_spread_term(r, [&](std::uint32_t body, double weight, double inverse_mass) {
        bodies[body].velocity += (weight * inverse_mass * impulse) * r.dir;
    });
}

// Fills the Jacobian of a row between bodies a and b (indices into `bodies`, kNoBody allowed) acting at the
// world points pa (on a) and pb (on b) along dir.
void make_row(Row& row, std::span<const SolverBody> bodies, std::uint32_t a, std::uint32_t b, const Vec3& pa,
              const Vec3& pb, const Vec3& dir);

// Adds the spread sides of contact c (ContactConstraint::spread_a, spread_b) to a row made by make_row with
// the contact's bodies: its movable point masses go into `spread`, which the row then points to, and their
// share of the diagonal is added. Returns false (row unchanged) if the contact has no spread side.
bool attach_spread(Row& row, std::span<const SolverBody> bodies, const ContactConstraint& c,
                   RowSpread& spread);
// f(body, weight) for each used entry of a spread side (non-zero weight, a body of `bodies`).
template <class F>
inline void for_each_spread_point(const PointSpread& side, std::span<const SolverBody> bodies, F&& f) {
    for (std::size_t k = 0; k < side.body.size(); ++k)
        if (side.weight[k] != 0 && side.body[k] < bodies.size()) f(side.body[k], side.weight[k]);
}
// Sum of w_i x_i over a spread side's point masses (all of them, movable or not).
inline Vec3 spread_position(const PointSpread& side, std::span<const SolverBody> bodies) {
    Vec3 x = Vec3::Zero();
    for_each_spread_point(side, bodies,
                          [&](std::uint32_t body, double weight) { x += weight * bodies[body].position; });
    return x;
}
// Adds the diagonal share of the row's spread terms (for a row given an existing spread).
void add_spread_diagonal(Row& row);

// Torsional friction row: relative angular velocity about the normal, w = n . (w_b - w_a).
void make_twist_row(Row& row, std::span<const SolverBody> bodies, std::uint32_t a, std::uint32_t b,
                    const Vec3& normal);

// Total normal impulse of a friction row's patch (negative impulses count as zero).
inline double patch_normal_impulse(const Row& r, std::span<const Row> rows) {
    double total = 0;
    for (std::int32_t k = 0; k < r.normal_count; ++k)
        total += std::max(0.0, rows[static_cast<std::size_t>(r.normal + k)].lambda);
    return total;
}

// A_ij of two rows of the same island (zero unless they share a body).
double coupling(const Row& i, const Row& j);

// Orthonormal tangent pair of a unit normal (t1 along `preferred` projected on the tangent plane if that is
// long enough, else a fixed construction).
void tangent_basis(const Vec3& normal, const Vec3& preferred, Vec3& t1, Vec3& t2);

// Bodies whose motion the solver may change.
inline bool movable(const SolverBody& b) {
    return b.inverse_mass > 0;
}

// Splits rows into islands: bodies connected through rows (movable bodies only; static bodies and the fixed
// frame do not connect). Outputs the permutation of rows grouped by island and the island offsets.
class IslandBuilder {
  public:
    void build(std::span<const Row> rows, std::size_t body_count);
    std::span<const std::uint32_t> order() const { return order_; }
    std::span<const std::uint32_t> offsets() const {
        return offsets_;
    }  // island k: [offsets[k], offsets[k+1])

  private:
    std::uint32_t find(std::uint32_t x);
    std::vector<std::uint32_t> parent_;
    std::vector<std::uint32_t> island_of_root_;
    std::vector<std::uint32_t> row_island_;
    std::vector<std::uint32_t> row_root_;
    std::vector<std::uint32_t> sorted_roots_;
    std::vector<std::uint32_t> cursor_;
    std::vector<std::uint32_t> order_;
    std::vector<std::uint32_t> offsets_;
};

}  // namespace simpulse::detail
