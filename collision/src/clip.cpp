// Clipping of two contact features in the plane perpendicular to the contact normal and lifting of the
// clipped points back onto the features: phases 3-4 of the axis-rotation article (SEEDS.md section 3).
// Features are first reduced to their 2-D convex hull (point, segment or polygon); the intersection of the
// two projections gives the candidate points, each one lifted along the normal onto both features (plane of a
// face, parameter along an edge, the vertex itself), as the article recommends for nearly-planar patches.
#include <simpulse/collision/clip.h>

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// Relative size below which two points or a polygon area count as coincident/degenerate: a few thousand ulps
// of the feature extent, far below any physical feature and far above the rounding of the projections.
constexpr double kRoundingTolerance = 1e-9;

// Segments whose directions differ by less than this angle (radians) are treated as parallel and produce the
// two ends of their overlap instead of a single crossing point (a capsule or cylinder side lying along a box
// edge).
constexpr double kParallelSine = 1e-3;

constexpr std::uint32_t kClipEdgeBit = 0x8000;
constexpr std::uint32_t kVertexBit = 0x4000;

double cross2(const Vec2& a, const Vec2& b) {
    return a.x() * b.y() - a.y() * b.x();
}

std::uint32_t vertex_label(std::uint32_t in, std::uint32_t out) {
    return (in << 16) | out;
}

// A feature after projection: its 2-D convex hull (CCW) with the original vertex index of each hull vertex,
// and what is needed to lift a 2-D point back onto the 3-D feature.
struct ProjectedFeature {
    std::array<Vec2, kMaxFeatureVertices> p2;
    std::array<Vec3, kMaxFeatureVertices> p3;
    std::array<std::uint32_t, kMaxFeatureVertices> index;
    int count = 0;  // 1 point, 2 segment, 3+ polygon
    Vec3 plane_normal = Vec3::Zero();
    Vec3 plane_point = Vec3::Zero();
};

struct Frame {
    Vec3 origin, u, v, n;
    Vec2 project(const Vec3& p) const {
        const Vec3 d = p - origin;
        return {d.dot(u), d.dot(v)};
    }
    Vec3 point(const Vec2& q) const { return origin + q.x() * u + q.y() * v; }
};

// Newell normal and centroid of the 3-D loop of a projected polygon: the averaged plane of a nearly planar
// patch, onto which lift() projects.
void finish_polygon(const Frame& frame, ProjectedFeature& out) {
    Vec3 normal = Vec3::Zero(), centroid = Vec3::Zero();
    for (int i = 0; i < out.count; ++i) {
        const Vec3& a = out.p3[static_cast<std::size_t>(i)];
        const Vec3& b = out.p3[static_cast<std::size_t>((i + 1) % out.count)];
        normal += (a - frame.origin).cross(b - frame.origin);
        centroid += a;
    }
    out.plane_normal = normal;
    out.plane_point = centroid / out.count;
}

