// Cylinder against one terrain element: Strashnov & Torgashev 2020, sect. IV-A/B/C (base, side and
// single-point contact) and the element part of the second stage IV-D. See docs/cylinder-terrain.md for the
// derivations.
//
// Frame of an element with upward unit normal n and plane n . x = k; s(P) = k - n . P is the depth of P below
// the plane (formula (5), > 0 penetrating). The axis v is oriented so that c = v . n >= 0; C1 = C - (h/2) v
// is then the lower base, w = (c v - n) / omega (omega = |v x n|) the unit vector of the base plane pointing
// most into the element, u = v x w, A_i = C_i + r w and B_i = C_i - r w the lowest and highest rim points of
// base i. Plane coordinates: a along e_a = (v - c n) / omega (the projected axis), y along u, origin O = C1 +
// s(C1) n.
//
// Depth function. For a plane point x', D(x') = max{ s(P) : P in the cylinder, P = x' - lambda n } is the
// depth of the cylinder's deepest point on the normal line through x'. The cylinder is the slab 0 <= (P - C1)
// . v <= h intersected with the infinite cylinder of radius r, so D = min(L1, L2) with
//   L1 = s1 + (omega / c) a                        (the lower base plane: the ellipse region)
//   L2 = s1 - (c / omega) a + sqrt(r^2 - y^2) / omega  (the lateral surface)
// where the normal line meets the cylinder at all (the lower ends of the two intervals stay below D). D is
// concave; its maximum is the projection A1' = (r c, 0) of A1. The element's contact depth is the maximum of
// D over the element: s(A1) when A1' is inside, else the maximum over the edges, which is at an edge end, a
// crossing of the projected lower or upper base ellipse, or the stationary point of L2 (all closed forms).
#include "cylinder_terrain_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace simpulse::cylinder_terrain {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Below this |v . n| the axis is parallel to the plane, below this |v x n| it is perpendicular (the paper's
// eps_v and its "v parallel to n_P" case). The exact formulas divide by c and omega; at 1e-12 the
// parallel/perpendicular formulas are exact up to r * 1e-12.
constexpr double kAxisEpsilon = 1e-12;

struct Frame {
    Vec3 n = Vec3::UnitZ();
    double k = 0;
    Vec3 v = Vec3::UnitZ();  // axis oriented from the lower base C1 to the upper base C2
    double c = 1, omega = 0;
    bool lateral = false;  // omega > eps: L2 exists
    bool disc = true;      // c > eps: L1 exists
    double r = 0, h = 0, margin = 0;
    Vec3 c1 = Vec3::Zero(), w = Vec3::UnitX(), u = Vec3::UnitY(), ea = Vec3::UnitX(), origin = Vec3::Zero();
    double s1 = 0;                        // depth of C1
    double s_a1 = 0, s_a2 = 0, s_b1 = 0;  // depths of A1, A2, B1
    double tolerance =
        0;  // rounding allowance of the existence test (divides by c and omega), relative to the size

    double depth(const Vec3& p) const { return k - n.dot(p); }
    Vec2 plane(const Vec3& x) const {
        const Vec3 d = x - origin;
        return {d.dot(ea), d.dot(u)};
    }
    Vec3 point(double a, double y) const { return origin + a * ea + y * u; }

    // D(a, y); -inf when the normal line through the plane point misses the cylinder.
    double depth_at(double a, double y) const {
        const double r2y = r * r - y * y;
        if (r2y < -tolerance * r) return -kInf;
        const double sq = std::sqrt(std::max(0.0, r2y));
        double hi = kInf, lo = -kInf;
        if (lateral) {
            const double base = s1 - (c / omega) * a;
            hi = base + sq / omega;
            lo = base - sq / omega;
        } else if (a * a + y * y > r * r + tolerance * r) {
            return -kInf;  // upright: the lateral surface projects onto the base circle
        }
        const double t0 = a * omega + s1 * c;  // (x' - C1) . v
        if (disc) {
            hi = std::min(hi, t0 / c);
            lo = std::max(lo, (t0 - h) / c);
        } else if (t0 < -tolerance || t0 > h + tolerance) {
            return -kInf;  // axis parallel to the plane: the line must pass between the base planes
        }
        if (lo > hi + tolerance) return -kInf;
        return hi;
    }
};

