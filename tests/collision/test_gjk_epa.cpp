// Tests of the support mappings, GJK, EPA and signed_distance against closed forms.
//
// Support mappings are checked against independent closed-form support values h(d) = max over the shape of
// d.x. Distances and depths come from configurations whose answer is known exactly:
//  - support points d apart: B's support point along -n lies d beyond A's support point along n, so the
//  planes
//    through them orthogonal to n separate the shapes: distance d, normal n (any pair of convex shapes);
//  - rounded shapes: a sphere centre (capsule segment) at height t over A's support point along n: signed
//    distance t - r along n, however deep;
//  - a shape sunk by delta into a large flat face: depth delta along the face normal (the only short way
//  out);
//  - degenerate cases with hand-derived answers (coincident centres, parallel and crossing capsule cores,
//    touching faces, crossing edges, thin boxes, collinear and coplanar simplices).
// Every case also runs with A and B swapped (same signed distance, opposite normal), and at scales 1e-3 and
// 1e3.
//
// Tolerances are the documented accuracy (gjk.h, epa.h): GJK stops on a duality gap of 1e-10 of the distance,
// EPA of 1e-9 of the depth, both on the cores, so relative to |d| + r_A + r_B; plus a floor of 1e-10 of the
// scene size where curved features make the simplex ill-conditioned (measured by the libccd oracle test), or
// of 1024 ulps where the contact is flat. Normals are checked where they are exact (a flat feature on one
// side) against rounding, elsewhere through the signed gap along them, which must equal the signed distance:
// a normal whose support planes are not the closest pair would show a smaller gap.
#include "closed_form_support.h"

#include <simpulse/collision/epa.h>
#include <simpulse/collision/gjk.h>
#include <simpulse/collision/support.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace simpulse {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Rounding floor used by the tests: 64 ulps (the algorithms' own floor) times an accumulation factor of 16
// for the few dozen operations between support points and the reported values.
constexpr double kRoundingTol = 1024 * kEps;
constexpr double kEpaRel = 1e-9;  // EpaSettings default (GJK's 1e-10 is tighter)
#ifdef NDEBUG
constexpr int kRepeats = 4;  // random poses per configuration
#else
constexpr int kRepeats = 2;  // unoptimised (sanitizer) builds: same configurations, fewer poses
#endif

constexpr std::array<ShapeType, 6> kConvexTypes{ShapeType::sphere,   ShapeType::box,  ShapeType::capsule,
                                                ShapeType::cylinder, ShapeType::cone, ShapeType::convex_hull};

ShapePtr make_hull_from_vertices(std::vector<Vec3> vertices) {
    ConvexHull hull;
    hull.vertices = std::move(vertices);
    return std::make_shared<const Shape>(Shape{std::move(hull)});
}

// Irregular octahedron (a hull given by its vertices only).
ShapePtr octahedron(const Vec3& half) {
    return make_hull_from_vertices({{half.x(), 0, 0},
                                    {-half.x(), 0, 0},
                                    {0, half.y(), 0},
                                    {0, -half.y(), 0},
                                    {0, 0, half.z()},
                                    {0, 0, -half.z()}});
}

ShapePtr tetrahedron(double s) {
    return make_hull_from_vertices({{s, s, s}, {s, -s, -s}, {-s, s, -s}, {-s, -s, s}});
}

// Unit-size representative of each convex type (bounding radius <= 0.8), scaled by s.
ShapePtr make_shape(ShapeType type, double s) {
    switch (type) {
        case ShapeType::sphere:
            return make_sphere(0.5 * s);
        case ShapeType::box:
            return make_box(Vec3(0.5, 0.35, 0.25) * s);
        case ShapeType::capsule:
            return make_capsule(0.3 * s, 0.45 * s);
        case ShapeType::cylinder:
            return make_cylinder(0.4 * s, 0.5 * s);
        case ShapeType::cone:
            return make_cone(0.45 * s, 0.55 * s);
        default:
            return octahedron(Vec3(0.6, 0.5, 0.4) * s);
    }
}

std::string name(ShapeType t) {
    return shape_type_name(t);
}

// ---- Independent closed forms
// ---------------------------------------------------------------------------------

using test::support_value_local;

double support_value(const Shape& shape, const Pose& pose, const Vec3& d) {
    return d.dot(pose.position) + support_value_local(shape, pose.inverse_rotate(d));
}

// Support value of A - B (B translated by b_offset): the translation of B along d that brings the sets into
// touching contact when they overlap, minus the separation when they do not. Penetration depth = min over
// unit d.
double minkowski_value(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const Vec3& d) {
    return support_value(a, pa, d) + support_value(b, pb, -d);
}

// Distance from p to segment [a, b].
double segment_distance(const Vec3& p, const Vec3& a, const Vec3& b) {
    const Vec3 e = b - a;
    const double t = std::clamp((p - a).dot(e) / e.squaredNorm(), 0.0, 1.0);
    return (p - a - t * e).norm();
}

double box2_sd(double x, double y, double hx, double hy) {
    const double qx = std::abs(x) - hx, qy = std::abs(y) - hy;
    return std::hypot(std::max(qx, 0.0), std::max(qy, 0.0)) + std::min(std::max(qx, qy), 0.0);
}

// Hull planes from its vertices (brute force over vertex triples; the test hulls are tiny).
std::vector<std::pair<Vec3, double>> hull_planes(const std::vector<Vec3>& v) {
    std::vector<std::pair<Vec3, double>> planes;
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            for (std::size_t k = j + 1; k < n; ++k) {
                Vec3 normal = (v[j] - v[i]).cross(v[k] - v[i]);
                if (normal.norm() < 1e-12 * (v[j] - v[i]).squaredNorm()) continue;
                normal.normalize();
                double lo = 0, hi = 0;
                for (const Vec3& p : v) {
                    const double s = normal.dot(p - v[i]);
                    lo = std::min(lo, s);
                    hi = std::max(hi, s);
                }
                const double tol = 1e-12 * (hi - lo);
                if (hi <= tol) planes.push_back({normal, normal.dot(v[i])});
                if (lo >= -tol) planes.push_back({-normal, -normal.dot(v[i])});
            }
    return planes;
}

