// Layer 2 of the cable seed (cable-rigid-collision.zh.txt, inequality system (1); SEEDS.md section 4): the
// parameters u in [0, 1] at which a segment's centreline lies in a rigid body's box grown by the cable
// radius. Each coordinate is a cubic in u; its roots against the two bounds split [0, 1] into pieces on which
// the inequalities do not change, and the three coordinates' solution sets are intersected.
#include <simpulse/collision/cable_segment.h>

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// Pieces of [0, 1] for one coordinate: sorted breakpoints, each flagged when it lies in the closed slab.
struct Breakpoints {
    std::array<double, 8> u{};
    std::array<bool, 8> inside{};
    int count = 0;
    void add(double value, bool in) {
        u[static_cast<std::size_t>(count)] = value;
        inside[static_cast<std::size_t>(count)] = in;
        ++count;
    }
};

double coordinate(const std::array<Vec3, 4>& c, int k, double u) {
    return c[0][k] + u * (c[1][k] + u * (c[2][k] + u * c[3][k]));
}

// {u in [0, 1] : lo <= c_k(u) <= hi}.
CableIntervals slab_intervals(const std::array<Vec3, 4>& c, int k, double lo, double hi) {
    auto in_slab = [&](double u) {
        const double x = coordinate(c, k, u);
        return x >= lo && x <= hi;
    };
    Breakpoints points;
    points.add(0, in_slab(0));
    for (const double bound : {lo, hi}) {
        if (!std::isfinite(bound)) continue;
        const std::array<double, 4> shifted{c[0][k] - bound, c[1][k], c[2][k], c[3][k]};
        std::array<double, 3> roots{};
        const int n = cubic_roots_in(shifted, 0, 1, roots);
        for (int i = 0; i < n; ++i) points.add(roots[static_cast<std::size_t>(i)], true);  // c_k = bound
    }
    points.add(1, in_slab(1));
    // Sort by u (at most 8 entries: insertion sort).
    for (int i = 1; i < points.count; ++i)
        for (int j = i;
             j > 0 && points.u[static_cast<std::size_t>(j)] < points.u[static_cast<std::size_t>(j - 1)];
             --j) {
            std::swap(points.u[static_cast<std::size_t>(j)], points.u[static_cast<std::size_t>(j - 1)]);
            std::swap(points.inside[static_cast<std::size_t>(j)],
                      points.inside[static_cast<std::size_t>(j - 1)]);
        }
    // Walk points and the gaps between them; a run of inside elements is one interval.
    CableIntervals out;
    double run_begin = 0;
    bool in_run = false;
    for (int i = 0; i < points.count; ++i) {
        const double u = points.u[static_cast<std::size_t>(i)];
        const bool point_in = points.inside[static_cast<std::size_t>(i)] || in_slab(u);
        if (point_in && !in_run) run_begin = u, in_run = true;
        if (!point_in && in_run) out.push(run_begin, u), in_run = false;  // rounding only: roots are in
        if (i + 1 == points.count) break;
        const double next = points.u[static_cast<std::size_t>(i + 1)];
        const bool gap_in = next > u && in_slab(0.5 * (u + next));
        if (!gap_in && in_run && next > u) out.push(run_begin, u), in_run = false;
        if (gap_in && !in_run) run_begin = u, in_run = true;
    }
    if (in_run) out.push(run_begin, points.u[static_cast<std::size_t>(points.count - 1)]);
    return out;
}

}  // namespace

void CableIntervals::push(double begin, double end) {
    if (count > 0 && begin <= items[static_cast<std::size_t>(count - 1)].end) {
        auto& last = items[static_cast<std::size_t>(count - 1)];
        last.end = std::max(last.end, end);
        return;
    }
    if (count == kCapacity) {
        items[static_cast<std::size_t>(count - 1)].end = end;
        return;
    }
    items[static_cast<std::size_t>(count++)] = {begin, end};
}

CableIntervals intersect_intervals(const CableIntervals& a, const CableIntervals& b) {
    CableIntervals out;
    int i = 0, j = 0;
    while (i < a.count && j < b.count) {
        const ParameterInterval& x = a.items[static_cast<std::size_t>(i)];
        const ParameterInterval& y = b.items[static_cast<std::size_t>(j)];
        const double begin = std::max(x.begin, y.begin), end = std::min(x.end, y.end);
        if (begin <= end) out.push(begin, end);
        if (x.end < y.end)
            ++i;
        else
            ++j;
    }
    return out;
}

CableIntervals cable_intervals_in_box(const CableSegment& segment, const Aabb& box, double growth) {
    const std::array<Vec3, 4> c = cable_power_basis(segment);
    CableIntervals result = slab_intervals(c, 0, box.min.x() - growth, box.max.x() + growth);
    for (int k = 1; k < 3 && !result.empty(); ++k)
        result = intersect_intervals(result, slab_intervals(c, k, box.min[k] - growth, box.max[k] + growth));
    return result;
}

}  // namespace simpulse
