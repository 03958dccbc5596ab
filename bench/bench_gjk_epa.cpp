// Per-call cost of GJK and EPA for every pair of convex shape types, against libccd 2.1 run in the same
// process on the same pairs through the same support mappings (so the comparison is algorithm against
// algorithm).
//
// Each comparison is paired: one benchmark iteration runs our query over the whole pair set, then libccd's,
// and times each with the thread's CPU clock, so both see the same machine state. Counters per call: ours_ns,
// ccd_ns, ratio = ccd_ns / ours_ns (> 1: ours faster); with --benchmark_repetitions the reported value is the
// median over repetitions.
//
//   intersect/vs_ccd_gjk, vs_ccd_mpr    gjk_intersect against ccdGJKIntersect / ccdMPRIntersect, half of the
//                                       pairs overlapping;
//   penetration/vs_ccd_epa, vs_ccd_mpr  signed_distance (GJK on the cores + EPA) on overlapping pairs against
//                                       ccdGJKPenetration (GJK + EPA) / ccdMPRPenetration at libccd's default
//                                       tolerances (1e-4, absolute); *_1e-9: libccd at 1e-9, about ours;
//   penetration/full_vs_ccd_epa         gjk() + epa() on the full shapes (no core split) against
//                                       ccdGJKPenetration;
//   distance/ours                       gjk() on the full shapes and signed_distance on separated pairs
//                                       (libccd has no distance query).
// The summary printed at the end also gives the median depth error of each method against our signed_distance
// at a 1e-12 relative tolerance.
//
// Run: bench_gjk_epa --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "thread_clock.h"

#include <simpulse/collision/epa.h>
#include <simpulse/collision/gjk.h>
#include <simpulse/collision/support.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#ifdef SIMPULSE_HAVE_CCD
#include <ccd/ccd.h>
#endif

namespace {

using namespace simpulse;

constexpr std::array<ShapeType, 6> kTypes{ShapeType::sphere,   ShapeType::box,  ShapeType::capsule,
                                          ShapeType::cylinder, ShapeType::cone, ShapeType::convex_hull};
constexpr int kPairsPerSet = 256;

// Random shape of the type with sizes in [0.5, 1.5]; hulls are quickhull'ed from 12 random points on an
// ellipsoid (so they carry adjacency and centroid, as in a scene).
ShapePtr random_shape(ShapeType type, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> size(0.5, 1.5);
    switch (type) {
        case ShapeType::sphere:
            return make_sphere(0.5 * size(rng));
        case ShapeType::box:
            return make_box(0.5 * Vec3(size(rng), size(rng), size(rng)));
        case ShapeType::capsule:
            return make_capsule(0.3 * size(rng), 0.5 * size(rng));
        case ShapeType::cylinder:
            return make_cylinder(0.5 * size(rng), 0.5 * size(rng));
        case ShapeType::cone:
            return make_cone(0.5 * size(rng), 0.5 * size(rng));
        default: {
            std::normal_distribution<double> g;
            const Vec3 axes = 0.5 * Vec3(size(rng), size(rng), size(rng));
            std::vector<Vec3> v;
            for (int i = 0; i < 12; ++i)
                v.push_back(Vec3(g(rng), g(rng), g(rng)).normalized().cwiseProduct(axes));
            return make_convex_hull(v);
        }
    }
}

Quat random_rotation(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    return Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
}

struct Pair {
    ShapePtr a, b;
    ConvexSupport va, vb;
    double reference = 0;  // signed distance at tight tolerances
};

struct PairSets {
    std::vector<Pair> mixed, separated, overlapping;
};

// Pairs of the two types with B's centre at a random distance up to the sum of bounding sizes from A's: about
// half overlap. Each set holds kPairsPerSet pairs.
PairSets make_sets(ShapeType ta, ShapeType tb, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g;
    std::uniform_real_distribution<double> u(0, 1);
    PairSets sets;
    SignedDistanceSettings tight;
    tight.gjk.relative_tolerance = 1e-12;
    tight.epa.relative_tolerance = 1e-12;
    tight.gjk.max_iterations = 1000;
    tight.epa.max_iterations = 1000;
    while (sets.mixed.size() < kPairsPerSet || sets.separated.size() < kPairsPerSet ||
           sets.overlapping.size() < kPairsPerSet) {
        Pair p;
        p.a = random_shape(ta, rng);
        p.b = random_shape(tb, rng);
        const Pose pa{Vec3(g(rng), g(rng), g(rng)), random_rotation(rng)};
        const Vec3 dir = Vec3(g(rng), g(rng), g(rng)).normalized();
        const Pose pb{pa.position + dir * (1.6 * u(rng)), random_rotation(rng)};
        p.va = ConvexSupport(*p.a, pa);
        p.vb = ConvexSupport(*p.b, pb);
        p.reference = signed_distance(p.va, p.vb, tight).distance;
        if (sets.mixed.size() < kPairsPerSet) sets.mixed.push_back(p);
        if (p.reference > 0 && sets.separated.size() < kPairsPerSet) sets.separated.push_back(p);
        if (p.reference < 0 && sets.overlapping.size() < kPairsPerSet) sets.overlapping.push_back(p);
    }
    return sets;
}

std::vector<PairSets>& all_sets() {
    static std::vector<PairSets> sets;  // built once in main before any benchmark runs
    return sets;
}

std::vector<std::pair<ShapeType, ShapeType>> combos() {
    std::vector<std::pair<ShapeType, ShapeType>> c;
    for (std::size_t i = 0; i < kTypes.size(); ++i)
        for (std::size_t j = i; j < kTypes.size(); ++j) c.push_back({kTypes[i], kTypes[j]});
    return c;
}

std::string combo_name(std::pair<ShapeType, ShapeType> c) {
    return std::string(shape_type_name(c.first)) + "-" + shape_type_name(c.second);
}

#ifdef SIMPULSE_HAVE_CCD
void ccd_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const Vec3 p = static_cast<const ConvexSupport*>(obj)->support(Vec3(dir->v[0], dir->v[1], dir->v[2]));
    out->v[0] = p.x();
    out->v[1] = p.y();
    out->v[2] = p.z();
}

