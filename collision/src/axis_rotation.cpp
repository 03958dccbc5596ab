// Axis-rotation contact features and the general convex-convex manifold (convex-contact-manifold.ru.txt,
// phases 1-4; SEEDS.md section 3). See axis_rotation.h for the method; here the merging of supports into
// features.
#include <simpulse/collision/axis_rotation.h>
#include <simpulse/collision/epa.h>
#include <simpulse/collision/manifold_reduction.h>

#include <cmath>
#include <numbers>

namespace simpulse {
namespace {

// Identical supports (the same vertex returned for two axes) differ by rounding only.
constexpr double kDuplicateRatio = 1e-9;

// Phase 2 of the article literally: the support along `dir`, then along the k auxiliary axes on the cone,
// with identical points merged. Exact for polyhedral cores (every support is a vertex) and for the cap or
// base of a cylinder or cone seen along its axis (every support is a distinct rim point).
void cone_supports(const ConvexSupport& shape, const Vec3& dir, ContactFeature& out) {
    Vec3 u, v;
    orthonormal_basis(dir, u, v);
    std::array<Vec3, kAxisRotationAxes + 1> p;
    p[0] = shape.support(dir);
    double spread = 0;
    for (int i = 1; i <= kAxisRotationAxes; ++i) {
        const double a = 2 * std::numbers::pi * (i - 1) / kAxisRotationAxes;
        p[static_cast<std::size_t>(i)] =
            shape.support(dir + kAxisRotationAngle * (std::cos(a) * u + std::sin(a) * v));
        spread = std::max(spread, (p[static_cast<std::size_t>(i)] - p[0]).norm());
    }
    out.clear();
    for (const Vec3& q : p) {
        bool duplicate = false;
        for (const Vec3& kept : out.view())
            duplicate = duplicate || (q - kept).norm() <= kDuplicateRatio * spread;
        if (!duplicate) out.add(q);
    }
}

// On the curved surfaces of cylinders and cones the supports along neighbouring axes are distinct points a
// few eps apart, which the article merges with a threshold. Here the merged feature is written in closed form
// instead: what the cone of axes collects is a side line when the cone contains a direction normal to that
// line, a single rim point or apex otherwise. Caps and bases go through cone_supports.
bool curved_feature(const ConvexSupport& shape, const Vec3& dir, ContactFeature& out) {
    const Vec3 d = shape.rotation.transpose() * dir;  // local, axis along z
    const double radius = shape.dims.x(), half_height = shape.dims.y();
    const double horizontal = std::hypot(d.x(), d.y());
    const double elevation =
        std::atan2(d.z(), horizontal);  // angle of dir above the plane normal to the axis
    auto world = [&](const Vec3& local) { return Vec3(shape.pose.position + shape.rotation * local); };
    const Vec3 rim_dir = horizontal > 0 ? Vec3(d.x() / horizontal, d.y() / horizontal, 0) : Vec3::UnitX();
    out.clear();
    if (shape.type == ShapeType::cylinder) {
        if (std::abs(elevation) >= std::numbers::pi / 2 - kAxisRotationAngle)
            return false;  // a cap: cone supports
        if (std::abs(elevation) <= kAxisRotationAngle) {
            out.add(world(radius * rim_dir - half_height * Vec3::UnitZ()));
            out.add(world(radius * rim_dir + half_height * Vec3::UnitZ()));
            return true;
        }
        out.add(shape.support(dir));
        return true;
    }
    // Cone: apex (0, 0, h), base rim at z = -h; the side's outward normals rise at atan(r / 2h).
    if (elevation <= -std::numbers::pi / 2 + kAxisRotationAngle) return false;  // the base: cone supports
    const double side = std::atan2(radius, 2 * half_height);
    if (horizontal > 0 && std::abs(elevation - side) <= kAxisRotationAngle) {
        out.add(world(half_height * Vec3::UnitZ()));
        out.add(world(radius * rim_dir - half_height * Vec3::UnitZ()));
        return true;
    }
    out.add(shape.support(dir));
    return true;
}

}  // namespace

void axis_rotation_feature(const ConvexSupport& shape, const Vec3& dir, ContactFeature& out) {
    if ((shape.type == ShapeType::cylinder || shape.type == ShapeType::cone) &&
        curved_feature(shape, dir, out))
        return;
    cone_supports(shape, dir, out);
}

int core_feature_candidates(const ContactFeature& a, const ContactFeature& b, const Vec3& normal, double ra,
                            double rb, double margin, std::uint32_t key, ContactCandidates& out) {
    const int first = out.count;
    clip_features(a, b, normal, margin + ra + rb, key, out);
    // Core points lifted onto the surfaces: A's surface lies ra further along the normal, B's rb further
    // back.
    const Vec3 shift = 0.5 * (ra - rb) * normal;
    for (int i = first; i < out.count; ++i) {
        ContactPoint& p = out[i];
        p.depth += ra + rb;
        p.position += shift;
    }
    return out.count - first;
}

bool manifold_from_candidates(const ContactCandidates& candidates, const Vec3& normal, Manifold& out) {
    if (candidates.count == 0) return false;
    reduce_contacts(candidates.view(), normal, out);
    out.sub_a = out.sub_b = 0;
    return out.count > 0;
}

bool core_feature_manifold(const ContactFeature& a, const ContactFeature& b, const Vec3& normal, double ra,
                           double rb, double margin, std::uint32_t key, Manifold& out) {
    ContactCandidates c;
    core_feature_candidates(a, b, normal, ra, rb, margin, key, c);
    return manifold_from_candidates(c, normal, out);
}

bool axis_rotation_manifold(const ConvexSupport& a, const ConvexSupport& b, const Vec3& normal, double margin,
                            Manifold& out) {
    ContactFeature fa, fb;
    axis_rotation_feature(a.core(), normal, fa);
    axis_rotation_feature(b.core(), -normal, fb);
    return core_feature_manifold(fa, fb, normal, a.radius, b.radius, margin, 0, out);
}

int collide_convex(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                   const CollideSettings& settings, Manifold& out) {
    const ConvexSupport sa(a, pose_a), sb(b, pose_b);
    const SignedDistanceResult d = signed_distance(sa, sb);
    if (d.distance > settings.margin) return 0;
    return axis_rotation_manifold(sa, sb, d.normal, settings.margin, out) ? 1 : 0;
}

}  // namespace simpulse