// Andrew's monotone chain on at most kMaxFeatureVertices points; collinear and duplicate points (within tol)
// are dropped. Result is counter-clockwise. Points that project onto the same 2-D point (an edge along the
// normal) keep only the one farthest out along `outward` (+n for A, -n for B): the surface point the lift
// needs.
void hull_2d(const ContactFeature& f, const Frame& frame, const Vec3& outward, double tol,
             ProjectedFeature& out) {
    if (f.convex_loop && f.count >= 3) {
        // Projected in order, made counter-clockwise; a loop seen edge-on (area at rounding level) takes the
        // general path below, which reduces it to a segment.
        for (int i = 0; i < f.count; ++i) {
            out.p2[static_cast<std::size_t>(i)] = frame.project(f.points[static_cast<std::size_t>(i)]);
            out.index[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i);
        }
        double area2 = 0, perimeter = 0;
        for (int i = 0; i < f.count; ++i) {
            const Vec2& a = out.p2[static_cast<std::size_t>(i)];
            const Vec2& b = out.p2[static_cast<std::size_t>((i + 1) % f.count)];
            area2 += cross2(a, b);
            perimeter += (b - a).norm();
        }
        if (std::abs(area2) > tol * perimeter) {
            out.count = f.count;
            if (area2 < 0) {
                std::reverse(out.p2.begin(), out.p2.begin() + out.count);
                std::reverse(out.index.begin(), out.index.begin() + out.count);
            }
            for (int i = 0; i < out.count; ++i)
                out.p3[static_cast<std::size_t>(i)] =
                    f.points[static_cast<std::size_t>(out.index[static_cast<std::size_t>(i)])];
            finish_polygon(frame, out);
            return;
        }
    }
    std::array<Vec2, kMaxFeatureVertices> p;  // indexed by the original point index
    std::array<int, kMaxFeatureVertices> order;
    int n = 0;
    for (int i = 0; i < f.count; ++i) {
        const Vec3& x = f.points[static_cast<std::size_t>(i)];
        p[static_cast<std::size_t>(i)] = frame.project(x);
        int dup = -1;
        for (int k = 0; k < n && dup < 0; ++k)
            if ((p[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] -
                 p[static_cast<std::size_t>(i)])
                    .squaredNorm() <= tol * tol)
                dup = k;
        if (dup < 0) {
            order[static_cast<std::size_t>(n++)] = i;
        } else if (outward.dot(x) >
                   outward.dot(f.points[static_cast<std::size_t>(order[static_cast<std::size_t>(dup)])])) {
            order[static_cast<std::size_t>(dup)] = i;
        }
    }
    std::sort(order.begin(), order.begin() + n, [&](int a, int b) {
        const Vec2& pa = p[static_cast<std::size_t>(a)];
        const Vec2& pb = p[static_cast<std::size_t>(b)];
        return pa.x() < pb.x() || (pa.x() == pb.x() && (pa.y() < pb.y() || (pa.y() == pb.y() && a < b)));
    });
    // A turn counts only when the third point is farther than tol from the line of the first two.
    auto left_turn = [&](int o, int a, int b) {
        const Vec2& po = p[static_cast<std::size_t>(o)];
        const Vec2 ea = p[static_cast<std::size_t>(a)] - po;
        const Vec2 eb = p[static_cast<std::size_t>(b)] - po;
        return cross2(ea, eb) > tol * std::max(ea.norm(), eb.norm());
    };
    std::array<int, 2 * kMaxFeatureVertices + 1> h;
    int k = 0;
    for (int i = 0; i < n; ++i) {
        const int c = order[static_cast<std::size_t>(i)];
        while (k >= 2 &&
               !left_turn(h[static_cast<std::size_t>(k - 2)], h[static_cast<std::size_t>(k - 1)], c))
            --k;
        h[static_cast<std::size_t>(k++)] = c;
    }
    const int lower = k + 1;
    for (int i = n - 2; i >= 0; --i) {
        const int c = order[static_cast<std::size_t>(i)];
        while (k >= lower &&
               !left_turn(h[static_cast<std::size_t>(k - 2)], h[static_cast<std::size_t>(k - 1)], c))
            --k;
        h[static_cast<std::size_t>(k++)] = c;
    }
    int m = n == 1 ? 1 : k - 1;
    out.count = 0;
    for (int i = 0; i < m; ++i) {
        const int c = h[static_cast<std::size_t>(i)];
        out.p2[static_cast<std::size_t>(out.count)] = p[static_cast<std::size_t>(c)];
        out.p3[static_cast<std::size_t>(out.count)] = f.points[static_cast<std::size_t>(c)];
        out.index[static_cast<std::size_t>(out.count)] = static_cast<std::uint32_t>(c);
        ++out.count;
    }
    // Duplicates: the chain keeps the two ends of a zero-length "hull".
    if (out.count == 2 && (out.p2[0] - out.p2[1]).norm() <= tol) out.count = 1;
    if (out.count >= 3) finish_polygon(frame, out);
}

