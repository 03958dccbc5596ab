// The seed's speed claim (nonconvex-2d-sat.ru.txt, fig. 3; SEEDS.md section 5): SAT with one polygon whole is
// 3-4x faster than SAT with convex decomposition and 8-10x faster than GJK/EPA with decomposition, on pairs
// of non-convex plane polygons. Four methods on the same pairs (A and B both non-convex, random poses with
// overlapping bounding circles, about half of them intersecting), each culling convex parts by bounding
// circles the same way:
//   whole_sat:   A whole against each part of B (sat_whole_vs_convex, with its contact points);
//   parts_sat:   every part of A against every part of B, classic SAT (sat_convex_convex);
//   parts_gjk:   every part pair by 2-D GJK, then EPA for the penetration when they overlap (written here,
//                after van den Bergen 2003 sect. 4.3, as the thesis' 2-D GJK/EPA);
//   box2d:       Box2D 2.4's b2CollidePolygons on every part pair (its polygons hold at most 8 vertices, so
//                larger parts are fanned into 8-gons), the outside yardstick.
// Polygon sets: "star" (16 vertices, radii 0.6-1.4) and "gear" (12 teeth, 48 vertices, an axle hole).
// Run: build/bench/bench_polygon_sat --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <simpulse/collision/polygon.h>

#include <benchmark/benchmark.h>

#ifdef SIMPULSE_HAVE_BOX2D
#include <box2d/b2_collision.h>
#include <box2d/b2_polygon_shape.h>
#endif

#include <cmath>
#include <numbers>
#include <random>

namespace simpulse {
namespace {

constexpr double kPi = std::numbers::pi;

struct Body {
    std::vector<Ring2> rings;
    std::vector<Ring2> parts;
    std::vector<Vec2> part_centres;
    std::vector<double> part_radii;
    SatPolygon whole;
    double radius = 0;
};

Body make_body(std::vector<Ring2> rings) {
    Body b;
    b.parts = decompose_polygon(rings, 0);
    for (const Ring2& p : b.parts) {
        Vec2 c = Vec2::Zero();
        for (const Vec2& v : p) c += v;
        c /= static_cast<double>(p.size());
        double r = 0;
        for (const Vec2& v : p) r = std::max(r, (v - c).norm());
        b.part_centres.push_back(c);
        b.part_radii.push_back(r);
    }
    for (const Vec2& v : rings[0]) b.radius = std::max(b.radius, v.norm());
    b.whole = make_sat_polygon(rings);
    b.rings = std::move(rings);
    return b;
}

Body star(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    Ring2 r;
    for (int i = 0; i < 16; ++i) {
        const double a = 2 * kPi * i / 16, rad = 0.6 + 0.8 * u(rng);
        r.emplace_back(rad * std::cos(a), rad * std::sin(a));
    }
    return make_body({r});
}

Body gear() {
    Ring2 r, hole;
    for (int t = 0; t < 12; ++t)
        for (const auto& [f, rad] : {std::pair{0.0, 0.76}, {0.15, 1.0}, {0.5, 1.0}, {0.65, 0.76}}) {
            const double a = 2 * kPi * (t + f) / 12;
            r.emplace_back(rad * std::cos(a), rad * std::sin(a));
        }
    for (int i = 0; i < 8; ++i) {
        const double a = -2 * kPi * i / 8;
        hole.emplace_back(0.25 * std::cos(a), 0.25 * std::sin(a));
    }
    return make_body({r, hole});
}

struct Pair {
    const Body* a;
    const Body* b;
    Map2 map;  // B's frame in A's frame
};

struct Set {
    std::vector<Body> bodies;
    std::vector<Pair> pairs;
};

Set make_set(bool gears) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1, 1);
    Set s;
    for (int i = 0; i < 16; ++i) s.bodies.push_back(gears ? gear() : star(rng));
    for (int k = 0; k < 256; ++k) {
        Pair p;
        p.a = &s.bodies[static_cast<std::size_t>(k) % s.bodies.size()];
        p.b = &s.bodies[static_cast<std::size_t>(k * 7 + 3) % s.bodies.size()];
        const double angle = kPi * u(rng);
        p.map.rotation << std::cos(angle), -std::sin(angle), std::sin(angle), std::cos(angle);
        const double reach = p.a->radius + p.b->radius;
        const double dist = reach * (0.55 + 0.45 * (u(rng) + 1) / 2), dir = kPi * u(rng);
        p.map.offset = dist * Vec2(std::cos(dir), std::sin(dir));
        s.pairs.push_back(p);
    }
    return s;
}

