// Closed-form contact manifolds of the sphere pairs and of capsule-capsule (see convex_pairs.h). The sphere
// against a solid of revolution is solved in the half-plane through the axis and the centre (Ericson,
// Real-Time Collision Detection, sect. 5.1 for the point-box and segment-segment closest points).
#include <simpulse/collision/axis_rotation.h>
#include <simpulse/collision/convex_pairs.h>
#include <simpulse/collision/epa.h>

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// Centres closer than this fraction of the radii coincide: any normal is then as good as another.
constexpr double kCoincidentRatio = 1e-12;

// One-point manifold from the two surface points (A's and B's) and the normal from A to B.
int point_manifold(const Vec3& surface_a, const Vec3& surface_b, const Vec3& normal, std::uint32_t id,
                   double margin, Manifold& out) {
    const double depth = normal.dot(surface_a - surface_b);
    if (!(depth >= -margin)) return 0;
    out.normal = normal;
    out.sub_a = out.sub_b = 0;
    out.count = 1;
    out.points[0] = {0.5 * (surface_a + surface_b), depth, id};
    return 1;
}

// A sphere (centre c, radius r) against a surface point q of B with B's outward unit normal m there (pointing
// towards the sphere when the centre is outside). The normal from the sphere to B is -m.
int sphere_against(const Vec3& c, double r, const Vec3& q, const Vec3& m, std::uint32_t id, double margin,
                   Manifold& out) {
    return point_manifold(c - r * m, q, -m, id, margin, out);
}

// Closest point of the half cross-section of a solid of revolution, given as the rectangle/triangle code
// below, in the (rho, z) half-plane; returns B's surface point and outward normal there in 3-D.
struct RadialFrame {
    Vec3 e_rho, e_z, origin;
    Vec3 point(const Vec2& q) const { return origin + q.x() * e_rho + q.y() * e_z; }
    Vec3 dir(const Vec2& m) const { return m.x() * e_rho + m.y() * e_z; }
};

RadialFrame radial_frame(const Pose& pose, const Vec3& world_point, Vec2& q) {
    const Vec3 local = pose.inverse_transform_point(world_point);
    const double rho = std::hypot(local.x(), local.y());
    // On the axis every azimuth is equivalent: take local x.
    const Vec3 e_rho_local = rho > 0 ? Vec3(local.x() / rho, local.y() / rho, 0) : Vec3::UnitX();
    q = Vec2(rho, local.z());
    return {pose.rotate(e_rho_local), pose.rotate(Vec3::UnitZ()), pose.position};
}

Vec2 closest_on_segment_2d(const Vec2& p, const Vec2& a, const Vec2& b) {
    const Vec2 d = b - a;
    const double t = std::clamp((p - a).dot(d) / d.squaredNorm(), 0.0, 1.0);
    return a + t * d;
}

// The contact feature of a segment facing `outward`: the whole segment when it lies perpendicular to the
// normal within the axis-rotation angle (the article's edge), else its end farthest out (a vertex). Lifting
// along the normal is well conditioned only for such features.
void segment_feature(const Vec3& p0, const Vec3& p1, const Vec3& outward, ContactFeature& out) {
    out.clear();
    const Vec3 d = p1 - p0;
    if (std::abs(d.dot(outward)) <= std::sin(kAxisRotationAngle) * d.norm()) {
        out.add(p0);
        out.add(p1);
    } else {
        out.add(d.dot(outward) > 0 ? p1 : p0);
    }
}

}  // namespace

void closest_segment_params(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1, double& s,
                            double& t) {
    const Vec3 d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
    const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
    if (a <= 0 && e <= 0) {
        s = t = 0;
        return;
    }
    if (a <= 0) {
        s = 0;
        t = std::clamp(f / e, 0.0, 1.0);
        return;
    }
    const double c = d1.dot(r);
    if (e <= 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
        return;
    }
    const double b = d1.dot(d2);
    const double denom = a * e - b * b;
    // Parallel segments: any s works; 0 is clamped against t below.
    s = denom > 0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
    t = (b * s + f) / e;
    if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
    } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
    }
}