// Signed distance of a local point to the shape's surface (< 0 inside). Exact for the primitives; for hulls
// the largest plane distance, exact inside and a lower bound outside, which is all a membership check needs.
double surface_distance_local(const Shape& shape, const Vec3& p) {
    switch (shape.type()) {
        case ShapeType::sphere:
            return p.norm() - std::get<Sphere>(shape.geometry).radius;
        case ShapeType::box: {
            const Vec3 q = p.cwiseAbs() - std::get<Box>(shape.geometry).half_extents;
            return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
        }
        case ShapeType::capsule: {
            const auto& c = std::get<Capsule>(shape.geometry);
            return segment_distance(p, {0, 0, -c.half_length}, {0, 0, c.half_length}) - c.radius;
        }
        case ShapeType::cylinder: {
            const auto& c = std::get<Cylinder>(shape.geometry);
            return box2_sd(std::hypot(p.x(), p.y()), p.z(), c.radius, c.half_height);
        }
        case ShapeType::cone: {
            // Meridian section: right triangle (0,-h), (R,-h), (0,h) in (rho, z); the axis is interior.
            const auto& c = std::get<Cone>(shape.geometry);
            const double rho = std::hypot(p.x(), p.y()), z = p.z(), h = c.half_height, r = c.radius;
            const Vec3 q(rho, z, 0);
            const double d_base = segment_distance(q, {0, -h, 0}, {r, -h, 0});
            const double d_slant = segment_distance(q, {r, -h, 0}, {0, h, 0});
            const bool inside = z >= -h && rho * 2 * h <= r * (h - z);
            return inside ? -std::min(d_base, d_slant) : std::min(d_base, d_slant);
        }
        default: {
            double best = -std::numeric_limits<double>::infinity();
            for (const auto& [n, off] : hull_planes(std::get<ConvexHull>(shape.geometry).vertices))
                best = std::max(best, n.dot(p) - off);
            return best;
        }
    }
}

double surface_distance(const Shape& shape, const Pose& pose, const Vec3& p) {
    return surface_distance_local(shape, pose.inverse_transform_point(p));
}

double angle(const Vec3& a, const Vec3& b) {
    return std::atan2(a.cross(b).norm(), a.dot(b));
}

Quat random_rotation(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    Quat q(g(rng), g(rng), g(rng), g(rng));
    q.normalize();
    return q;
}

Vec3 random_unit(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    return Vec3(g(rng), g(rng), g(rng)).normalized();
}

// ---- Support mappings
// ------------------------------------------------------------------------------------------

TEST(Support, MatchesClosedFormSupportValueAndLiesOnTheShape) {
    std::mt19937_64 rng(1);
    for (ShapeType type : kConvexTypes) {
        const ShapePtr shape = make_shape(type, 1.0);
        std::vector<Vec3> dirs;
        for (int i = 0; i < 3; ++i) {
            dirs.push_back(Vec3::Unit(i));
            dirs.push_back(-Vec3::Unit(i));
        }
        // Nearly axial and nearly perpendicular directions: cylinder cap/side and cone apex/rim transitions.
        for (double e : {1e-300, 1e-170, 1e-12, 1e-6}) {
            dirs.push_back(Vec3(e, 0, 1).normalized());
            dirs.push_back(Vec3(0, -e, -1).normalized());
            dirs.push_back(Vec3(1, 0, e).normalized());
            dirs.push_back(Vec3(1, 1, -e).normalized());
        }
        for (int i = 0; i < 2000; ++i) dirs.push_back(random_unit(rng));
        double worst_value = 0, worst_surface = 0;
        for (const Vec3& d : dirs) {
            const Vec3 s = support_local(*shape, d);
            worst_value = std::max(worst_value, std::abs(s.dot(d) - support_value_local(*shape, d)));
            worst_surface = std::max(worst_surface, std::abs(surface_distance_local(*shape, s)));
        }
        // Sizes are below 1: a few ulps of 1.
        EXPECT_LE(worst_value, 8 * kEps) << name(type) << ": support value error " << worst_value;
        EXPECT_LE(worst_surface, 8 * kEps)
            << name(type) << ": support point off the surface by " << worst_surface;
        // A zero direction still returns a point of the shape.
        EXPECT_LE(surface_distance_local(*shape, support_local(*shape, Vec3::Zero())), 8 * kEps)
            << name(type);
    }
}

TEST(Support, CoreAndRadiusRebuildTheFullSupport) {
    std::mt19937_64 rng(2);
    for (ShapeType type : kConvexTypes) {
        const ShapePtr shape = make_shape(type, 1.0);
        const double r = core_radius(*shape);
        EXPECT_EQ(r > 0, type == ShapeType::sphere || type == ShapeType::capsule) << name(type);
        double worst = 0;
        for (int i = 0; i < 500; ++i) {
            const Vec3 d = random_unit(rng);
            const Vec3 full = support_core_local(*shape, d) + r * d;
            worst = std::max(worst, std::abs(full.dot(d) - support_value_local(*shape, d)));
        }
        EXPECT_LE(worst, 8 * kEps) << name(type) << ": core + radius support value error " << worst;
    }
}

TEST(Support, WorldViewIsTheTransformedLocalSupport) {
    std::mt19937_64 rng(3);
    for (ShapeType type : kConvexTypes) {
        const ShapePtr shape = make_shape(type, 1.0);
        const Pose pose{Vec3(3, -2, 7), random_rotation(rng)};
        const ConvexSupport view(*shape, pose);
        double worst = 0, worst_core = 0;
        for (int i = 0; i < 500; ++i) {
            const Vec3 d = random_unit(rng);
            worst = std::max(worst, std::abs(view.support(d).dot(d) - support_value(*shape, pose, d)));
            const Vec3 core = view.core().support(d);
            worst_core =
                std::max(worst_core, std::abs(core.dot(d) + view.radius - support_value(*shape, pose, d)));
        }
        // Coordinates up to ~8: a few ulps of 8.
        EXPECT_LE(worst, 64 * kEps) << name(type) << ": world support value error " << worst;
        EXPECT_LE(worst_core, 64 * kEps) << name(type) << ": world core support value error " << worst_core;
        EXPECT_LE(surface_distance(*shape, pose, view.center()), -0.1)
            << name(type) << ": center not interior";
    }
    EXPECT_THROW(ConvexSupport(*make_plane(Vec3::UnitZ(), 0), Pose{}), std::invalid_argument);
    EXPECT_THROW(support_local(*make_plane(Vec3::UnitZ(), 0), Vec3::UnitZ()), std::invalid_argument);
}

