// Shape casts against every target type (see shape_cast.h for the method and its sources). The cast runs in
// the target's frame, from the cast shape's position: the Minkowski difference is then the target minus the
// cast shape centred on its own origin, and rounding scales with the shapes, not with their world position.
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/mesh_contacts.h>
#include <simpulse/collision/shape_cast.h>
#include <simpulse/collision/support.h>

#include "gjk_raycast.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace simpulse {
namespace {

// A hit in the target's frame, before it is brought back to the world; normal unit, zero at fraction 0.
struct LocalCast {
    double t = 0;
    Vec3 point = Vec3::Zero();
    Vec3 normal = Vec3::Zero();
    std::uint32_t sub = 0;
};

// The cast shape in the target's frame: its support view centred on its position, the ray's origin and
// direction, and its size (largest coordinate of its local bounding box) for the tolerance.
struct Caster {
    ConvexSupport core;  // centred on the shape's position, cores only
    Vec3 origin;
    Vec3 direction;
    double size = 0;
};

double size_of(const Shape& shape) {
    const Aabb box = compute_aabb(shape, Pose{});
    return std::max(box.min.cwiseAbs().maxCoeff(), box.max.cwiseAbs().maxCoeff());
}

// The GJK ray cast of the caster's origin against target - caster on the cores, inflated by both radii.
// `target_support` maps a local direction to a point of the target's core; `target_radius` its radius.
template <class TargetSupport>
std::optional<LocalCast> cast_cores(const Caster& c, const TargetSupport& target_support,
                                    double target_radius, double target_size, double max_t) {
    const auto support = [&](const Vec3& v) { return std::pair{target_support(v), c.core.support(-v)}; };
    const double margin = target_radius + c.core.radius;
    // A hit within 1e-10 of the shapes' size, as the ray casts; the sum keeps it above the rounding of the
    // support points (a few ulps of the larger shape).
    const double tolerance = 1e-10 * (target_size + c.size);
    const std::optional<detail::GjkCastHit> hit =
        detail::gjk_raycast(support, c.origin, c.direction, max_t, margin, tolerance);
    if (!hit) return std::nullopt;
    if (hit->normal.isZero(0)) return LocalCast{};  // overlapping at the start
    const Vec3 n = hit->normal.normalized();
    return LocalCast{hit->t, hit->target + target_radius * n, n, 0};
}

std::optional<LocalCast> cast_convex(const Caster& c, const Shape& target, double max_t) {
    const ConvexSupport core = ConvexSupport(target, Pose{}).core();
    return cast_cores(
        c, [&](const Vec3& v) { return core.support(v); }, core.radius, size_of(target), max_t);
}

// The cast shape's lowest point along the normal reaches the plane first: closed form.
std::optional<LocalCast> cast_plane(const Caster& c, const Shape& cast, const Plane& p, double max_t) {
    const Vec3 lowest = c.origin + ConvexSupport(cast, c.core.pose).support(-p.normal);
    const double height = p.normal.dot(lowest) - p.offset;
    if (height <= 0) return LocalCast{};
    const double rate = p.normal.dot(c.direction);
    if (rate >= 0) return std::nullopt;
    const double t = -height / rate;
    if (t > max_t) return std::nullopt;
    return LocalCast{t, lowest + t * c.direction, p.normal, 0};
}

std::optional<LocalCast> cast_triangle(const Caster& c, const MeshTriangle& tri, double max_t) {
    const auto support = [&](const Vec3& v) {
        const double d0 = v.dot(tri.v[0]), d1 = v.dot(tri.v[1]), d2 = v.dot(tri.v[2]);
        return d0 >= d1 && d0 >= d2 ? tri.v[0] : (d1 >= d2 ? tri.v[1] : tri.v[2]);
    };
    // Its own extent, not its distance from the mesh's origin: the tolerance is relative to the shapes.
    const double size =
        (tri.v[0].cwiseMax(tri.v[1]).cwiseMax(tri.v[2]) - tri.v[0].cwiseMin(tri.v[1]).cwiseMin(tri.v[2]))
            .maxCoeff();
    return cast_cores(c, support, 0, size, max_t);
}

// The box the cast shape sweeps over the cast, in the target's frame.
Aabb swept_box(const Shape& cast, const Caster& c, double max_t) {
    Aabb box = compute_aabb(cast, Pose{c.origin, c.core.pose.orientation});
    box.grow(Aabb{box.min + max_t * c.direction, box.max + max_t * c.direction});
    return box;
}

// Keeps the earliest hit; equal fractions by the smaller sub, so the answer does not depend on the order in
// which the BVH or the grid hands out the triangles.
void keep_first(std::optional<LocalCast>& best, const std::optional<LocalCast>& hit, std::uint32_t sub) {
    if (!hit) return;
    if (best && (hit->t > best->t || (hit->t == best->t && sub > best->sub))) return;
    best = *hit;
    best->sub = sub;
}

std::optional<LocalCast> cast_mesh(const Caster& c, const Shape& cast, const TriangleMesh& mesh,
                                   double max_t) {
    std::optional<LocalCast> best;
    bvh_query(mesh.bvh, swept_box(cast, c, max_t), [&](std::uint32_t index) {
        const auto& v = mesh.triangles[index];
        const MeshTriangle tri{
            {mesh.vertices[v[0]], mesh.vertices[v[1]], mesh.vertices[v[2]]}, mesh.normals[index], 7, index};
        keep_first(best, cast_triangle(c, tri, best ? best->t : max_t), index);
    });
    return best;
}

std::optional<LocalCast> cast_height_field(const Caster& c, const Shape& cast, const HeightField& f,
                                           double max_t) {
    const Aabb box = swept_box(cast, c, max_t);
    const int cells[2] = {f.columns - 1, f.rows - 1};
    int first[2], last[2];
    for (int axis = 0; axis < 2; ++axis) {
        const double lo = (box.min[axis] - f.origin[axis]) / f.spacing[axis];
        const double hi = (box.max[axis] - f.origin[axis]) / f.spacing[axis];
        if (hi < 0 || lo > cells[axis]) return std::nullopt;
        first[axis] = std::clamp(height_field_cell(lo, cells[axis]), 0, cells[axis] - 1);
        last[axis] = std::clamp(height_field_cell(hi, cells[axis]), 0, cells[axis] - 1);
    }
    std::optional<LocalCast> best;
    for (int row = first[1]; row <= last[1]; ++row) {
        for (int column = first[0]; column <= last[0]; ++column) {
            const auto [low, high] = height_field_range(f, row, column, row + 1, column + 1);
            if (low > box.max.z() || high < box.min.z()) continue;  // the cell's triangles miss the box
            const auto cell = static_cast<std::uint32_t>(row * cells[0] + column);
            for (int half = 0; half < 2; ++half)
                keep_first(
                    best,
                    cast_triangle(c, height_field_triangle(f, row, column, half), best ? best->t : max_t),
                    cell);
        }
    }
    return best;
}

// The cast of one convex shape (not a compound) against a target that is not a compound, in its frame.
std::optional<LocalCast> cast_local(const Shape& cast, const Caster& c, const Shape& target, double max_t) {
    switch (target.type()) {
        case ShapeType::plane:
            return cast_plane(c, cast, std::get<Plane>(target.geometry), max_t);
        case ShapeType::triangle_mesh:
            return cast_mesh(c, cast, std::get<TriangleMesh>(target.geometry), max_t);
        case ShapeType::height_field:
            return cast_height_field(c, cast, std::get<HeightField>(target.geometry), max_t);
        default:
            return cast_convex(c, target, max_t);
    }
}

// One convex cast shape against a target of any type, in the world.
std::optional<CastHit> cast_convex_shape(const Shape& cast, const Pose& start, const Vec3& translation,
                                         const Shape& target_shape, const Pose& target_pose) {
    const Shape& target = query_geometry(target_shape);
    if (const auto* compound = std::get_if<Compound>(&target.geometry)) {
        std::optional<CastHit> best;
        for (std::size_t k = 0; k < compound->children.size(); ++k) {
            const CompoundChild& child = compound->children[k];
            const std::optional<CastHit> hit =
                cast_convex_shape(cast, start, translation, *child.shape, target_pose * child.pose);
            if (hit && (!best || hit->fraction < best->fraction)) {
                best = hit;
                best->sub = static_cast<std::uint32_t>(k);
            }
        }
        return best;
    }
    const Pose local{target_pose.inverse_transform_point(start.position),
                     target_pose.orientation.conjugate() * start.orientation};
    const Caster c{ConvexSupport(cast, Pose{Vec3::Zero(), local.orientation}).core(), local.position,
                   target_pose.inverse_rotate(translation), size_of(cast)};
    const std::optional<LocalCast> hit = cast_local(cast, c, target, 1);
    if (!hit) return std::nullopt;
    if (hit->normal.isZero(0)) return CastHit{0, start.position, -translation.normalized(), hit->sub};
    return CastHit{hit->t, target_pose.transform_point(hit->point), target_pose.rotate(hit->normal),
                   hit->sub};
}

}  // namespace

bool is_castable(const Shape& shape) {
    return is_convex(shape.type()) || shape.type() == ShapeType::compound || shape.type() == ShapeType::prism;
}

std::optional<CastHit> shape_cast(const Shape& cast_shape, const Pose& start, const Vec3& translation,
                                  const Shape& target, const Pose& target_pose) {
    const Shape& cast = query_geometry(cast_shape);
    if (!is_castable(cast))
        throw std::invalid_argument("shape: expected a convex shape or compound of convex shapes");
    const auto* compound = std::get_if<Compound>(&cast.geometry);
    if (compound == nullptr) return cast_convex_shape(cast, start, translation, target, target_pose);
    // A compound touches first where its earliest child does; at equal fractions the first child's hit.
    std::optional<CastHit> best;
    for (const CompoundChild& child : compound->children) {
        const std::optional<CastHit> hit =
            cast_convex_shape(*child.shape, start * child.pose, translation, target, target_pose);
        if (hit && (!best || hit->fraction < best->fraction)) best = hit;
    }
    if (best && best->fraction == 0) best->point = start.position;  // the compound's start, not a child's
    return best;
}

}  // namespace simpulse