// Element polygon in plane coordinates, made counter-clockwise.
struct Polygon {
    std::array<Vec2, 4> p;
    std::array<int, 4> source{};  // index of the element vertex
    std::array<int, 4> edge{};    // index of the element edge (vertex k to k + 1) that polygon edge i lies on
    int count = 0;
    double tolerance = 0;  // inside-test allowance

    // Inward-normal form of edge i: inside when cross(e_i, x - p_i) >= 0.
    double side(int i, const Vec2& x) const {
        const Vec2& a = p[static_cast<std::size_t>(i)];
        const Vec2& b = p[static_cast<std::size_t>((i + 1) % count)];
        const Vec2 e = b - a;
        return e.x() * (x.y() - a.y()) - e.y() * (x.x() - a.x());
    }
    bool inside(const Vec2& x) const {
        for (int i = 0; i < count; ++i) {
            const Vec2 e = p[static_cast<std::size_t>((i + 1) % count)] - p[static_cast<std::size_t>(i)];
            if (side(i, x) < -tolerance * e.norm()) return false;
        }
        return true;
    }
};

// Cyrus-Beck (1978) clipping of the segment s0 + t (s1 - s0), t in [0, 1], by the convex polygon. Returns
// false when nothing is left; edge_in/edge_out name the edge that clipped each end (-1: the segment's own
// end).
bool cyrus_beck(const Polygon& poly, const Vec2& s0, const Vec2& s1, double& t_in, double& t_out,
                int& edge_in, int& edge_out) {
    t_in = 0;
    t_out = 1;
    edge_in = edge_out = -1;
    const Vec2 d = s1 - s0;
    for (int i = 0; i < poly.count; ++i) {
        const Vec2& a = poly.p[static_cast<std::size_t>(i)];
        const Vec2 e = poly.p[static_cast<std::size_t>((i + 1) % poly.count)] - a;
        const Vec2 inward(-e.y(), e.x());
        const double num = inward.dot(s0 - a);
        const double den = inward.dot(d);
        const double slack = poly.tolerance * e.norm();
        if (std::abs(den) <= 1e-300) {
            if (num < -slack) return false;
            continue;
        }
        const double t = -(num + slack) / den;  // the allowance widens the polygon by the tolerance
        if (den > 0) {
            if (t > t_in) t_in = t, edge_in = i;
        } else {
            if (t < t_out) t_out = t, edge_out = i;
        }
    }
    t_in = std::max(t_in, 0.0);
    t_out = std::min(t_out, 1.0);
    return t_in <= t_out;
}

// Roots in [0, 1] of A t^2 + 2 B t + C = 0 (numerically stable form). Returns their number.
int unit_roots(double qa, double qb, double qc, std::array<double, 2>& t) {
    int n = 0;
    if (std::abs(qa) <= 1e-300) {
        if (std::abs(qb) > 1e-300) {
            const double x = -qc / (2 * qb);
            if (x >= 0 && x <= 1) t[static_cast<std::size_t>(n++)] = x;
        }
        return n;
    }
    const double disc = qb * qb - qa * qc;
    if (disc < 0) return 0;
    const double q = -(qb + std::copysign(std::sqrt(disc), qb));
    const double x0 = q / qa;
    const double x1 = q != 0 ? qc / q : x0;
    for (double x : {x0, x1})
        if (x >= 0 && x <= 1) t[static_cast<std::size_t>(n++)] = x;
    return n;
}

// Parameters t in [0, 1] where the edge p0 + t e crosses the projected rim of a base, the ellipse
// (a - a_c)^2 + c^2 y^2 = c^2 r^2 (semi-axes r c along e_a and r along u). When the axis is parallel to the
// plane the ellipse is the segment a = a_c, |y| <= r: its crossing is linear (the quadratic's double root
// would carry the square root of the rounding, 1e-8).
int ellipse_crossings(const Frame& f, const Vec2& p0, const Vec2& e, double a_c, std::array<double, 2>& t) {
    const double a0 = p0.x() - a_c;
    if (!f.disc) {
        if (std::abs(e.x()) <= 1e-300) return 0;
        t[0] = -a0 / e.x();
        return t[0] >= 0 && t[0] <= 1 && std::abs(p0.y() + t[0] * e.y()) <= f.r ? 1 : 0;
    }
    const double c2 = f.c * f.c;
    return unit_roots(e.x() * e.x() + c2 * e.y() * e.y(), a0 * e.x() + c2 * p0.y() * e.y(),
                      a0 * a0 + c2 * (p0.y() * p0.y() - f.r * f.r), t);
}

