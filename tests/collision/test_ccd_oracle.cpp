// Random-pair oracle for GJK/EPA/signed_distance against libccd 2.1 and against independent certificates.
//
// libccd offers ccdGJKIntersect, ccdMPRIntersect, ccdGJKPenetration (GJK + EPA) and ccdMPRPenetration, but no
// distance query (ccdGJKSeparate returns a separation vector for overlapping sets only). So:
//  - intersection: our signed_distance sign and gjk_intersect against ccdGJKIntersect and ccdMPRIntersect;
//  - distance: checked against a duality certificate instead of libccd: our closest points lie on the
//  surfaces
//    (closed-form signed distance functions), so |p_B - p_A| is an upper bound of the distance, and along our
//    normal n the closed-form support values give the lower bound -(h_A(n) + h_B(-n)); the true distance lies
//    in between, so the relative gap bounds our error;
//  - penetration: our depth against ccdGJKPenetration and ccdMPRPenetration. Every difference beyond 1e-6
//    relative is adjudicated by a third, independent check: the depth along a unit direction n is
//    h_A(n) + h_B(-n) (closed-form support values); ours must equal it along our normal, be a minimum over
//    dense direction samples (near our normal and over the whole sphere), and be no larger than libccd's
//    along libccd's direction. A difference that passes is libccd's error; one that fails fails the test.
// libccd gets its own support functions (written here from the geometry, not simpulse's) and a 1e-9
// tolerance.
#include "closed_form_support.h"

#include <simpulse/collision/epa.h>
#include <simpulse/collision/gjk.h>
#include <simpulse/collision/support.h>