// Lifts the 2-D point q onto the feature: returns the coordinate t along the normal of the feature point
// above q.
double lift(const ProjectedFeature& f, const Frame& frame, const Vec2& q) {
    if (f.count == 1) return frame.n.dot(f.p3[0] - frame.origin);
    if (f.count == 2) {
        const Vec2 d = f.p2[1] - f.p2[0];
        const double len2 = d.squaredNorm();
        const double s = len2 > 0 ? std::clamp((q - f.p2[0]).dot(d) / len2, 0.0, 1.0) : 0.0;
        return frame.n.dot(f.p3[0] + s * (f.p3[1] - f.p3[0]) - frame.origin);
    }
    const double mn = f.plane_normal.dot(frame.n);
    const Vec3 base = frame.point(q);
    // A face is only a contact feature when it faces the normal; the fallback guards a degenerate hull face.
    if (std::abs(mn) <= kRoundingTolerance * f.plane_normal.norm())
        return frame.n.dot(f.plane_point - frame.origin);
    return f.plane_normal.dot(f.plane_point - base) / mn;
}

struct Emitter {
    const ProjectedFeature& a;
    const ProjectedFeature& b;
    const Frame& frame;
    double margin;
    std::uint32_t key;
    ContactCandidates& out;
    int added = 0;

    void emit(const Vec2& qa, const Vec2& qb, std::uint32_t label) {
        const double ta = lift(a, frame, qa);
        const double tb = lift(b, frame, qb);
        const double depth = ta - tb;
        if (!(depth >= -margin)) return;
        const Vec3 pa = frame.point(qa) + ta * frame.n;
        const Vec3 pb = frame.point(qb) + tb * frame.n;
        out.add({0.5 * (pa + pb), depth, mix_id(key, label)});
        ++added;
    }
    void emit(const Vec2& q, std::uint32_t label) { emit(q, q, label); }
};

// Labels of the features' own vertices and edges: A's carry kClipEdgeBit (A is the clip polygon below).
std::uint32_t edge_label(bool side_a, std::uint32_t index) {
    return (side_a ? kClipEdgeBit : 0) | index;
}
std::uint32_t point_label(bool side_a, std::uint32_t index) {
    return edge_label(side_a, kVertexBit | index);
}

// Segment (s0 -> s1) clipped by a convex CCW polygon (Cyrus-Beck); emits the two clipped ends.
void clip_segment(const ProjectedFeature& seg, const ProjectedFeature& poly, bool seg_is_a, double tol,
                  Emitter& e) {
    const Vec2 s0 = seg.p2[0], s1 = seg.p2[1];
    double t0 = 0, t1 = 1;
    const std::uint32_t seg_edge = edge_label(seg_is_a, seg.index[0]);
    std::uint32_t l0 = point_label(seg_is_a, seg.index[0]), l1 = point_label(seg_is_a, seg.index[1]);
    for (int i = 0; i < poly.count; ++i) {
        const Vec2 a = poly.p2[static_cast<std::size_t>(i)];
        const Vec2 ed = poly.p2[static_cast<std::size_t>((i + 1) % poly.count)] - a;
        const double d0 = cross2(ed, s0 - a), d1 = cross2(ed, s1 - a);  // >= 0 inside
        if (d0 < 0 && d1 < 0) return;
        const std::uint32_t crossing =
            vertex_label(edge_label(!seg_is_a, poly.index[static_cast<std::size_t>(i)]), seg_edge);
        if (d0 < 0 && d1 > 0) {
            const double t = d0 / (d0 - d1);
            if (t > t0) t0 = t, l0 = crossing;
        } else if (d1 < 0 && d0 > 0) {
            const double t = d0 / (d0 - d1);
            if (t < t1) t1 = t, l1 = crossing;
        }
    }
    if (t0 > t1) return;
    const Vec2 p0 = s0 + t0 * (s1 - s0), p1 = s0 + t1 * (s1 - s0);
    e.emit(p0, l0);
    if ((p1 - p0).norm() > tol) e.emit(p1, l1);
}