struct PlanePoint {
    Vec2 x = Vec2::Zero();
    double depth = -kInf;
    unsigned source = 0;  // feature index for the id
};

// Points where the maximum of D over the element can lie. 4 edges x (1 end + 4 ellipse crossings + 1
// stationary point) on the boundary, or one interior point.
struct MaximumCandidates {
    std::array<PlanePoint, 24> points;
    int count = 0;
    double best = -kInf;
    void add(const PlanePoint& p) {
        if (!(p.depth > -kInf)) return;
        if (count < 24) points[static_cast<std::size_t>(count++)] = p;
        best = std::max(best, p.depth);
    }
};

// Candidates for the maximum of D over the element's boundary: edge ends, crossings of the lower and upper
// base ellipses (a^2 + c^2 y^2 = c^2 r^2 about C1' or C2'), and the stationary point of L2 along each edge.
// These are all the places where the concave function min(L1, L2), restricted to an edge and to the
// projection of the cylinder, can peak: L1 is linear, the kink L1 = L2 is the front half of the lower
// ellipse, and the boundary of the projection is made of the back half of the lower ellipse, the front half
// of the upper one and the lines |y| = r, towards which L2 has infinite slope pointing inwards.
void boundary_candidates(const Frame& f, const Polygon& poly, MaximumCandidates& m) {
    auto consider = [&](const Vec2& x, unsigned source) { m.add({x, f.depth_at(x.x(), x.y()), source}); };
    const double c2 = f.c * f.c;
    const double top = f.h * f.omega;  // a of C2'
    // With a single global maximum A1' outside the element, the element's maximum is on an edge facing A1':
    // from a point of a back edge, the segment to A1' crosses the element and leaves it through a front edge,
    // and D, concave, does not decrease along it. Back edges are skipped (both ends of each front edge are
    // candidates).
    const bool single_maximum = f.lateral && f.disc;
    const Vec2 a1(f.r * f.c, 0);
    for (int i = 0; i < poly.count; ++i) {
        if (single_maximum && poly.side(i, a1) >= 0) continue;
        const Vec2& p0 = poly.p[static_cast<std::size_t>(i)];
        const Vec2 e = poly.p[static_cast<std::size_t>((i + 1) % poly.count)] - p0;
        const auto edge = static_cast<unsigned>(poly.edge[static_cast<std::size_t>(i)]) << 3;
        consider(p0, edge);
        if (single_maximum)
            consider(p0 + e, static_cast<unsigned>(poly.edge[static_cast<std::size_t>((i + 1) % poly.count)])
                                 << 3);
        std::array<double, 2> t{};
        for (int end = 0; end < 2; ++end) {
            const int n = ellipse_crossings(f, p0, e, end == 0 ? 0.0 : top, t);
            for (int k = 0; k < n; ++k)
                consider(p0 + t[static_cast<std::size_t>(k)] * e,
                         edge | static_cast<unsigned>(1 + 2 * end + k));
        }
        if (f.lateral && std::abs(e.y()) > 1e-300) {
            // dL2/dt = 0: -c e_a sqrt(r^2 - y^2) = y e_y, i.e. y = -sign(e_a e_y) r c |e_a| / sqrt(c^2 e_a^2
            // + e_y^2).
            const double den = std::sqrt(c2 * e.x() * e.x() + e.y() * e.y());
            const double y = -std::copysign(1.0, e.x() * e.y()) * f.r * f.c * std::abs(e.x()) / den;
            const double s = (y - p0.y()) / e.y();
            if (s > 0 && s < 1) consider(p0 + s * e, edge | 5u);
        }
    }
}