int collide_sphere_sphere(const Sphere& a, const Pose& pose_a, const Sphere& b, const Pose& pose_b,
                          const CollideSettings& settings, Manifold& out) {
    const Vec3 d = pose_b.position - pose_a.position;
    const double dist = d.norm();
    if (dist - a.radius - b.radius > settings.margin) return 0;
    const Vec3 n = dist > kCoincidentRatio * (a.radius + b.radius) ? Vec3(d / dist) : Vec3::UnitZ();
    return point_manifold(pose_a.position + a.radius * n, pose_b.position - b.radius * n, n, 0,
                          settings.margin, out);
}

int collide_sphere_box(const Sphere& a, const Pose& pose_a, const Box& b, const Pose& pose_b,
                       const CollideSettings& settings, Manifold& out) {
    const Vec3 c = pose_b.inverse_transform_point(pose_a.position);
    const Vec3& h = b.half_extents;
    const Vec3 clamped = c.cwiseMax(-h).cwiseMin(h);
    const Vec3 d = c - clamped;
    const double dist = d.norm();
    if (dist > 0) {
        if (dist - a.radius > settings.margin) return 0;
        // Feature id: which of the 26 outer Voronoi regions (face, edge or vertex) holds the centre.
        std::uint32_t id = 0;
        for (int i = 0; i < 3; ++i) id = 3 * id + (c[i] > h[i] ? 2u : (c[i] < -h[i] ? 0u : 1u));
        return sphere_against(pose_a.position, a.radius, pose_b.transform_point(clamped),
                              pose_b.rotate(d / dist), id, settings.margin, out);
    }
    // Centre inside: leave through the nearest face (lowest axis on ties: deterministic).
    int axis = 0;
    double best = h[0] - std::abs(c[0]);
    for (int i = 1; i < 3; ++i)
        if (h[i] - std::abs(c[i]) < best) best = h[i] - std::abs(c[i]), axis = i;
    const double sign = c[axis] >= 0 ? 1.0 : -1.0;
    Vec3 q = c;
    q[axis] = sign * h[axis];
    Vec3 m = Vec3::Zero();
    m[axis] = sign;
    return sphere_against(pose_a.position, a.radius, pose_b.transform_point(q), pose_b.rotate(m),
                          100u + static_cast<std::uint32_t>(2 * axis + (sign > 0 ? 1 : 0)), settings.margin,
                          out);
}

int collide_sphere_capsule(const Sphere& a, const Pose& pose_a, const Capsule& b, const Pose& pose_b,
                           const CollideSettings& settings, Manifold& out) {
    const Vec3 axis = pose_b.rotate(Vec3::UnitZ());
    const double t = std::clamp(axis.dot(pose_a.position - pose_b.position), -b.half_length, b.half_length);
    const Vec3 core = pose_b.position + t * axis;
    const Vec3 d = core - pose_a.position;
    const double dist = d.norm();
    if (dist - a.radius - b.radius > settings.margin) return 0;
    // Centre on the core segment: any direction perpendicular to the axis leaves the capsule equally fast.
    Vec3 n;
    if (dist > kCoincidentRatio * (a.radius + b.radius)) {
        n = d / dist;
    } else {
        Vec3 u, v;
        orthonormal_basis(axis, u, v);
        n = u;
    }
    const std::uint32_t id = t <= -b.half_length ? 0u : (t >= b.half_length ? 2u : 1u);
    return point_manifold(pose_a.position + a.radius * n, core - b.radius * n, n, id, settings.margin, out);
}

int collide_sphere_cylinder(const Sphere& a, const Pose& pose_a, const Cylinder& b, const Pose& pose_b,
                            const CollideSettings& settings, Manifold& out) {
    Vec2 q;
    const RadialFrame f = radial_frame(pose_b, pose_a.position, q);
    const double r = b.radius, h = b.half_height;
    Vec2 surface, m;
    std::uint32_t id;
    if (q.x() > r || std::abs(q.y()) > h) {
        surface = Vec2(std::min(q.x(), r), std::clamp(q.y(), -h, h));
        const Vec2 d = q - surface;
        if (d.norm() - a.radius > settings.margin) return 0;
        m = d.normalized();
        id = q.x() > r ? (std::abs(q.y()) > h ? (q.y() > 0 ? 3u : 4u) : 0u) : (q.y() > 0 ? 1u : 2u);
    } else if (h - std::abs(q.y()) <= r - q.x()) {
        // Inside, nearer a cap (ties go to the cap: the flat face).
        const double s = q.y() >= 0 ? 1.0 : -1.0;
        surface = Vec2(q.x(), s * h);
        m = Vec2(0, s);
        id = s > 0 ? 1u : 2u;
    } else {
        surface = Vec2(r, q.y());
        m = Vec2(1, 0);
        id = 0;
    }
    return sphere_against(pose_a.position, a.radius, f.point(surface), f.dir(m), id, settings.margin, out);
}

