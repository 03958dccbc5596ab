// The cable seed's point (cable-rigid-collision.zh.txt; SEEDS.md section 4): the three-layer test (segment
// box, centreline intervals in the grown body box from cubic roots, exact chords with GJK) against a
// brute-force sampling of the centreline (kSamples + 1 balls along u, each a ball-vs-shape signed distance by
// GJK/EPA), on random segment/body pairs: boxes (half of them) and spheres, capsules, cylinders and convex
// hulls, at random poses, segments near and far.
//
//   Queries/<layered|brute>/<mixed|near>: time per pair over a pool of 4096 pairs; "mixed" is the agreement
//   distribution, "near" keeps only pairs whose segment box meets the body box (layer 1 passes).
//   Agreement/<pairs>: one pass (20000: a quick check; 1000000: the figure in docs/BENCHMARKS.md) over 1e6
//   pairs with both methods, margin 0 (contact = the tube overlaps):
//     miss       brute force has a sample at signed distance <= -1e-9 and the layered test reports nothing;
//     false hit  the layered test reports a contact but every sample is farther than the sampling bound
//                max|c'| / (2 kSamples) + 1e-9 (the ball distance is 1-Lipschitz in its centre, so the true
//                minimum is within that bound of the sampled one: brute force proves there is no contact);
//     grazing    the layered test reports a contact and the sampled minimum is in (-1e-9, bound]: the
//                samples cannot decide; these are re-sampled 100 times more densely and counted again;
//     shallower  both find contact and the layered minimum is above the sampled one by more than 1e-9.
// Run: build/bench/bench_cable_collision --benchmark_filter=Queries --benchmark_repetitions=5
//        --benchmark_report_aggregates_only
//      build/bench/bench_cable_collision --benchmark_filter=Agreement/1000000
#include <simpulse/collision/cable_contacts.h>
#include <simpulse/collision/epa.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace simpulse {
namespace {

constexpr int kSamples = 256;
constexpr double kQueryError = 1e-9;

std::vector<ShapePtr> bodies() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> x(-0.5, 0.5);
    std::vector<Vec3> points(12);
    for (Vec3& p : points) p = Vec3(x(rng), x(rng), x(rng));
    return {make_box(Vec3(0.5, 0.3, 0.2)), make_box(Vec3(1.0, 1.0, 0.1)), make_sphere(0.4),
            make_capsule(0.2, 0.4),        make_cylinder(0.3, 0.3),       make_convex_hull(points)};
}

struct Pair {
    CableSegment segment;
    const Shape* shape = nullptr;
    Pose pose;
};

// Half boxes, the rest spread over the other bodies; the segment's control points within 0.8 of a centre
// anywhere within 1.5 of the body.
Pair random_pair(std::mt19937& rng, const std::vector<ShapePtr>& shapes) {
    std::uniform_real_distribution<double> unit(0, 1), centre(-1.5, 1.5), around(-0.8, 0.8),
        radius(0.02, 0.2);
    Pair p;
    const double pick = unit(rng);
    const std::size_t index = pick < 0.5
                                  ? (pick < 0.35 ? 0 : 1)
                                  : 2 + std::min<std::size_t>(3, static_cast<std::size_t>((pick - 0.5) * 8));
    p.shape = shapes[index].get();
    p.pose.orientation = Quat(unit(rng), unit(rng) - 0.5, unit(rng) - 0.5, unit(rng) - 0.5).normalized();
    p.pose.position = Vec3(0.1 * unit(rng), 0.1 * unit(rng), 0.1 * unit(rng));
    const Vec3 c(centre(rng), centre(rng), centre(rng));
    for (Vec3& q : p.segment.control) q = c + Vec3(around(rng), around(rng), around(rng));
    p.segment.radius = radius(rng);
    return p;
}

// Smallest signed distance of the balls at `samples` + 1 evenly spaced u (the body's support view built
// once, as a brute-force loop would).
double brute_force_minimum(const Pair& p, int samples) {
    const ConvexSupport body(*p.shape, p.pose);
    Shape ball;
    ball.geometry = Sphere{p.segment.radius};
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k <= samples; ++k) {
        const Pose at{cable_point(p.segment, double(k) / samples), Quat::Identity()};
        best = std::min(best, signed_distance(body, ConvexSupport(ball, at)).distance);
    }
    return best;
}