// Candidates for the maximum of D over the element: its interior maximum when the element holds it (A1'; the
// projected generator when the axis is parallel to the plane; the base centre when perpendicular), else the
// boundary candidates.
void maximum_candidates(const Frame& f, const Polygon& poly, MaximumCandidates& m) {
    if (f.lateral && f.disc) {
        const Vec2 a1(f.r * f.c, 0);
        if (poly.inside(a1)) return m.add({a1, f.s_a1, 6});
    } else if (!f.disc) {
        // Axis parallel to the plane: D is maximal along the whole projected lowest generator; both clipped
        // ends are maxima.
        double t_in, t_out;
        int e_in, e_out;
        const Vec2 a1(f.r * f.c, 0), a2(f.r * f.c + f.h * f.omega, 0);
        if (cyrus_beck(poly, a1, a2, t_in, t_out, e_in, e_out)) {
            m.add({a1 + t_in * (a2 - a1), f.s_a1, 6});
            m.add({a1 + t_out * (a2 - a1), f.s_a1, 7});
            return;
        }
    } else {
        // Axis perpendicular to the plane: D = s(C1) over the whole base disc.
        if (poly.inside(Vec2::Zero())) return m.add({Vec2::Zero(), f.s1, 6});
    }
    boundary_candidates(f, poly, m);
}

// Builds the frame; false when the whole cylinder is more than the margin above the plane.
bool make_frame(const CylinderInField& cyl, const TerrainElement& e, Frame& f) {
    f.n = e.normal;
    f.k = e.offset;
    const double c_raw = cyl.axis.dot(f.n);
    f.v = c_raw >= 0 ? cyl.axis : Vec3(-cyl.axis);
    f.c = std::abs(c_raw);
    f.omega = cyl.axis.cross(f.n).norm();  // better conditioned than sqrt(1 - c^2) near c = 1
    f.r = cyl.radius;
    f.h = 2 * cyl.half_height;
    f.margin = cyl.margin;
    f.lateral = f.omega > kAxisEpsilon;
    f.disc = f.c > kAxisEpsilon;
    f.c1 = cyl.center - cyl.half_height * f.v;
    f.s1 = f.depth(f.c1);
    f.s_a1 = f.s1 + f.r * f.omega;
    if (f.s_a1 < -f.margin) return false;
    f.s_a2 = f.s_a1 - f.h * f.c;
    f.s_b1 = f.s1 - f.r * f.omega;
    if (f.lateral) {
        f.w = (f.c * f.v - f.n) / f.omega;
        f.ea = (f.v - f.c * f.n) / f.omega;
    } else {
        // v parallel to n: any direction of the base plane (the paper); the body's x axis keeps it
        // body-fixed.
        f.w = cyl.body_x;
        f.ea = (f.w - f.w.dot(f.n) * f.n).normalized();
    }
    f.u = f.v.cross(f.w);
    f.tolerance = 1e-9 * (f.r + f.h);
    if (f.lateral) {
        // Cheap half of the separating-axis test below, before the rest of the frame: the points of the
        // cylinder within the margin of the plane have |y| <= y_hi (see section_rectangle), y = (x - C1) . u.
        const double x0 = -(f.s1 + f.margin) / f.omega;
        const double y_hi = (x0 <= 0 ? f.r : std::sqrt(std::max(0.0, f.r * f.r - x0 * x0))) + f.tolerance;
        bool above = true, below = true;
        for (int i = 0; i < e.count; ++i) {
            const double y = (e.vertices[static_cast<std::size_t>(i)] - f.c1).dot(f.u);
            above = above && y > y_hi;
            below = below && y < -y_hi;
        }
        if (above || below) return false;
    }
    f.origin = f.c1 + f.s1 * f.n;
    return true;
}

// Bounding rectangle, in plane coordinates, of the projection of the cylinder's part with s >= -margin: the
// paper's trapezoid KLMN (sect. IV-B) replaced by a rectangle that contains the whole section, so that the
// SAT against it never rejects an element the cylinder reaches. Cylinder points are C1 + t v + X w + Y u with
// t in [0, h], X^2 + Y^2 <= r^2; their depth is s1 - c t + omega X and their plane coordinates (omega t + c
// X, Y). The a-range is a linear program over the box t in [0, h], X in [-r, r] cut by s >= -margin (its
// optimum is a corner or a crossing of the cut with a box edge); |Y| is largest at t = 0.
bool section_rectangle(const Frame& f, double& a_lo, double& a_hi, double& y_hi) {
    const double g0 = f.s1 + f.margin;  // s + margin = g0 - c t + omega X >= 0
    a_lo = kInf;
    a_hi = -kInf;
    auto visit = [&](double t, double x) {
        if (g0 - f.c * t + f.omega * x < -f.tolerance) return;
        const double a = f.omega * t + f.c * x;
        a_lo = std::min(a_lo, a);
        a_hi = std::max(a_hi, a);
    };
    for (double t : {0.0, f.h})
        for (double x : {-f.r, f.r}) visit(t, x);
    if (f.omega > 0)
        for (double t : {0.0, f.h}) {
            const double x = (f.c * t - g0) / f.omega;
            if (x >= -f.r && x <= f.r) visit(t, x);
        }
    if (f.c > 0)
        for (double x : {-f.r, f.r}) {
            const double t = (g0 + f.omega * x) / f.c;
            if (t >= 0 && t <= f.h) visit(t, x);
        }
    if (a_lo > a_hi) return false;
    const double x0 = f.omega > 0 ? -g0 / f.omega : -kInf;  // X >= x0 at t = 0
    y_hi = x0 <= 0 ? f.r : std::sqrt(std::max(0.0, f.r * f.r - x0 * x0));
    return true;
}

