// Oracle test of the cylinder-terrain algorithm (cylinder_terrain.h) through collide(): 10,000 random poses
// of random cylinders over a random bumpy field (with a flat block, a planar slope of rectangles and a kerb
// step), checked against a brute-force reference written here independently of the algorithm.
//
// The reference contact of an element e (unit upward normal n, plane depth s_e(P) = n . V0 - n . P) is
//   D_e = max { s_e(P) : P in the cylinder, P + s_e(P) n in e },
// the depth of the cylinder's deepest point among those whose projection along the normal falls on the
// element. Three independent checks:
//  1. Every reported point is exact: its terrain point T = P + (d/2) n lies on an element with the manifold's
//     normal, and the normal line through T meets the cylinder (ray against the finite cylinder, in the
//     cylinder's frame) with deepest point exactly at depth d. So normals are element normals and no depth is
//     overstated.
//  2. Lower bound, nothing missed: dense samples give genuine points of each element's contact, so
//     S_in(e) <= D_e. For every element with S_in(e) above -margin the manifold of its normal must exist and
//     report at least S_in(e) minus the reduction's tie window (1e-4 r: cylinder_terrain_patch.cpp keeps a
//     body-fixed rim point over a deeper one within that window). This covers "no contact deeper than 1e-4 m
//     is missed" and depths agree from below.
//  3. Upper bound within the sampling tolerance: with surface samples no farther than delta from any surface
//     point, the true maximiser P* has a sample P with |P - P*| <= delta; orthogonal projection is
//     1-Lipschitz, so P projects within delta of e, and s_e(P) >= s_e(P*) - delta. Hence D_e <= S_out(e) +
//     delta, where S_out(e) is the sampled maximum over projections within delta of e; every manifold's depth
//     must obey it.
#include <simpulse/collision/narrow_phase.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

namespace simpulse {
namespace {

constexpr double kRound = 1e-9;  // rounding of positions and depths of metre-scale inputs, with headroom
constexpr double kFlat = 1e-9;   // the algorithm's eps_H for the rectangle rule (cylinder_terrain.h)

struct Element {
    std::vector<Vec3> v;  // counter-clockwise from above
    Vec3 n;
    double k;  // n . x on the plane
    // In-plane frame (e1, e2) and the edge lines in it: q is inside when u_i . q >= c_i for every edge i.
    Vec3 e1, e2;
    std::vector<Vec2> u;
    std::vector<double> c;