double layered_minimum(const Pair& p) {
    CableContacts contacts;
    collide_cable_shape(p.segment, *p.shape, p.pose, CableCollideSettings{}, contacts);
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < contacts.count; ++i) best = std::min(best, -contacts.items[i].depth);
    return best;
}

std::vector<Pair> pool(bool near_only) {
    static const std::vector<ShapePtr> shapes = bodies();
    std::mt19937 rng(near_only ? 21 : 20);
    std::vector<Pair> pairs;
    while (pairs.size() < 4096) {
        const Pair p = random_pair(rng, shapes);
        if (near_only && !cable_segment_aabb(p.segment).overlaps(compute_aabb(*p.shape, p.pose))) continue;
        pairs.push_back(p);
    }
    return pairs;
}

void BM_Queries(benchmark::State& state) {
    const bool brute = state.range(0) == 1, near_only = state.range(1) == 1;
    const std::vector<Pair> pairs = pool(near_only);
    double sink = 0;
    for (auto _ : state)
        for (const Pair& p : pairs) sink += brute ? brute_force_minimum(p, kSamples) : layered_minimum(p);
    benchmark::DoNotOptimize(sink);
    state.SetLabel(std::string(brute ? "brute force" : "layered") + (near_only ? ", near" : ", mixed"));
    state.counters["ns_per_pair"] =
        benchmark::Counter(static_cast<double>(pairs.size()),
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.counters["pairs_per_s"] =
        benchmark::Counter(static_cast<double>(pairs.size()), benchmark::Counter::kIsIterationInvariantRate);
}

struct Tally {
    double pairs = 0, layer1_rejects = 0, layer2_rejects = 0, brute_contacts = 0, layered_contacts = 0;
    double misses = 0, false_hits = 0, grazing = 0, grazing_false_at_100x = 0;
    double shallower = 0, worst_excess = 0;
};

void count_layers(const Pair& p, Tally& t) {
    const Aabb body = compute_aabb(*p.shape, p.pose);
    if (!cable_segment_aabb(p.segment).overlaps(body))
        ++t.layer1_rejects;
    else if (cable_intervals_in_box(p.segment, body, p.segment.radius).empty())
        ++t.layer2_rejects;
}

void compare(const Pair& p, Tally& t) {
    const double sampled = brute_force_minimum(p, kSamples), layered = layered_minimum(p);
    const double bound = cable_speed_bound(p.segment) / (2.0 * kSamples) + kQueryError;
    const bool brute_hit = sampled <= -kQueryError, layered_hit = layered <= 0;
    t.brute_contacts += brute_hit;
    t.layered_contacts += layered_hit;
    if (brute_hit && !layered_hit) ++t.misses;
    if (layered_hit && sampled > bound) ++t.false_hits;
    if (brute_hit && layered_hit && layered > sampled + kQueryError) ++t.shallower;
    if (brute_hit && layered_hit) t.worst_excess = std::max(t.worst_excess, layered - sampled);
    if (layered_hit && sampled > -kQueryError && sampled <= bound) {
        ++t.grazing;  // decide with 100x the samples (bound 100x smaller)
        const double fine = brute_force_minimum(p, 100 * kSamples);
        if (fine > cable_speed_bound(p.segment) / (200.0 * kSamples) + kQueryError) ++t.grazing_false_at_100x;
    }
}

void BM_Agreement(benchmark::State& state) {
    const std::vector<ShapePtr> shapes = bodies();
    Tally t;
    for (auto _ : state) {
        std::mt19937 rng(1);
        for (std::int64_t i = 0; i < state.range(0); ++i) {
            const Pair p = random_pair(rng, shapes);
            ++t.pairs;
            count_layers(p, t);
            compare(p, t);
        }
    }
    state.counters["pairs"] = t.pairs;
    state.counters["layer1_rejects"] = t.layer1_rejects;
    state.counters["layer2_rejects"] = t.layer2_rejects;
    state.counters["brute_contacts"] = t.brute_contacts;
    state.counters["layered_contacts"] = t.layered_contacts;
    state.counters["misses"] = t.misses;
    state.counters["false_hits"] = t.false_hits;
    state.counters["grazing"] = t.grazing;
    state.counters["grazing_false_at_100x"] = t.grazing_false_at_100x;
    state.counters["shallower"] = t.shallower;
    state.counters["worst_excess"] = t.worst_excess;
}

BENCHMARK(BM_Queries)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Agreement)->Arg(20000)->Arg(1000000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace simpulse

BENCHMARK_MAIN();
