// Cylinder against height field, driver and broad stage: Strashnov & Torgashev 2020, sect. III (closed-form
// AABB, index rectangle, maximum-height rejection, flat-patch fast path) and sect. II (rectangle and triangle
// elements), then the element loop (cylinder_terrain_element.cpp) and the patches
// (cylinder_terrain_patch.cpp).
#include "cylinder_terrain_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace simpulse {

Aabb cylinder_aabb(const Cylinder& cylinder, const Vec3& center, const Vec3& axis) {
    Vec3 half;
    for (int k = 0; k < 3; ++k) {
        // Paper (2)-(3): the extreme point is the end of the base diameter in the plane of the axis and the
        // coordinate axis; 1 - v_k^2 can round below zero when the axis is along k.
        const double vk = axis[k];
        half[k] =
            cylinder.half_height * std::abs(vk) + cylinder.radius * std::sqrt(std::max(0.0, 1 - vk * vk));
    }
    return Aabb::from_center_half(center, half);
}

CellRange height_field_cells(const HeightField& field, const Aabb& box) {
    // Formula (4), evaluated in double and clamped before the conversion so that far-away boxes cannot
    // overflow.
    auto index = [](double x, double origin, double spacing, int cells, bool upper) {
        const double t = (x - origin) / spacing;
        const double r = upper ? std::ceil(t) : std::floor(t);
        return static_cast<int>(std::clamp(r, 0.0, static_cast<double>(cells)));
    };
    const int cell_rows = field.rows - 1, cell_columns = field.columns - 1;
    CellRange r;
    r.column_begin = index(box.min.x(), field.origin.x(), field.spacing.x(), cell_columns, false);
    r.column_end = index(box.max.x(), field.origin.x(), field.spacing.x(), cell_columns, true);
    r.row_begin = index(box.min.y(), field.origin.y(), field.spacing.y(), cell_rows, false);
    r.row_end = index(box.max.y(), field.origin.y(), field.spacing.y(), cell_rows, true);
    if (!(box.min.x() <= box.max.x()) || !(box.min.y() <= box.max.y())) r = {};
    return r;
}

std::pair<double, double> cell_height_range(const HeightField& field, const CellRange& range) {
    std::pair<double, double> r{std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity()};
    if (range.empty()) return r;
    const long long cells = static_cast<long long>(range.row_end - range.row_begin) *
                            static_cast<long long>(range.column_end - range.column_begin);
    // Large rectangles descend the pyramid. Small ones read the vertex heights directly: the per-cell loop
    // reads the same cache lines next, where the pyramid's arrays would be extra memory traffic.
    if (!field.levels.empty() && cells > 1024)
        return height_field_range(field, range.row_begin, range.column_begin, range.row_end,
                                  range.column_end);
    for (int i = range.row_begin; i <= range.row_end; ++i)
        for (int j = range.column_begin; j <= range.column_end; ++j) {
            r.first = std::min(r.first, field.height(i, j));
            r.second = std::max(r.second, field.height(i, j));
        }
    return r;
}

namespace {

// Bounds of the heights of the rectangle's cells from at most four pyramid nodes: those of the lowest level
// at which the rectangle spans at most two nodes per axis. They cover a superset of the cells (at most 16
// times the area), in two cache lines: their maximum bounds the rectangle's from above (enough to reject),
// and when they are flat, so is the rectangle.
std::pair<double, double> pyramid_bounds(const HeightField& field, const CellRange& range) {
    int level = 0;
    while (level + 1 < static_cast<int>(field.levels.size()) &&
           (((range.row_end - 1) >> level) - (range.row_begin >> level) > 1 ||
            ((range.column_end - 1) >> level) - (range.column_begin >> level) > 1))
        ++level;
    const HeightField::Level& l = field.levels[static_cast<std::size_t>(level)];
    std::pair<double, double> r{std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity()};
    for (int i = range.row_begin >> level; i <= (range.row_end - 1) >> level && i < l.rows; ++i)
        for (int j = range.column_begin >> level; j <= (range.column_end - 1) >> level && j < l.columns;
             ++j) {
            const auto k = static_cast<std::size_t>(i) * static_cast<std::size_t>(l.columns) +
                           static_cast<std::size_t>(j);
            r.first = std::min(r.first, l.min_height[k]);
            r.second = std::max(r.second, l.max_height[k]);
        }
    return r;
}

// Lower bound of the height of the cylinder over a rectangle of the x/y plane, for culling cells. The
// cylinder lies in the infinite cylinder of radius r about its axis; over the point whose offset from the
// centre has the components u (along the horizontal direction of the axis, sigma = its length) and w (across
// it), that infinite cylinder starts at height C_z + (v_z u - sqrt(r^2 - w^2)) / sigma, and the cylinder's
// points have |u| <= h/2 sigma
// + r |v_z|. Minimising the linear and the square-root terms separately over the rectangle gives the bound; a
// nearly vertical axis (sigma < 1e-6) falls back to the bottom of the box.
struct LowerEnvelope {
    Vec3 center;
    Vec2 along = Vec2::UnitX(), across = Vec2::UnitY();
    double sigma = 0, vz = 1, extent = 0, radius = 0;
    double bottom = 0;  // lowest point of the cylinder