// Prism over a regular n-gon (2n vertices), with its exact edge graph: ring edges and vertical edges.
ConvexHull prism_hull(int n) {
    ConvexHull h;
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < n; ++i) {
            const double phi = 2 * M_PI * i / n;
            h.vertices.push_back(Vec3(std::cos(phi), std::sin(phi), k == 0 ? -0.7 : 0.7));
        }
    const auto idx = [n](int k, int i) { return static_cast<std::uint32_t>(k * n + (i + n) % n); };
    h.neighbor_offsets.push_back(0);
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < n; ++i) {
            h.neighbors.push_back(idx(k, i - 1));
            h.neighbors.push_back(idx(k, i + 1));
            h.neighbors.push_back(idx(1 - k, i));
            h.neighbor_offsets.push_back(static_cast<std::uint32_t>(h.neighbors.size()));
        }
    return h;
}

TEST(Support, HullHillClimbingAgreesWithLinearScan) {
    const ConvexHull big = prism_hull(40);  // 80 vertices: above the hill-climbing threshold
    ASSERT_GE(big.vertices.size(), kHullHillClimbMinVertices);
    ConvexHull scan = big;
    scan.neighbor_offsets.clear();  // empty adjacency: linear scan
    scan.neighbors.clear();
    std::mt19937_64 rng(4);
    double worst = 0;
    for (int i = 0; i < 5000; ++i) {
        const Vec3 d = random_unit(rng);
        const std::uint32_t start = static_cast<std::uint32_t>(i % big.vertices.size());
        const double climbed = big.vertices[hull_support_index(big, d, start)].dot(d);
        const double scanned = scan.vertices[hull_support_index(scan, d)].dot(d);
        worst = std::max(worst, std::abs(climbed - scanned));
    }
    EXPECT_EQ(worst, 0.0) << "hill climbing misses the maximum by " << worst;
}

// ---- GJK sub-algorithm
// -----------------------------------------------------------------------------------------

// Independent closest point of a simplex: every non-empty subset's affine projection of the origin (least
// squares), kept when its weights are non-negative; the nearest wins.
Vec3 brute_force_closest(const std::vector<Vec3>& p) {
    Vec3 best = p[0];
    const int n = static_cast<int>(p.size());
    for (int mask = 1; mask < (1 << n); ++mask) {
        std::vector<Vec3> q;
        for (int i = 0; i < n; ++i)
            if (mask & (1 << i)) q.push_back(p[i]);
        const int m = static_cast<int>(q.size());
        Eigen::MatrixXd e(3, m - 1);
        for (int i = 1; i < m; ++i) e.col(i - 1) = q[i] - q[0];
        Eigen::VectorXd t = Eigen::VectorXd::Zero(m - 1);
        if (m > 1) {
            Eigen::JacobiSVD<Eigen::MatrixXd> svd(e, Eigen::ComputeThinU | Eigen::ComputeThinV);
            svd.setThreshold(1e-12);
            t = svd.solve(-q[0]);
        }
        const double t0 = 1 - t.sum();
        if (t0 < -1e-12 || (t.size() > 0 && t.minCoeff() < -1e-12)) continue;
        const Vec3 x = q[0] + (m > 1 ? Vec3(e * t) : Vec3::Zero());
        if (x.norm() < best.norm()) best = x;
    }
    return best;
}

