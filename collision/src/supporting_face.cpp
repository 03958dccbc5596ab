// Reference-face clipping of a capsule's, cylinder's or cone's supporting face against a box or hull face
// (Jolt's ManifoldBetweenTwoFaces, Box2D v3's capsule-polygon manifold) on the GJK/EPA axis; see
// supporting_face.h. The clipping, lifting and reduction are the axis-rotation pipeline's own
// (core_feature_candidates, reduce_contacts): only the round shape's feature differs.
#include <simpulse/collision/axis_rotation.h>
#include <simpulse/collision/epa.h>
#include <simpulse/collision/supporting_face.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

// Feature kinds, mixed into the point ids by the clipper.
enum : std::uint32_t {
    kSegmentKey = 1,
    kSideKey = 2,
    kLowerCapKey = 3,
    kUpperCapKey = 4,
    kConeBaseKey = 5,
    kConeSideKey = 6
};

// Rim points of a cap at multiples of 45 degrees in the body's x-y plane: a face contact resting on the cap
// keeps the same points, and their largest inscribed quadrilateral is the cap's square, as with the
// axis-rotation method's eight axes.
constexpr double kHalfSqrt2 = kSupportingFaceCosine;
constexpr std::array<double, 8> kRimCos = {1, kHalfSqrt2, 0, -kHalfSqrt2, -1, -kHalfSqrt2, 0, kHalfSqrt2};
constexpr std::array<double, 8> kRimSin = {0, kHalfSqrt2, 1, kHalfSqrt2, 0, -kHalfSqrt2, -1, -kHalfSqrt2};

// Below rounding level the azimuth of the deepest rim point is noise (as in plane_contacts.cpp).
constexpr double kAzimuthFloor = 1e-12;

// The clipped manifold must reach the depth of the signed distance along its own normal: both are the support
// difference along that normal, so they agree to rounding of the coordinates. A shortfall beyond this
// fraction of the round shape's size means the clip cut the deepest point away.
constexpr double kDeepestRatio = 1e-9;

bool is_round(ShapeType t) {
    return t == ShapeType::capsule || t == ShapeType::cylinder || t == ShapeType::cone;
}

// Eight rim points of a cap fixed in the body, and the rim point farthest along `radial` (|radial| = s) when
// the tilt singles one out.
void add_cap(const ConvexSupport& shape, const Vec3& base, double r, const Vec3& radial, double s,
             ContactFeature& out) {
    const Vec3 x = shape.rotation.col(0), y = shape.rotation.col(1);
    for (std::size_t k = 0; k < kRimCos.size(); ++k) out.add(base + r * (kRimCos[k] * x + kRimSin[k] * y));
    if (s > kAzimuthFloor) out.add(base + (r / s) * radial);
}

// A cone (apex at +h on its axis, base of radius r at -h): its base while the axis points away from `dir`
// within 45 degrees; else the generator from the rim point under `dir` to the apex while it lies within 45
// degrees of the plane perpendicular to `dir`, as a capsule's segment; else none (the apex leads: one point).
bool cone_supporting_face(const ConvexSupport& shape, const Vec3& dir, const Vec3& axis, double c,
                          ContactFeature& out, std::uint32_t& key) {
    const double r = shape.dims.x(), h = shape.dims.y();
    const Vec3& centre = shape.pose.position;
    const Vec3 radial = dir - c * axis;
    const double s = radial.norm();
    if (c <= -kSupportingFaceCosine) {
        add_cap(shape, centre - h * axis, r, radial, s, out);
        key = kConeBaseKey;
        return true;
    }
    if (s <= kAzimuthFloor) return false;
    const Vec3 apex = centre + h * axis;
    const Vec3 rim = centre - h * axis + (r / s) * radial;
    if (std::abs((apex - rim).normalized().dot(dir)) > kSupportingFaceCosine) return false;
    out.add(rim);
    out.add(apex);
    key = kConeSideKey;
    return true;
}

}  // namespace

bool supporting_face(const ConvexSupport& shape, const Vec3& dir, ContactFeature& out, std::uint32_t& key) {
    out.clear();
    if (!is_round(shape.type)) return false;
    const Vec3 axis = shape.rotation.col(2);
    const Vec3& centre = shape.pose.position;
    const double c = axis.dot(dir);
    if (shape.type == ShapeType::cone) return cone_supporting_face(shape, dir, axis, c, out, key);
    if (shape.type == ShapeType::capsule) {
        if (std::abs(c) > kSupportingFaceCosine) return false;
        const double h = shape.dims.y();
        out.add(centre - h * axis);
        out.add(centre + h * axis);
        key = kSegmentKey;
        return true;
    }
    const double r = shape.dims.x(), h = shape.dims.y();
    const Vec3 radial = dir - c * axis;  // towards the deepest rim point, |radial| = sin(axis, dir)
    const double s = radial.norm();
    if (std::abs(c) >= kSupportingFaceCosine) {
        add_cap(shape, centre + (c > 0 ? h : -h) * axis, r, radial, s, out);
        key = c > 0 ? kUpperCapKey : kLowerCapKey;
        return true;
    }
    const Vec3 rim = (r / s) * radial;  // s > sin 45 degrees here
    out.add(centre - h * axis + rim);
    out.add(centre + h * axis + rim);
    key = kSideKey;
    return true;
}

int collide_round_polyhedron(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                             const CollideSettings& settings, Manifold& out) {
    const ConvexSupport sa(a, pose_a), sb(b, pose_b);
    const SignedDistanceResult d = signed_distance(sa, sb);
    if (d.distance > settings.margin) return 0;
    const bool round_is_a = is_round(sa.type);
    const ConvexSupport& round = round_is_a ? sa : sb;
    const ConvexSupport& poly = round_is_a ? sb : sa;
    // Out of the round shape towards the polyhedron.
    const Vec3 to_poly = round_is_a ? d.normal : Vec3(-d.normal);
    ContactFeature face, incident;
    std::uint32_t key = 0;
    axis_rotation_feature(poly.core(), -to_poly, face);
    if (face.count >= 3 && supporting_face(round, to_poly, incident, key)) {
        ContactCandidates c;
        core_feature_candidates(round_is_a ? incident : face, round_is_a ? face : incident, d.normal,
                                sa.radius, sb.radius, settings.margin, key, c);
        double deepest = -std::numeric_limits<double>::infinity();
        for (const ContactPoint& p : c.view()) deepest = std::max(deepest, p.depth);
        const double size = round.dims.x() + round.dims.y();
        if (c.count > 0 && deepest >= -d.distance - kDeepestRatio * size)
            return manifold_from_candidates(c, d.normal, out) ? 1 : 0;
    }
    return axis_rotation_manifold(sa, sb, d.normal, settings.margin, out) ? 1 : 0;
}

}  // namespace simpulse