    // Largest signed distance of the in-plane point with frame coordinates q to the edge lines: <= 0 inside;
    // outside, a lower bound of the distance to the polygon (exact unless a corner is nearest).
    double edge_distance(const Vec2& q) const {
        double d = -1e300;
        for (std::size_t i = 0; i < u.size(); ++i) d = std::max(d, c[i] - u[i].dot(q));
        return d;
    }
    Vec2 frame(const Vec3& x) const { return {x.dot(e1), x.dot(e2)}; }
};

// The grid's elements, built here from the paper's rule (sect. II) and the engine's diagonal (i, j)-(i+1,
// j+1).
std::vector<Element> cell_elements_reference(const HeightField& f, int i, int j) {
    const double dx = f.spacing.x(), dy = f.spacing.y();
    const double x = f.origin.x() + j * dx, y = f.origin.y() + i * dy;
    const Vec3 v0(x, y, f.height(i, j)), v1(x + dx, y, f.height(i, j + 1)), v2(x, y + dy, f.height(i + 1, j)),
        v3(x + dx, y + dy, f.height(i + 1, j + 1));
    auto make = [](std::vector<Vec3> v, const Vec3& a, const Vec3& b) {
        Element e;
        e.n = a.cross(b).normalized();
        e.v = std::move(v);
        e.k = e.n.dot(e.v[0]);
        e.e1 = (e.v[1] - e.v[0]).normalized();
        e.e2 = e.n.cross(e.e1);
        for (std::size_t m = 0; m < e.v.size(); ++m) {
            const Vec2 a2 = e.frame(e.v[m]), b2 = e.frame(e.v[(m + 1) % e.v.size()]);
            const Vec2 inward = Vec2(-(b2 - a2).y(), (b2 - a2).x()).normalized();  // counter-clockwise: left
            e.u.push_back(inward);
            e.c.push_back(inward.dot(a2));
        }
        return e;
    };
    const bool coplanar = std::abs(v0.z() + v3.z() - v1.z() - v2.z()) <= kFlat;
    if (coplanar && (std::abs(v1.z() - v0.z()) <= kFlat || std::abs(v2.z() - v0.z()) <= kFlat))
        return {make({v0, v1, v3, v2}, v1 - v0, v2 - v0)};
    return {make({v0, v1, v3}, v1 - v0, v3 - v1), make({v0, v3, v2}, v3 - v2, v2 - v0)};
}

// Signed distance from an in-plane point to the element polygon (negative inside).
double polygon_distance(const Element& e, const Vec3& x) {
    double outside = 0;
    bool inside = true;
    double inner = 1e300;
    for (std::size_t i = 0; i < e.v.size(); ++i) {
        const Vec3& a = e.v[i];
        const Vec3& b = e.v[(i + 1) % e.v.size()];
        const Vec3 edge = b - a;
        const double side = edge.cross(x - a).dot(e.n) / edge.norm();  // > 0 inside
        if (side < 0) inside = false;
        inner = std::min(inner, side);
        const double t = std::clamp((x - a).dot(edge) / edge.squaredNorm(), 0.0, 1.0);
        const double d = (a + t * edge - x).norm();
        outside = i == 0 ? d : std::min(outside, d);
    }
    return inside ? -inner : outside;
}

// Deepest point along the line x - lambda n through the finite cylinder |z| <= hh, x^2 + y^2 <= r^2 (its
// frame): the largest lambda on the line inside the cylinder, -inf when the line misses it. The cylinder is
// grown by `grow`: a reported point on the silhouette (a rim point seen edge-on) lies on the boundary of the
// set of lines that meet the cylinder, and the rounding of its position must not make its line miss.
double ray_depth(const Cylinder& cylinder, const Pose& pose, const Vec3& x, const Vec3& n, double grow = 0) {
    const Cylinder c{cylinder.radius + grow, cylinder.half_height + grow};
    const Vec3 o = pose.inverse_transform_point(x), d = -pose.inverse_rotate(n);
    double lo = -1e300, hi = 1e300;
    if (std::abs(d.z()) > 1e-15) {
        const double t1 = (-c.half_height - o.z()) / d.z(), t2 = (c.half_height - o.z()) / d.z();
        lo = std::max(lo, std::min(t1, t2));
        hi = std::min(hi, std::max(t1, t2));
    } else if (std::abs(o.z()) > c.half_height) {
        return -1e300;
    }
    const double qa = d.x() * d.x() + d.y() * d.y(), qb = o.x() * d.x() + o.y() * d.y(),
                 qc = o.x() * o.x() + o.y() * o.y() - c.radius * c.radius;
    if (qa > 1e-15) {
        const double disc = qb * qb - qa * qc;
        if (disc < 0) return -1e300;
        const double s = std::sqrt(disc);
        lo = std::max(lo, (-qb - s) / qa);
        hi = std::min(hi, (-qb + s) / qa);
    } else if (qc > 0) {
        return -1e300;
    }
    return lo <= hi + 1e-12 ? hi : -1e300;
}

struct Bumpy {
    ShapePtr shape;
    const HeightField& field() const { return std::get<HeightField>(shape->geometry); }
};

Bumpy make_bumpy(std::mt19937_64& rng) {
    const int rows = 18, columns = 18;
    const double spacing = 0.2;
    std::uniform_real_distribution<double> noise(-0.04, 0.04);
    std::vector<double> h(static_cast<std::size_t>(rows * columns));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j) {
            const double x = j * spacing, y = i * spacing;
            double z = 0.25 * std::sin(1.3 * x) * std::cos(0.9 * y) + noise(rng);
            if (i >= 2 && i <= 6 && j >= 2 && j <= 7) z = 0.1;  // flat block: rectangles
            if (i >= 9 && i <= 14 && j >= 2 && j <= 8)
                z = 0.05 + 0.3 * (x - 0.4);  // slope along x: rectangles
            if (i >= 9 && i <= 15 && j >= 11 && j <= 15)
                z = -0.1 + 0.2 * x - 0.15 * y;                  // diagonal slope: triangles
            if (i <= 7 && j >= 11) z = (j >= 13 ? 0.25 : 0.0);  // kerb step between columns 12, 13
            h[static_cast<std::size_t>(i * columns + j)] = z;
        }
    return {make_height_field(Vec2(0, 0), Vec2(spacing, spacing), rows, columns, std::move(h))};
}

// Height of the grid surface at (x, y) (the element above/below the point), for placing poses.
double surface_height(const HeightField& f, double x, double y) {
    const int j =
        std::clamp(static_cast<int>(std::floor((x - f.origin.x()) / f.spacing.x())), 0, f.columns - 2);
    const int i = std::clamp(static_cast<int>(std::floor((y - f.origin.y()) / f.spacing.y())), 0, f.rows - 2);
    for (const Element& e : cell_elements_reference(f, i, j)) {
        const Vec3 p(x, y, 0);
        const double z = (e.k - e.n.x() * x - e.n.y() * y) / e.n.z();
        if (polygon_distance(e, Vec3(x, y, z)) <= 1e-12) return z;
        (void)p;
    }
    return f.height(i, j);
}

TEST(CylinderTerrainOracle, RandomPosesAgainstBruteForce) {
#ifdef NDEBUG
    const int kPoses = 10000;
#else
    const int kPoses = 150;  // unoptimised (sanitizer) builds: the same checks on fewer poses
#endif
    std::mt19937_64 rng(20200529);
    const Bumpy bumpy = make_bumpy(rng);
    const HeightField& f = bumpy.field();
    std::uniform_real_distribution<double> unit(0, 1);
    // Surface sampling: N_phi around, N_t along the axis, N_rho rings per cap.
    const int n_phi = 48, n_t = 12, n_rho = 6;

    int poses_with_contact = 0, manifolds_total = 0, points_total = 0, elements_checked = 0;
    double worst_exact = 0, worst_gap_below = -1e300, worst_upper = -1e300;
    double largest_depth = 0;
    for (int pose_index = 0; pose_index < kPoses; ++pose_index) {
        const Cylinder c{0.08 + 0.32 * unit(rng), 0.04 + 0.36 * unit(rng)};
        const double margin = pose_index % 2 == 0 ? 0.0 : 0.005;
        Pose pose;
        pose.orientation = Quat::UnitRandom();
        if (pose_index % 5 == 0)
            pose.orientation = Quat(Eigen::AngleAxisd(0.05 * (unit(rng) - 0.5), Vec3::UnitX()));
        if (pose_index % 5 == 1)
            pose.orientation =
                Quat(Eigen::AngleAxisd(6.3 * unit(rng), Vec3::UnitZ())) *
                Quat(Eigen::AngleAxisd(std::numbers::pi / 2 + 0.05 * (unit(rng) - 0.5), Vec3::UnitX()));
        const Vec3 v = pose.rotate(Vec3::UnitZ());
        const double x = 0.2 + 3.0 * unit(rng), y = 0.2 + 3.0 * unit(rng);
        const double lowest =
            c.half_height * std::abs(v.z()) + c.radius * std::sqrt(std::max(0.0, 1 - v.z() * v.z()));
        pose.position = Vec3(x, y, surface_height(f, x, y) + lowest - 0.06 * unit(rng) + 0.02);

        std::vector<Manifold> out;
        collide(*make_cylinder(c.radius, c.half_height), pose, *bumpy.shape, Pose{}, CollideSettings{margin},
                out);
        manifolds_total += static_cast<int>(out.size());
        if (!out.empty()) ++poses_with_contact;

        // The paper's element set Q: the cells under the cylinder's box grown by the margin. The box from the
        // support function of the cylinder (rim extremes: h/2 |v_k| + r sqrt(1 - v_k^2) along axis k).
        Vec3 half;
        for (int k = 0; k < 3; ++k)
            half[k] = c.half_height * std::abs(v[k]) + c.radius * std::sqrt(std::max(0.0, 1 - v[k] * v[k])) +
                      margin;
        const Vec3 box_lo = pose.position - half, box_hi = pose.position + half;
        std::vector<Element> elements;
        for (int i = 0; i + 1 < f.rows; ++i)
            for (int j = 0; j + 1 < f.columns; ++j) {
                const double x0 = f.origin.x() + j * f.spacing.x(), y0 = f.origin.y() + i * f.spacing.y();
                if (x0 > box_hi.x() || x0 + f.spacing.x() < box_lo.x() || y0 > box_hi.y() ||
                    y0 + f.spacing.y() < box_lo.y())
                    continue;
                for (Element& e : cell_elements_reference(f, i, j)) elements.push_back(std::move(e));
            }

        // Check 1: every reported point is exact.
        for (const Manifold& m : out) {
            const Vec3 n = -m.normal;
            ASSERT_NEAR(m.normal.norm(), 1, kRound);
            ASSERT_GE(m.count, 1);
            ASSERT_LE(m.count, 4);
            for (int p = 0; p < m.count; ++p) {
                ++points_total;
                const ContactPoint& q = m.points[static_cast<std::size_t>(p)];
                EXPECT_GE(q.depth, -margin - kRound);
                const Vec3 t = q.position + 0.5 * q.depth * n;
                double best_element = 1e300;
                for (const Element& e : elements) {
                    if ((e.n - n).norm() > 1e-6) continue;
                    best_element =
                        std::min(best_element, std::max(std::abs(e.n.dot(t) - e.k), polygon_distance(e, t)));
                }
                EXPECT_LT(best_element, kRound)
                    << "pose " << pose_index << ": point not on an element of normal " << n.transpose()
                    << " (off by " << best_element << ")";
                double exact = ray_depth(c, pose, t, n);
                if (exact < -1e200)
                    exact = ray_depth(c, pose, t, n, 1e-12);  // a silhouette point, see ray_depth
                worst_exact = std::max(worst_exact, std::abs(exact - q.depth));
                EXPECT_NEAR(exact, q.depth, kRound) << "pose " << pose_index;
                largest_depth = std::max(largest_depth, q.depth);
            }
        }

        // Surface samples (cylinder frame), the reference for checks 2 and 3.
        std::vector<Vec3> samples;
        for (int a = 0; a < n_phi; ++a) {
            const double phi = 2 * std::numbers::pi * a / n_phi;
            const Vec3 dir(std::cos(phi), std::sin(phi), 0);
            for (int t = 0; t <= n_t; ++t)
                samples.push_back(pose.transform_point(
                    c.radius * dir + Vec3(0, 0, -c.half_height + 2 * c.half_height * t / n_t)));
            for (int ring = 1; ring <= n_rho; ++ring)
                for (double z : {-c.half_height, c.half_height})
                    samples.push_back(pose.transform_point(c.radius * ring / n_rho * dir + Vec3(0, 0, z)));
        }
        for (double z : {-c.half_height, c.half_height})
            samples.push_back(pose.transform_point(Vec3(0, 0, z)));
        const double delta =
            std::max(std::hypot(c.radius * std::numbers::pi / n_phi, c.half_height / n_t),
                     std::hypot(c.radius * std::numbers::pi / n_phi, 0.5 * c.radius / n_rho));

        std::vector<double> upper(elements.size());  // S_out(e) + delta
        for (std::size_t index = 0; index < elements.size(); ++index) {
            const Element& e = elements[index];
            double s_in = -1e300, s_out = -1e300;
            for (const Vec3& sp : samples) {
                const double s = e.k - e.n.dot(sp);
                if (s <= s_out) continue;  // s_out >= s_in: this sample improves neither
                const double d =
                    e.edge_distance(e.frame(sp));  // projection along n keeps the frame coordinates
                if (d <= 0) s_in = s;
                if (d <= delta) s_out = s;
            }
            upper[index] = s_out + delta;
            // Lower-bound samples over the element itself: the normal line through each grid point.
            const int g = 8;
            for (int a = 0; a <= g; ++a)
                for (int b = 0; b <= g; ++b) {
                    Vec3 q = e.v[0];
                    if (e.v.size() == 4)
                        q = e.v[0] + (e.v[1] - e.v[0]) * a / g + (e.v[3] - e.v[0]) * b / g;
                    else if (a + b <= g)
                        q = e.v[0] + (e.v[1] - e.v[0]) * a / g + (e.v[2] - e.v[0]) * b / g;
                    s_in = std::max(s_in, ray_depth(c, pose, q, e.n));
                }
            // The manifold of this element's normal.
            const Manifold* m = nullptr;
            for (const Manifold& k : out)
                if ((-k.normal - e.n).norm() <= 1e-6) m = &k;
            double reported = -1e300;
            if (m != nullptr)
                for (int p = 0; p < m->count; ++p)
                    reported = std::max(reported, m->points[static_cast<std::size_t>(p)].depth);
            if (s_in >= -margin + kRound) {
                ++elements_checked;
                // Check 2.
                ASSERT_NE(m, nullptr) << "pose " << pose_index << ": element with normal " << e.n.transpose()
                                      << " penetrated by " << s_in << " has no manifold";
                EXPECT_GE(reported, s_in - 1e-4 * c.radius - kRound)
                    << "pose " << pose_index << ": reported " << reported << " below sampled " << s_in;
                worst_gap_below = std::max(worst_gap_below, s_in - reported);
            }
        }
        // Check 3, per manifold: below the sampled bound of the elements of its normal.
        for (const Manifold& m : out) {
            double bound = -1e300;
            for (std::size_t index = 0; index < elements.size(); ++index)
                if ((-m.normal - elements[index].n).norm() <= 1e-6) bound = std::max(bound, upper[index]);
            for (int p = 0; p < m.count; ++p) {
                const double excess = m.points[static_cast<std::size_t>(p)].depth - bound;
                worst_upper = std::max(worst_upper, excess);
                EXPECT_LE(excess, kRound) << "pose " << pose_index;
            }
        }
        if (HasFatalFailure()) return;
    }
    std::printf(
        "oracle: %d poses, %d with contact, %d manifolds, %d points, %d penetrated elements checked\n",
        kPoses, poses_with_contact, manifolds_total, points_total, elements_checked);
    std::printf(
        "oracle: largest depth %.4g m; worst |exact - reported| %.3g m; worst sampled - reported %.3g m "
        "(allowed 1e-4 r); worst reported - upper bound %.3g m (allowed 0)\n",
        largest_depth, worst_exact, worst_gap_below, worst_upper);
    EXPECT_GT(poses_with_contact, kPoses / 2);
}

}  // namespace
}  // namespace simpulse
