// Convex shapes against static triangle meshes and height fields. Each triangle near the shape (BVH query, or
// the cells under the shape's box) is a one-sided contact: a shape whose centre is behind the triangle's
// plane is left out, unless no triangle touches the shape from the front. Then the shape sank past half its
// thickness (a small or thin body within one step) and the triangles behind it push it back out along their
// face normals, at its own points below the plane (as against a plane): on a mesh, which may be open, only
// while the shape still reaches the front side or lies behind it by less than the margin (which includes
// how far the shape can move in the step); on a height field, solid below its surface, at any depth
// (every cell under the shape's box is visited, and the field's bounding box reaches below its lowest point
// by its larger horizontal size, so such a body stays paired with it). As back faces count only without any
// front contact, a shape pressed into a thin closed mesh never also gets the far faces' normals. The contact
// normal is the triangle's face normal unless the closest points of the cores (GJK) lie on a convex edge or
// at a vertex of a convex edge, where the edge/vertex normal is real; on flat and concave ("internal") edges,
// and whenever the core itself cuts the triangle, the face normal is used (Bullet's btInternalEdgeUtility,
// Jolt's active edges): a body sliding over a triangulated floor never sees a ghost edge normal. The features
// along the normal are then clipped as in the axis-rotation method (axis_rotation.h); a face contact also
// takes the shape's own points that penetrate the plane over the triangle (as against a plane), since the
// axis-rotation feature along the face normal is only what lies within a small cone of the deepest point (one
// rim point of a tilted thin cylinder, one edge of a box resting on it). A lone vertex of the shape lying
// beside the triangle is not measured against the triangle's plane, which across a convex edge runs above the
// neighbour (on a hill, centimetres of depth for a corner above the ground), but where the shape crosses the
// edge it lies beyond: the edge point under which the shape reaches deepest (the deepest point of the shape's
// slice by the plane through the edge and the face normal, found by bisection on support directions). The
// per-triangle patches with the same normal (coplanar triangles) are merged and reduced to four points
// (Strashnov & Torgashev 2020, sect. V: one patch per plane).
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/collision/shape.h>
#include <simpulse/collision/support.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace simpulse {

// One triangle in its mesh's frame: counter-clockwise seen from the front, unit front normal, bit i of
// convex_edges set when edge v[i] -> v[(i + 1) % 3] may produce edge normals (convex or boundary).
struct MeshTriangle {
    std::array<Vec3, 3> v;
    Vec3 normal = Vec3::UnitZ();
    std::uint8_t convex_edges = 7;
    std::uint32_t index = 0;  // triangle index (mesh) or 2 * cell + half (height field)
};

// Distance between the core of a convex shape (a support view of its core, in the triangle's frame) and a
// triangle, by GJK; the closest points of the two when apart.
struct CoreDistance {
    double distance = 0;
    Vec3 on_convex, on_triangle;
    bool intersecting = false;
};
CoreDistance core_triangle_distance(const ConvexSupport& core, const MeshTriangle& triangle);

// Whether p lies over or under the triangle, along its normal.
bool inside_triangle_prism(const MeshTriangle& triangle, const Vec3& p);

// Triangle `index` of the mesh, in the mesh's frame.
MeshTriangle mesh_triangle(const TriangleMesh& mesh, std::uint32_t index);

// Contact of a convex shape, given as a support view in the triangle's frame, with one triangle. The normal
// points from the shape to the triangle; ids are unique per triangle. Returns false when nothing is within
// the margin.
bool collide_convex_triangle(const ConvexSupport& convex, const MeshTriangle& triangle, double margin,
                             Manifold& out);

// Appends one manifold per contact plane (normal from the convex shape to the mesh, sub_b = the triangle of
// the patch's first point); returns the number appended.
int collide_convex_mesh(const Shape& convex, const Pose& pose_a, const TriangleMesh& mesh, const Pose& pose_b,
                        const CollideSettings& settings, std::vector<Manifold>& out);

// Height fields through their cell triangles: cell (i, j) (rows i, columns j, vertex (i, j) as in
// HeightField) is split along the diagonal from vertex (i, j) to (i + 1, j + 1) into triangle 2c = {(i,j),
// (i,j+1), (i+1,j+1)} and 2c + 1 = {(i,j), (i+1,j+1), (i+1,j)}, c = i * (columns - 1) + j; both face up (+z).
// Edge flags come from the neighbouring triangles as in make_triangle_mesh (flat within 1e-3 rad or concave:
// internal; grid border: convex). sub_b is the cell index c, as in the analytic cylinder-terrain path; the
// point ids tell the two triangles apart.
int collide_convex_height_field(const Shape& convex, const Pose& pose_a, const HeightField& field,
                                const Pose& pose_b, const CollideSettings& settings,
                                std::vector<Manifold>& out);
MeshTriangle height_field_triangle(const HeightField& field, int row, int column, int half);

// Calls visit(triangle) for both triangles of every cell under `box` (in the field's frame) whose highest
// corner is not below the box: a box entirely below the surface is inside the solid under it and still gets
// the cells.
template <class Visit>
void for_each_height_field_triangle(const HeightField& f, const Aabb& box, Visit&& visit) {
    const int columns = f.columns - 1, rows = f.rows - 1;  // cells
    const int j0 = std::max(0, height_field_cell((box.min.x() - f.origin.x()) / f.spacing.x(), columns));
    const int j1 =
        std::min(columns - 1, height_field_cell((box.max.x() - f.origin.x()) / f.spacing.x(), columns));
    const int i0 = std::max(0, height_field_cell((box.min.y() - f.origin.y()) / f.spacing.y(), rows));
    const int i1 = std::min(rows - 1, height_field_cell((box.max.y() - f.origin.y()) / f.spacing.y(), rows));
    for (int i = i0; i <= i1; ++i)
        for (int j = j0; j <= j1; ++j) {
            const double h0 = f.height(i, j), h1 = f.height(i, j + 1), h2 = f.height(i + 1, j),
                         h3 = f.height(i + 1, j + 1);
            if (std::max({h0, h1, h2, h3}) < box.min.z()) continue;
            visit(height_field_triangle(f, i, j, 0));
            visit(height_field_triangle(f, i, j, 1));
        }
}

// Cylinder against height field by the generic path (cell triangles); the narrow phase uses the analytic
// algorithm of cylinder_terrain.h instead, and bench_cylinder_terrain compares the two.
int collide_cylinder_height_field(const Shape& cylinder, const Pose& pose_a, const HeightField& field,
                                  const Pose& pose_b, const CollideSettings& settings,
                                  std::vector<Manifold>& out);

}  // namespace simpulse
