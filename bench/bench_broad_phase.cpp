// Broad-phase benchmark: per-step update + pair finding of the dynamic AABB tree (BroadPhase) against brute
// force O(n^2) and a sort-and-sweep baseline written here (Baraff 1992 / Cohen et al. 1995 I-COLLIDE style: a
// persistent order by min x kept sorted by insertion sort, then a sweep), on the same precomputed motion.
// Scene: n randomly rotated boxes (5% static) in a cube sized for ~3 tight-box overlaps per body; every
// dynamic body jitters by 0.5% of its size per step (a settling pile) and a fraction moves fast (0.3 per
// step, ~half a body size, back and forth). The narrow phase (collide() on every tight-overlap pair) is
// measured on the same scene as the yardstick the broad phase must stay well below. Ratios are printed after
// the runs.
#include <simpulse/collision/broad_phase.h>
#include <simpulse/collision/narrow_phase.h>
#include <simpulse/collision/shape.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#ifdef SIMPULSE_HAVE_BULLET
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wcast-align"
#pragma GCC diagnostic ignored "-Woverloaded-virtual"
#pragma GCC diagnostic ignored "-Wnull-dereference"
#pragma GCC diagnostic ignored "-Wpedantic"
#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#pragma GCC diagnostic pop
#endif

namespace simpulse {
namespace {

constexpr int kPeriod = 32;  // motion is periodic, so frames can be replayed for any iteration count

struct Scene {
    int n = 0;
    int fast_percent = 0;
    std::vector<ShapePtr> shapes;
    std::vector<Quat> orientations;
    std::vector<bool> is_static;
    // frames[f][i]: tight box and position of body i at frame f; displacement from frame f - 1.
    std::vector<std::vector<Aabb>> boxes;
    std::vector<std::vector<Vec3>> positions, displacements;
};

Scene make_scene(int n, int fast_percent) {
    Scene s;
    s.n = n;
    s.fast_percent = fast_percent;
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> u(0, 1), sym(-1, 1);
    std::normal_distribution<double> g;
    // A rotated box of half size ~0.45 has a tight box of half size ~0.7; for ~3 overlaps per body the volume
    // per body is (2 * 1.4)^3 / 3 ~ 7.3.
    const double side = std::cbrt(7.3 * n);
    std::vector<Vec3> start(static_cast<std::size_t>(n)), velocity(static_cast<std::size_t>(n), Vec3::Zero());
    std::vector<std::array<Vec3, kPeriod / 2>> jitter(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        s.shapes.push_back(make_box(Vec3(0.3 + 0.3 * u(rng), 0.3 + 0.3 * u(rng), 0.3 + 0.3 * u(rng))));
        s.orientations.push_back(Quat(g(rng), g(rng), g(rng), g(rng)).normalized());
        s.is_static.push_back(u(rng) < 0.05);
        start[k] = Vec3(u(rng), u(rng), u(rng)) * side;
        if (!s.is_static.back() && u(rng) < fast_percent / 100.0)
            velocity[k] = 0.3 * Vec3(sym(rng), sym(rng), sym(rng)).normalized();
        for (auto& j : jitter[k]) j = 0.005 * Vec3(sym(rng), sym(rng), sym(rng));
    }
    s.boxes.assign(kPeriod, {});
    s.positions.assign(kPeriod, {});
    s.displacements.assign(kPeriod, {});
    std::vector<Vec3> pos = start;
    for (int f = 0; f < kPeriod; ++f) {
        for (int i = 0; i < n; ++i) {
            const auto k = static_cast<std::size_t>(i);
            Vec3 d = Vec3::Zero();
            if (!s.is_static[k]) {
                // First half of the period forwards, second half the exact reverse: positions repeat.
                const int h = f % (kPeriod / 2);
                d = f < kPeriod / 2
                        ? Vec3(velocity[k] + jitter[k][static_cast<std::size_t>(h)])
                        : Vec3(-velocity[k] - jitter[k][static_cast<std::size_t>(kPeriod / 2 - 1 - h)]);
            }
            pos[k] += d;
            s.positions[static_cast<std::size_t>(f)].push_back(pos[k]);
            s.displacements[static_cast<std::size_t>(f)].push_back(d);
            s.boxes[static_cast<std::size_t>(f)].push_back(
                compute_aabb(*s.shapes[k], Pose{pos[k], s.orientations[k]}));
        }
    }
    return s;
}

void BM_Tree(benchmark::State& state, const Scene& s) {
    BroadPhase bp;
    std::vector<int> proxy;
    for (int i = 0; i < s.n; ++i)
        proxy.push_back(bp.add(s.boxes[kPeriod - 1][static_cast<std::size_t>(i)],
                               static_cast<std::uint32_t>(i), s.is_static[static_cast<std::size_t>(i)]));
    bp.update_pairs();
    int frame = 0;
    std::size_t pairs = 0, reinserted = 0, steps = 0;
    for (auto _ : state) {
        const auto& boxes = s.boxes[static_cast<std::size_t>(frame)];
        const auto& disp = s.displacements[static_cast<std::size_t>(frame)];
        for (int i = 0; i < s.n; ++i) {
            const auto k = static_cast<std::size_t>(i);
            if (!s.is_static[k]) reinserted += bp.move(proxy[k], boxes[k], disp[k]);
        }
        bp.update_pairs();
        pairs += bp.pairs().size();
        ++steps;
        benchmark::DoNotOptimize(bp.pairs().data());
        frame = (frame + 1) % kPeriod;
    }
    state.counters["pairs"] = static_cast<double>(pairs) / static_cast<double>(steps);
    state.counters["reinserted"] = static_cast<double>(reinserted) / static_cast<double>(steps);
    state.counters["height"] = bp.tree(false).height();
}

struct Pair {
    std::uint32_t a, b;
};

// Sort-and-sweep baseline, written for speed so the comparison is fair: the swept array holds each body's
// full bounds (contiguous, no indirection in the sweep), its order persists between steps and is repaired by
// insertion sort (near-linear for coherent motion), and the sweep axis is x (the scene is isotropic).
void BM_SweepAndPrune(benchmark::State& state, const Scene& s) {
    struct Entry {
        double min_x, max_x;
        Vec3 min, max;
        std::uint32_t id;
        bool is_static;
    };
    std::vector<Entry> sweep(static_cast<std::size_t>(s.n));
    for (std::uint32_t i = 0; i < sweep.size(); ++i) sweep[i].id = i, sweep[i].is_static = s.is_static[i];
    std::vector<Pair> pairs;
    int frame = 0;
    std::size_t total = 0, steps = 0;
    for (auto _ : state) {
        const auto& boxes = s.boxes[static_cast<std::size_t>(frame)];
        for (Entry& e : sweep) {
            const Aabb& b = boxes[e.id];
            e.min_x = b.min.x(), e.max_x = b.max.x(), e.min = b.min, e.max = b.max;
        }
        for (std::size_t i = 1; i < sweep.size(); ++i) {
            if (!(sweep[i].min_x < sweep[i - 1].min_x)) continue;
            const Entry v = sweep[i];
            std::size_t j = i;
            while (j > 0 && sweep[j - 1].min_x > v.min_x) {
                sweep[j] = sweep[j - 1];
                --j;
            }
            sweep[j] = v;
        }
        pairs.clear();
        for (std::size_t i = 0; i < sweep.size(); ++i) {
            const Entry& p = sweep[i];
            for (std::size_t j = i + 1; j < sweep.size() && sweep[j].min_x <= p.max_x; ++j) {
                const Entry& q = sweep[j];
                if (p.is_static && q.is_static) continue;
                if ((p.min.array() > q.max.array()).any() || (q.min.array() > p.max.array()).any()) continue;
                pairs.push_back({std::min(p.id, q.id), std::max(p.id, q.id)});
            }
        }
        // Same output contract as the broad phase: sorted by user id.
        std::sort(pairs.begin(), pairs.end(),
                  [](Pair x, Pair y) { return x.a < y.a || (x.a == y.a && x.b < y.b); });
        total += pairs.size();
        ++steps;
        benchmark::DoNotOptimize(pairs.data());
        frame = (frame + 1) % kPeriod;
    }
    state.counters["pairs"] = static_cast<double>(total) / static_cast<double>(steps);
}

void BM_BruteForce(benchmark::State& state, const Scene& s) {
    std::vector<Pair> pairs;
    int frame = 0;
    std::size_t total = 0, steps = 0;
    for (auto _ : state) {
        const auto& boxes = s.boxes[static_cast<std::size_t>(frame)];
        pairs.clear();
        for (std::uint32_t i = 0; i < boxes.size(); ++i)
            for (std::uint32_t j = i + 1; j < boxes.size(); ++j)
                if (!(s.is_static[i] && s.is_static[j]) && boxes[i].overlaps(boxes[j]))
                    pairs.push_back({i, j});
        total += pairs.size();
        ++steps;
        benchmark::DoNotOptimize(pairs.data());
        frame = (frame + 1) % kPeriod;
    }
    state.counters["pairs"] = static_cast<double>(total) / static_cast<double>(steps);
}

#ifdef SIMPULSE_HAVE_BULLET
// Bullet's broad phases as peers (single precision, its own margins; pairs kept in a hash table, unsorted):
// btDbvtBroadphase (two dynamic AABB trees) and bt32BitAxisSweep3 (incremental sweep and prune on three
// axes).
btVector3 to_bullet(const Vec3& v) {
    return {static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()), static_cast<btScalar>(v.z())};
}

void run_bullet(benchmark::State& state, const Scene& s, btBroadphaseInterface& bp) {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    std::vector<btBroadphaseProxy*> proxies;
    for (int i = 0; i < s.n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        const Aabb& b = s.boxes[kPeriod - 1][k];
        const bool fixed = s.is_static[k];
        const int group = fixed ? btBroadphaseProxy::StaticFilter : btBroadphaseProxy::DefaultFilter;
        const int mask = fixed ? btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter
                               : btBroadphaseProxy::AllFilter;
        proxies.push_back(bp.createProxy(to_bullet(b.min), to_bullet(b.max), BOX_SHAPE_PROXYTYPE, nullptr,
                                         group, mask, &dispatcher));
    }
    bp.calculateOverlappingPairs(&dispatcher);
    int frame = 0;
    std::size_t total = 0, steps = 0;
    for (auto _ : state) {
        const auto& boxes = s.boxes[static_cast<std::size_t>(frame)];
        for (int i = 0; i < s.n; ++i) {
            const auto k = static_cast<std::size_t>(i);
            if (!s.is_static[k])
                bp.setAabb(proxies[k], to_bullet(boxes[k].min), to_bullet(boxes[k].max), &dispatcher);
        }
        bp.calculateOverlappingPairs(&dispatcher);
        total += static_cast<std::size_t>(bp.getOverlappingPairCache()->getNumOverlappingPairs());
        ++steps;
        frame = (frame + 1) % kPeriod;
    }
    state.counters["pairs"] = static_cast<double>(total) / static_cast<double>(steps);
    for (btBroadphaseProxy* p : proxies) bp.destroyProxy(p, &dispatcher);
}

void BM_BulletDbvt(benchmark::State& state, const Scene& s) {
    btDbvtBroadphase bp;
    run_bullet(state, s, bp);
}

void BM_BulletAxisSweep(benchmark::State& state, const Scene& s) {
    Aabb world;
    for (const auto& frame : s.boxes)
        for (const Aabb& b : frame) world.grow(b);
    world = world.inflated(1.0);
    bt32BitAxisSweep3 bp(to_bullet(world.min), to_bullet(world.max), static_cast<unsigned>(s.n + 16));
    run_bullet(state, s, bp);
}
#endif

// The yardstick: collide() on every pair whose tight boxes overlap (a lower bound of the narrow phase's work
// on the broad phase's output).
void BM_NarrowPhase(benchmark::State& state, const Scene& s) {
    std::vector<std::vector<Pair>> frame_pairs(kPeriod);
    for (int f = 0; f < kPeriod; ++f) {
        const auto& boxes = s.boxes[static_cast<std::size_t>(f)];
        std::vector<std::uint32_t> order(boxes.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](auto a, auto b) { return boxes[a].min.x() < boxes[b].min.x(); });
        for (std::size_t i = 0; i < order.size(); ++i)
            for (std::size_t j = i + 1;
                 j < order.size() && boxes[order[j]].min.x() <= boxes[order[i]].max.x(); ++j)
                if (!(s.is_static[order[i]] && s.is_static[order[j]]) &&
                    boxes[order[i]].overlaps(boxes[order[j]]))
                    frame_pairs[static_cast<std::size_t>(f)].push_back({order[i], order[j]});
    }
    std::vector<Manifold> manifolds;
    const CollideSettings settings;
    int frame = 0;
    std::size_t total = 0, steps = 0;
    for (auto _ : state) {
        manifolds.clear();
        const auto& pos = s.positions[static_cast<std::size_t>(frame)];
        for (const Pair& p : frame_pairs[static_cast<std::size_t>(frame)])
            collide(*s.shapes[p.a], Pose{pos[p.a], s.orientations[p.a]}, *s.shapes[p.b],
                    Pose{pos[p.b], s.orientations[p.b]}, settings, manifolds);
        total += manifolds.size();
        ++steps;
        benchmark::DoNotOptimize(manifolds.data());
        frame = (frame + 1) % kPeriod;
    }
    state.counters["manifolds"] = static_cast<double>(total) / static_cast<double>(steps);
}

