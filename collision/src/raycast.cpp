// Ray casts against every shape type (see raycast.h for the methods and their sources). Each shape is cast
// in its own frame; the hit is brought back to the world.
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/gjk.h>
#include <simpulse/collision/raycast.h>

#include "gjk_raycast.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace simpulse {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct LocalHit {
    double t = kInfinity;
    Vec3 normal = Vec3::UnitZ();
    std::uint32_t sub = 0;
};

std::optional<LocalHit> cast_local(const Shape& shape, const Vec3& o, const Vec3& d, double max_t);

// |o + t d - c| = r, the smaller root in [0, max_t]; inside: t = 0.
std::optional<LocalHit> cast_sphere(const Sphere& s, const Vec3& o, const Vec3& d, double max_t) {
    const double b = o.dot(d), c = o.squaredNorm() - s.radius * s.radius;
    if (c <= 0) return LocalHit{0, -d, 0};
    if (b >= 0) return std::nullopt;  // outside and moving away
    const double discriminant = b * b - c;
    if (discriminant < 0) return std::nullopt;
    const double t = -b - std::sqrt(discriminant);
    if (t > max_t) return std::nullopt;
    return LocalHit{t, (o + t * d).normalized(), 0};
}

std::optional<LocalHit> cast_plane(const Plane& p, const Vec3& o, const Vec3& d, double max_t) {
    const double height = p.normal.dot(o) - p.offset;  // the plane is the solid half-space below
    if (height <= 0) return LocalHit{0, -d, 0};
    const double rate = p.normal.dot(d);
    if (rate >= 0) return std::nullopt;
    const double t = -height / rate;
    if (t > max_t) return std::nullopt;
    return LocalHit{t, p.normal, 0};
}

// Van den Bergen 2004, alg. 1 (gjk_raycast.h) on the shape's own support mapping, without a margin.
std::optional<LocalHit> cast_convex(const Shape& shape, const Vec3& o, const Vec3& d, double max_t) {
    const ConvexSupport support(shape, Pose{});
    // The shape's size sets the tolerance: a hit within 1e-10 of it.
    double scale = 0;
    for (int i = 0; i < 3; ++i)
        scale = std::max({scale, std::abs(support.support(Vec3::Unit(i))[i]),
                          std::abs(support.support(-Vec3::Unit(i))[i])});
    const auto point = [&](const Vec3& v) { return std::pair{support.support(v), Vec3(Vec3::Zero())}; };
    const std::optional<detail::GjkCastHit> hit = detail::gjk_raycast(point, o, d, max_t, 0, 1e-10 * scale);
    if (!hit) return std::nullopt;
    if (hit->normal.isZero(0)) return LocalHit{0, -d, 0};  // the origin is inside
    return LocalHit{hit->t, hit->normal.normalized(), 0};
}

// Moller-Trumbore; both faces. Returns t, or infinity.
double cast_triangle(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& o, const Vec3& d,
                     double max_t) {
    const Vec3 e1 = b - a, e2 = c - a, p = d.cross(e2);
    const double det = e1.dot(p);
    if (std::abs(det) < 1e-300) return kInfinity;
    const double inv = 1 / det;
    const Vec3 s = o - a;
    const double u = s.dot(p) * inv;
    if (u < 0 || u > 1) return kInfinity;
    const Vec3 q = s.cross(e1);
    const double w = d.dot(q) * inv;
    if (w < 0 || u + w > 1) return kInfinity;
    const double t = e2.dot(q) * inv;
    return t >= 0 && t <= max_t ? t : kInfinity;
}

std::optional<LocalHit> cast_mesh(const TriangleMesh& mesh, const Vec3& o, const Vec3& d, double max_t) {
    LocalHit best;
    bvh_raycast(mesh.bvh, o, d, max_t, [&](std::uint32_t triangle, double limit) {
        const auto& tri = mesh.triangles[triangle];
        const double t =
            cast_triangle(mesh.vertices[tri[0]], mesh.vertices[tri[1]], mesh.vertices[tri[2]], o, d, limit);
        if (t < best.t || (t == best.t && triangle < best.sub)) {
            const Vec3& n = mesh.normals[triangle];
            best = {t, n.dot(d) <= 0 ? n : Vec3(-n), triangle};
            return t;
        }
        return limit;
    });
    if (!(best.t <= max_t)) return std::nullopt;
    return best;
}