TEST(GjkSubAlgorithm, MatchesBruteForceOnRandomAndDegenerateSimplices) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    double worst = 0;
    std::vector<std::vector<Vec3>> cases;
    for (int i = 0; i < 3000; ++i) {
        const int n = 1 + i % 4;
        std::vector<Vec3> p;
        for (int k = 0; k < n; ++k) p.push_back(Vec3(u(rng), u(rng), u(rng)));
        cases.push_back(p);
    }
    // Degenerate: collinear triangle, coplanar tetrahedron through/off the origin, repeated point, origin on
    // an edge, origin at a vertex.
    cases.push_back({{1, 1, 1}, {2, 2, 2}, {3, 3, 3}});
    cases.push_back({{-1, 0.5, 0}, {1, 0.5, 0}, {0, 2, 0}, {0.2, 1, 0}});
    cases.push_back({{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}, {0.3, 0.2, 0}});
    cases.push_back({{-1, -1, 0.3}, {1, -1, 0.3}, {0, 1, 0.3}, {0.3, 0.2, 0.3}});
    cases.push_back({{1, 0, 0.5}, {1, 0, 0.5}, {0, 1, 0.5}});
    cases.push_back({{-1, 0, 0}, {1, 0, 0}, {0, 1, 1}});
    cases.push_back({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
    for (const auto& p : cases) {
        GjkSimplex s;
        s.count = static_cast<int>(p.size());
        for (int k = 0; k < s.count; ++k) {
            s.w[k] = p[k];
            s.a[k] = p[k];
            s.b[k] = Vec3::Zero();
        }
        std::array<double, 4> lambda{};
        const Vec3 v = gjk_closest_on_simplex(s, lambda);
        const Vec3 expected = brute_force_closest(p);
        // The kept vertices and weights reproduce v, and v is the closest point.
        Vec3 rebuilt = Vec3::Zero();
        double sum = 0;
        for (int k = 0; k < s.count; ++k) {
            rebuilt += lambda[k] * s.w[k];
            sum += lambda[k];
            EXPECT_GE(lambda[k], 0.0);
        }
        worst =
            std::max({worst, std::abs(v.norm() - expected.norm()), (rebuilt - v).norm(), std::abs(sum - 1)});
    }
    // Coordinates of order 1; the flat-simplex threshold (1e-10 relative) bounds the error of nearly flat
    // cases.
    EXPECT_LE(worst, 1e-12) << "closest point error " << worst;
}

// ---- Distance, depth and points against closed forms
// ----------------------------------------------------------

// Floor of the distance error where curved features meet, relative to the scene size (see the file comment).
constexpr double kCurvedFloor = 1e-10;
// An exact normal comes out of a cross product of simplex edges and a normalisation: a few thousand ulps of
// the coordinates over the length that resolves it.
constexpr double kNormalTol = 4096 * kEps;

struct Expected {
    double distance = 0;  // signed
    Vec3 normal = Vec3::UnitZ();
    bool normal_exact = false;  // a flat feature on one side: the normal is exact up to rounding
    bool flat_contact = false;  // the Minkowski difference is flat at the answer: no curved floor
    double scale = 1;           // largest coordinate magnitude involved (rounding floor)
    // Length over which the exact normal is resolved (the core distance, or the smaller feature): rounding of
    // coordinates of magnitude `scale` tilts it by ~ulps * scale / feature. Zero: |distance| + radii.
    double feature = 0;
};

struct Errors {
    double distance = 0, normal = 0;
};

// Checks signed_distance(A, B) and (B, A) against `e`, and gjk()/gjk_intersect()/epa() on the full shapes.
void check_pair(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, const Expected& e,
                const std::string& what, Errors* worst = nullptr) {
    const double radii = core_radius(a) + core_radius(b);
    const double floor = (e.flat_contact ? kRoundingTol : kCurvedFloor) * e.scale;
    const double tol = kEpaRel * (std::abs(e.distance) + radii) + floor;
    for (int swap = 0; swap < 2; ++swap) {
        const Shape& sa = swap ? b : a;
        const Shape& sb = swap ? a : b;
        const Pose& qa = swap ? pb : pa;
        const Pose& qb = swap ? pa : pb;
        const Vec3 n_expected = swap ? Vec3(-e.normal) : e.normal;
        const std::string label = what + (swap ? " [swapped]" : "");
        const SignedDistanceResult r = signed_distance(sa, qa, sb, qb);
        EXPECT_NEAR(r.distance, e.distance, tol) << label << ": distance error " << r.distance - e.distance;
        EXPECT_NEAR(r.normal.norm(), 1.0, 4 * kEps) << label;
        // The signed gap along the reported normal is the signed distance (the normal is a minimising
        // direction).
        const double gap = -minkowski_value(sa, qa, sb, qb, r.normal);
        EXPECT_NEAR(gap, r.distance, tol)
            << label << ": signed gap along the normal " << gap << " vs distance " << r.distance;
        if (e.normal_exact) {
            const double feature = e.feature > 0 ? e.feature : std::abs(e.distance) + radii;
            const double tol_normal = kNormalTol * e.scale / feature;
            EXPECT_LE(angle(r.normal, n_expected), tol_normal)
                << label << ": normal error " << angle(r.normal, n_expected) << " rad, tolerance "
                << tol_normal;
        }
        // Witness points on the surfaces and one signed distance apart along the normal.
        EXPECT_NEAR(surface_distance(sa, qa, r.point_a), 0.0, tol) << label << ": point_a off A's surface";
        EXPECT_NEAR(surface_distance(sb, qb, r.point_b), 0.0, tol) << label << ": point_b off B's surface";
        const double apart = (r.point_b - r.point_a - r.distance * r.normal).norm();
        EXPECT_LE(apart, tol) << label << ": points not distance * normal apart, error " << apart
                              << " (distance " << r.distance << ", |b - a| " << (r.point_b - r.point_a).norm()
                              << ", converged " << r.converged << ", iterations " << r.gjk_iterations << "/"
                              << r.epa_iterations << ")";
        if (worst) {
            worst->distance = std::max(worst->distance, std::abs(r.distance - e.distance) / tol);
            if (e.normal_exact) {
                const double feature = e.feature > 0 ? e.feature : std::abs(e.distance) + radii;
                worst->normal =
                    std::max(worst->normal, angle(r.normal, n_expected) / (kNormalTol * e.scale / feature));
            }
        }

        // Building blocks on the full shapes (no core split: spheres and capsules are curved here).
        const ConvexSupport va(sa, qa), vb(sb, qb);
        const GjkResult g = gjk(va, vb);
        const double full_tol = kEpaRel * std::abs(e.distance) + kCurvedFloor * e.scale;
        if (e.distance > full_tol) {
            EXPECT_FALSE(g.intersecting) << label;
            EXPECT_NEAR(g.distance, e.distance, full_tol)
                << label << ": gjk error " << g.distance - e.distance;
            EXPECT_FALSE(gjk_intersect(va, vb)) << label;
        } else if (e.distance < -full_tol) {
            EXPECT_TRUE(g.intersecting) << label << ": gjk distance " << g.distance;
            EXPECT_TRUE(gjk_intersect(va, vb)) << label;
            const EpaResult p = epa(va, vb, g.simplex);
            // The support value along EPA's normal is its depth (an exact translation) whether or not it
            // converged.
            EXPECT_NEAR(minkowski_value(sa, qa, sb, qb, p.normal), p.depth, full_tol) << label;
            if (p.converged) {
                EXPECT_NEAR(-p.depth, e.distance, full_tol)
                    << label << ": epa error " << -p.depth - e.distance;
            } else {
                // Full spheres against curved features: the polytope runs out of vertices before its lower
                // bound meets the tolerance, and the answer is the polished best direction (epa.h); measured
                // within 1.1e-5 of the depth over 1200 such cases (and exactly an upper bound).
                EXPECT_GE(p.depth, -e.distance - full_tol) << label;
                EXPECT_LE(p.depth, -e.distance * (1 + 1e-4) + full_tol)
                    << label << ": not converged, error " << -p.depth - e.distance;
            }
        }
    }
}

std::string describe(double sa, double sb) {
    return " scales " + std::to_string(sa) + "/" + std::to_string(sb);
}

struct ScalePair {
    double a, b;
};
constexpr std::array<ScalePair, 5> kScales{{{1, 1}, {1e-3, 1e-3}, {1e3, 1e3}, {1e3, 1e-3}, {1e-3, 1e3}}};

TEST(SignedDistance, SupportPointsAKnownDistanceApart) {
    std::mt19937_64 rng(6);
    Errors worst;
    for (const ScalePair sc : kScales)
        for (ShapeType ta : kConvexTypes)
            for (ShapeType tb : kConvexTypes) {
                const ShapePtr a = make_shape(ta, sc.a), b = make_shape(tb, sc.b);
                for (int rep = 0; rep < kRepeats; ++rep) {
                    const Pose pa{Vec3(0.3, -0.2, 0.1) * sc.a, random_rotation(rng)};
                    Pose pb{Vec3::Zero(), random_rotation(rng)};
                    const Vec3 n = random_unit(rng);
                    const double size = std::min(sc.a, sc.b);
                    // Separated, nearly touching (GJK resolves touching curved features only to ~sqrt(eps) of
                    // the size, see gjk.h: 1e-6 is well above that).
                    for (double d : {0.3 * size, 1e-6 * size}) {
                        // (support_local is checked against closed forms above.)
                        const Vec3 tip_a = pa.transform_point(support_local(*a, pa.inverse_rotate(n)));
                        pb.position = tip_a + d * n - pb.rotate(support_local(*b, pb.inverse_rotate(-n)));
                        Expected e;
                        e.distance = d;
                        e.normal = n;
                        e.scale = std::max({sc.a, sc.b, pb.position.norm()});
                        check_pair(
                            *a, pa, *b, pb, e,
                            name(ta) + "-" + name(tb) + " d " + std::to_string(d) + describe(sc.a, sc.b),
                            &worst);
                    }
                }
            }
    std::printf("support points apart: worst distance error / tolerance %.2e\n", worst.distance);
}

TEST(SignedDistance, TouchingAtSupportPoints) {
    std::mt19937_64 rng(7);
    double worst = 0;
    for (const ScalePair sc : kScales)
        for (ShapeType ta : kConvexTypes)
            for (ShapeType tb : kConvexTypes) {
                const ShapePtr a = make_shape(ta, sc.a), b = make_shape(tb, sc.b);
                for (int rep = 0; rep < kRepeats; ++rep) {
                    const Pose pa{Vec3(0.3, -0.2, 0.1) * sc.a, random_rotation(rng)};
                    Pose pb{Vec3::Zero(), random_rotation(rng)};
                    const Vec3 n = random_unit(rng);
                    const Vec3 tip_a = pa.transform_point(support_local(*a, pa.inverse_rotate(n)));
                    pb.position = tip_a - pb.rotate(support_local(*b, pb.inverse_rotate(-n)));
                    // Touching curved features: each GJK step towards a support point |w| away shrinks |v|^2
                    // by about |v|^4 / |w|^2, which rounds away once |v| < sqrt(eps) |w|; 1e-7 of the size is
                    // a few times sqrt(eps). The normal is not unique: the gap along it must vanish just as
                    // well.
                    const double scale = std::max({sc.a, sc.b, pb.position.norm()});
                    const double tol = 1e-7 * scale;
                    for (int swap = 0; swap < 2; ++swap) {
                        const Shape& sa = swap ? *b : *a;
                        const Shape& sb = swap ? *a : *b;
                        const Pose& qa = swap ? pb : pa;
                        const Pose& qb = swap ? pa : pb;
                        const SignedDistanceResult r = signed_distance(sa, qa, sb, qb);
                        const std::string label =
                            name(ta) + "-" + name(tb) + describe(sc.a, sc.b) + (swap ? " [swapped]" : "");
                        EXPECT_NEAR(r.distance, 0.0, tol) << label << ": touching distance " << r.distance;
                        EXPECT_NEAR(minkowski_value(sa, qa, sb, qb, r.normal), 0.0, tol)
                            << label << ": gap along the normal "
                            << -minkowski_value(sa, qa, sb, qb, r.normal);
                        worst = std::max(worst, std::abs(r.distance) / scale);
                    }
                }
            }
    std::printf("touching: worst |distance| / size %.2e\n", worst);
}

// A sphere centre or capsule segment at height t over A's support point along n: signed distance t - r,
// normal n.
TEST(SignedDistance, RoundedShapesPenetratingByAKnownDepth) {
    std::mt19937_64 rng(8);
    Errors worst;
    for (const ScalePair sc : kScales)
        for (ShapeType ta : kConvexTypes)
            for (ShapeType tb : {ShapeType::sphere, ShapeType::capsule}) {
                const ShapePtr a = make_shape(ta, sc.a), b = make_shape(tb, sc.b);
                const double r = core_radius(*b);
                for (int rep = 0; rep < kRepeats; ++rep) {
                    const Pose pa{Vec3(-0.1, 0.2, 0.3) * sc.a, random_rotation(rng)};
                    const Vec3 n = random_unit(rng);
                    const Vec3 tip = pa.transform_point(support_local(*a, pa.inverse_rotate(n)));
                    for (double t : {0.7 * r, 0.2 * r, 1e-3 * r}) {
                        // Capsule: segment orthogonal to n through the centre, so it stays at height t.
                        const Vec3 axis = n.cross(random_unit(rng)).normalized();
                        const Pose pb{tip + t * n, Quat::FromTwoVectors(Vec3::UnitZ(), axis)};
                        Expected e;
                        e.distance = t - r;
                        e.normal = n;
                        e.normal_exact = ta == ShapeType::box || ta == ShapeType::convex_hull;
                        e.flat_contact = e.normal_exact;
                        e.scale = std::max({sc.a, sc.b, pb.position.norm()});
                        check_pair(
                            *a, pa, *b, pb, e,
                            name(ta) + "-" + name(tb) + " t " + std::to_string(t) + describe(sc.a, sc.b),
                            &worst);
                    }
                }
            }
    std::printf("rounded penetration: worst distance error / tolerance %.2e, normal error / tolerance %.2e\n",
                worst.distance, worst.normal);
}

// Large shape with a flat face (box top, cylinder cap, cone base, octahedron face), scaled by s: local
// outward face normal and face centre.
struct BigFace {
    ShapePtr shape;
    Vec3 normal, center;
};

std::vector<BigFace> big_faces(double s) {
    return {{make_box(Vec3(10, 10, 10) * s), Vec3::UnitZ(), Vec3(0, 0, 10 * s)},
            {make_cylinder(8 * s, 4 * s), Vec3::UnitZ(), Vec3(0, 0, 4 * s)},
            {make_cone(10 * s, 4 * s), -Vec3::UnitZ(), Vec3(0, 0, -4 * s)},
            {octahedron(Vec3(10, 10, 10) * s), Vec3(1, 1, 1).normalized(), Vec3(1, 1, 1) * (10 * s / 3)}};
}

// B sunk by delta into A's face near its centre: the only short way out is straight back along the face
// normal (A's other faces are at least 4 B-sizes away), so the depth is delta and the normal the face normal;
// B's lowest point is its deepest point.
TEST(SignedDistance, ShapeSunkIntoALargeFlatFace) {
    std::mt19937_64 rng(9);
    Errors worst;
    for (const double s : {1.0, 1e-3, 1e3})
        for (const double ratio : {10.0, 1e3}) {
            if (s * ratio > 2e3 || s / ratio < 0.5e-3 * 10) continue;  // keep sizes within 1e-3..1e4
            for (const BigFace& face : big_faces(s)) {
                for (ShapeType tb : kConvexTypes) {
                    const double sb = s * 10 / ratio;  // B's size relative to A's face (B <= 1/10 of A)
                    const ShapePtr b = make_shape(tb, sb);
                    for (int rep = 0; rep < kRepeats; ++rep) {
                        const Pose pa{Vec3(1, -2, 0.5) * s, random_rotation(rng)};
                        const Vec3 n = pa.rotate(face.normal);
                        const Vec3 lateral = (n.cross(random_unit(rng))).normalized() * (0.5 * sb);
                        for (double delta : {0.05 * sb, 1e-6 * sb, -0.05 * sb}) {
                            Pose pb{Vec3::Zero(), random_rotation(rng)};
                            const double below = support_value_local(*b, pb.inverse_rotate(-n));
                            pb.position = pa.transform_point(face.center) + lateral + (below - delta) * n;
                            Expected e;
                            e.distance = -delta;
                            e.normal = n;
                            e.normal_exact = true;
                            e.flat_contact = true;
                            e.scale = std::max(20 * s, pb.position.norm());
                            e.feature = sb;
                            const std::string label = name(face.shape->type()) + " face-" + name(tb) +
                                                      " delta " + std::to_string(delta) + describe(s, sb);
                            check_pair(*face.shape, pa, *b, pb, e, label, &worst);
                            // B's deepest point is its lowest point along n, A's is straight above it.
                            const SignedDistanceResult r = signed_distance(*face.shape, pa, *b, pb);
                            const double tol =
                                kRoundingTol * e.scale + kEpaRel * (std::abs(delta) + core_radius(*b));
                            EXPECT_NEAR(n.dot(r.point_b), n.dot(pa.transform_point(face.center)) - delta, tol)
                                << label;
                        }
                    }
                }
            }
        }
    std::printf("sunk into a face: worst distance error / tolerance %.2e, normal error / tolerance %.2e\n",
                worst.distance, worst.normal);
}

// ---- Degenerate configurations
// ----------------------------------------------------------------------------------

Pose at(const Vec3& p, const Quat& q = Quat::Identity()) {
    return Pose{p, q};
}

// Any normal orthogonal to `axis` (a circle of minimisers).
void expect_orthogonal(const Vec3& n, const Vec3& axis, const std::string& what) {
    EXPECT_LE(std::abs(n.dot(axis)), 1e-9)
        << what << ": normal " << n.transpose() << " not orthogonal to " << axis.transpose();
}

TEST(SignedDistanceDegenerate, CoincidentCentres) {
    for (const double s : {1e-3, 1.0, 1e3}) {
        const double tol = kEpaRel * 4 * s + kCurvedFloor * 4 * s;
        const std::string sc = " scale " + std::to_string(s);
        {  // Spheres: the Minkowski difference of the cores is a point; every direction is a minimiser.
            const auto r = signed_distance(*make_sphere(0.5 * s), at(Vec3::Zero()), *make_sphere(0.3 * s),
                                           at(Vec3::Zero()));
            EXPECT_NEAR(r.distance, -0.8 * s, tol) << "sphere-sphere" << sc;
            EXPECT_NEAR(r.normal.norm(), 1.0, 1e-15);
            EXPECT_TRUE(r.converged);
        }
        {  // Boxes: depth min_i (a_i + b_i) along the thinnest axis.
            const auto r = signed_distance(*make_box(Vec3(1, 0.5, 2) * s), at(Vec3::Zero()),
                                           *make_box(Vec3(0.4, 0.2, 0.3) * s), at(Vec3::Zero()));
            EXPECT_NEAR(r.distance, -0.7 * s, tol) << "box-box" << sc;
            EXPECT_NEAR(std::abs(r.normal.y()), 1.0, 1e-12) << "box-box" << sc;
        }
        {  // Sphere at a box centre: r + smallest half extent.
            const auto r = signed_distance(*make_sphere(0.25 * s), at(Vec3(1, 2, 3) * s),
                                           *make_box(Vec3(1, 0.5, 2) * s), at(Vec3(1, 2, 3) * s));
            EXPECT_NEAR(r.distance, -0.75 * s, tol) << "sphere-box" << sc;
            EXPECT_NEAR(std::abs(r.normal.y()), 1.0, 1e-12) << "sphere-box" << sc;
        }
        {  // Capsules crossing at their centres (cores intersect, coplanar): depth r1 + r2 along the cross
           // product.
            const auto r =
                signed_distance(*make_capsule(0.2 * s, 1 * s),
                                at(Vec3::Zero(), Quat::FromTwoVectors(Vec3::UnitZ(), Vec3::UnitX())),
                                *make_capsule(0.3 * s, 0.8 * s),
                                at(Vec3::Zero(), Quat::FromTwoVectors(Vec3::UnitZ(), Vec3::UnitY())));
            EXPECT_NEAR(r.distance, -0.5 * s, tol) << "capsule-capsule crossing" << sc;
            EXPECT_NEAR(std::abs(r.normal.z()), 1.0, 1e-12) << "capsule-capsule crossing" << sc;
        }
        {  // Coaxial capsules: the cores' difference is a segment; any direction orthogonal to the axis.
            const auto r = signed_distance(*make_capsule(0.2 * s, 1 * s), at(Vec3::Zero()),
                                           *make_capsule(0.3 * s, 0.5 * s), at(Vec3(0, 0, 0.4) * s));
            EXPECT_NEAR(r.distance, -0.5 * s, tol) << "capsule-capsule coaxial" << sc;
            expect_orthogonal(r.normal, Vec3::UnitZ(), "capsule-capsule coaxial" + sc);
        }
        {  // Sphere centre on a capsule's axis: core point on core segment.
            const auto r = signed_distance(*make_sphere(0.2 * s), at(Vec3(0, 0, 0.3) * s),
                                           *make_capsule(0.3 * s, 0.5 * s), at(Vec3::Zero()));
            EXPECT_NEAR(r.distance, -0.5 * s, tol) << "sphere-capsule on axis" << sc;
            expect_orthogonal(r.normal, Vec3::UnitZ(), "sphere-capsule on axis" + sc);
        }
        {  // Coaxial cylinders at the same centre: radial depth R1 + R2 < axial h1 + h2.
            const auto r = signed_distance(*make_cylinder(0.3 * s, 1 * s), at(Vec3::Zero()),
                                           *make_cylinder(0.2 * s, 0.6 * s), at(Vec3::Zero()));
            EXPECT_NEAR(r.distance, -0.5 * s, kEpaRel * 0.5 * s + kCurvedFloor * s)
                << "cylinder-cylinder coaxial" << sc;
            expect_orthogonal(r.normal, Vec3::UnitZ(), "cylinder-cylinder coaxial" + sc);
        }
        {  // Sphere at a cone's mid-height on the axis: distance to the slant side R 2h / sqrt(R^2 + 4h^2).
            const double radius = 0.6, h = 0.5;
            const double slant =
                radius * 2 * h / std::hypot(radius, 2 * h) * 0.5;  // at mid-height: half the base's
            const auto r = signed_distance(*make_sphere(0.1 * s), at(Vec3::Zero()),
                                           *make_cone(radius * s, h * s), at(Vec3::Zero()));
            EXPECT_NEAR(r.distance, -(0.1 + std::min(slant, h)) * s, kEpaRel * s + kCurvedFloor * s)
                << "sphere-cone on axis" << sc;
        }
    }
}

TEST(SignedDistanceDegenerate, TouchingAndSunkFacesEdgesAndThinBoxes) {
    const Quat edge_up_x(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX()));  // a cube edge along x, pointing to +-z
    const Quat edge_up_y(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitY()));
    const Quat face_down = Quat::FromTwoVectors(Vec3(1, 1, 1).normalized(), -Vec3::UnitZ());
    for (const double s : {1e-3, 1.0, 1e3}) {
        const std::string sc = " scale " + std::to_string(s);
        const double flat = kRoundingTol * 8 * s;
        for (const double delta : {0.0, 0.01 * s, -0.01 * s}) {  // gap: touching, separated, penetrating
            Expected e;
            e.distance = delta;
            e.normal = Vec3::UnitZ();
            e.normal_exact = true;
            e.flat_contact = true;
            e.scale = 4 * s;
            const std::string d = " delta " + std::to_string(delta) + sc;
            // Face on face, partly overlapping: the only separating direction is z.
            check_pair(*make_box(Vec3(1, 1, 0.5) * s), at(Vec3::Zero()), *make_box(Vec3(0.6, 0.4, 0.3) * s),
                       at(Vec3(0.7, -0.5, 0.8) * s + Vec3(0, 0, delta)), e, "box face-box face" + d);
            // Cylinder cap on a box face.
            check_pair(*make_box(Vec3(1, 1, 0.5) * s), at(Vec3::Zero()), *make_cylinder(0.3 * s, 0.4 * s),
                       at(Vec3(0.2, 0.1, 0.9) * s + Vec3(0, 0, delta)), e, "box face-cylinder cap" + d);
            // Octahedron face down on a box face (a hull given by its vertices only).
            const double oct_down = 1.0 / std::sqrt(3.0);  // face distance of the unit octahedron
            check_pair(*make_box(Vec3(1, 1, 0.5) * s), at(Vec3::Zero()), *octahedron(Vec3(1, 1, 1) * 0.5 * s),
                       at(Vec3(0, 0, 0.5 + 0.5 * oct_down) * s + Vec3(0, 0, delta), face_down), e,
                       "box face-octahedron face" + d);
            // Crossing edges: A's top edge along x, B's bottom edge along y; the edge-edge normal is x cross
            // y.
            const double edge =
                std::sqrt(2.0) * 0.5;  // height of a half-1 cube's edge when rotated 45 degrees
            check_pair(*make_box(Vec3(0.5, 0.5, 0.5) * s), at(Vec3::Zero(), edge_up_x),
                       *make_box(Vec3(0.5, 0.5, 0.5) * s),
                       at(Vec3(0.1, -0.1, 2 * edge) * s + Vec3(0, 0, delta), edge_up_y), e,
                       "box edge-box edge" + d);
            // Thin plate (1e-3 thick) on a box, and a tetrahedron's vertex on the plate.
            check_pair(*make_box(Vec3(1, 1, 0.5) * s), at(Vec3::Zero()), *make_box(Vec3(0.8, 0.8, 1e-3) * s),
                       at(Vec3(0.1, 0.2, 0.501) * s + Vec3(0, 0, delta)), e, "box-thin plate" + d);
            const double tet = 1.0;  // vertex (-1,-1,... ) of the tetrahedron below: lowest z is -0.1 s
            check_pair(*make_box(Vec3(0.8, 0.8, 1e-3) * s), at(Vec3::Zero()), *tetrahedron(0.1 * s),
                       at(Vec3(0, 0, (1e-3 + 0.1 * tet)) * s + Vec3(0, 0, delta)), e,
                       "thin plate-tetrahedron" + d);
            (void)flat;
        }
    }
}

