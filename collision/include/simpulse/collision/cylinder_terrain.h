// Analytic cylinder against height field: the algorithm of Strashnov & Torgashev 2020, "Collision detection
// algorithms of bounding cylinders with terrain model" (SEEDS.md section 2;
// cylinder-terrain-collision.ru.txt). The cylinder is kept analytic (radius, height, axis); the terrain is
// the regular grid of its height field, cut into planar elements. Stages, with the paper's sections:
//   III  broad stage: closed-form AABB of the cylinder, the index rectangle of cells under it (formula (4)),
//        rejection by the maximum height of that rectangle (min/max pyramid), and the flat-patch fast path
//        (the whole rectangle is one horizontal plane: cylinder against that plane);
//   II   elements: a cell is one rectangle when its four corners are coplanar with a right angle, else two
//        triangles;
//   IV-A/B/C per element: base contact (projected ellipse, edge-ellipse crossings mapped back to the base
//        circle), side contact (the section's bounding rectangle in place of the trapezoid, SAT with the
//        element, Cyrus-Beck clipping of the projected axis), single-point contact;
//   IV-D second stage: vertices inside the base patch that lie on its boundary, and the elements that the
//        first stage only touched (their deepest point, unless a coplanar first-stage contact covers it);
//   V    grouping of the points by element normal into patches and reduction of each to at most 4 points.
// docs/cylinder-terrain.md describes every stage as implemented and each decision taken where the paper is
// ambiguous. No heap allocation: fixed-capacity buffers on the stack, manifolds appended to the caller's
// vector.
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/collision/shape.h>

#include <array>
#include <cstdint>
#include <vector>

namespace simpulse {

// eps_H of the paper: height differences below this are zero, for the flat-patch test and for the rectangle
// (coplanar, right-angled) classification of a cell. 1 nm: far below any contact tolerance (the engine's
// margin is 2 mm) and far above the rounding of heights of metre-scale terrain (1e-16 relative).
inline constexpr double kTerrainFlatTolerance = 1e-9;

// Closed-form AABB of a cylinder with centre `center` and unit axis `axis` (paper sect. III, formulas
// (2)-(3)): half extent along coordinate k is (h/2)|v_k| + r sqrt(1 - v_k^2), the square root guarded against
// 1 - v_k^2 < 0 from rounding (the paper's A_k = 0 when v_k^2 >= 1).
Aabb cylinder_aabb(const Cylinder& cylinder, const Vec3& center, const Vec3& axis);

// Cells [row_begin, row_end) x [column_begin, column_end) of the field whose footprint overlaps the x/y range
// of `box` (field frame): formula (4), floor for the lower and ceil for the upper index, clamped to the grid.
struct CellRange {
    int row_begin = 0, column_begin = 0, row_end = 0, column_end = 0;
    bool empty() const { return row_begin >= row_end || column_begin >= column_end; }
};
CellRange height_field_cells(const HeightField& field, const Aabb& box);

// Exact min and max height over the cells of `range`: the pyramid's descent (height_field_range) for ranges
// of more than 1024 cells, else the vertex heights.
std::pair<double, double> cell_height_range(const HeightField& field, const CellRange& range);

// A planar element of the terrain (paper sect. II), in the field frame. Vertices counter-clockwise seen from
// above; `normal` is the unit upward normal and `offset` = normal . x on the element's plane (for a
// rectangle, the plane through its right-angled corner V0 and its two neighbours).
enum class ElementKind : std::uint8_t {
    lower_triangle = 0,  // (i, j), (i, j+1), (i+1, j+1)
    upper_triangle = 1,  // (i, j), (i+1, j+1), (i+1, j)
    rectangle = 2,       // the whole cell
    flat_patch = 3,      // the whole index rectangle of the fast path
};
struct TerrainElement {
    std::array<Vec3, 4> vertices{};
    int count = 0;  // 3 or 4
    Vec3 normal = Vec3::UnitZ();
    double offset = 0;
    std::uint32_t cell = 0;  // row * (columns - 1) + column (first cell for a flat patch)
    ElementKind kind = ElementKind::rectangle;
    int row = 0, column = 0;  // of the cell
};

// The cell (row, column) as one rectangle element when its corners V0 = (i, j), V1 = (i, j+1), V2 = (i+1, j),
// V3 = (i+1, j+1) are coplanar (H0 + H3 = H1 + H2) with a right angle at V0 (H1 = H0 or H2 = H0), both within
// kTerrainFlatTolerance; otherwise two triangles split along the diagonal V0-V3, the split every other
// height-field path of the engine uses (mesh_contacts.h), so that all shapes see one surface. Returns 1 or 2.
int cell_elements(const HeightField& field, int row, int column, std::array<TerrainElement, 2>& out);

// Work counters of one query, for tests and benchmarks.
struct CylinderTerrainStats {
    int cells = 0;                    // cells in the index rectangle
    int elements = 0;                 // elements that reached the per-element cases
    int candidates = 0;               // candidate points before reduction
    bool rejected_by_height = false;  // the pyramid's maximum was below the cylinder
    bool flat_patch = false;          // the fast path ran
};

// Contact manifolds of a cylinder (shape A) against a height field (shape B), appended to `out`: one manifold
// per contact patch (points sharing one element normal), at most four points each. The normal points from the
// cylinder to the terrain (A to B): minus the element normal; collide() flips it for the other order. Points
// lie midway between the cylinder's deepest point and the element; depth is measured along the element
// normal; points within settings.margin of touching are reported with negative depth. sub_a = 0, sub_b = the
// cell of the manifold's first point; point ids combine that point's cell, element and feature, so they stay
// the same while the same features touch (and, on the flat-patch path, while the cylinder rolls over the
// patch). Returns the number of manifolds appended.
int collide_cylinder_terrain(const Cylinder& cylinder, const Pose& pose_cylinder, const HeightField& field,
                             const Pose& pose_field, const CollideSettings& settings,
                             std::vector<Manifold>& out, CylinderTerrainStats* stats = nullptr);

}  // namespace simpulse