// The cell's two triangles, split as the terrain collision splits them (v0 v1 v3 and v0 v3 v2).
double cast_cell(const HeightField& f, int row, int column, const Vec3& o, const Vec3& d, double max_t,
                 Vec3& n) {
    const double dx = f.spacing.x(), dy = f.spacing.y();
    const double x = f.origin.x() + column * dx, y = f.origin.y() + row * dy;
    const Vec3 v0(x, y, f.height(row, column)), v1(x + dx, y, f.height(row, column + 1));
    const Vec3 v2(x, y + dy, f.height(row + 1, column)), v3(x + dx, y + dy, f.height(row + 1, column + 1));
    const double t1 = cast_triangle(v0, v1, v3, o, d, max_t), t2 = cast_triangle(v0, v3, v2, o, d, max_t);
    if (t1 <= t2 && t1 <= max_t) n = (v1 - v0).cross(v3 - v0).normalized();
    if (t2 < t1 && t2 <= max_t) n = (v3 - v0).cross(v2 - v0).normalized();
    return std::min(t1, t2);
}

// Amanatides-Woo walk over the cells under the ray's xy path from cell `first` (column, row) up to ray
// parameter `leave`.
std::optional<LocalHit> walk_height_field(const HeightField& f, const Vec3& o, const Vec3& d, double max_t,
                                          double leave, const int first[2]) {
    const int cells[2] = {f.columns - 1, f.rows - 1};
    int cell[2] = {first[0], first[1]};
    int step[2];
    double next[2], delta[2];
    for (int axis = 0; axis < 2; ++axis) {
        step[axis] = d[axis] > 0 ? 1 : -1;
        if (std::abs(d[axis]) < 1e-300) {
            next[axis] = delta[axis] = kInfinity;
            continue;
        }
        const double boundary = f.origin[axis] + (cell[axis] + (d[axis] > 0 ? 1 : 0)) * f.spacing[axis];
        next[axis] = (boundary - o[axis]) / d[axis];
        delta[axis] = f.spacing[axis] / std::abs(d[axis]);
    }
    for (;;) {
        Vec3 n = Vec3::UnitZ();
        const double t = cast_cell(f, cell[1], cell[0], o, d, max_t, n);
        if (t <= max_t) {
            if (n.z() < 0) n = -n;
            return LocalHit{t, n, static_cast<std::uint32_t>(cell[1] * cells[0] + cell[0])};
        }
        const int axis = next[0] < next[1] ? 0 : 1;
        if (next[axis] > leave) return std::nullopt;
        cell[axis] += step[axis];
        if (cell[axis] < 0 || cell[axis] >= cells[axis]) return std::nullopt;
        next[axis] += delta[axis];
    }
}