TEST(SignedDistanceDegenerate, CollinearAndCoplanarSimplices) {
    for (const double s : {1e-3, 1.0, 1e3}) {
        const std::string sc = " scale " + std::to_string(s);
        Expected e;
        e.scale = 4 * s;
        // Capsules end to end on one line: GJK's simplex is collinear.
        e.distance = 0.1 * s;
        e.normal = Vec3::UnitZ();
        e.normal_exact = true;
        check_pair(*make_capsule(0.2 * s, 0.5 * s), at(Vec3::Zero()), *make_capsule(0.3 * s, 0.4 * s),
                   at(Vec3(0, 0, 1.5) * s), e, "capsules end to end" + sc);
        // Parallel capsules side by side (cores parallel: coplanar simplex), separated and penetrating.
        for (const double offset : {0.7, 0.3}) {
            e.distance = (offset - 0.5) * s;
            e.normal = Vec3::UnitX();
            check_pair(*make_capsule(0.2 * s, 0.5 * s), at(Vec3::Zero()), *make_capsule(0.3 * s, 0.4 * s),
                       at(Vec3(offset, 0, 0.2) * s), e,
                       "parallel capsules offset " + std::to_string(offset) + sc);
        }
        // Aligned boxes apart along x with overlapping faces: every support point of the gap face is
        // coplanar.
        e.distance = 0.25 * s;
        e.normal = Vec3::UnitX();
        e.flat_contact = true;
        check_pair(*make_box(Vec3(1, 1, 1) * s), at(Vec3::Zero()), *make_box(Vec3(0.5, 0.5, 0.5) * s),
                   at(Vec3(1.75, 0.2, -0.1) * s), e, "parallel box faces" + sc);
        // Spheres on a line through both centres.
        e.distance = 0.5 * s;
        e.normal = Vec3(1, 2, 2) / 3.0;
        e.flat_contact = false;
        check_pair(*make_sphere(0.5 * s), at(Vec3::Zero()), *make_sphere(1 * s),
                   at(Vec3(1, 2, 2) / 3.0 * 2 * s), e, "spheres" + sc);
    }
}

