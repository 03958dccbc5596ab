// Shape definitions of the collision module: the primitives of the scene format, convex hulls, planes,
// compounds, static triangle meshes and height fields. Shapes are immutable after construction and shared
// between bodies through ShapePtr. Every shape is expressed in its own local frame (primitive shapes are
// centred on the local origin, axis-symmetric ones have their axis along local z).
#pragma once

#include <simpulse/collision/math.h>
#include <simpulse/collision/polygon.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace simpulse {

// Order matters: it is the variant index and the row/column of the narrow-phase dispatch table.
enum class ShapeType : std::uint8_t {
    sphere,
    box,
    capsule,
    cylinder,
    cone,
    convex_hull,
    plane,
    compound,
    triangle_mesh,
    height_field,
    prism,
};
inline constexpr int kShapeTypeCount = 11;

struct Sphere {
    double radius = 0.5;
};

struct Box {
    Vec3 half_extents = Vec3::Constant(0.5);
};

// Segment from (0,0,-half_length) to (0,0,+half_length) swept by a sphere of `radius`.
struct Capsule {
    double radius = 0.5;
    double half_length = 0.5;
};

// Axis along local z, bases at z = -half_height and z = +half_height.
struct Cylinder {
    double radius = 0.5;
    double half_height = 0.5;
};

// Axis along local z, apex at z = +half_height, base disc at z = -half_height. The local origin is the
// mid-height point (scene format), so the centre of mass is at (0, 0, -half_height / 2).
struct Cone {
    double radius = 0.5;
    double half_height = 0.5;
};

// Convex polyhedron with merged coplanar faces. Built by make_convex_hull (quickhull); never assembled by
// hand.
struct ConvexHull {
    struct Face {
        Vec3 normal;              // outward unit normal
        double offset = 0;        // plane: normal . x = offset
        std::uint32_t first = 0;  // into face_vertices; the loop is counter-clockwise seen from outside
        std::uint32_t count = 0;
    };
    struct Edge {
        std::uint32_t v0 = 0, v1 = 0;        // vertex indices
        std::uint32_t face0 = 0, face1 = 0;  // the two faces sharing the edge
    };
    std::vector<Vec3> vertices;
    std::vector<Face> faces;
    std::vector<std::uint32_t> face_vertices;
    std::vector<Edge> edges;  // each undirected edge once
    // Vertex adjacency (CSR) for hill-climbing support queries on large hulls.
    std::vector<std::uint32_t> neighbor_offsets;  // size vertices.size() + 1
    std::vector<std::uint32_t> neighbors;
    Vec3 centroid = Vec3::Zero();  // volume centroid (used as an interior point)
};

// Half-space {x : normal . x <= offset} in the body frame; static bodies only.
struct Plane {
    Vec3 normal = Vec3::UnitZ();  // unit
    double offset = 0;
};

// Bounding-volume hierarchy over items with boxes (triangles of a mesh, children of a compound).
struct Bvh {
    struct Node {
        Aabb box;
        std::int32_t first = 0;  // leaf: first item index in `items`; inner: index of the left child
        std::int32_t count = 0;  // leaf: number of items (> 0); inner: 0 (right child = first + 1)
    };
    std::vector<Node> nodes;
    std::vector<std::uint32_t> items;
};

struct Compound {
    std::vector<CompoundChild> children;
    std::vector<Aabb> child_bounds;  // local bounds of each child in the compound frame
    Bvh bvh;                         // over child_bounds, built by make_compound
};

// Static triangle mesh. Triangles are counter-clockwise seen from the outside (front face).
struct TriangleMesh {
    std::vector<Vec3> vertices;
    std::vector<std::array<std::uint32_t, 3>> triangles;
    std::vector<Vec3> normals;  // unit front-face normal per triangle
    // Per triangle, bit i set when edge i (vertices i -> i+1) is convex, i.e. it may produce an edge normal.
    // Flat and concave edges are internal: contacts on them use the face normal (no ghost normals).
    std::vector<std::uint8_t> convex_edges;
    Bvh bvh;
};

// Regular height grid: vertex (row i, column j) is (origin.x + j * spacing.x, origin.y + i * spacing.y,
// heights[i * columns + j]). Static only. Rows >= 2 and columns >= 2.
struct HeightField {
    Vec2 origin = Vec2::Zero();
    Vec2 spacing = Vec2::Ones();
    int rows = 0;
    int columns = 0;
    std::vector<double> heights;  // row-major, rows * columns
    // Min/max height pyramid over blocks of cells (level 0 = cells), built by make_height_field.
    struct Level {
        int rows = 0, columns = 0;
        std::vector<double> min_height, max_height;
    };
    std::vector<Level> levels;
    double height(int i, int j) const { return heights[static_cast<std::size_t>(i) * columns + j]; }
};