// The walk over the cells under the ray's xy path, clipped to the grid.
std::optional<LocalHit> cast_height_field(const HeightField& f, const Vec3& o, const Vec3& d, double max_t) {
    const Vec2 size(f.spacing.x() * (f.columns - 1), f.spacing.y() * (f.rows - 1));
    double enter = 0, leave = max_t;
    for (int axis = 0; axis < 2; ++axis) {
        const double lo = f.origin[axis], hi = f.origin[axis] + size[axis];
        if (std::abs(d[axis]) < 1e-300) {
            if (o[axis] < lo || o[axis] > hi) return std::nullopt;
            continue;
        }
        double t0 = (lo - o[axis]) / d[axis], t1 = (hi - o[axis]) / d[axis];
        if (t0 > t1) std::swap(t0, t1);
        enter = std::max(enter, t0);
        leave = std::min(leave, t1);
    }
    if (enter > leave) return std::nullopt;
    const Vec3 start = o + enter * d;
    const int cells[2] = {f.columns - 1, f.rows - 1};
    int first[2];
    // A ray that does not move along an axis and runs within rounding of a grid line there may have its hit
    // on the triangles on the other side of the line (the cell index rounds one way, the triangle test the
    // other): if the walk from the first cell misses, the walks from the neighbouring row or column (and
    // their corner cell, on a vertex) are tried.
    int other[2];
    for (int axis = 0; axis < 2; ++axis) {
        const double local = (start[axis] - f.origin[axis]) / f.spacing[axis];
        first[axis] = std::clamp(height_field_cell(local, cells[axis]), 0, cells[axis] - 1);
        other[axis] = first[axis];
        if (std::abs(d[axis]) >= 1e-300) continue;
        const double line = std::round(local);
        if (std::abs(local - line) > 1e-9) continue;
        const int neighbour = line == first[axis] ? first[axis] - 1 : first[axis] + 1;
        if (neighbour >= 0 && neighbour < cells[axis]) other[axis] = neighbour;
    }
    std::optional<LocalHit> best = walk_height_field(f, o, d, max_t, leave, first);
    const int columns_to_try = other[0] != first[0] ? 2 : 1, rows_to_try = other[1] != first[1] ? 2 : 1;
    for (int a = 0; a < columns_to_try && !best; ++a)
        for (int b = 0; b < rows_to_try && !best; ++b) {
            if (a == 0 && b == 0) continue;  // the first walk
            const int from[2] = {a == 0 ? first[0] : other[0], b == 0 ? first[1] : other[1]};
            best = walk_height_field(f, o, d, max_t, leave, from);
        }
    return best;
}

std::optional<LocalHit> cast_compound(const Compound& c, const Vec3& o, const Vec3& d, double max_t) {
    std::optional<LocalHit> best;
    for (std::size_t k = 0; k < c.children.size(); ++k) {
        if (ray_enter(c.child_bounds[k], o, d, max_t) > max_t) continue;
        const CompoundChild& child = c.children[k];
        const Vec3 lo = child.pose.inverse_transform_point(o), ld = child.pose.inverse_rotate(d);
        const std::optional<LocalHit> hit = cast_local(*child.shape, lo, ld, best ? best->t : max_t);
        if (hit && (!best || hit->t < best->t)) {
            best = LocalHit{hit->t, child.pose.rotate(hit->normal), static_cast<std::uint32_t>(k)};
        }
    }
    return best;
}

std::optional<LocalHit> cast_local(const Shape& shape, const Vec3& o, const Vec3& d, double max_t) {
    return std::visit(
        [&](const auto& g) -> std::optional<LocalHit> {
            using G = std::decay_t<decltype(g)>;
            if constexpr (std::is_same_v<G, Sphere>)
                return cast_sphere(g, o, d, max_t);
            else if constexpr (std::is_same_v<G, Plane>)
                return cast_plane(g, o, d, max_t);
            else if constexpr (std::is_same_v<G, TriangleMesh>)
                return cast_mesh(g, o, d, max_t);
            else if constexpr (std::is_same_v<G, HeightField>)
                return cast_height_field(g, o, d, max_t);
            else if constexpr (std::is_same_v<G, Compound>)
                return cast_compound(g, o, d, max_t);
            else if constexpr (std::is_same_v<G, Prism>)
                return cast_local(*g.hulls, o, d, max_t);
            else
                return cast_convex(shape, o, d, max_t);
        },
        shape.geometry);
}

}  // namespace

std::optional<RayHit> raycast(const Shape& shape, const Pose& pose, const Vec3& origin, const Vec3& direction,
                              double max_distance) {
    const Vec3 o = pose.inverse_transform_point(origin), d = pose.inverse_rotate(direction);
    const std::optional<LocalHit> hit = cast_local(shape, o, d, max_distance);
    if (!hit) return std::nullopt;
    return RayHit{hit->t, origin + hit->t * direction, pose.rotate(hit->normal), hit->sub};
}

}  // namespace simpulse