// Separating-axis test (paper sect. IV-B: the section's axes and the element's edge normals) between the
// rectangle [a_lo, a_hi] x [-y_hi, y_hi] and the element polygon.
bool separated(const Polygon& poly, double a_lo, double a_hi, double y_hi, double slack) {
    double pa_lo = kInf, pa_hi = -kInf, py_lo = kInf, py_hi = -kInf;
    for (int i = 0; i < poly.count; ++i) {
        const Vec2& p = poly.p[static_cast<std::size_t>(i)];
        pa_lo = std::min(pa_lo, p.x());
        pa_hi = std::max(pa_hi, p.x());
        py_lo = std::min(py_lo, p.y());
        py_hi = std::max(py_hi, p.y());
    }
    if (pa_lo > a_hi + slack || pa_hi < a_lo - slack || py_lo > y_hi + slack || py_hi < -y_hi - slack)
        return true;
    const std::array<Vec2, 4> corners = {Vec2(a_lo, -y_hi), Vec2(a_hi, -y_hi), Vec2(a_hi, y_hi),
                                         Vec2(a_lo, y_hi)};
    for (int i = 0; i < poly.count; ++i) {
        const Vec2 e =
            poly.p[static_cast<std::size_t>((i + 1) % poly.count)] - poly.p[static_cast<std::size_t>(i)];
        const double len = e.norm();
        bool all_outside = true;
        for (const Vec2& q : corners) all_outside = all_outside && poly.side(i, q) < -slack * len;
        if (all_outside) return true;
    }
    return false;
}

// Grid vertex (row, column) of element vertex k.
void grid_vertex(const TerrainElement& e, int k, int& row, int& column) {
    static constexpr int kRect[4][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
    static constexpr int kLower[3][2] = {{0, 0}, {0, 1}, {1, 1}};
    static constexpr int kUpper[3][2] = {{0, 0}, {1, 1}, {1, 0}};
    const int(*table)[2] = e.kind == ElementKind::lower_triangle   ? kLower
                           : e.kind == ElementKind::upper_triangle ? kUpper
                                                                   : kRect;
    row = e.row + table[k][0];
    column = e.column + table[k][1];
}

// Second stage, vertices (paper's sets O_I and O_E): a vertex all of whose neighbouring elements lie in the
// element's plane is inside the patch, never on its boundary, and cannot carry its deepest point (D is
// concave and its maximum A1' is a candidate of its own); it is not a candidate. Vertices on the field's
// border are always on the boundary.
bool interior_vertex(const HeightField& field, int row, int column, const Vec3& n, double offset) {
    if (row <= 0 || column <= 0 || row >= field.rows - 1 || column >= field.columns - 1) return false;
    for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj) {
            const Vec3 p(field.origin.x() + (column + dj) * field.spacing.x(),
                         field.origin.y() + (row + di) * field.spacing.y(),
                         field.height(row + di, column + dj));
            if (std::abs(n.dot(p) - offset) > kTerrainFlatTolerance) return false;
        }
    return true;
}