const Set& star_set() {
    static const Set s = make_set(false);
    return s;
}
const Set& gear_set() {
    static const Set s = make_set(true);
    return s;
}

// B's part i mapped into A's frame (into a reused buffer).
void map_part(const Ring2& part, const Map2& map, Ring2& out) {
    out.clear();
    for (const Vec2& v : part) out.push_back(map(v));
}

// ---- 2-D GJK/EPA (the comparison of the seed's fig. 3) ----
Vec2 support(const Ring2& p, const Vec2& d) {
    std::size_t best = 0;
    double most = p[0].dot(d);
    for (std::size_t i = 1; i < p.size(); ++i)
        if (const double s = p[i].dot(d); s > most) {
            most = s;
            best = i;
        }
    return p[best];
}
Vec2 mink(const Ring2& a, const Ring2& b, const Vec2& d) {
    return support(a, d) - support(b, -d);
}
double cross(const Vec2& a, const Vec2& b) {
    return a.x() * b.y() - a.y() * b.x();
}
Vec2 perp_toward(const Vec2& e, const Vec2& toward) {
    Vec2 n(-e.y(), e.x());
    if (n.dot(toward) < 0) n = -n;
    return n;
}

// Penetration depth of a and b (negative: separated, then only the sign is meaningful).
double gjk_epa(const Ring2& a, const Ring2& b, Vec2& normal) {
    Vec2 simplex[3];
    int n = 0;
    Vec2 d = a[0] - b[0];
    if (d.squaredNorm() == 0) d = Vec2(1, 0);
    simplex[n++] = mink(a, b, d);
    d = -simplex[0];
    bool inside = false;
    for (int it = 0; it < 64 && !inside; ++it) {
        if (d.squaredNorm() < 1e-300) {
            inside = true;
            break;
        }
        const Vec2 p = mink(a, b, d);
        if (p.dot(d) < 0) return -1;
        simplex[n++] = p;
        if (n == 2) {
            const Vec2 ab = simplex[0] - simplex[1], ao = -simplex[1];
            d = perp_toward(ab, ao);
            if (std::abs(cross(ab, ao)) < 1e-300) d = Vec2(-ab.y(), ab.x());
        } else {
            const Vec2 &pa = simplex[2], &pb = simplex[1], &pc = simplex[0];
            const Vec2 ao = -pa, ab = pb - pa, ac = pc - pa;
            const Vec2 ab_perp = perp_toward(ab, -ac), ac_perp = perp_toward(ac, -ab);
            if (ab_perp.dot(ao) > 0) {
                simplex[0] = pb;
                simplex[1] = pa;
                n = 2;
                d = ab_perp;
            } else if (ac_perp.dot(ao) > 0) {
                simplex[1] = pa;
                n = 2;
                d = ac_perp;
            } else {
                inside = true;
            }
        }
    }
    if (n < 3) return 0;
    // EPA on the triangle (counter-clockwise).
    Vec2 poly[64];
    int m = 3;
    poly[0] = simplex[0];
    poly[1] = simplex[1];
    poly[2] = simplex[2];
    if (cross(poly[1] - poly[0], poly[2] - poly[0]) < 0) std::swap(poly[1], poly[2]);
    for (int it = 0; it < 60; ++it) {
        int best = 0;
        double dist = std::numeric_limits<double>::infinity();
        Vec2 bn = Vec2::UnitX();
        for (int i = 0; i < m; ++i) {
            const Vec2 e = poly[(i + 1) % m] - poly[i];
            const Vec2 nn = Vec2(e.y(), -e.x()).normalized();
            const double dd = nn.dot(poly[i]);
            if (dd < dist) {
                dist = dd;
                best = i;
                bn = nn;
            }
        }
        const Vec2 p = mink(a, b, bn);
        if (p.dot(bn) - dist < 1e-9 || m == 63) {
            normal = bn;
            return dist;
        }
        for (int k = m; k > best + 1; --k) poly[k] = poly[k - 1];
        poly[best + 1] = p;
        ++m;
    }
    return 0;
}

