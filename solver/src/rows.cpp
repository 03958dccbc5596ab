// Row construction (Jacobians, effective masses), tangent bases and the island split of the constraint graph.
#include "rows.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {

void make_row(Row& row, std::span<const SolverBody> bodies, std::uint32_t a, std::uint32_t b, const Vec3& pa,
              const Vec3& pb, const Vec3& dir) {
    row.dir = dir;
    row.a = (a < bodies.size() && movable(bodies[a])) ? a : kNoBody;
    row.b = (b < bodies.size() && movable(bodies[b])) ? b : kNoBody;
    row.diagonal = 0;
    if (row.a != kNoBody) {
        const SolverBody& body = bodies[row.a];
        row.ang_a = -(pa - body.position).cross(dir);
        row.inv_ang_a = body.inverse_inertia * row.ang_a;
        row.inv_mass_a = body.inverse_mass;
        row.diagonal += body.inverse_mass + row.ang_a.dot(row.inv_ang_a);
    } else {
        row.ang_a.setZero();
        row.inv_ang_a.setZero();
        row.inv_mass_a = 0;
    }
    if (row.b != kNoBody) {
        const SolverBody& body = bodies[row.b];
        row.ang_b = (pb - body.position).cross(dir);
        row.inv_ang_b = body.inverse_inertia * row.ang_b;
        row.inv_mass_b = body.inverse_mass;
        row.diagonal += body.inverse_mass + row.ang_b.dot(row.inv_ang_b);
    } else {
        row.ang_b.setZero();
        row.inv_ang_b.setZero();
        row.inv_mass_b = 0;
    }
}

void make_twist_row(Row& row, std::span<const SolverBody> bodies, std::uint32_t a, std::uint32_t b,
                    const Vec3& normal) {
    row.a = (a < bodies.size() && movable(bodies[a])) ? a : kNoBody;
    row.b = (b < bodies.size() && movable(bodies[b])) ? b : kNoBody;
    row.dir.setZero();  // no linear part: only the relative spin about the normal
    row.inv_mass_a = row.inv_mass_b = 0;
    row.ang_a = row.a != kNoBody ? Vec3(-normal) : Vec3(Vec3::Zero());
    row.ang_b = row.b != kNoBody ? Vec3(normal) : Vec3(Vec3::Zero());
    row.inv_ang_a = row.a != kNoBody ? Vec3(bodies[row.a].inverse_inertia * row.ang_a) : Vec3(Vec3::Zero());
    row.inv_ang_b = row.b != kNoBody ? Vec3(bodies[row.b].inverse_inertia * row.ang_b) : Vec3(Vec3::Zero());
    row.diagonal = row.ang_a.dot(row.inv_ang_a) + row.ang_b.dot(row.inv_ang_b);
}

bool attach_spread(Row& row, std::span<const SolverBody> bodies, const ContactConstraint& c,
                   RowSpread& spread) {
    if (c.body_a != kSpreadBody && c.body_b != kSpreadBody) return false;
    spread.count = 0;
    auto add_side = [&](const PointSpread& side, double sign) {
        for (std::size_t k = 0; k < side.body.size(); ++k) {
            const std::uint32_t body = side.body[k];
            if (side.weight[k] == 0 || body >= bodies.size() || !movable(bodies[body])) continue;
            const auto slot = static_cast<std::size_t>(spread.count++);
            spread.body[slot] = body;
            spread.weight[slot] = sign * side.weight[k];
            spread.inverse_mass[slot] = bodies[body].inverse_mass;
        }
    };
    if (c.body_a == kSpreadBody) add_side(c.spread_a, -1.0);
    if (c.body_b == kSpreadBody) add_side(c.spread_b, 1.0);
    row.spread = &spread;
    add_spread_diagonal(row);
    return true;
}

void add_spread_diagonal(Row& row) {
    const RowSpread& s = *row.spread;
    // Two terms on the same body (a point shared by two spread sides) couple with each other too.
    for (int k = 0; k < s.count; ++k)
        for (int l = 0; l < s.count; ++l)
            if (s.body[static_cast<std::size_t>(k)] == s.body[static_cast<std::size_t>(l)])
                row.diagonal += s.weight[static_cast<std::size_t>(k)] *
                                s.weight[static_cast<std::size_t>(l)] *
                                s.inverse_mass[static_cast<std::size_t>(k)];
}