#include <ccd/ccd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace simpulse {
namespace {

#ifdef NDEBUG
constexpr int kPairsPerCombination = 10000;
#else
constexpr int kPairsPerCombination = 300;  // unoptimised (sanitizer) builds: same checks, fewer pairs
#endif
constexpr double kAgreement = 1e-6;  // relative difference reported as a disagreement
constexpr double kEps = std::numeric_limits<double>::epsilon();
// Our accuracy claims checked by the certificates, relative to the core distance |d| + r_A + r_B (GJK runs on
// the cores, so its 1e-10 relative stopping rule applies to that; EPA's is 1e-9): 1e-8 leaves room for the
// rounding of the certificate itself.
constexpr double kCertificate = 1e-8;
// When rounding stalls GJK or the polytope capacity stops EPA (converged = false; EPA then polishes its best
// direction by gradient sampling), the result must still be well inside the agreement threshold.
constexpr double kNotConverged = 1e-7;
// Absolute floor, relative to the size of the scene (bounding radii + distance from the world origin). Near
// its end GJK's simplex on a curved feature holds vertices ~1e-5 of the size apart; their rounding (an ulp of
// the size) tilts the simplex plane by ~1e-11 and moves the distance by up to ~1e-10 of the size.
constexpr double kFloor = 1e-10;

constexpr std::array<ShapeType, 6> kTypes{ShapeType::sphere,   ShapeType::box,  ShapeType::capsule,
                                          ShapeType::cylinder, ShapeType::cone, ShapeType::convex_hull};

// ---- Independent geometry: support values, support points (for libccd), surface distances
// ---------------------

struct Hull {
    ShapePtr shape;
    std::vector<std::pair<Vec3, double>> planes;  // outward unit normal, offset
};

std::vector<std::pair<Vec3, double>> hull_planes(const std::vector<Vec3>& v) {
    std::vector<std::pair<Vec3, double>> planes;
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            for (std::size_t k = j + 1; k < n; ++k) {
                Vec3 normal = (v[j] - v[i]).cross(v[k] - v[i]);
                if (normal.norm() < 1e-12) continue;
                normal.normalize();
                double lo = 0, hi = 0;
                for (const Vec3& p : v) {
                    lo = std::min(lo, normal.dot(p - v[i]));
                    hi = std::max(hi, normal.dot(p - v[i]));
                }
                if (hi <= 1e-12) planes.push_back({normal, normal.dot(v[i])});
                if (lo >= -1e-12) planes.push_back({-normal, -normal.dot(v[i])});
            }
    return planes;
}

struct Body {
    ShapePtr shape;
    const Hull* hull = nullptr;
    Pose pose;
    Mat3 rotation = Mat3::Identity();
};

using test::support_value_local;

// Support value relative to the body's centre.
double extent(const Body& b, const Vec3& n) {
    return support_value_local(*b.shape, b.rotation.transpose() * n);
}

// h(n) of a body for a unit world direction.
double support_value(const Body& b, const Vec3& n) {
    return n.dot(b.pose.position) + support_value_local(*b.shape, b.rotation.transpose() * n);
}

// Depth of A and B along unit n: the translation of B along n that brings them into touching contact
// (negative: the gap along n).
double depth_along(const Body& a, const Body& b, const Vec3& n) {
    return support_value(a, n) + support_value(b, -n);
}

Vec3 support_point_local(const Shape& shape, const Vec3& d) {
    auto sgn = [](double x) { return x < 0 ? -1.0 : 1.0; };
    switch (shape.type()) {
        case ShapeType::sphere:
            return std::get<Sphere>(shape.geometry).radius * d.normalized();
        case ShapeType::box: {
            const Vec3& h = std::get<Box>(shape.geometry).half_extents;
            return {sgn(d.x()) * h.x(), sgn(d.y()) * h.y(), sgn(d.z()) * h.z()};
        }
        case ShapeType::capsule: {
            const auto& c = std::get<Capsule>(shape.geometry);
            return Vec3(0, 0, sgn(d.z()) * c.half_length) + c.radius * d.normalized();
        }
        case ShapeType::cylinder: {
            const auto& c = std::get<Cylinder>(shape.geometry);
            const double rho = std::hypot(d.x(), d.y());
            const Vec3 rim = rho > 0 ? Vec3(c.radius * d.x() / rho, c.radius * d.y() / rho, 0) : Vec3::Zero();
            return rim + Vec3(0, 0, sgn(d.z()) * c.half_height);
        }
        case ShapeType::cone: {
            const auto& c = std::get<Cone>(shape.geometry);
            const double rho = std::hypot(d.x(), d.y());
            const Vec3 apex(0, 0, c.half_height);
            const Vec3 rim = rho > 0 ? Vec3(c.radius * d.x() / rho, c.radius * d.y() / rho, -c.half_height)
                                     : Vec3(0, 0, -c.half_height);
            return apex.dot(d) >= rim.dot(d) ? apex : rim;
        }
        default: {
            const auto& v = std::get<ConvexHull>(shape.geometry).vertices;
            return *std::max_element(v.begin(), v.end(),
                                     [&](const Vec3& x, const Vec3& y) { return x.dot(d) < y.dot(d); });
        }
    }
}

double segment_distance(const Vec3& p, const Vec3& a, const Vec3& b) {
    const Vec3 e = b - a;
    const double t = std::clamp((p - a).dot(e) / e.squaredNorm(), 0.0, 1.0);
    return (p - a - t * e).norm();
}

// Signed distance of a world point to the body's surface (< 0 inside); for hulls the largest plane distance
// (exact inside, a lower bound outside).
double surface_distance(const Body& body, const Vec3& world) {
    const Vec3 p = body.rotation.transpose() * (world - body.pose.position);
    const Shape& shape = *body.shape;
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
            const double qx = std::hypot(p.x(), p.y()) - c.radius, qy = std::abs(p.z()) - c.half_height;
            return std::hypot(std::max(qx, 0.0), std::max(qy, 0.0)) + std::min(std::max(qx, qy), 0.0);
        }
        case ShapeType::cone: {
            const auto& c = std::get<Cone>(shape.geometry);
            const double rho = std::hypot(p.x(), p.y()), z = p.z(), h = c.half_height, r = c.radius;
            const Vec3 q(rho, z, 0);
            const double d = std::min(segment_distance(q, {0, -h, 0}, {r, -h, 0}),
                                      segment_distance(q, {r, -h, 0}, {0, h, 0}));
            return (z >= -h && rho * 2 * h <= r * (h - z)) ? -d : d;
        }
        default: {
            double best = -std::numeric_limits<double>::infinity();
            for (const auto& [n, off] : body.hull->planes) best = std::max(best, n.dot(p) - off);
            return best;
        }
    }
}