    LowerEnvelope(const cylinder_terrain::CylinderInField& c, double lowest)
        : center(c.center), bottom(lowest) {
        sigma = c.axis.head<2>().norm();
        vz = c.axis.z();
        radius = c.radius;
        if (sigma > 1e-6) {
            along = c.axis.head<2>() / sigma;
            across = Vec2(-along.y(), along.x());
        }
        extent = c.half_height * sigma + c.radius * std::abs(vz);
    }
    // Over the rectangle with centre (x, y) and half sizes (hx, hy).
    double lowest_over(double x, double y, double hx, double hy) const {
        if (sigma <= 1e-6) return bottom;
        const double dx = x - center.x(), dy = y - center.y();
        const double u = dx * along.x() + dy * along.y(), w = dx * across.x() + dy * across.y();
        const double eu = std::abs(along.x()) * hx + std::abs(along.y()) * hy;
        const double ew = std::abs(across.x()) * hx + std::abs(across.y()) * hy;
        const double u_lo = std::max(u - eu, -extent), u_hi = std::min(u + eu, extent);
        const double w_min = std::max(0.0, std::abs(w) - ew);
        if (u_lo > u_hi || w_min > radius) return std::numeric_limits<double>::infinity();  // nothing over it
        return std::max(
            bottom,
            center.z() + (vz * (vz >= 0 ? u_lo : u_hi) - std::sqrt(radius * radius - w_min * w_min)) / sigma);
    }
};

TerrainElement make_element(const std::array<Vec3, 4>& v, int count, const Vec3& normal_unnormalized,
                            std::uint32_t cell, ElementKind kind, int row, int column) {
    TerrainElement e;
    e.count = count;
    for (int i = 0; i < count; ++i) e.vertices[static_cast<std::size_t>(i)] = v[static_cast<std::size_t>(i)];
    e.normal = normal_unnormalized.normalized();
    e.offset = e.normal.dot(v[0]);
    e.cell = cell;
    e.kind = kind;
    e.row = row;
    e.column = column;
    return e;
}

}  // namespace

int cell_elements(const HeightField& field, int row, int column, std::array<TerrainElement, 2>& out) {
    const double dx = field.spacing.x(), dy = field.spacing.y();
    const double x = field.origin.x() + column * dx, y = field.origin.y() + row * dy;
    const double h0 = field.height(row, column), h1 = field.height(row, column + 1);
    const double h2 = field.height(row + 1, column), h3 = field.height(row + 1, column + 1);
    const Vec3 v0(x, y, h0), v1(x + dx, y, h1), v2(x, y + dy, h2), v3(x + dx, y + dy, h3);
    const auto cell = static_cast<std::uint32_t>(row * (field.columns - 1) + column);
    const double eps = kTerrainFlatTolerance;
    // Sect. II: V0V1 . V0V2 = (H1 - H0)(H2 - H0) = 0 is the right angle at V0; with coplanarity the opposite
    // corner is right-angled too and the cell is a rectangle.
    const bool coplanar = std::abs(h0 + h3 - h1 - h2) <= eps;
    if (coplanar && (std::abs(h1 - h0) <= eps || std::abs(h2 - h0) <= eps)) {
        // Normal (V1 - V0) x (V2 - V0) = (-(H1 - H0) dy, -(H2 - H0) dx, dx dy).
        out[0] = make_element({v0, v1, v3, v2}, 4, Vec3(-(h1 - h0) * dy, -(h2 - h0) * dx, dx * dy), cell,
                              ElementKind::rectangle, row, column);
        return 1;
    }
    out[0] = make_element({v0, v1, v3, v3}, 3, Vec3(-(h1 - h0) * dy, -(h3 - h1) * dx, dx * dy), cell,
                          ElementKind::lower_triangle, row, column);
    out[1] = make_element({v0, v3, v2, v2}, 3, Vec3(-(h3 - h2) * dy, -(h2 - h0) * dx, dx * dy), cell,
                          ElementKind::upper_triangle, row, column);
    return 2;
}

