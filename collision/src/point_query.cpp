// Point containment for every shape type (see point_query.h for the methods and their sources), each shape in
// its own frame.
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/gjk.h>
#include <simpulse/collision/point_query.h>

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// Closest point of the triangle abc to p (Ericson 2005, sect. 5.1.5): by the Voronoi region of p.
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
    const Vec3 ab = b - a, ac = c - a, ap = p - a;
    const double d1 = ab.dot(ap), d2 = ac.dot(ap);
    if (d1 <= 0 && d2 <= 0) return a;
    const Vec3 bp = p - b;
    const double d3 = ab.dot(bp), d4 = ac.dot(bp);
    if (d3 >= 0 && d4 <= d3) return b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
    const Vec3 cp = p - c;
    const double d5 = ab.dot(cp), d6 = ac.dot(cp);
    if (d6 >= 0 && d5 <= d6) return c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
    const double denominator = 1 / (va + vb + vc);
    return a + ab * (vb * denominator) + ac * (vc * denominator);
}

bool mesh_contains(const TriangleMesh& mesh, const Vec3& p, double tolerance) {
    bool found = false;
    bvh_query(mesh.bvh, Aabb{p, p}.inflated(tolerance), [&](std::uint32_t index) {
        const auto& t = mesh.triangles[index];
        const Vec3 q = closest_on_triangle(p, mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]);
        found = (p - q).norm() <= tolerance;
        return !found;
    });
    return found;
}

bool height_field_contains(const HeightField& f, const Vec3& p, double tolerance) {
    const Vec2 size(f.spacing.x() * (f.columns - 1), f.spacing.y() * (f.rows - 1));
    Vec2 cell_coordinates;
    int cell[2];
    const int cells[2] = {f.columns - 1, f.rows - 1};
    for (int axis = 0; axis < 2; ++axis) {
        const double offset = p[axis] - f.origin[axis];
        if (offset < -tolerance || offset > size[axis] + tolerance) return false;
        const double local = std::clamp(offset, 0.0, size[axis]) / f.spacing[axis];
        cell[axis] = std::clamp(height_field_cell(local, cells[axis]), 0, cells[axis] - 1);
        cell_coordinates[axis] = local - cell[axis];
    }
    const int i = cell[1], j = cell[0];
    const double u = cell_coordinates.x(), w = cell_coordinates.y();
    const double h00 = f.height(i, j), h01 = f.height(i, j + 1), h10 = f.height(i + 1, j),
                 h11 = f.height(i + 1, j + 1);
    // Triangle (i,j) (i,j+1) (i+1,j+1) below the diagonal, (i,j) (i+1,j+1) (i+1,j) above it.
    const double surface =
        u >= w ? h00 + u * (h01 - h00) + w * (h11 - h01) : h00 + w * (h10 - h00) + u * (h11 - h10);
    return p.z() <= surface + tolerance;
}

// The shape's local frame.
bool contains_local(const Shape& shape, const Vec3& p, double tolerance) {
    switch (shape.type()) {
        case ShapeType::sphere:
            return p.norm() <= std::get<Sphere>(shape.geometry).radius + tolerance;
        case ShapeType::box: {
            const Vec3& h = std::get<Box>(shape.geometry).half_extents;
            return (p.cwiseAbs() - h).cwiseMax(0).norm() <= tolerance;
        }
        case ShapeType::capsule: {
            const auto& c = std::get<Capsule>(shape.geometry);
            const Vec3 axis_point(0, 0, std::clamp(p.z(), -c.half_length, c.half_length));
            return (p - axis_point).norm() <= c.radius + tolerance;
        }
        case ShapeType::cylinder: {
            const auto& c = std::get<Cylinder>(shape.geometry);
            const double radial = std::max(std::hypot(p.x(), p.y()) - c.radius, 0.0);
            const double axial = std::max(std::abs(p.z()) - c.half_height, 0.0);
            return std::hypot(radial, axial) <= tolerance;
        }
        case ShapeType::cone: {
            // Closed form in the half cross-section through the axis: (rho, z) against the triangle of the
            // axis, the base radius and the apex (GJK's distance to the curved side converges only to about
            // 1e-8 m, above the tolerance).
            const auto& c = std::get<Cone>(shape.geometry);
            const Vec2 q(std::hypot(p.x(), p.y()), p.z());
            const Vec2 base(c.radius, -c.half_height), apex(0, c.half_height);
            if (q.y() >= -c.half_height && q.x() * 2 * c.half_height <= c.radius * (c.half_height - q.y()))
                return true;
            const auto segment_distance = [&](const Vec2& a, const Vec2& b) {
                const double s = std::clamp((q - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
                return (q - (a + s * (b - a))).norm();
            };
            return std::min(segment_distance(Vec2(0, -c.half_height), base), segment_distance(base, apex)) <=
                   tolerance;
        }
        case ShapeType::plane: {
            const auto& plane = std::get<Plane>(shape.geometry);
            return plane.normal.dot(p) - plane.offset <= tolerance;
        }
        case ShapeType::compound: {
            const auto& compound = std::get<Compound>(shape.geometry);
            for (const CompoundChild& child : compound.children)
                if (contains_local(*child.shape, child.pose.inverse_transform_point(p), tolerance))
                    return true;
            return false;
        }
        case ShapeType::prism: {
            // Exact: the polygon with holes and the slab (the parts' hulls may exceed the polygon).
            const auto& prism = std::get<Prism>(shape.geometry);
            if (std::abs(p.z()) > prism.half_thickness + tolerance) return false;
            if (polygon_contains(prism.boundaries, p.head<2>())) return true;
            if (tolerance <= 0) return false;
            for (const Ring2& ring : prism.boundaries)
                for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
                    const Vec2 d = ring[i] - ring[j];
                    const double s = std::clamp((p.head<2>() - ring[j]).dot(d) / d.squaredNorm(), 0.0, 1.0);
                    if ((p.head<2>() - (ring[j] + s * d)).norm() <= tolerance) return true;
                }
            return false;
        }
        case ShapeType::triangle_mesh:
            return mesh_contains(std::get<TriangleMesh>(shape.geometry), p, tolerance);
        case ShapeType::height_field:
            return height_field_contains(std::get<HeightField>(shape.geometry), p, tolerance);
        default: {
            // Hulls: the point is a sphere's core (its centre), so GJK measures the distance to it (exact on
            // a polytope).
            const Shape point{Sphere{0}};
            const GjkResult r = gjk(ConvexSupport(shape, Pose{}), ConvexSupport(point, Pose{p}).core());
            return r.intersecting || r.distance <= tolerance;
        }
    }
}

}  // namespace

bool contains_point(const Shape& shape, const Pose& pose, const Vec3& point, double tolerance) {
    return contains_local(shape, pose.inverse_transform_point(point), tolerance);
}

}  // namespace simpulse