void ccd_center(const void* obj, ccd_vec3_t* out) {
    const Vec3 p = static_cast<const ConvexSupport*>(obj)->center();
    out->v[0] = p.x();
    out->v[1] = p.y();
    out->v[2] = p.z();
}

ccd_t make_ccd(double tolerance) {
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.center1 = ccd_center;
    ccd.center2 = ccd_center;
    ccd.max_iterations = 1000;
    if (tolerance > 0) {
        ccd.epa_tolerance = tolerance;
        ccd.mpr_tolerance = tolerance;
    }
    return ccd;
}
#endif

// Median depth error against the reference, per method, filled while the penetration benchmarks set up.
std::map<std::string, double>& depth_errors() {
    static std::map<std::string, double> errors;
    return errors;
}

template <class Depth>
void record_depth_error(const std::string& key, const std::vector<Pair>& pairs, Depth depth) {
    std::vector<double> err;
    for (const Pair& p : pairs) err.push_back(std::abs(depth(p) - p.reference));  // signed distances
    std::nth_element(err.begin(), err.begin() + err.size() / 2, err.end());
    depth_errors()[key] = err[err.size() / 2];
}

// One iteration: `ours` over every pair, then `peer` over every pair, each timed on the thread's CPU clock.
template <class Ours, class Peer>
void paired(benchmark::State& state, const std::vector<Pair>& pairs, Ours ours, Peer peer) {
    double t_ours = 0, t_peer = 0;
    for (auto _ : state) {
        const double t0 = bench::thread_cpu_seconds();
        for (const Pair& p : pairs) benchmark::DoNotOptimize(ours(p));
        const double t1 = bench::thread_cpu_seconds();
        for (const Pair& p : pairs) benchmark::DoNotOptimize(peer(p));
        const double t2 = bench::thread_cpu_seconds();
        t_ours += t1 - t0;
        t_peer += t2 - t1;
    }
    const double calls = static_cast<double>(state.iterations()) * static_cast<double>(pairs.size());
    state.counters["ours_ns"] = 1e9 * t_ours / calls;
    state.counters["ccd_ns"] = 1e9 * t_peer / calls;
    state.counters["ratio"] = t_peer / t_ours;
}