int collide_cylinder_terrain(const Cylinder& cylinder, const Pose& pose_cylinder, const HeightField& field,
                             const Pose& pose_field, const CollideSettings& settings,
                             std::vector<Manifold>& out, CylinderTerrainStats* stats) {
    using namespace cylinder_terrain;
    CylinderTerrainStats local_stats;
    CylinderTerrainStats& st = stats != nullptr ? *stats : local_stats;
    st = {};

    // Everything runs in the field's frame (z up along the heights).
    CylinderInField cyl;
    const Quat q = pose_field.orientation.conjugate() * pose_cylinder.orientation;
    const Mat3 rotation = q.toRotationMatrix();
    cyl.center = pose_field.inverse_transform_point(pose_cylinder.position);
    cyl.axis = rotation.col(2);
    cyl.body_x = rotation.col(0);
    cyl.body_y = rotation.col(1);
    cyl.radius = cylinder.radius;
    cyl.half_height = cylinder.half_height;
    cyl.margin = std::max(0.0, settings.margin);

    // Sect. III, algorithm steps 1-4: box, index rectangle (the paper's element set Q), maximum height. Only
    // the elements of Q are tested: an element beside the box can be reached along its normal only across a
    // convex crease (its contact point lies depth * tan(slope) outside the footprint), where the elements
    // under the box already report the penetration; see docs/cylinder-terrain.md.
    const Aabb box = cylinder_aabb(cylinder, cyl.center, cyl.axis).inflated(cyl.margin);
    const CellRange range = height_field_cells(field, box);
    if (range.empty()) return 0;
    st.cells = (range.row_end - range.row_begin) * (range.column_end - range.column_begin);
    // No terrain point under the box reaches its bottom: every element is farther than the margin. First the
    // pyramid's bounds (a far-away cylinder, or one on a flat region, costs two cache lines), then the exact
    // range.
    double h_min = 0, h_max = 0;
    bool exact = field.levels.empty();
    if (!exact) {
        std::tie(h_min, h_max) = pyramid_bounds(field, range);
        exact =
            h_max - h_min > kTerrainFlatTolerance;  // the superset is not flat: the rectangle may still be
    }
    if (h_max < box.min.z() && !field.levels.empty()) {
        st.rejected_by_height = true;
        return 0;
    }
    if (exact) {
        std::tie(h_min, h_max) = cell_height_range(field, range);
        if (h_max < box.min.z()) {
            st.rejected_by_height = true;
            return 0;
        }
    }

    PatchSet patches;
    PatchOutput output;
    output.pose_field = pose_field;
    output.out = &out;
    output.first = out.size();
    output.tie_depth = 1e-4 * cylinder.radius;
    ElementCandidates candidates;
    auto run = [&](const TerrainElement& e) {
        ++st.elements;
        element_candidates(cyl, e, &field, candidates);
        st.candidates += candidates.count;
        add_to_patches(patches, e.normal, candidates, output);
    };

    if (h_max - h_min <= kTerrainFlatTolerance) {
        // Step 5: the rectangle is one horizontal plane; the cylinder meets it as one big rectangle element,
        // bounded by the index rectangle (which contains the box, so its sides only matter at the field's
        // border).
        st.flat_patch = true;
        const double x0 = field.origin.x() + range.column_begin * field.spacing.x();
        const double x1 = field.origin.x() + range.column_end * field.spacing.x();
        const double y0 = field.origin.y() + range.row_begin * field.spacing.y();
        const double y1 = field.origin.y() + range.row_end * field.spacing.y();
        TerrainElement e;
        e.count = 4;
        e.vertices = {Vec3(x0, y0, h_max), Vec3(x1, y0, h_max), Vec3(x1, y1, h_max), Vec3(x0, y1, h_max)};
        e.normal = Vec3::UnitZ();
        e.offset = h_max;
        e.kind = ElementKind::flat_patch;
        e.row = range.row_begin;
        e.column = range.column_begin;
        e.cell = static_cast<std::uint32_t>(range.row_begin * (field.columns - 1) + range.column_begin);
        run(e);
    } else {
        std::array<TerrainElement, 2> elements;
        const LowerEnvelope envelope(cyl, box.min.z() + cyl.margin);
        const double dx = field.spacing.x(), dy = field.spacing.y();
        for (int i = range.row_begin; i < range.row_end; ++i)
            for (int j = range.column_begin; j < range.column_end; ++j) {
                const double h0 = field.height(i, j), h1 = field.height(i, j + 1),
                             h2 = field.height(i + 1, j), h3 = field.height(i + 1, j + 1);
                // Per-cell form of step 4: a cell entirely below the box is farther than the margin.
                const double top = std::max({h0, h1, h2, h3});
                if (top < box.min.z()) continue;
                // A contact point T on the cell and the cylinder point P = T - D n below it (D >= -margin)
                // have P_z <= top + margin and lie apart horizontally by at most D |n_xy| <= (top - bottom)
                // tan(slope) (margin when D < 0): the cell is skipped when the cylinder has no point that low
                // over its footprint grown by that much.
                const double ax = (h1 - h0) / dx, ay = (h3 - h1) / dy, bx = (h3 - h2) / dx,
                             by = (h2 - h0) / dy;
                const double slope = std::sqrt(std::max(ax * ax + ay * ay, bx * bx + by * by));
                const double grow = std::max(0.0, top - envelope.bottom) * slope + cyl.margin;
                const double xc = field.origin.x() + (j + 0.5) * dx, yc = field.origin.y() + (i + 0.5) * dy;
                if (envelope.lowest_over(xc, yc, 0.5 * dx + grow, 0.5 * dy + grow) > top + cyl.margin)
                    continue;
                const int n = cell_elements(field, i, j, elements);
                for (int k = 0; k < n; ++k) run(elements[static_cast<std::size_t>(k)]);
            }
    }
    flush_patches(patches, output);
    return static_cast<int>(out.size() - output.first);
}

}  // namespace simpulse