int collide_sphere_cone(const Sphere& a, const Pose& pose_a, const Cone& b, const Pose& pose_b,
                        const CollideSettings& settings, Manifold& out) {
    Vec2 q;
    const RadialFrame f = radial_frame(pose_b, pose_a.position, q);
    const double r = b.radius, h = b.half_height;
    // Half cross-section: base edge (0,-h)-(r,-h) with outward normal (0,-1), side edge (r,-h)-(0,h) with
    // outward normal s; the axis edge is interior to the solid.
    const Vec2 rim(r, -h), apex(0, h), base_centre(0, -h);
    const Vec2 s = Vec2(2 * h, r).normalized();
    const double d_base = -h - q.y();      // signed distance to the base plane, > 0 outside
    const double d_side = s.dot(q - rim);  // signed distance to the side line, > 0 outside
    Vec2 surface, m;
    std::uint32_t id;
    if (d_base <= 0 && d_side <= 0) {
        if (-d_base <= -d_side) {
            surface = Vec2(q.x(), -h);
            m = Vec2(0, -1);
            id = 0;
        } else {
            surface = q - d_side * s;
            m = s;
            id = 1;
        }
    } else {
        const Vec2 on_base = closest_on_segment_2d(q, base_centre, rim);
        const Vec2 on_side = closest_on_segment_2d(q, rim, apex);
        const bool base = (q - on_base).squaredNorm() <= (q - on_side).squaredNorm();
        surface = base ? on_base : on_side;
        const Vec2 d = q - surface;
        if (d.norm() - a.radius > settings.margin) return 0;
        m = d.normalized();
        id = surface == rim ? 2u : (surface == apex ? 3u : (base ? 0u : 1u));
    }
    return sphere_against(pose_a.position, a.radius, f.point(surface), f.dir(m), id, settings.margin, out);
}

int collide_sphere_hull(const Shape& sphere, const Pose& pose_a, const Shape& hull, const Pose& pose_b,
                        const CollideSettings& settings, Manifold& out) {
    // GJK on the centre is exact for a point against a polytope, and EPA inside it ends on the exit face.
    const SignedDistanceResult d = signed_distance(sphere, pose_a, hull, pose_b);
    if (d.distance > settings.margin) return 0;
    return point_manifold(d.point_a, d.point_b, d.normal, 0, settings.margin, out);
}

int collide_capsule_capsule(const Capsule& a, const Pose& pose_a, const Capsule& b, const Pose& pose_b,
                            const CollideSettings& settings, Manifold& out) {
    const Vec3 da = pose_a.rotate(Vec3(0, 0, a.half_length)), db = pose_b.rotate(Vec3(0, 0, b.half_length));
    const Vec3 p0 = pose_a.position - da, p1 = pose_a.position + da;
    const Vec3 q0 = pose_b.position - db, q1 = pose_b.position + db;
    double s, t;
    closest_segment_params(p0, p1, q0, q1, s, t);
    const Vec3 d = (q0 + t * (q1 - q0)) - (p0 + s * (p1 - p0));
    const double dist = d.norm();
    if (dist - a.radius - b.radius > settings.margin) return 0;
    Vec3 n;
    if (dist > kCoincidentRatio * (a.radius + b.radius)) {
        n = d / dist;
    } else {
        // Crossing cores: the common perpendicular, pointing from A's centre towards B's.
        n = da.cross(db);
        if (n.norm() <= kCoincidentRatio * da.norm() * db.norm()) {
            Vec3 u, v;
            orthonormal_basis(da.normalized(), u, v);
            n = u;
        }
        n.normalize();
        if (n.dot(pose_b.position - pose_a.position) < 0) n = -n;
    }
    ContactFeature fa, fb;
    segment_feature(p0, p1, n, fa);
    segment_feature(q0, q1, -n, fb);
    return core_feature_manifold(fa, fb, n, a.radius, b.radius, settings.margin, 0, out) ? 1 : 0;
}

}  // namespace simpulse
