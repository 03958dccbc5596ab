// Signed distance of a ball to any rigid shape: the function the cable exact layer (SEEDS.md section 4,
// layer 3) minimises along u, here over a whole shape so that tests and the benchmark can sample a
// centreline densely as the brute-force oracle. Meshes and height fields are surfaces and are scanned
// triangle by triangle (no pruning: this is the reference, not the fast path).
#include <simpulse/collision/cable_contacts.h>

#include "cable_refine.h"

#include <limits>

namespace simpulse {
namespace {

template <class Visit>
void for_each_surface_triangle(const Shape& shape, Visit&& visit) {
    if (const auto* mesh = std::get_if<TriangleMesh>(&shape.geometry)) {
        for (std::uint32_t t = 0; t < mesh->triangles.size(); ++t) visit(mesh_triangle(*mesh, t));
        return;
    }
    const auto& field = std::get<HeightField>(shape.geometry);
    for (int i = 0; i + 1 < field.rows; ++i)
        for (int j = 0; j + 1 < field.columns; ++j)
            for (int half = 0; half < 2; ++half) visit(height_field_triangle(field, i, j, half));
}

BallDistance surface_distance(const Shape& shape, const Pose& pose, const Vec3& centre, double radius) {
    const Vec3 local = pose.inverse_transform_point(centre);
    BallDistance best{std::numeric_limits<double>::infinity(), Vec3::Zero(), Vec3::UnitZ(), 0};
    for_each_surface_triangle(shape, [&](const MeshTriangle& t) {
        const BallDistance d = cable_detail::TriangleTarget{t, radius}.ball(local);
        if (d.distance < best.distance) best = d;
    });
    best.on_shape = pose.transform_point(best.on_shape);
    best.normal = pose.rotate(best.normal);
    return best;
}

}  // namespace

BallDistance ball_shape_distance(const Shape& shape, const Pose& pose, const Vec3& centre, double radius) {
    const Shape& geometry = query_geometry(shape);
    switch (geometry.type()) {
        case ShapeType::plane: {
            const Plane& plane = std::get<Plane>(geometry.geometry);
            const Vec3 n = pose.rotate(plane.normal);
            const double height = n.dot(centre) - plane.offset - n.dot(pose.position);
            return {height - radius, centre - height * n, n, 0};
        }
        case ShapeType::triangle_mesh:
        case ShapeType::height_field:
            return surface_distance(geometry, pose, centre, radius);
        case ShapeType::compound: {
            const auto& compound = std::get<Compound>(geometry.geometry);
            BallDistance best{std::numeric_limits<double>::infinity(), Vec3::Zero(), Vec3::UnitZ(), 0};
            for (std::uint32_t k = 0; k < compound.children.size(); ++k) {
                const CompoundChild& child = compound.children[k];
                BallDistance d = ball_shape_distance(*child.shape, pose * child.pose, centre, radius);
                d.sub = k;
                if (d.distance < best.distance) best = d;
            }
            return best;
        }
        default:
            return cable_detail::ConvexTarget{ConvexSupport(geometry, pose), radius}.ball(centre);
    }
}

}  // namespace simpulse