// EPA from 1-, 2- and 3-point simplices containing the origin (as GJK hands over for touching contact):
// points of A - B built from A's and B's common centre, so the origin lies in them.
TEST(Epa, BlowsUpSmallSimplices) {
    const ShapePtr a = make_box(Vec3(1, 0.5, 2)), b = make_box(Vec3(0.4, 0.2, 0.3));
    const Vec3 c(0.3, -0.1, 0.2);
    const ConvexSupport va(*a, at(c)), vb(*b, at(c));
    const std::array<Vec3, 3> offsets{Vec3(0.1, 0, 0), Vec3(-0.1, 0, 0.05), Vec3(0, 0.1, -0.05)};
    for (int count = 1; count <= 3; ++count) {
        GjkSimplex s;
        s.count = count;
        s.origin = c;  // a[i], b[i] relative to c
        Vec3 mean = Vec3::Zero();
        for (int i = 0; i < count; ++i) mean += offsets[i];
        mean /= count;
        for (int i = 0; i < count; ++i) {
            s.a[i] = offsets[i] - mean;  // centred: the origin is the centroid of the w's
            s.b[i] = Vec3::Zero();
            s.w[i] = s.a[i];
        }
        if (count == 1) s.a[0] = s.w[0] = Vec3::Zero();
        const EpaResult r = epa(va, vb, s);
        EXPECT_NEAR(r.depth, 0.7, kEpaRel * 0.7 + kRoundingTol) << count << "-point simplex";
        EXPECT_NEAR(std::abs(r.normal.y()), 1.0, 1e-12) << count << "-point simplex";
        EXPECT_TRUE(r.converged) << count << "-point simplex";
    }
}