namespace {

// The spread terms' part of A_ij (point masses: linear terms only, J = weight dir).
double spread_coupling(const Row& i, const Row& j) {
    double a = 0;
    for_each_spread_term(i, [&](std::uint32_t body, double weight, double inverse_mass) {
        double shared = 0;  // j's linear coefficient on the body, along j.dir
        if (body == j.a) shared -= 1;
        if (body == j.b) shared += 1;
        for_each_spread_term(j, [&](std::uint32_t other, double other_weight, double) {
            if (other == body) shared += other_weight;
        });
        a += weight * inverse_mass * shared * i.dir.dot(j.dir);
    });
    // i's rigid sides against j's point-mass terms (a rigid side on a point mass has no angular part).
    for_each_spread_term(j, [&](std::uint32_t body, double weight, double inverse_mass) {
        if (body == i.a) a -= weight * inverse_mass * i.dir.dot(j.dir);
        if (body == i.b) a += weight * inverse_mass * i.dir.dot(j.dir);
    });
    return a;
}

}  // namespace

double coupling(const Row& i, const Row& j) {
    double a = 0;
    if (i.spread != nullptr || j.spread != nullptr) a += spread_coupling(i, j);
    if (i.a != kNoBody) {
        if (i.a == j.a) a += i.inv_mass_a * i.dir.dot(j.dir) + i.ang_a.dot(j.inv_ang_a);
        if (i.a == j.b) a += -i.inv_mass_a * i.dir.dot(j.dir) + i.ang_a.dot(j.inv_ang_b);
    }
    if (i.b != kNoBody) {
        if (i.b == j.a) a += -i.inv_mass_b * i.dir.dot(j.dir) + i.ang_b.dot(j.inv_ang_a);
        if (i.b == j.b) a += i.inv_mass_b * i.dir.dot(j.dir) + i.ang_b.dot(j.inv_ang_b);
    }
    return a;
}

void tangent_basis(const Vec3& normal, const Vec3& preferred, Vec3& t1, Vec3& t2) {
    const Vec3 projected = preferred - normal.dot(preferred) * normal;
    const double length = projected.norm();
    if (length > 1e-9) {
        t1 = projected / length;
    } else if (std::abs(normal.x()) >= 0.57735026919) {
        t1 = Vec3(normal.y(), -normal.x(), 0).normalized();
    } else {
        t1 = Vec3(0, normal.z(), -normal.y()).normalized();
    }
    t2 = normal.cross(t1);
}

std::uint32_t IslandBuilder::find(std::uint32_t x) {
    while (parent_[x] != x) {
        parent_[x] = parent_[parent_[x]];
        x = parent_[x];
    }
    return x;
}

void IslandBuilder::build(std::span<const Row> rows, std::size_t body_count) {
    parent_.resize(body_count);
    for (std::uint32_t i = 0; i < body_count; ++i) parent_[i] = i;
    auto unite = [&](std::uint32_t x, std::uint32_t y) {
        std::uint32_t rx = find(x), ry = find(y);
        if (rx == ry) return;
        if (rx > ry) std::swap(rx, ry);
        parent_[ry] = rx;  // the smallest body index is the root: islands come out in body order
    };
    for (const Row& r : rows) {
        if (r.spread != nullptr) {
            const std::uint32_t first = r.a != kNoBody ? r.a : r.b != kNoBody ? r.b : r.spread->body[0];
            for_each_row_body(r, [&](std::uint32_t body) { unite(first, body); });
            continue;
        }
        if (r.a == kNoBody || r.b == kNoBody) continue;
        unite(r.a, r.b);
    }
    // Number islands by their root body in increasing order (deterministic), then bucket the rows stably.
    island_of_root_.assign(body_count, 1);  // 1: unused root (set to kNoBody below); 0: used
    row_island_.resize(rows.size());
    std::uint32_t islands = 0;
    row_root_.clear();
    for (const Row& r : rows) {
        const std::uint32_t root = find(r.a != kNoBody                          ? r.a
                                        : r.b != kNoBody || r.spread == nullptr ? r.b
                                                                                : r.spread->body[0]);
        row_root_.push_back(root);
        island_of_root_[root] = 0;  // marks a used root
    }
    // Number the used roots in increasing body order (deterministic, no sort needed).
    for (std::uint32_t body = 0; body < body_count; ++body)
        if (island_of_root_[body] == 0)
            island_of_root_[body] = islands++;
        else
            island_of_root_[body] = kNoBody;
    for (std::size_t i = 0; i < rows.size(); ++i) row_island_[i] = island_of_root_[row_root_[i]];
    offsets_.assign(islands + 1, 0);
    for (std::uint32_t k : row_island_) ++offsets_[k + 1];
    for (std::uint32_t k = 0; k < islands; ++k) offsets_[k + 1] += offsets_[k];
    order_.assign(rows.size(), 0);
    cursor_.assign(offsets_.begin(), offsets_.end() - 1);
    for (std::uint32_t i = 0; i < rows.size(); ++i) order_[cursor_[row_island_[i]]++] = i;
}

}  // namespace simpulse::detail
