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

// Clusters on curved surfaces: neighbouring supports closer than this fraction of the radius merge. It lies
// between the spread of one side-line end (2 R eps = 0.04 R) and the spacing of the cap polygon
// (2 R sin(pi / k) = 0.77 R), a factor of about three from each.
constexpr double kCurvedMergeRatio = 0.25;
// Identical supports of polyhedral cores (the same vertex returned twice) differ by rounding only.
constexpr double kDuplicateRatio = 1e-9;

bool has_curved_surface(ShapeType t) {
    return t == ShapeType::cylinder || t == ShapeType::cone;
}

}  // namespace

void axis_rotation_feature(const ConvexSupport& shape, const Vec3& dir, ContactFeature& out) {
    constexpr int n = kAxisRotationAxes + 1;
    Vec3 u, v;
    orthonormal_basis(dir, u, v);
    std::array<Vec3, n> p, w;
    p[0] = shape.support(dir);
    w[0] = Vec3::Zero();
    double spread = 0;
    for (int i = 1; i < n; ++i) {
        const double a = 2 * std::numbers::pi * (i - 1) / kAxisRotationAxes;
        w[static_cast<std::size_t>(i)] = std::cos(a) * u + std::sin(a) * v;
        p[static_cast<std::size_t>(i)] =
            shape.support(dir + kAxisRotationAngle * w[static_cast<std::size_t>(i)]);
        spread = std::max(spread, (p[static_cast<std::size_t>(i)] - p[0]).norm());
    }
    const double merge =
        has_curved_surface(shape.type) ? kCurvedMergeRatio * shape.dims.x() : kDuplicateRatio * spread;

    // Single-linkage clusters over at most nine points: cluster[i] is the smallest index linked to i.
    std::array<int, n> cluster;
    for (int i = 0; i < n; ++i) cluster[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if ((p[static_cast<std::size_t>(i)] - p[static_cast<std::size_t>(j)]).norm() <= merge) {
                const int ci = cluster[static_cast<std::size_t>(i)],
                          cj = cluster[static_cast<std::size_t>(j)];
                if (ci == cj) continue;
                const int lo = std::min(ci, cj), hi = std::max(ci, cj);
                for (int& c : cluster)
                    if (c == hi) c = lo;
            }

    out.clear();
    for (int c = 0; c < n; ++c) {
        int members = 0;
        Vec3 mean = Vec3::Zero();
        for (int i = 0; i < n; ++i)
            if (cluster[static_cast<std::size_t>(i)] == c) ++members, mean += w[static_cast<std::size_t>(i)];
        if (members == 0) continue;
        // The cluster of the axis itself is its deepest point; another cluster is a stretch of a curved rim
        // or side, best represented by the support along its mean direction on the cone.
        if (c == 0 || members == 1 || mean.norm() < 1e-9) {
            out.add(p[static_cast<std::size_t>(c)]);
        } else {
            out.add(shape.support(dir + kAxisRotationAngle * mean.normalized()));
        }
    }
}

bool core_feature_manifold(const ContactFeature& a, const ContactFeature& b, const Vec3& normal, double ra,
                           double rb, double margin, std::uint32_t key, Manifold& out) {
    ContactCandidates c;
    if (clip_features(a, b, normal, margin + ra + rb, key, c) == 0) return false;
    // Core points lifted onto the surfaces: A's surface lies ra further along the normal, B's rb further
    // back.
    const Vec3 shift = 0.5 * (ra - rb) * normal;
    for (int i = 0; i < c.count; ++i) {
        ContactPoint& p = c.points[static_cast<std::size_t>(i)];
        p.depth += ra + rb;
        p.position += shift;
    }
    reduce_contacts(c.view(), normal, out);
    out.sub_a = out.sub_b = 0;
    return out.count > 0;
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