// Whether edge k of the element (from its vertex k to k + 1) is internal to a plane: the element across it
// lies in the element's plane. Crossings and clip ends on such an edge are inside the patch, not on its
// boundary (the edge analogue of interior_vertex). The neighbour cell counts as coplanar only when all its
// four corners are on the plane; edges on the field's border are never internal.
bool internal_edge(const HeightField& field, const TerrainElement& e, int k) {
    if (e.kind == ElementKind::flat_patch) return false;
    // Neighbour across each edge: a cell offset (di, dj), or the other triangle of the same cell (its third
    // vertex given as a corner offset).
    struct Across {
        int di, dj;
        bool diagonal;
        int vi, vj;
    };
    static constexpr Across kRect[4] = {
        {-1, 0, false, 0, 0}, {0, 1, false, 0, 0}, {1, 0, false, 0, 0}, {0, -1, false, 0, 0}};
    static constexpr Across kLower[3] = {{-1, 0, false, 0, 0}, {0, 1, false, 0, 0}, {0, 0, true, 1, 0}};
    static constexpr Across kUpper[3] = {{0, 0, true, 0, 1}, {1, 0, false, 0, 0}, {0, -1, false, 0, 0}};
    const Across& a = e.kind == ElementKind::lower_triangle   ? kLower[k]
                      : e.kind == ElementKind::upper_triangle ? kUpper[k]
                                                              : kRect[k];
    auto on_plane = [&](int row, int column) {
        const Vec3 p(field.origin.x() + column * field.spacing.x(),
                     field.origin.y() + row * field.spacing.y(), field.height(row, column));
        return std::abs(e.normal.dot(p) - e.offset) <= kTerrainFlatTolerance;
    };
    if (a.diagonal) return on_plane(e.row + a.vi, e.column + a.vj);
    const int i = e.row + a.di, j = e.column + a.dj;
    if (i < 0 || j < 0 || i >= field.rows - 1 || j >= field.columns - 1) return false;
    return on_plane(i, j) && on_plane(i, j + 1) && on_plane(i + 1, j) && on_plane(i + 1, j + 1);
}

// The cell whose footprint contains the point (clamped to the grid): the sub id of flat-patch points.
std::uint32_t cell_of(const HeightField& field, const Vec3& x) {
    const int cell_rows = field.rows - 1, cell_columns = field.columns - 1;
    const double tx = std::floor((x.x() - field.origin.x()) / field.spacing.x());
    const double ty = std::floor((x.y() - field.origin.y()) / field.spacing.y());
    const int j = static_cast<int>(std::clamp(tx, 0.0, static_cast<double>(cell_columns - 1)));
    const int i = static_cast<int>(std::clamp(ty, 0.0, static_cast<double>(cell_rows - 1)));
    return static_cast<std::uint32_t>(i * cell_columns + j);
}

}  // namespace