// Ours only (no libccd equivalent).
template <class Ours>
void alone(benchmark::State& state, const std::vector<Pair>& pairs, Ours ours) {
    double t_ours = 0;
    for (auto _ : state) {
        const double t0 = bench::thread_cpu_seconds();
        for (const Pair& p : pairs) benchmark::DoNotOptimize(ours(p));
        t_ours += bench::thread_cpu_seconds() - t0;
    }
    state.counters["ours_ns"] = 1e9 * t_ours / (static_cast<double>(state.iterations()) * pairs.size());
}

double ours_signed_distance(const Pair& p) {
    return signed_distance(p.va, p.vb).distance;
}

double ours_full_epa(const Pair& p) {
    const GjkResult g = gjk(p.va, p.vb);
    return g.intersecting ? -epa(p.va, p.vb, g.simplex).depth : g.distance;
}

void register_all() {
    const auto c = combos();
    for (std::size_t k = 0; k < c.size(); ++k) {
        const std::string n = combo_name(c[k]);
        benchmark::RegisterBenchmark(("distance/ours_gjk_full/" + n).c_str(), [k](benchmark::State& s) {
            alone(s, all_sets()[k].separated, [](const Pair& p) { return gjk(p.va, p.vb).distance; });
        });
        benchmark::RegisterBenchmark(
            ("distance/ours_signed_distance/" + n).c_str(),
            [k](benchmark::State& s) { alone(s, all_sets()[k].separated, ours_signed_distance); });
        record_depth_error("ours_signed_distance/" + n, all_sets()[k].overlapping, ours_signed_distance);
        record_depth_error("ours_gjk_epa/" + n, all_sets()[k].overlapping, ours_full_epa);
#ifdef SIMPULSE_HAVE_CCD
        benchmark::RegisterBenchmark(("intersect/vs_ccd_gjk/" + n).c_str(), [k](benchmark::State& s) {
            const ccd_t ccd = make_ccd(0);
            paired(
                s, all_sets()[k].mixed, [](const Pair& p) { return gjk_intersect(p.va, p.vb); },
                [&](const Pair& p) { return ccdGJKIntersect(&p.va, &p.vb, &ccd); });
        });
        benchmark::RegisterBenchmark(("intersect/vs_ccd_mpr/" + n).c_str(), [k](benchmark::State& s) {
            const ccd_t ccd = make_ccd(0);
            paired(
                s, all_sets()[k].mixed, [](const Pair& p) { return gjk_intersect(p.va, p.vb); },
                [&](const Pair& p) { return ccdMPRIntersect(&p.va, &p.vb, &ccd); });
        });
        for (const double tol : {0.0, 1e-9}) {
            for (const bool mpr : {false, true}) {
                const std::string method =
                    std::string(mpr ? "ccd_mpr" : "ccd_epa") + (tol > 0 ? "_1e-9" : "");
                const auto peer = [ccd = make_ccd(tol), mpr](const Pair& p) {
                    ccd_real_t depth = 0;
                    ccd_vec3_t dir, pos;
                    if (mpr) {
                        ccdMPRPenetration(&p.va, &p.vb, &ccd, &depth, &dir, &pos);
                    } else {
                        ccdGJKPenetration(&p.va, &p.vb, &ccd, &depth, &dir, &pos);
                    }
                    return -depth;
                };
                record_depth_error(method + "/" + n, all_sets()[k].overlapping, peer);
                benchmark::RegisterBenchmark(
                    ("penetration/vs_" + method + "/" + n).c_str(), [k, peer](benchmark::State& s) {
                        paired(s, all_sets()[k].overlapping, ours_signed_distance, peer);
                    });
            }
        }
        benchmark::RegisterBenchmark(("penetration/full_vs_ccd_epa/" + n).c_str(), [k](benchmark::State& s) {
            const ccd_t ccd = make_ccd(0);
            paired(s, all_sets()[k].overlapping, ours_full_epa, [&](const Pair& p) {
                ccd_real_t depth = 0;
                ccd_vec3_t dir, pos;
                ccdGJKPenetration(&p.va, &p.vb, &ccd, &depth, &dir, &pos);
                return -depth;
            });
        });
#endif
    }
}

