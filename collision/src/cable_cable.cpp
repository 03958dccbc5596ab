// Cable against cable (issue 21; the seed, SEEDS.md section 4, names it as its next step): closest points of
// two B-spline segments of radii r_a and r_b. Both are cut into chords within a deviation bound of the curve
// (cable_refine.h), every chord pair is measured by the segment-segment closest points (Ericson 2005, sect.
// 5.1.9), and the chord pairs that the bounds cannot rule out and that are local minima of the grid or may
// hold the global minimum are refined by alternating searches along u_a and u_b (Brent's method).
#include <simpulse/collision/cable_contacts.h>
#include <simpulse/collision/convex_pairs.h>

#include "cable_refine.h"

#include <cmath>
#include <limits>

namespace simpulse {
namespace {

using cable_detail::brent_minimum;
using cable_detail::Chords;
using cable_detail::kMaxChords;
using cable_detail::make_chords;

constexpr int kMaxCableChords = 16;  // per segment: 256 chord pairs at most
constexpr double kSameU = 0.02;

struct CentreDistance {
    double distance = 0;
};

struct ChordGrid {
    Chords chords;
    std::array<Vec3, kMaxChords + 1> points;
};

ChordGrid make_grid(const CableSegment& s, double tolerance) {
    ChordGrid g;
    g.chords = make_chords(s, 0, 1, tolerance);
    if (g.chords.count > kMaxCableChords) {
        g.chords.count = kMaxCableChords;
        g.chords.step = 1.0 / kMaxCableChords;
        g.chords.deviation = g.chords.step * g.chords.step / 8 * cable_second_derivative_bound(s, 0, 1);
    }
    for (int i = 0; i <= g.chords.count; ++i)
        g.points[static_cast<std::size_t>(i)] = cable_point(s, g.chords.at(i));
    return g;
}

// Refines (u, v) from a chord pair: alternately the closest u to b(v) and the closest v to a(u), each by
// Brent's method over the chord and its neighbours, until neither moves by more than the tolerance.
void refine_pair(const CableSegment& a, const CableSegment& b, const Chords& ca, const Chords& cb, int i,
                 int j, double tolerance, double& u, double& v) {
    const double u_lo = ca.at(std::max(i - 1, 0)), u_hi = ca.at(std::min(i + 2, ca.count));
    const double v_lo = cb.at(std::max(j - 1, 0)), v_hi = cb.at(std::min(j + 2, cb.count));
    for (int round = 0; round < 50; ++round) {
        const Vec3 on_b = cable_point(b, v);
        double next_u = u, next_v = v;
        brent_minimum(
            u_lo, u_hi, u, tolerance,
            [&](double x) { return CentreDistance{(cable_point(a, x) - on_b).norm()}; }, next_u);
        const Vec3 on_a = cable_point(a, next_u);
        brent_minimum(
            v_lo, v_hi, v, tolerance,
            [&](double y) { return CentreDistance{(cable_point(b, y) - on_a).norm()}; }, next_v);
        const bool settled = std::abs(next_u - u) <= tolerance && std::abs(next_v - v) <= tolerance;
        u = next_u, v = next_v;
        if (settled) return;
    }
}

void offer(CableCableContacts& out, const CableCableContact& c) {
    for (int k = 0; k < out.count; ++k) {
        CableCableContact& kept = out.items[static_cast<std::size_t>(k)];
        if (std::abs(kept.u_a - c.u_a) < kSameU && std::abs(kept.u_b - c.u_b) < kSameU) {
            if (c.depth > kept.depth) kept = c;
            return;
        }
    }
    int slot = out.count < CableCableContacts::kCapacity ? out.count++ : -1;
    for (int k = 0; slot < 0 && k < out.count; ++k)
        if (out.items[static_cast<std::size_t>(k)].depth < c.depth) slot = k;
    if (slot >= 0) out.items[static_cast<std::size_t>(slot)] = c;
}

CableCableContact make_contact(const CableSegment& a, const CableSegment& b, double u, double v) {
    CableCableContact c;
    c.u_a = u, c.u_b = v;
    c.point_a = cable_point(a, u), c.point_b = cable_point(b, v);
    const Vec3 d = c.point_a - c.point_b;
    const double distance = d.norm();
    c.depth = a.radius + b.radius - distance;
    if (distance > 0) {
        c.normal = d / distance;
    } else {  // centrelines cross: the normal of both tangents
        const Vec3 n = cable_derivative(a, u).cross(cable_derivative(b, v));
        c.normal = n.norm() > 0 ? n.normalized() : Vec3::UnitZ();
    }
    c.weights_a = cable_basis(u), c.weights_b = cable_basis(v);
    return c;
}

}  // namespace

int collide_cable_cable(const CableSegment& a, const CableSegment& b, const CableCollideSettings& settings,
                        CableCableContacts& out) {
    out.count = 0;
    const double reach = a.radius + b.radius + settings.margin;
    if (!cable_segment_aabb(a).inflated(settings.margin).overlaps(cable_segment_aabb(b)))
        return 0;  // layer 1
    const ChordGrid ga = make_grid(a, settings.chord_deviation * a.radius);
    const ChordGrid gb = make_grid(b, settings.chord_deviation * b.radius);
    std::array<double, kMaxCableChords * kMaxCableChords> distance{};
    auto at = [&](int i, int j) -> double& {
        return distance[static_cast<std::size_t>(i * kMaxCableChords + j)];
    };
    for (int i = 0; i < ga.chords.count; ++i)
        for (int j = 0; j < gb.chords.count; ++j) {
            const auto& pa = ga.points;
            const auto& pb = gb.points;
            double s = 0, t = 0;
            const auto ia = static_cast<std::size_t>(i), jb = static_cast<std::size_t>(j);
            closest_segment_params(pa[ia], pa[ia + 1], pb[jb], pb[jb + 1], s, t);
            at(i, j) = ((pa[ia] + s * (pa[ia + 1] - pa[ia])) - (pb[jb] + t * (pb[jb + 1] - pb[jb]))).norm();
        }
    const double slack = ga.chords.deviation + gb.chords.deviation;
    // A chord pair can hold the global minimum only if its lower bound is below every pair's upper bound.
    double nearest = std::numeric_limits<double>::infinity();
    for (int i = 0; i < ga.chords.count; ++i)
        for (int j = 0; j < gb.chords.count; ++j) nearest = std::min(nearest, at(i, j));
    for (int i = 0; i < ga.chords.count; ++i)
        for (int j = 0; j < gb.chords.count; ++j) {
            const double d = at(i, j);
            if (d - slack > reach) continue;  // the curves are within `slack` of the chords
            bool local_minimum = true;
            for (int di = -1; di <= 1; ++di)
                for (int dj = -1; dj <= 1; ++dj) {
                    const int ni = i + di, nj = j + dj;
                    if (ni >= 0 && nj >= 0 && ni < ga.chords.count && nj < gb.chords.count && at(ni, nj) < d)
                        local_minimum = false;
                }
            if (!local_minimum && d - slack > nearest + slack) continue;
            double u = ga.chords.at(i) + 0.5 * ga.chords.step, v = gb.chords.at(j) + 0.5 * gb.chords.step;
            refine_pair(a, b, ga.chords, gb.chords, i, j, settings.parameter_tolerance, u, v);
            const CableCableContact c = make_contact(a, b, u, v);
            if (c.depth >= -settings.margin) offer(out, c);
        }
    return out.count;
}

}  // namespace simpulse