bool circles_meet(const Vec2& c0, double r0, const Vec2& c1, double r1) {
    return (c0 - c1).squaredNorm() <= (r0 + r1) * (r0 + r1);
}

void whole_sat(benchmark::State& state, const Set& set, bool cull) {
    double parts = 0;
    for (const Body& b : set.bodies) parts += static_cast<double>(b.parts.size());
    state.counters["parts_per_body"] = parts / static_cast<double>(set.bodies.size());
    double sink = 0;
    for (auto _ : state) {
        for (const Pair& p : set.pairs) {
            const Body& b = *p.b;
            for (std::size_t i = 0; i < b.parts.size(); ++i) {
                if (cull &&
                    !circles_meet(Vec2::Zero(), p.a->radius, p.map(b.part_centres[i]), b.part_radii[i]))
                    continue;
                Sat2Contact c;
                if (sat_whole_vs_convex(p.a->whole, b.parts[i], p.map, 0, c) == Sat2Outcome::contact)
                    sink += c.depth;
            }
        }
        benchmark::DoNotOptimize(sink);
    }
    state.counters["ns_per_pair"] =
        benchmark::Counter(static_cast<double>(set.pairs.size()),
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

template <class PartPair>
void parts_loop(benchmark::State& state, const Set& set, bool cull, PartPair&& part_pair) {
    double sink = 0;
    Ring2 mapped;
    mapped.reserve(64);
    for (auto _ : state) {
        for (const Pair& p : set.pairs) {
            const Body &a = *p.a, &b = *p.b;
            for (std::size_t j = 0; j < b.parts.size(); ++j) {
                const Vec2 cb = p.map(b.part_centres[j]);
                if (cull && !circles_meet(Vec2::Zero(), a.radius, cb, b.part_radii[j])) continue;
                map_part(b.parts[j], p.map, mapped);
                for (std::size_t i = 0; i < a.parts.size(); ++i)
                    if (!cull || circles_meet(a.part_centres[i], a.part_radii[i], cb, b.part_radii[j]))
                        sink += part_pair(a.parts[i], mapped);
            }
        }
        benchmark::DoNotOptimize(sink);
    }
    state.counters["ns_per_pair"] =
        benchmark::Counter(static_cast<double>(set.pairs.size()),
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void parts_sat(benchmark::State& state, const Set& set, bool cull) {
    parts_loop(state, set, cull, [](const Ring2& a, const Ring2& b) {
        Vec2 n;
        const double d = sat_convex_convex(a, b, n);
        return d > 0 ? d : 0.0;
    });
}

void parts_gjk(benchmark::State& state, const Set& set, bool cull) {
    parts_loop(state, set, cull, [](const Ring2& a, const Ring2& b) {
        Vec2 n;
        const double d = gjk_epa(a, b, n);
        return d > 0 ? d : 0.0;
    });
}

#ifdef SIMPULSE_HAVE_BOX2D
// Convex parts as Box2D polygons (at most 8 vertices: larger parts fanned into 8-gons).
std::vector<std::vector<b2PolygonShape>> box2d_parts(const Body& body) {
    std::vector<std::vector<b2PolygonShape>> out;
    for (const Ring2& part : body.parts) {
        std::vector<b2PolygonShape> shapes;
        for (std::size_t start = 1; start + 1 < part.size(); start += b2_maxPolygonVertices - 2) {
            b2Vec2 v[b2_maxPolygonVertices];
            int n = 0;
            v[n++].Set(static_cast<float>(part[0].x()), static_cast<float>(part[0].y()));
            for (std::size_t k = start; k < part.size() && n < b2_maxPolygonVertices; ++k)
                v[n++].Set(static_cast<float>(part[k].x()), static_cast<float>(part[k].y()));
            b2PolygonShape s;
            s.Set(v, n);
            shapes.push_back(s);
        }
        out.push_back(std::move(shapes));
    }
    return out;
}

void box2d(benchmark::State& state, const Set& set) {
    std::vector<std::vector<std::vector<b2PolygonShape>>> shapes;
    for (const Body& b : set.bodies) shapes.push_back(box2d_parts(b));
    const auto index = [&](const Body* b) { return static_cast<std::size_t>(b - set.bodies.data()); };
    double sink = 0;
    for (auto _ : state) {
        for (const Pair& p : set.pairs) {
            const Body &a = *p.a, &b = *p.b;
            const auto& sa = shapes[index(p.a)];
            const auto& sb = shapes[index(p.b)];
            b2Transform xa, xb;
            xa.SetIdentity();
            xb.Set(b2Vec2(static_cast<float>(p.map.offset.x()), static_cast<float>(p.map.offset.y())),
                   static_cast<float>(std::atan2(p.map.rotation(1, 0), p.map.rotation(0, 0))));
            for (std::size_t j = 0; j < b.parts.size(); ++j) {
                const Vec2 cb = p.map(b.part_centres[j]);
                if (!circles_meet(Vec2::Zero(), a.radius, cb, b.part_radii[j])) continue;
                for (std::size_t i = 0; i < a.parts.size(); ++i) {
                    if (!circles_meet(a.part_centres[i], a.part_radii[i], cb, b.part_radii[j])) continue;
                    for (const b2PolygonShape& pa : sa[i])
                        for (const b2PolygonShape& pb : sb[j]) {
                            b2Manifold m;
                            b2CollidePolygons(&m, &pa, xa, &pb, xb);
                            sink += m.pointCount;
                        }
                }
            }
        }
        benchmark::DoNotOptimize(sink);
    }
    state.counters["ns_per_pair"] =
        benchmark::Counter(static_cast<double>(set.pairs.size()),
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
#endif

// Culled: convex parts paired only when their bounding circles meet (as an engine would); all: every part
// pair (every part of B for the whole polygon), as the seed's comparison without bounding volumes.
void BM_WholeSat_Star(benchmark::State& s) {
    whole_sat(s, star_set(), true);
}
void BM_PartsSat_Star(benchmark::State& s) {
    parts_sat(s, star_set(), true);
}
void BM_PartsGjkEpa_Star(benchmark::State& s) {
    parts_gjk(s, star_set(), true);
}
void BM_WholeSat_Gear(benchmark::State& s) {
    whole_sat(s, gear_set(), true);
}
void BM_PartsSat_Gear(benchmark::State& s) {
    parts_sat(s, gear_set(), true);
}
void BM_PartsGjkEpa_Gear(benchmark::State& s) {
    parts_gjk(s, gear_set(), true);
}
void BM_WholeSatAll_Star(benchmark::State& s) {
    whole_sat(s, star_set(), false);
}
void BM_PartsSatAll_Star(benchmark::State& s) {
    parts_sat(s, star_set(), false);
}
void BM_PartsGjkEpaAll_Star(benchmark::State& s) {
    parts_gjk(s, star_set(), false);
}
void BM_WholeSatAll_Gear(benchmark::State& s) {
    whole_sat(s, gear_set(), false);
}
void BM_PartsSatAll_Gear(benchmark::State& s) {
    parts_sat(s, gear_set(), false);
}
void BM_PartsGjkEpaAll_Gear(benchmark::State& s) {
    parts_gjk(s, gear_set(), false);
}
BENCHMARK(BM_WholeSat_Star);
BENCHMARK(BM_PartsSat_Star);
BENCHMARK(BM_PartsGjkEpa_Star);
BENCHMARK(BM_WholeSat_Gear);
BENCHMARK(BM_PartsSat_Gear);
BENCHMARK(BM_PartsGjkEpa_Gear);
BENCHMARK(BM_WholeSatAll_Star);
BENCHMARK(BM_PartsSatAll_Star);
BENCHMARK(BM_PartsGjkEpaAll_Star);
BENCHMARK(BM_WholeSatAll_Gear);
BENCHMARK(BM_PartsSatAll_Gear);
BENCHMARK(BM_PartsGjkEpaAll_Gear);
#ifdef SIMPULSE_HAVE_BOX2D
void BM_Box2D_Star(benchmark::State& s) {
    box2d(s, star_set());
}
void BM_Box2D_Gear(benchmark::State& s) {
    box2d(s, gear_set());
}
BENCHMARK(BM_Box2D_Star);
BENCHMARK(BM_Box2D_Gear);
#endif

}  // namespace
}  // namespace simpulse

BENCHMARK_MAIN();