// Console output plus, at the end, a table of the per-call counters (medians over repetitions) and the depth
// errors.
class RatioReporter : public benchmark::ConsoleReporter {
  public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            const std::string name = r.run_name.function_name;
            const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
            if (!median && !(r.run_type == Run::RT_Iteration && !seen_median_.count(name))) continue;
            if (median) seen_median_.insert(name);
            for (const auto& [key, counter] : r.counters) values_[name + ":" + key] = counter.value;
        }
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        auto v = [&](const std::string& key) {
            const auto it = values_.find(key);
            return it == values_.end() ? 0.0 : it->second;
        };
        auto err = [](const std::string& key) {
            const auto it = depth_errors().find(key);
            return it == depth_errors().end() ? 0.0 : it->second;
        };
        std::printf(
            "\nCPU ns per call (median over repetitions); ratio = libccd / ours, > 1: ours faster.\n");
        std::printf(
            "%-18s | %7s %7s %5s | %7s %7s %5s | %7s %7s | %7s %7s %5s | %7s %7s %5s | %7s %5s | %7s %5s\n",
            "pair", "isect", "ccd_gjk", "ratio", "isect", "ccd_mpr", "ratio", "gjk", "sd", "pen_sd",
            "ccd_epa", "ratio", "pen_sd", "ccd_mpr", "ratio", "epa1e-9", "ratio", "mpr1e-9", "ratio");
        for (const auto& c : combos()) {
            const std::string n = combo_name(c);
            const std::string gi = "intersect/vs_ccd_gjk/" + n + ":", mi = "intersect/vs_ccd_mpr/" + n + ":";
            const std::string pe = "penetration/vs_ccd_epa/" + n + ":",
                              pm = "penetration/vs_ccd_mpr/" + n + ":";
            const std::string pe9 = "penetration/vs_ccd_epa_1e-9/" + n + ":";
            const std::string pm9 = "penetration/vs_ccd_mpr_1e-9/" + n + ":";
            std::printf(
                "%-18s | %7.0f %7.0f %5.2f | %7.0f %7.0f %5.2f | %7.0f %7.0f | %7.0f %7.0f %5.2f | %7.0f "
                "%7.0f "
                "%5.2f | %7.0f %5.2f | %7.0f %5.2f\n",
                n.c_str(), v(gi + "ours_ns"), v(gi + "ccd_ns"), v(gi + "ratio"), v(mi + "ours_ns"),
                v(mi + "ccd_ns"), v(mi + "ratio"), v("distance/ours_gjk_full/" + n + ":ours_ns"),
                v("distance/ours_signed_distance/" + n + ":ours_ns"), v(pe + "ours_ns"), v(pe + "ccd_ns"),
                v(pe + "ratio"), v(pm + "ours_ns"), v(pm + "ccd_ns"), v(pm + "ratio"), v(pe9 + "ccd_ns"),
                v(pe9 + "ratio"), v(pm9 + "ccd_ns"), v(pm9 + "ratio"));
        }
        std::printf("\nFull shapes (no core split): gjk()+epa() vs ccdGJKPenetration, CPU ns per call\n");
        for (const auto& c : combos()) {
            const std::string f = "penetration/full_vs_ccd_epa/" + combo_name(c) + ":";
            std::printf("%-18s %9.0f %9.0f %6.2f\n", combo_name(c).c_str(), v(f + "ours_ns"), v(f + "ccd_ns"),
                        v(f + "ratio"));
        }
        std::printf("\nMedian |depth error| on overlapping pairs:\n%-18s %10s %10s %10s %10s %10s %10s\n",
                    "pair", "ours_sd", "ours_epa", "ccd_epa", "ccd_mpr", "ccd_epa9", "ccd_mpr9");
        for (const auto& c : combos()) {
            const std::string n = combo_name(c);
            std::printf("%-18s %10.2e %10.2e %10.2e %10.2e %10.2e %10.2e\n", n.c_str(),
                        err("ours_signed_distance/" + n), err("ours_gjk_epa/" + n), err("ccd_epa/" + n),
                        err("ccd_mpr/" + n), err("ccd_epa_1e-9/" + n), err("ccd_mpr_1e-9/" + n));
        }
    }

  private:
    std::map<std::string, double> values_;
    std::set<std::string> seen_median_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    const auto c = combos();
    for (std::size_t k = 0; k < c.size(); ++k)
        all_sets().push_back(make_sets(c[k].first, c[k].second, 1000 + k));
    register_all();
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