TEST(Gjk, WarmStartGivesTheSameAnswer) {
    std::mt19937_64 rng(10);
    int cold_total = 0, warm_total = 0;
    for (ShapeType ta : kConvexTypes)
        for (ShapeType tb : kConvexTypes) {
            const ShapePtr a = make_shape(ta, 1), b = make_shape(tb, 1);
            const Pose pa{Vec3::Zero(), random_rotation(rng)};
            const Pose pb{random_unit(rng) * 2.5, random_rotation(rng)};
            const ConvexSupport va(*a, pa), vb(*b, pb);
            const GjkResult cold = gjk(va, vb);
            GjkSettings warm_settings;
            warm_settings.initial_direction = cold.normal;
            const GjkResult warm = gjk(va, vb, warm_settings);
            const std::string label = name(ta) + "-" + name(tb);
            EXPECT_NEAR(warm.distance, cold.distance, kEpaRel * cold.distance + kCurvedFloor * 4) << label;
            // Between polytopes the closest features are found at once from the right normal; on curved
            // features the path of GJK differs and may be longer, so only polytope pairs make an iteration
            // claim.
            const bool polytopes = (ta == ShapeType::box || ta == ShapeType::convex_hull) &&
                                   (tb == ShapeType::box || tb == ShapeType::convex_hull);
            if (polytopes) {
                EXPECT_LE(warm.iterations, cold.iterations)
                    << label << ": warm " << warm.iterations << " cold " << cold.iterations;
            }
            cold_total += cold.iterations;
            warm_total += warm.iterations;
        }
    std::printf("GJK iterations over all pairs: cold %d, warm-started %d\n", cold_total, warm_total);
}

TEST(Gjk, HillClimbingHullGivesTheLinearScanAnswer) {
    ConvexHull climb = prism_hull(40);
    ConvexHull scan = climb;
    scan.neighbor_offsets.clear();
    scan.neighbors.clear();
    const ShapePtr hc = std::make_shared<const Shape>(Shape{climb});
    const ShapePtr hs = std::make_shared<const Shape>(Shape{scan});
    const ShapePtr box = make_box(Vec3(0.3, 0.2, 0.4));
    std::mt19937_64 rng(11);
    for (int i = 0; i < 200; ++i) {
        const Pose ph{Vec3::Zero(), random_rotation(rng)};
        const Pose pb{random_unit(rng) * (0.5 + 2 * (i % 3) / 2.0), random_rotation(rng)};
        const auto rc = signed_distance(*hc, ph, *box, pb);
        const auto rs = signed_distance(*hs, ph, *box, pb);
        EXPECT_NEAR(rc.distance, rs.distance, kEpaRel * std::abs(rs.distance) + kRoundingTol * 4)
            << "pair " << i;
    }
}

}  // namespace
}  // namespace simpulse
