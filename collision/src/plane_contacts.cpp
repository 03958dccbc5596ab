// Convex shape against a plane: candidate points of each shape kind measured against the half-space, reduced
// to four (see plane_contacts.h).
#include <simpulse/collision/axis_rotation.h>
#include <simpulse/collision/clip.h>
#include <simpulse/collision/manifold_reduction.h>
#include <simpulse/collision/plane_contacts.h>
#include <simpulse/collision/support.h>

#include <cmath>
#include <numbers>

namespace simpulse {
namespace {

// Collects candidates; when the buffer fills (a hull face with hundreds of vertices on the plane) it is
// reduced to four in place and filling goes on, so any number of vertices fits without allocation.
struct PlaneCandidates {
    Vec3 m;        // world plane normal (out of the solid)
    double c = 0;  // plane: m . x = c
    double margin = 0;
    ContactCandidates points;

    void add(const Vec3& x, std::uint32_t id) {
        const double depth = c - m.dot(x);
        if (!(depth >= -margin)) return;
        if (points.count == kMaxClipVertices) {
            Manifold reduced;
            reduce_contacts(points.view(), -m, reduced);
            points.clear();
            for (int i = 0; i < reduced.count; ++i) points.add(reduced.points[static_cast<std::size_t>(i)]);
        }
        // Midway between the shape's point and its projection onto the plane.
        points.add({x + 0.5 * depth * m, depth, id});
    }
};

// One base of a cylinder or cone: disc of radius r centred at `centre` with world axis `axis` (any sign). A
// base parallel to the plane within the axis-rotation angle is a face: four rim points fixed in the body
// (stable ids), and the deepest rim point when the tilt singles one out.
void add_base(PlaneCandidates& pc, const Vec3& centre, const Vec3& axis, const Vec3& x_axis, double r,
              std::uint32_t id_base) {
    const Vec3 down = -pc.m;
    const Vec3 w = down - down.dot(axis) * axis;  // direction of the deepest rim point, |w| = sin(tilt)
    const double sin_tilt = w.norm();
    if (sin_tilt <= std::sin(kAxisRotationAngle)) {
        const Vec3 y_axis = axis.cross(x_axis);
        for (int k = 0; k < 4; ++k) {
            const double a = k * std::numbers::pi / 2;
            pc.add(centre + r * (std::cos(a) * x_axis + std::sin(a) * y_axis),
                   id_base + static_cast<std::uint32_t>(k));
        }
    }
    // Below rounding level the azimuth of the deepest point is noise: the four rim points already cover it.
    if (sin_tilt > 1e-12) pc.add(centre + (r / sin_tilt) * w, id_base + 4);
}

}  // namespace

int collide_convex_plane(const Shape& convex, const Pose& pose_a, const Plane& plane, const Pose& pose_b,
                         const CollideSettings& settings, Manifold& out) {
    PlaneCandidates pc;
    pc.m = pose_b.rotate(plane.normal);
    pc.c = plane.offset + pc.m.dot(pose_b.position);
    pc.margin = settings.margin;
    const Vec3 axis = pose_a.rotate(Vec3::UnitZ());
    const Vec3 x_axis = pose_a.rotate(Vec3::UnitX());
    switch (convex.type()) {
        case ShapeType::sphere:
            pc.add(pose_a.position - std::get<Sphere>(convex.geometry).radius * pc.m, 0);
            break;
        case ShapeType::box: {
            const Vec3& h = std::get<Box>(convex.geometry).half_extents;
            for (std::uint32_t i = 0; i < 8; ++i)
                pc.add(pose_a.transform_point(Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                                                   (i & 4) ? h.z() : -h.z())),
                       i);
            break;
        }
        case ShapeType::capsule: {
            const Capsule& c = std::get<Capsule>(convex.geometry);
            pc.add(pose_a.position - c.half_length * axis - c.radius * pc.m, 0);
            pc.add(pose_a.position + c.half_length * axis - c.radius * pc.m, 1);
            break;
        }
        case ShapeType::cylinder: {
            const Cylinder& c = std::get<Cylinder>(convex.geometry);
            add_base(pc, pose_a.position - c.half_height * axis, axis, x_axis, c.radius, 0);
            add_base(pc, pose_a.position + c.half_height * axis, axis, x_axis, c.radius, 8);
            break;
        }
        case ShapeType::cone: {
            const Cone& c = std::get<Cone>(convex.geometry);
            add_base(pc, pose_a.position - c.half_height * axis, axis, x_axis, c.radius, 0);
            pc.add(pose_a.position + c.half_height * axis, 8);
            break;
        }
        case ShapeType::convex_hull: {
            const ConvexHull& h = std::get<ConvexHull>(convex.geometry);
            // The deepest vertex (hill climbing on large hulls) decides whether any vertex is within the
            // margin.
            const Vec3 lowest =
                pose_a.transform_point(h.vertices[hull_support_index(h, pose_a.inverse_rotate(-pc.m))]);
            if (pc.c - pc.m.dot(lowest) < -settings.margin) return 0;
            for (std::size_t i = 0; i < h.vertices.size(); ++i)
                pc.add(pose_a.transform_point(h.vertices[i]), static_cast<std::uint32_t>(i));
            break;
        }
        default:
            return 0;  // not convex: the dispatcher never routes these here
    }
    if (pc.points.count == 0) return 0;
    reduce_contacts(pc.points.view(), -pc.m, out);
    out.sub_a = out.sub_b = 0;
    return 1;
}

}  // namespace simpulse