void ccd_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const auto* body = static_cast<const Body*>(obj);
    const Vec3 d(dir->v[0], dir->v[1], dir->v[2]);
    const Vec3 p = body->pose.position +
                   body->rotation * support_point_local(*body->shape, body->rotation.transpose() * d);
    out->v[0] = p.x();
    out->v[1] = p.y();
    out->v[2] = p.z();
}

void ccd_center(const void* obj, ccd_vec3_t* out) {
    // Every test shape contains its local origin (see make_hull).
    const Vec3& c = static_cast<const Body*>(obj)->pose.position;
    out->v[0] = c.x();
    out->v[1] = c.y();
    out->v[2] = c.z();
}

// ---- Random pairs
// -----------------------------------------------------------------------------------------------

Quat random_rotation(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    return Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
}

Vec3 random_unit(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    return Vec3(g(rng), g(rng), g(rng)).normalized();
}

// The 6 axis tips and 6 random points of an ellipsoid: all are vertices (a strictly convex surface) and the
// tips keep the origin inside (libccd's MPR needs an interior centre).
Hull make_hull(std::mt19937_64& rng, double size) {
    std::uniform_real_distribution<double> u(0.5, 1.0);
    const Vec3 axes = size * Vec3(u(rng), u(rng), u(rng));
    std::vector<Vec3> v;
    for (int i = 0; i < 3; ++i) {
        v.push_back(axes[i] * Vec3::Unit(i));
        v.push_back(-axes[i] * Vec3::Unit(i));
    }
    for (int i = 0; i < 6; ++i) v.push_back(random_unit(rng).cwiseProduct(axes));
    Hull h;
    h.planes = hull_planes(v);
    ConvexHull geometry;
    geometry.vertices = std::move(v);
    h.shape = std::make_shared<const Shape>(Shape{std::move(geometry)});
    return h;
}

Body random_body(ShapeType type, std::mt19937_64& rng, const std::vector<Hull>& hulls) {
    std::uniform_real_distribution<double> log_size(std::log(0.3), std::log(3.0));
    std::uniform_real_distribution<double> aspect(0.3, 1.0);
    const double s = std::exp(log_size(rng));
    Body b;
    switch (type) {
        case ShapeType::sphere:
            b.shape = make_sphere(s);
            break;
        case ShapeType::box:
            b.shape = make_box(s * Vec3(aspect(rng), aspect(rng), aspect(rng)));
            break;
        case ShapeType::capsule:
            b.shape = make_capsule(s * aspect(rng), s * aspect(rng));
            break;
        case ShapeType::cylinder:
            b.shape = make_cylinder(s * aspect(rng), s * aspect(rng));
            break;
        case ShapeType::cone:
            b.shape = make_cone(s * aspect(rng), s * aspect(rng));
            break;
        default: {
            b.hull = &hulls[std::uniform_int_distribution<std::size_t>(0, hulls.size() - 1)(rng)];
            b.shape = b.hull->shape;
            break;
        }
    }
    b.pose.orientation = random_rotation(rng);
    b.rotation = b.pose.orientation.toRotationMatrix();
    return b;
}

double bounding_radius(const Body& b) {
    double r = 0;
    for (int i = 0; i < 3; ++i)
        r = std::max(
            {r, support_value_local(*b.shape, Vec3::Unit(i)), support_value_local(*b.shape, -Vec3::Unit(i))});
    return r * std::sqrt(3.0);
}

std::string sci(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9e", x);
    return buf;
}