// The height-field cell index of a coordinate in cells (coordinate minus origin, over the spacing): its
// floor, clamped to [-1, cells] while still a double, so a far or non-finite coordinate (a huge swept box)
// converts to int without overflow; NaN gives -1. Callers clamp further to the cells they walk.
inline int height_field_cell(double local, int cells) {
    const double cell = std::floor(local);
    if (!(cell >= -1)) return -1;
    return cell > cells ? cells : static_cast<int>(cell);
}

// Extruded plane polygon with holes (SEEDS.md section 5): boundaries in the local xy plane (outer
// counter-clockwise, holes clockwise), from z = -half_thickness to z = +half_thickness. Built by make_prism,
// which decomposes it once (thesis ch. 5): `parts` are the convex parts in the plane, `hulls` the compound of
// their extrusions (the path of every pair but two prisms in a shared plane, which use the seed's SAT on
// `whole`).
struct Prism {
    std::vector<Ring2> boundaries;
    double half_thickness = 0.5;
    double tolerance = 0;      // the decomposition's quality threshold
    std::vector<Ring2> parts;  // convex, counter-clockwise
    std::vector<Vec2> part_centres;
    std::vector<double> part_radii;  // bounding circle of each part about its centre
    SatPolygon whole;
    PolygonMoments moments;
    ShapePtr hulls;  // a Compound of the extruded parts
};

struct Shape {
    std::variant<Sphere, Box, Capsule, Cylinder, Cone, ConvexHull, Plane, Compound, TriangleMesh, HeightField,
                 Prism>
        geometry;
    ShapeType type() const { return static_cast<ShapeType>(geometry.index()); }
};

// The shape queries work on: a prism's compound of extruded convex parts, any other shape itself.
inline const Shape& query_geometry(const Shape& shape) {
    if (const auto* prism = std::get_if<Prism>(&shape.geometry)) return *prism->hulls;
    return shape;
}

// Thrown by the make_* functions on invalid geometry (non-positive size, degenerate hull, bad index, ...).
class ShapeError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

const char* shape_type_name(ShapeType type);
bool is_convex(ShapeType type);       // sphere, box, capsule, cylinder, cone, convex hull
bool is_static_only(ShapeType type);  // plane, triangle mesh, height field

ShapePtr make_sphere(double radius);
ShapePtr make_box(const Vec3& half_extents);
ShapePtr make_capsule(double radius, double half_length);
ShapePtr make_cylinder(double radius, double half_height);
ShapePtr make_cone(double radius, double half_height);
ShapePtr make_plane(const Vec3& normal, double offset);  // normal is normalised; must be non-zero
// Quickhull over the points; duplicate and coplanar points are merged. Throws ShapeError when the points span
// no volume (fewer than 4 non-coplanar points at the scale of the input).
ShapePtr make_convex_hull(std::span<const Vec3> points);
ShapePtr make_compound(std::vector<CompoundChild> children);
// Edges are paired with their neighbours by vertex position (vertices within 1e-9 of the largest absolute
// coordinate count as one), so a triangle soup (STL) gets the same internal edges as an indexed mesh; the
// vertices and triangles are stored as given.
ShapePtr make_triangle_mesh(std::vector<Vec3> vertices, std::vector<std::array<std::uint32_t, 3>> triangles);
ShapePtr make_height_field(const Vec2& origin, const Vec2& spacing, int rows, int columns,
                           std::vector<double> heights);
// Min and max height over the cells [row_begin, row_end) x [column_begin, column_end) (cell (i, j) has the
// corners (i, j) .. (i + 1, j + 1)), clipped to the grid, from the pyramid; {+inf, -inf} for an empty range.
std::pair<double, double> height_field_range(const HeightField& field, int row_begin, int column_begin,
                                             int row_end, int column_end);

// Prism of the boundaries (validate_polygon's rules, its message in the error), `thickness` > 0 along local
// z, decomposed with the quality threshold `tolerance` in [0, 1).
ShapePtr make_prism(std::vector<Ring2> boundaries, double thickness, double tolerance);

// Tight bounding box of the shape at `pose`. Planes return an infinite box.
Aabb compute_aabb(const Shape& shape, const Pose& pose);

}  // namespace simpulse