void element_candidates(const CylinderInField& cyl, const TerrainElement& e, const HeightField* field,
                        ElementCandidates& out) {
    out.count = 0;
    Frame f;
    if (!make_frame(cyl, e, f)) return;

    Polygon poly;
    poly.count = e.count;
    for (int i = 0; i < e.count; ++i) {
        poly.p[static_cast<std::size_t>(i)] = f.plane(e.vertices[static_cast<std::size_t>(i)]);
        poly.source[static_cast<std::size_t>(i)] = i;
    }
    double area = 0;
    for (int i = 0; i < poly.count; ++i) {
        const Vec2& a = poly.p[static_cast<std::size_t>(i)];
        const Vec2& b = poly.p[static_cast<std::size_t>((i + 1) % poly.count)];
        area += a.x() * b.y() - a.y() * b.x();
    }
    for (int i = 0; i < poly.count; ++i) poly.edge[static_cast<std::size_t>(i)] = i;
    if (area < 0) {  // (e_a, u, n) is left-handed for this element: reverse to counter-clockwise
        std::reverse(poly.p.begin(), poly.p.begin() + poly.count);
        std::reverse(poly.source.begin(), poly.source.begin() + poly.count);
        // Polygon edge i now runs from element vertex source[i] to source[i] - 1: element edge source[i] - 1.
        for (int i = 0; i < poly.count; ++i)
            poly.edge[static_cast<std::size_t>(i)] =
                (poly.source[static_cast<std::size_t>(i)] + poly.count - 1) % poly.count;
    }
    // Inside tests carry only the rounding of plane coordinates, a few ulps of the size.
    poly.tolerance = 1e-12 * (f.r + f.h);

    double a_lo, a_hi, y_hi;
    if (!section_rectangle(f, a_lo, a_hi, y_hi)) return;
    if (separated(poly, a_lo, a_hi, y_hi, f.tolerance)) return;

    const std::uint32_t cell = e.kind == ElementKind::flat_patch ? 0u : e.cell;
    auto emit = [&](const Vec3& terrain, double depth, Feature feature, unsigned index, std::uint8_t priority,
                    bool primary) {
        if (!(depth >= -f.margin)) return;
        Candidate c;
        c.terrain_point = terrain;
        c.depth = depth;
        c.offset = f.k;
        c.id = candidate_id(cell, e.kind, feature, index);
        c.cell = e.kind == ElementKind::flat_patch && field != nullptr ? cell_of(*field, terrain) : e.cell;
        c.priority = priority;
        c.primary = primary;
        out.add(c);
    };
    // A cylinder point P below the plane by s(P): its terrain point is P + s(P) n.
    auto emit_cylinder_point = [&](const Vec3& p, Feature feature, unsigned index, std::uint8_t priority) {
        const double s = f.depth(p);
        emit(p + s * f.n, s, feature, index, priority, true);
    };
    auto emit_plane_point = [&](const PlanePoint& q, Feature feature, std::uint8_t priority, bool primary) {
        emit(f.point(q.x.x(), q.x.y()), q.depth, feature, q.source, priority, primary);
    };
    // Depth of the deepest first-stage point of the element, including those not emitted because they lie
    // inside a coplanar patch.
    double covered = -kInf;
    // The element's maximum depth is attained at the candidates within the rounding allowance of the best
    // one; when D is constant along a stretch of an edge (a generator parallel to it) both ends of the
    // stretch are such candidates, and both are kept so that the patch spans the stretch.
    auto emit_maximum = [&](const MaximumCandidates& m, double above, bool primary) {
        for (int i = 0; i < m.count; ++i) {
            const PlanePoint& q = m.points[static_cast<std::size_t>(i)];
            if (q.depth >= m.best - f.tolerance && q.depth > above)
                emit_plane_point(q, Feature::deepest, 2, primary);
        }
    };
    // The element's exact deepest point when the first-stage points miss it (the maximum lies on the
    // boundary: the lateral wedge next to the base, an off-axis corner beside the generator).
    auto add_boundary_maximum = [&]() {
        MaximumCandidates m;
        boundary_candidates(f, poly, m);
        const double above = covered + f.tolerance;
        if (m.best > above) emit_maximum(m, above, true);
    };

    const Vec2 a1p(f.r * f.c, 0);
    const Vec2 a2p(f.r * f.c + f.h * f.omega, 0);
    const bool a1_inside = poly.inside(a1p);

    if (f.s_a2 >= -f.margin) {
        // (b) Side contact, (9): the whole lowest generator A1A2 is within the margin of the plane. Its
        // projection clipped by the element gives the contact points (10).
        double t_in, t_out;
        int e_in, e_out;
        if (cyrus_beck(poly, a1p, a2p, t_in, t_out, e_in, e_out)) {
            const Vec3 a1 = f.c1 + f.r * f.w;
            const Vec3 a2 = a1 + f.h * f.v;
            const auto code = [&](int edge, int end) {
                return static_cast<unsigned>((end << 3) |
                                             (edge < 0 ? 7 : poly.edge[static_cast<std::size_t>(edge)]));
            };
            // An end clipped by an edge shared with a coplanar element lies inside the patch's contact line.
            auto boundary_end = [&](int edge) {
                return edge < 0 || field == nullptr ||
                       !internal_edge(*field, e, poly.edge[static_cast<std::size_t>(edge)]);
            };
            covered = f.depth(a1 + t_in * (a2 - a1));  // the end nearer A1 is the deeper one
            if (boundary_end(e_in))
                emit_cylinder_point(a1 + t_in * (a2 - a1), Feature::side_end, code(e_in, 0), 1);
            if (t_out > t_in && boundary_end(e_out))
                emit_cylinder_point(a1 + t_out * (a2 - a1), Feature::side_end, code(e_out, 1), 1);
            if (!a1_inside && f.disc && f.lateral) add_boundary_maximum();
            return;
        }
    } else if (f.s_b1 >= -f.margin) {
        // (a) Base contact, (6): the whole lower base is within the margin, the upper base is not. Project
        // the base onto the plane: the ellipse a^2 + c^2 y^2 <= c^2 r^2 about C1' (semi-axes r c along e_a, r
        // along u; (7)). The element meets it when a vertex is inside, an edge crosses it, or it contains
        // C1'.
        const double c2 = f.c * f.c, r2 = f.r * f.r;
        auto in_ellipse = [&](const Vec2& x) { return x.x() * x.x() + c2 * x.y() * x.y() <= c2 * r2; };
        bool meets = poly.inside(Vec2::Zero());
        std::array<std::array<double, 2>, 4> roots{};
        std::array<int, 4> root_count{};
        for (int i = 0; i < poly.count; ++i) {
            const Vec2& p0 = poly.p[static_cast<std::size_t>(i)];
            const Vec2 d = poly.p[static_cast<std::size_t>((i + 1) % poly.count)] - p0;
            root_count[static_cast<std::size_t>(i)] =
                ellipse_crossings(f, p0, d, 0.0, roots[static_cast<std::size_t>(i)]);
            meets = meets || root_count[static_cast<std::size_t>(i)] > 0 || in_ellipse(p0);
        }
        if (meets) {
            // Rim points inside the element: eight body-fixed ones (they turn with the cylinder, so a resting
            // base keeps its points) and A1, the deepest.
            for (unsigned k = 0; k < 8; ++k) {
                const double phi = k * std::numbers::pi / 4;
                const Vec3 p = f.c1 + f.r * (std::cos(phi) * cyl.body_x + std::sin(phi) * cyl.body_y);
                const double s = f.depth(p);
                const Vec3 x = p + s * f.n;
                if (!poly.inside(f.plane(x))) continue;
                covered = std::max(covered, s);
                emit(x, s, Feature::rim, k, 0, true);
            }
            if (a1_inside) {
                covered = f.s_a1;
                emit_cylinder_point(f.c1 + f.r * f.w, Feature::deepest_rim, 0, 1);
            }
            // Edge-ellipse crossings, mapped back to the rim (8): the rim point above a crossing is the
            // deepest cylinder point on its normal line, so D gives its depth.
            for (int i = 0; i < poly.count; ++i) {
                const Vec2& p0 = poly.p[static_cast<std::size_t>(i)];
                const Vec2 d = poly.p[static_cast<std::size_t>((i + 1) % poly.count)] - p0;
                const int edge = poly.edge[static_cast<std::size_t>(i)];
                const bool internal = root_count[static_cast<std::size_t>(i)] > 0 && field != nullptr &&
                                      internal_edge(*field, e, edge);
                for (int k = 0; k < root_count[static_cast<std::size_t>(i)]; ++k) {
                    const Vec2 x = p0 + roots[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] * d;
                    const PlanePoint q{x, f.depth_at(x.x(), x.y()), static_cast<unsigned>((edge << 1) | k)};
                    covered = std::max(covered, q.depth);
                    if (!internal) emit_plane_point(q, Feature::crossing, 2, true);
                }
            }
            // Second stage: element vertices inside the projected base that lie on the patch boundary.
            for (int i = 0; i < poly.count; ++i) {
                const Vec2& x = poly.p[static_cast<std::size_t>(i)];
                if (!in_ellipse(x)) continue;
                const int k = poly.source[static_cast<std::size_t>(i)];
                const PlanePoint q{x, f.depth_at(x.x(), x.y()), static_cast<unsigned>(k)};
                covered = std::max(covered, q.depth);
                if (field != nullptr && e.kind != ElementKind::flat_patch) {
                    int row, column;
                    grid_vertex(e, k, row, column);
                    if (interior_vertex(*field, row, column, f.n, f.k)) continue;
                }
                emit_plane_point(q, Feature::vertex, 2, true);
            }
            if (!a1_inside) add_boundary_maximum();
            return;
        }
    } else if (a1_inside) {
        // (c) Single-point contact, (11)-(12): only A1 is within the margin of the plane, and its projection
        // is on the element.
        emit_cylinder_point(f.c1 + f.r * f.w, Feature::deepest_rim, 0, 1);
        return;
    }

    // Second stage for an element the first stage did not reach (the paper's set Omega_E): its deepest point,
    // on its boundary. Kept unless a first-stage point of its patch is at least as deep (checked per patch).
    MaximumCandidates m;
    maximum_candidates(f, poly, m);
    emit_maximum(m, -kInf, false);
}

}  // namespace simpulse::cylinder_terrain
