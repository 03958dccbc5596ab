// make_height_field: validation and the min/max height pyramid of a regular height grid, and the exact
// min/max query over a rectangle of cells that descends the pyramid (a quadtree of height intervals, as in
// the "maximum mipmaps" of Tevs, Ihrke & Seidel, "Maximum mipmaps for fast, accurate, and scalable dynamic
// height field rendering", I3D 2008). The broad-phase use follows Strashnov & Torgashev (2020): reject a body
// whose bottom is above the highest point of the cells under it.
#include <simpulse/collision/shape.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace simpulse {
namespace {

using Range = std::pair<double, double>;

void combine(Range& r, double lo, double hi) {
    r.first = std::min(r.first, lo);
    r.second = std::max(r.second, hi);
}

// Adds node (i, j) of `level` (covering cells [i 2^level, (i + 1) 2^level) per axis) to r if it lies inside
// the query, descends into its children if it straddles the query's border.
void descend(const HeightField& f, int level, int i, int j, int r0, int c0, int r1, int c1, Range& r) {
    const int size = 1 << level;
    const int top = i * size, left = j * size, bottom = top + size, right = left + size;
    if (bottom <= r0 || top >= r1 || right <= c0 || left >= c1) return;
    const HeightField::Level& l = f.levels[static_cast<std::size_t>(level)];
    const auto k =
        static_cast<std::size_t>(i) * static_cast<std::size_t>(l.columns) + static_cast<std::size_t>(j);
    if (top >= r0 && bottom <= r1 && left >= c0 && right <= c1) {
        combine(r, l.min_height[k], l.max_height[k]);
        return;
    }
    // A straddling node at level 0 is impossible: a single cell is either inside or outside.
    const HeightField::Level& below = f.levels[static_cast<std::size_t>(level - 1)];
    for (int di = 0; di < 2; ++di)
        for (int dj = 0; dj < 2; ++dj)
            if (2 * i + di < below.rows && 2 * j + dj < below.columns)
                descend(f, level - 1, 2 * i + di, 2 * j + dj, r0, c0, r1, c1, r);
}

}  // namespace

ShapePtr make_height_field(const Vec2& origin, const Vec2& spacing, int rows, int columns,
                           std::vector<double> heights) {
    if (rows < 2 || columns < 2)
        throw ShapeError("height field needs at least 2 rows and 2 columns, got " + std::to_string(rows) +
                         " x " + std::to_string(columns));
    if (!origin.allFinite()) throw ShapeError("height field origin is not finite");
    if (!(spacing.x() > 0) || !(spacing.y() > 0) || !spacing.allFinite())
        throw ShapeError("height field spacing must be positive and finite");
    const auto count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns);
    if (heights.size() != count)
        throw ShapeError("height field has " + std::to_string(heights.size()) +
                         " heights, expected rows * columns = " + std::to_string(count));
    for (std::size_t k = 0; k < count; ++k)
        if (!std::isfinite(heights[k]))
            throw ShapeError("height field height " + std::to_string(k) + " (row " +
                             std::to_string(k / columns) + ", column " + std::to_string(k % columns) +
                             ") is not finite");

    HeightField f;
    f.origin = origin;
    f.spacing = spacing;
    f.rows = rows;
    f.columns = columns;
    f.heights = std::move(heights);

    HeightField::Level cells;
    cells.rows = rows - 1;
    cells.columns = columns - 1;
    const auto cell_count = static_cast<std::size_t>(cells.rows) * static_cast<std::size_t>(cells.columns);
    cells.min_height.resize(cell_count);
    cells.max_height.resize(cell_count);
    for (int i = 0; i < cells.rows; ++i)
        for (int j = 0; j < cells.columns; ++j) {
            const double a = f.height(i, j), b = f.height(i, j + 1), c = f.height(i + 1, j),
                         d = f.height(i + 1, j + 1);
            const auto k = static_cast<std::size_t>(i) * static_cast<std::size_t>(cells.columns) +
                           static_cast<std::size_t>(j);
            cells.min_height[k] = std::min({a, b, c, d});
            cells.max_height[k] = std::max({a, b, c, d});
        }
    f.levels.push_back(std::move(cells));
    while (f.levels.back().rows > 1 || f.levels.back().columns > 1) {
        const HeightField::Level& prev = f.levels.back();
        HeightField::Level next;
        next.rows = (prev.rows + 1) / 2;
        next.columns = (prev.columns + 1) / 2;
        const auto n = static_cast<std::size_t>(next.rows) * static_cast<std::size_t>(next.columns);
        next.min_height.assign(n, std::numeric_limits<double>::infinity());
        next.max_height.assign(n, -std::numeric_limits<double>::infinity());
        for (int i = 0; i < prev.rows; ++i)
            for (int j = 0; j < prev.columns; ++j) {
                const auto src = static_cast<std::size_t>(i) * static_cast<std::size_t>(prev.columns) +
                                 static_cast<std::size_t>(j);
                const auto dst = static_cast<std::size_t>(i / 2) * static_cast<std::size_t>(next.columns) +
                                 static_cast<std::size_t>(j / 2);
                next.min_height[dst] = std::min(next.min_height[dst], prev.min_height[src]);
                next.max_height[dst] = std::max(next.max_height[dst], prev.max_height[src]);
            }
        f.levels.push_back(std::move(next));
    }
    return std::make_shared<const Shape>(Shape{std::move(f)});
}

std::pair<double, double> height_field_range(const HeightField& field, int row_begin, int column_begin,
                                             int row_end, int column_end) {
    Range r{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    if (field.levels.empty()) return r;
    const int r0 = std::max(row_begin, 0), c0 = std::max(column_begin, 0);
    const int r1 = std::min(row_end, field.rows - 1), c1 = std::min(column_end, field.columns - 1);
    if (r0 >= r1 || c0 >= c1) return r;
    descend(field, static_cast<int>(field.levels.size()) - 1, 0, 0, r0, c0, r1, c1, r);
    return r;
}

}  // namespace simpulse