// Full-precision description of a body, to reproduce a failing pair.
std::string describe(const Body& b) {
    char buf[512];
    const Shape& s = *b.shape;
    Vec3 dims = Vec3::Zero();
    if (const auto* x = std::get_if<Sphere>(&s.geometry)) dims.x() = x->radius;
    if (const auto* x = std::get_if<Box>(&s.geometry)) dims = x->half_extents;
    if (const auto* x = std::get_if<Capsule>(&s.geometry)) dims = {x->radius, x->half_length, 0};
    if (const auto* x = std::get_if<Cylinder>(&s.geometry)) dims = {x->radius, x->half_height, 0};
    if (const auto* x = std::get_if<Cone>(&s.geometry)) dims = {x->radius, x->half_height, 0};
    const Quat& q = b.pose.orientation;
    std::snprintf(buf, sizeof buf,
                  "%s dims (%.17g %.17g %.17g) at (%.17g %.17g %.17g) q (%.17g %.17g %.17g %.17g)",
                  shape_type_name(s.type()), dims.x(), dims.y(), dims.z(), b.pose.position.x(),
                  b.pose.position.y(), b.pose.position.z(), q.w(), q.x(), q.y(), q.z());
    return buf;
}

// ---- Statistics
// -------------------------------------------------------------------------------------------------

struct Summary {
    std::vector<double> values;
    int beyond = 0;  // count beyond kAgreement
    void add(double v) {
        values.push_back(v);
        beyond += v > kAgreement;
    }
    double median() {
        if (values.empty()) return 0;
        std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
        return values[values.size() / 2];
    }
    double max() const { return values.empty() ? 0 : *std::max_element(values.begin(), values.end()); }
};

// Smallest closed-form depth over sampled directions: at angles 1e-7..0.3 rad around our normal and over the
// whole sphere. Our depth is certified when it equals the depth along our normal and no sample is smaller
// (both within the tolerance).
double sampled_min_depth(const Body& a, const Body& b, const Vec3& n, std::mt19937_64& rng) {
    double best = depth_along(a, b, n);
    const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
    std::uniform_real_distribution<double> phi(0, 2 * M_PI);
    for (double angle : {1e-7, 1e-5, 1e-3, 1e-2, 0.1, 0.3}) {
        for (int k = 0; k < 16; ++k) {
            const double p = phi(rng);
            const Vec3 m =
                (std::cos(angle) * n + std::sin(angle) * (std::cos(p) * t1 + std::sin(p) * t2)).normalized();
            best = std::min(best, depth_along(a, b, m));
        }
    }
    for (int k = 0; k < 256; ++k) best = std::min(best, depth_along(a, b, random_unit(rng)));
    return best;
}

class CcdOracle : public ::testing::TestWithParam<std::pair<ShapeType, ShapeType>> {};