Vec2 closest_on_segment(const Vec2& q, const Vec2& s0, const Vec2& s1) {
    const Vec2 d = s1 - s0;
    const double len2 = d.squaredNorm();
    return len2 > 0 ? Vec2(s0 + std::clamp((q - s0).dot(d) / len2, 0.0, 1.0) * d) : s0;
}

// Closest point of a projected feature (point, segment or CCW polygon) to q.
Vec2 closest_in_feature(const ProjectedFeature& f, const Vec2& q) {
    if (f.count == 1) return f.p2[0];
    if (f.count == 2) return closest_on_segment(q, f.p2[0], f.p2[1]);
    bool inside = true;
    Vec2 best = q;
    double best_d2 = std::numeric_limits<double>::infinity();
    for (int i = 0; i < f.count; ++i) {
        const Vec2 a = f.p2[static_cast<std::size_t>(i)];
        const Vec2 b = f.p2[static_cast<std::size_t>((i + 1) % f.count)];
        if (cross2(b - a, q - a) < 0) inside = false;
        const Vec2 c = closest_on_segment(q, a, b);
        if ((c - q).squaredNorm() < best_d2) best_d2 = (c - q).squaredNorm(), best = c;
    }
    return inside ? q : best;
}

void clip_segments(const ProjectedFeature& a, const ProjectedFeature& b, double tol, Emitter& e) {
    const Vec2 a0 = a.p2[0], da = a.p2[1] - a.p2[0];
    const Vec2 b0 = b.p2[0], db = b.p2[1] - b.p2[0];
    const double la = da.norm(), lb = db.norm();
    const double c = cross2(da, db);
    if (std::abs(c) <= kParallelSine * la * lb) {
        // Overlap of the two projections along A's direction; each end is placed on both segments so that the
        // lifted points stay on their own edges.
        const Vec2 dir = da / la;
        double lo = 0, hi = la;
        double sb0 = (b0 - a0).dot(dir), sb1 = (b.p2[1] - a0).dot(dir);
        std::uint32_t llo = point_label(true, a.index[0]), lhi = point_label(true, a.index[1]);
        std::uint32_t lb0 = point_label(false, b.index[0]), lb1 = point_label(false, b.index[1]);
        if (sb0 > sb1) std::swap(sb0, sb1), std::swap(lb0, lb1);
        if (sb0 > lo) lo = sb0, llo = lb0;
        if (sb1 < hi) hi = sb1, lhi = lb1;
        if (lo > hi) {
            // Disjoint projections (rounding at touching ends): one point between the two nearest ends.
            const Vec2 q = a0 + (0.5 * (lo + hi)) * dir;
            e.emit(closest_on_segment(q, a0, a.p2[1]), closest_on_segment(q, b0, b.p2[1]), llo);
            return;
        }
        const Vec2 qlo = a0 + lo * dir, qhi = a0 + hi * dir;
        e.emit(qlo, closest_on_segment(qlo, b0, b.p2[1]), llo);
        if (hi - lo > tol) e.emit(qhi, closest_on_segment(qhi, b0, b.p2[1]), lhi);
        return;
    }
    // Crossing: the parameters of the crossing point, clamped so that rounding at an end stays on the
    // segments.
    const Vec2 r = b0 - a0;
    const double s = std::clamp(cross2(r, db) / c, 0.0, 1.0);
    const double t = std::clamp(cross2(r, da) / c, 0.0, 1.0);
    e.emit(a0 + s * da, b0 + t * db,
           vertex_label(edge_label(true, a.index[0]), edge_label(false, b.index[0])));
}

}  // namespace