// Collects the median (or the single run without repetitions) of every benchmark and prints the ratios of the
// alternatives to the tree for each configuration.
class RatioReporter : public benchmark::ConsoleReporter {
  public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
            // Names are "<method>/<bodies>/<fast per cent>".
            const std::string& full = r.run_name.function_name;
            const std::size_t slash = full.find('/');
            times_[full.substr(slash + 1)][full.substr(0, slash)] = r.GetAdjustedCPUTime();
        }
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        std::printf("\nRatios to BM_Tree (CPU time / tree CPU time, medians):\n");
        for (const auto& [args, by_name] : times_) {
            const auto tree = by_name.find("BM_Tree");
            if (tree == by_name.end()) continue;
            std::printf("  %-12s", args.c_str());
            for (const auto& [name, t] : by_name)
                if (name != "BM_Tree") std::printf("  %s %.2f", name.c_str() + 3, t / tree->second);
            std::printf("\n");
        }
    }

  private:
    std::map<std::string, std::map<std::string, double>> times_;
};

}  // namespace
}  // namespace simpulse

int main(int argc, char** argv) {
    using namespace simpulse;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    // Scenes are built once, before any timing, and owned here. {bodies, per cent of fast movers}; brute
    // force only up to 10,000 bodies (50M box tests per step).
    const std::vector<std::pair<int, int>> configs{{1000, 5}, {10000, 5}, {10000, 50}};
    std::vector<Scene> scenes;
    scenes.reserve(configs.size());
    for (const auto& [n, fast] : configs) scenes.push_back(make_scene(n, fast));
    using Method = void (*)(benchmark::State&, const Scene&);
    auto add = [](const char* method, Method fn, const Scene& scene) {
        std::string name(method);
        name += '/';
        name += std::to_string(scene.n);
        name += '/';
        name += std::to_string(scene.fast_percent);
        benchmark::RegisterBenchmark(name.c_str(), [fn, &scene](benchmark::State& st) {
            fn(st, scene);
        })->Unit(benchmark::kMicrosecond);
    };
    for (const Scene& s : scenes) {
        add("BM_Tree", BM_Tree, s);
        add("BM_SweepAndPrune", BM_SweepAndPrune, s);
        if (s.fast_percent == 5) add("BM_BruteForce", BM_BruteForce, s);
        add("BM_NarrowPhase", BM_NarrowPhase, s);
#ifdef SIMPULSE_HAVE_BULLET
        add("BM_BulletDbvt", BM_BulletDbvt, s);
        add("BM_BulletAxisSweep", BM_BulletAxisSweep, s);
#endif
    }
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