TEST_P(CcdOracle, AgreesOrIsCertified) {
    const auto [ta, tb] = GetParam();
    const std::string combo = std::string(shape_type_name(ta)) + "-" + shape_type_name(tb);
    std::mt19937_64 rng(0x5eed0000u + static_cast<unsigned>(ta) * 16 + static_cast<unsigned>(tb));
    std::vector<Hull> hulls;
    {
        std::uniform_real_distribution<double> log_size(std::log(0.3), std::log(3.0));
        for (int i = 0; i < 64; ++i) hulls.push_back(make_hull(rng, std::exp(log_size(rng))));
    }
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.center1 = ccd_center;
    ccd.center2 = ccd_center;
    ccd.max_iterations = 1000;
    ccd.epa_tolerance = 1e-9;
    ccd.mpr_tolerance = 1e-9;
    ccd.dist_tolerance = 1e-12;

    int separated = 0, overlapping = 0, touching = 0;
    int int_gjk_disagree = 0, int_mpr_disagree = 0, int_explained = 0, own_mismatch = 0, not_converged = 0;
    int depth_explained = 0, unexplained = 0;
    Summary distance_gap, epa_diff, mpr_diff;
    double worst_error = 0;
    double worst_floor = 0;  // largest distance gap relative to the size  // largest certified bound on our
                             // error, relative to the core distance
    std::string first_failure;
    auto fail = [&](const std::string& what, const Body& a, const Body& b) {
        if (first_failure.empty()) first_failure = what + "\n  A: " + describe(a) + "\n  B: " + describe(b);
    };
    std::uniform_real_distribution<double> u(0, 1);

    for (int i = 0; i < kPairsPerCombination; ++i) {
        Body a = random_body(ta, rng, hulls);
        Body b = random_body(tb, rng, hulls);
        const double ra = bounding_radius(a), rb = bounding_radius(b);
        a.pose.position = 4 * Vec3(u(rng), u(rng), u(rng)) - Vec3::Constant(2);
        // Along a random direction, centres up to 1.4 times the sum of the extents apart: beyond 1 the pair
        // is separated, below it mostly overlaps.
        const Vec3 axis = random_unit(rng);
        b.pose.position = a.pose.position + axis * (1.4 * u(rng) * (extent(a, axis) + extent(b, -axis)));
        const double scale = ra + rb + a.pose.position.norm();
        // GJK resolves touching curved features to about sqrt(eps) of the size (see gjk.h).
        const double touch_tol = 1e-7 * scale;

        const ConvexSupport va(*a.shape, a.pose), vb(*b.shape, b.pose);
        const SignedDistanceResult r = signed_distance(va, vb);
        const bool ours = r.distance < 0;
        const bool ours_gjk = gjk_intersect(va, vb);
        const bool ccd_gjk = ccdGJKIntersect(&a, &b, &ccd) != 0;
        const bool ccd_mpr = ccdMPRIntersect(&a, &b, &ccd) != 0;
        not_converged += !r.converged;
        const double core = std::abs(r.distance) + va.radius + vb.radius;
        const double tol = (r.converged ? kCertificate : kNotConverged) * core + kFloor * scale;
        if (std::abs(r.distance) <= touch_tol) {
            ++touching;
            continue;
        }
        if (ours_gjk != ours) {
            ++own_mismatch;
            fail("gjk_intersect disagrees with signed_distance " + sci(r.distance), a, b);
        }
        // Intersection disagreements: prove our answer independently.
        if (ccd_gjk != ours || ccd_mpr != ours) {
            int_gjk_disagree += ccd_gjk != ours;
            int_mpr_disagree += ccd_mpr != ours;
            const bool proven =
                ours ? surface_distance(b, r.point_a) < 0 && surface_distance(a, r.point_a) <= tol
                     : depth_along(a, b, r.normal) < 0;  // our deepest point of A lies in B, or
                                                         // the plane along our normal separates
            if (proven) {
                ++int_explained;
            } else {
                ++unexplained;
                fail("intersection disagreement not proven, distance " + sci(r.distance), a, b);
            }
        }
        if (!ours) {
            ++separated;
            // Duality certificate: points on the surfaces bound the distance from above, our normal from
            // below.
            const double on_a = std::abs(surface_distance(a, r.point_a));
            const double on_b = std::abs(surface_distance(b, r.point_b));
            const double upper = (r.point_b - r.point_a).norm() + on_a + on_b;
            const double lower = -depth_along(a, b, r.normal);
            distance_gap.add((upper - lower) / r.distance);
            worst_floor = std::max(worst_floor, (upper - lower) / scale);
            worst_error = std::max(worst_error, (upper - lower - kFloor * scale) / core);
            if (upper - lower > tol || std::abs(r.distance - (r.point_b - r.point_a).norm()) > tol) {
                ++unexplained;
                fail("distance certificate: upper " + sci(upper) + " lower " + sci(lower) + " distance " +
                         sci(r.distance) + " tolerance " + sci(tol),
                     a, b);
            }
            continue;
        }
        ++overlapping;
        const double depth = -r.distance;
        // Certify every depth: equal to the closed-form depth along our normal, and a minimum over
        // directions.
        const double along = depth_along(a, b, r.normal);
        const double sampled = sampled_min_depth(a, b, r.normal, rng);
        worst_error = std::max(worst_error, std::max(std::abs(along - depth), depth - sampled) / core);
        const bool certified = std::abs(along - depth) <= tol && sampled >= depth - tol;
        if (!certified) {
            ++unexplained;
            fail("depth " + sci(depth) + ": along our normal " + sci(along) + ", sampled minimum " +
                     sci(sampled) + ", tolerance " + sci(tol) + (r.converged ? "" : " (not converged)"),
                 a, b);
        }
        // A libccd depth beyond the agreement threshold is libccd's error when ours is certified and the true
        // depth along libccd's own direction is not below ours; a direction that is not a finite non-zero
        // vector (libccd returns NaN for some coincident sphere centres) is libccd's too.
        auto adjudicate = [&](double other_depth, const Vec3& other_dir) {
            const bool valid = other_dir.allFinite() && other_dir.norm() > 0.5;
            const double along_other = valid ? depth_along(a, b, other_dir.normalized()) : 0.0;
            if (certified && (!valid || along_other >= depth - tol)) {
                ++depth_explained;
            } else {
                ++unexplained;
                fail("depth " + sci(depth) + " vs libccd " + sci(other_depth) +
                         " (along libccd's direction " + sci(along_other) + ")",
                     a, b);
            }
        };
        if (ccd_gjk) {
            ccd_real_t d = 0;
            ccd_vec3_t dir, pos;
            if (ccdGJKPenetration(&a, &b, &ccd, &d, &dir, &pos) == 0) {
                const double diff = std::abs(d - depth) / depth;
                epa_diff.add(diff);
                if (diff > kAgreement) adjudicate(d, Vec3(dir.v[0], dir.v[1], dir.v[2]));
            }
        }
        if (ccd_mpr) {
            ccd_real_t d = 0;
            ccd_vec3_t dir, pos;
            if (ccdMPRPenetration(&a, &b, &ccd, &d, &dir, &pos) == 0) {
                const double diff = std::abs(d - depth) / depth;
                mpr_diff.add(diff);
                if (diff > kAgreement) adjudicate(d, Vec3(dir.v[0], dir.v[1], dir.v[2]));
            }
        }
    }

    std::printf(
        "[%-17s] %d pairs: %d separated, %d overlapping, %d touching (|d| < 1e-7 size)\n"
        "  intersection: disagreements with ccdGJKIntersect %d, ccdMPRIntersect %d, ours proven %d; "
        "gjk_intersect vs signed_distance mismatches %d\n"
        "  not converged (GJK rounding stall or EPA capacity, then polished): %d\n"
        "  distance (libccd has none): certificate gap (upper-lower)/d median %.2e max %.2e, beyond 1e-6: "
        "%d\n"
        "  depth vs ccdGJKPenetration: rel diff median %.2e max %.2e, beyond 1e-6: %d of %zu\n"
        "  depth vs ccdMPRPenetration: rel diff median %.2e max %.2e, beyond 1e-6: %d of %zu\n"
        "  our certified error / (|d| + radii) beyond the %.1e * size floor: max %.2e; gap / size max %.2e\n"
        "  libccd differences beyond 1e-6 shown to be libccd's: %d; unexplained: %d\n",
        combo.c_str(), kPairsPerCombination, separated, overlapping, touching, int_gjk_disagree,
        int_mpr_disagree, int_explained, own_mismatch, not_converged, distance_gap.median(),
        distance_gap.max(), distance_gap.beyond, epa_diff.median(), epa_diff.max(), epa_diff.beyond,
        epa_diff.values.size(), mpr_diff.median(), mpr_diff.max(), mpr_diff.beyond, mpr_diff.values.size(),
        kFloor, worst_error, worst_floor, depth_explained, unexplained);
    EXPECT_EQ(unexplained, 0) << combo << ": first: " << first_failure;
    EXPECT_EQ(own_mismatch, 0) << combo << ": first: " << first_failure;
    EXPECT_GT(separated, kPairsPerCombination / 5) << combo;
    EXPECT_GT(overlapping, kPairsPerCombination / 5) << combo;
}

std::vector<std::pair<ShapeType, ShapeType>> combinations() {
    std::vector<std::pair<ShapeType, ShapeType>> c;
    for (std::size_t i = 0; i < kTypes.size(); ++i)
        for (std::size_t j = i; j < kTypes.size(); ++j) c.push_back({kTypes[i], kTypes[j]});
    return c;
}

INSTANTIATE_TEST_SUITE_P(AllConvexPairs, CcdOracle, ::testing::ValuesIn(combinations()), [](const auto& p) {
    return std::string(shape_type_name(p.param.first)) + "_" + shape_type_name(p.param.second);
});

}  // namespace
}  // namespace simpulse