double Polygon2::signed_area() const {
    double area = 0;
    for (int i = 0; i < count; ++i)
        area +=
            cross2(points[static_cast<std::size_t>(i)], points[static_cast<std::size_t>((i + 1) % count)]);
    return 0.5 * area;
}

void orthonormal_basis(const Vec3& n, Vec3& u, Vec3& v) {
    const double sign = std::copysign(1.0, n.z());
    const double a = -1.0 / (sign + n.z());
    const double b = n.x() * n.y() * a;
    u = Vec3(1.0 + sign * n.x() * n.x() * a, sign * b, -sign * n.x());
    v = Vec3(b, sign + n.y() * n.y() * a, -n.y());
}

std::uint32_t mix_id(std::uint32_t a, std::uint32_t b) {
    // splitmix-style finaliser over the pair; deterministic across platforms.
    std::uint64_t x = (static_cast<std::uint64_t>(a) << 32) | b;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return static_cast<std::uint32_t>(x);
}

void clip_polygon(const Polygon2& subject, const Polygon2& clip, Polygon2& out) {
    // Each pass reads one buffer and writes the other; starting in `out` or `tmp` by the parity of the number
    // of passes leaves the result in `out` without a copy. `edges[k]` is the label of the edge from vertex k
    // to k + 1 of the current polygon; a vertex's label is (label of its incoming edge, label of its outgoing
    // edge).
    Polygon2 tmp;
    std::array<std::uint32_t, kMaxClipVertices> edges_a, edges_b;
    Polygon2* dst = clip.count % 2 == 1 ? &out : &tmp;
    Polygon2* other = clip.count % 2 == 1 ? &tmp : &out;
    auto* edges = &edges_a;
    auto* next_edges = &edges_b;
    const int ns = std::min(subject.count, kMaxClipVertices);
    for (int k = 0; k < ns; ++k) (*edges)[static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(k);
    const Polygon2* src = &subject;
    for (int c = 0; c < clip.count; ++c) {
        const Vec2 a = clip.points[static_cast<std::size_t>(c)];
        const Vec2 ed = clip.points[static_cast<std::size_t>((c + 1) % clip.count)] - a;
        const std::uint32_t clip_label = kClipEdgeBit | static_cast<std::uint32_t>(c);
        const int n = src->count;
        std::array<double, kMaxClipVertices> d;  // >= 0 inside the clip edge's half-plane
        for (int k = 0; k < n; ++k)
            d[static_cast<std::size_t>(k)] = cross2(ed, src->points[static_cast<std::size_t>(k)] - a);
        dst->clear();
        auto push = [&](const Vec2& p, std::uint32_t in, std::uint32_t out_edge) {
            if (dst->count >= kMaxClipVertices) return;
            (*next_edges)[static_cast<std::size_t>(dst->count)] = out_edge;
            dst->add(p, vertex_label(in, out_edge));
        };
        for (int k = 0; k < n; ++k) {
            const int prev = (k + n - 1) % n;
            const int nx = (k + 1) % n;
            const double dp = d[static_cast<std::size_t>(prev)], dk = d[static_cast<std::size_t>(k)];
            const double dn = d[static_cast<std::size_t>(nx)];
            const std::uint32_t edge_in = (*edges)[static_cast<std::size_t>(prev)];
            const std::uint32_t edge_out = (*edges)[static_cast<std::size_t>(k)];
            const Vec2 pp = src->points[static_cast<std::size_t>(prev)];
            const Vec2 pk = src->points[static_cast<std::size_t>(k)];
            // Strict sign changes only: a vertex on the clip line is kept as is and never duplicated.
            if (dp < 0 && dk > 0) push(pp + (dp / (dp - dk)) * (pk - pp), clip_label, edge_in);
            if (dk >= 0) {
                // On the line between an outside neighbour and the polygon, the boundary runs along the clip
                // edge.
                const std::uint32_t in = (dk == 0 && dp < 0) ? clip_label : edge_in;
                const std::uint32_t out_edge = (dk == 0 && dn < 0) ? clip_label : edge_out;
                push(pk, in, out_edge);
            }
            if (dk > 0 && dn < 0) {
                const Vec2 pn = src->points[static_cast<std::size_t>(nx)];
                push(pk + (dk / (dk - dn)) * (pn - pk), edge_out, clip_label);
            }
        }
        src = dst;
        std::swap(dst, other);
        std::swap(edges, next_edges);
        if (src->count == 0) break;
    }
    if (src == &out) return;
    if (src == &subject) {
        // No clip edges: the subject itself, with its vertex labels.
        out.clear();
        for (int k = 0; k < ns; ++k)
            out.add(
                subject.points[static_cast<std::size_t>(k)],
                vertex_label(static_cast<std::uint32_t>((k + ns - 1) % ns), static_cast<std::uint32_t>(k)));
        return;
    }
    // Early exit on an empty polygon in the other buffer.
    out.clear();
}

int clip_features(const ContactFeature& a, const ContactFeature& b, const Vec3& normal, double margin,
                  std::uint32_t key, ContactCandidates& out) {
    if (a.count == 0 || b.count == 0) return 0;
    Frame frame;
    frame.n = normal;
    orthonormal_basis(normal, frame.u, frame.v);
    frame.origin = Vec3::Zero();
    for (int i = 0; i < a.count; ++i) frame.origin += a.points[static_cast<std::size_t>(i)];
    frame.origin /= a.count;

    double scale = 0;
    for (const Vec3& p : a.view()) scale = std::max(scale, (p - frame.origin).norm());
    for (const Vec3& p : b.view()) scale = std::max(scale, (p - frame.origin).norm());
    const double tol = kRoundingTolerance * std::max(scale, std::numeric_limits<double>::min());

    ProjectedFeature pa, pb;
    hull_2d(a, frame, normal, tol, pa);
    hull_2d(b, frame, -normal, tol, pb);
    Emitter e{pa, pb, frame, margin, key, out};

    if (pa.count == 1 || pb.count == 1) {
        // A vertex against anything: the vertex is the contact, measured against the nearest point of the
        // other feature's projection (itself when it projects inside, as the axis guarantees up to its
        // tolerance).
        const std::uint32_t label =
            pa.count == 1 ? point_label(true, pa.index[0]) : point_label(false, pb.index[0]);
        if (pa.count == 1)
            e.emit(pa.p2[0], closest_in_feature(pb, pa.p2[0]), label);
        else
            e.emit(closest_in_feature(pa, pb.p2[0]), pb.p2[0], label);
        return e.added;
    }
    if (pa.count == 2 && pb.count == 2) {
        clip_segments(pa, pb, tol, e);
        return e.added;
    }
    if (pa.count == 2) {
        clip_segment(pa, pb, true, tol, e);
        return e.added;
    }
    if (pb.count == 2) {
        clip_segment(pb, pa, false, tol, e);
        return e.added;
    }
    Polygon2 subject, clipper, result;
    for (int i = 0; i < pb.count; ++i) subject.add(pb.p2[static_cast<std::size_t>(i)], 0);
    for (int i = 0; i < pa.count; ++i) clipper.add(pa.p2[static_cast<std::size_t>(i)], 0);
    clip_polygon(subject, clipper, result);
    // clip_polygon labels edges by position; translate them to the features' own vertex indices.
    auto translate = [&](std::uint32_t l) {
        const std::uint32_t k = l & ~kClipEdgeBit;
        return (l & kClipEdgeBit) ? edge_label(true, pa.index[k]) : edge_label(false, pb.index[k]);
    };
    for (int i = 0; i < result.count; ++i) {
        const std::uint32_t label = result.labels[static_cast<std::size_t>(i)];
        e.emit(result.points[static_cast<std::size_t>(i)],
               vertex_label(translate(label >> 16), translate(label & 0xffff)));
    }
    return e.added;
}

}  // namespace simpulse
