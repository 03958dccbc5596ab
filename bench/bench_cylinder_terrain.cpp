// Cost of the analytic cylinder-terrain algorithm (cylinder_terrain.h; Strashnov & Torgashev 2020) against
// the generic convex-vs-height-field path (mesh_contacts.h: the cylinder as a convex support mapping against
// each cell triangle, GJK/EPA, internal-edge care, coplanar merging) on the same barrels and fields.
//
//   BM_PerQuery/<method>/<field>   one cylinder-field query per iteration, cycling over 512 resting barrel
//   poses
//                                  (a third standing, a third lying, a third tilted on the rim; 0-3 mm deep,
//                                  margin 2 mm as in the engine); fields: "bumpy" (256 x 256, 0.1 m cells,
//                                  hills and noise) and "flat" (the flat-patch path).
//   BM_Barrels/<method>/<placement> one collision stage: the 1,000 barrel-field queries of a 1024 x 1024
//   field
//                                  (0.1 m cells); "resting" barrels touch the terrain, "hovering" ones are 1
//                                  m above it (the pyramid rejects them: a large field costs nothing where
//                                  nothing is near).
// The analytic method calls collide() (the dispatch runs the analytic algorithm for cylinder-height-field
// pairs); the generic one calls collide_cylinder_height_field, the generic path kept for cylinders. A summary
// of the median times and the ratios generic / analytic (> 1: the analytic path is faster) is printed at the
// end.
//
// Run: bench_cylinder_terrain --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <simpulse/collision/cylinder_terrain.h>
#include <simpulse/collision/mesh_contacts.h>
#include <simpulse/collision/narrow_phase.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace simpulse {
namespace {

constexpr double kRadius = 0.3, kHalfHeight = 0.45;  // a 200 l drum: 0.6 m across, 0.9 m tall
constexpr double kMargin = 0.002;                    // WorldSettings::contact_margin

// Terrain kinds: flat; smooth rolling hills (slopes up to 0.45); the same hills with +-1 cm of noise per
// vertex, so that every triangle is its own plane.
enum class Terrain { flat, hills, noisy };

ShapePtr make_terrain(int n, double spacing, Terrain kind, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> noise(-0.01, 0.01);
    std::vector<double> h(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double x = j * spacing, y = i * spacing;
            const double hills =
                0.8 * std::sin(0.21 * x) * std::cos(0.17 * y) + 0.3 * std::sin(0.9 * x + 0.4 * y);
            h[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)] =
                kind == Terrain::flat    ? 0.0
                : kind == Terrain::hills ? hills
                                         : hills + noise(rng);
        }
    return make_height_field(Vec2(0, 0), Vec2(spacing, spacing), n, n, std::move(h));
}

// Height of the terrain surface at (x, y): the plane of the element over the point.
double surface_z(const HeightField& f, double x, double y) {
    const int j = std::clamp(static_cast<int>((x - f.origin.x()) / f.spacing.x()), 0, f.columns - 2);
    const int i = std::clamp(static_cast<int>((y - f.origin.y()) / f.spacing.y()), 0, f.rows - 2);
    std::array<TerrainElement, 2> e;
    const int n = cell_elements(f, i, j, e);
    // Lower triangle (i, j), (i, j+1), (i+1, j+1) holds the points below the diagonal.
    const double u = (x - f.origin.x()) / f.spacing.x() - j, w = (y - f.origin.y()) / f.spacing.y() - i;
    const TerrainElement& el = n == 1 || w <= u ? e[0] : e[1];
    return (el.offset - el.normal.x() * x - el.normal.y() * y) / el.normal.z();
}

// Barrel poses: a third standing, a third lying, a third tilted on the rim, each lowered until its deepest
// surface point (over 1,000 surface samples) is 0-3 mm below the terrain, then lifted by `lift`.
std::vector<Pose> barrel_poses(const HeightField& f, int count, double lift, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0, 1);
    const double extent = (f.columns - 1) * f.spacing.x();
    std::vector<Vec3> surface;  // local samples of the cylinder's surface
    for (int a = 0; a < 40; ++a) {
        const double phi = 2 * std::numbers::pi * a / 40;
        const Vec3 dir(std::cos(phi), std::sin(phi), 0);
        for (int t = 0; t <= 12; ++t)
            surface.push_back(kRadius * dir + Vec3(0, 0, kHalfHeight * (t / 6.0 - 1)));
        for (int ring = 1; ring <= 6; ++ring)
            for (double z : {-kHalfHeight, kHalfHeight})
                surface.push_back(kRadius * ring / 6 * dir + Vec3(0, 0, z));
    }
    std::vector<Pose> poses;
    for (int k = 0; k < count; ++k) {
        Pose pose;
        const Quat spin(Eigen::AngleAxisd(2 * std::numbers::pi * unit(rng), Vec3::UnitZ()));
        if (k % 3 == 0)
            pose.orientation = spin;  // standing
        else if (k % 3 == 1)
            pose.orientation = spin * Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()));  // lying
        else
            pose.orientation =
                spin * Quat(Eigen::AngleAxisd(0.3 + 0.6 * unit(rng), Vec3::UnitX()));  // tilted
        pose.position = Vec3(1 + (extent - 2) * unit(rng), 1 + (extent - 2) * unit(rng), 0);
        double penetration = -1e300;  // at z = 0
        for (const Vec3& q : surface) {
            const Vec3 p = pose.transform_point(q);
            penetration = std::max(penetration, surface_z(f, p.x(), p.y()) - p.z());
        }
        pose.position.z() = penetration - 0.003 * unit(rng) + lift;
        poses.push_back(pose);
    }
    return poses;
}

struct Scene {
    ShapePtr field;
    ShapePtr barrel = make_cylinder(kRadius, kHalfHeight);
    std::vector<Pose> poses;
};

enum class Method { analytic, generic };

int query(Method method, const Scene& s, const Pose& pose, std::vector<Manifold>& out) {
    if (method == Method::analytic)
        return collide(*s.barrel, pose, *s.field, Pose{}, CollideSettings{kMargin}, out);
    return collide_cylinder_height_field(*s.barrel, pose, std::get<HeightField>(s.field->geometry), Pose{},
                                         CollideSettings{kMargin}, out);
}

void BM_PerQuery(benchmark::State& state, Method method, const Scene& s) {
    std::vector<Manifold> out;
    out.reserve(64);
    std::size_t k = 0;
    double manifolds = 0, points = 0, queries = 0;
    for (auto _ : state) {
        out.clear();
        query(method, s, s.poses[k], out);
        benchmark::DoNotOptimize(out.data());
        for (const Manifold& m : out) points += m.count;
        manifolds += static_cast<double>(out.size());
        queries += 1;
        k = (k + 1) % s.poses.size();
    }
    state.counters["manifolds"] = manifolds / queries;
    state.counters["points"] = points / queries;
}

void BM_Barrels(benchmark::State& state, Method method, const Scene& s) {
    std::vector<Manifold> out;
    out.reserve(8192);
    double manifolds = 0, steps = 0;
    for (auto _ : state) {
        out.clear();
        for (const Pose& pose : s.poses) query(method, s, pose, out);
        benchmark::DoNotOptimize(out.data());
        manifolds += static_cast<double>(out.size());
        steps += 1;
    }
    state.counters["manifolds"] = manifolds / steps;
}

// Prints the median of every benchmark and the ratio generic / analytic of each configuration.
class RatioReporter : public benchmark::ConsoleReporter {
  public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
            // Names are "<benchmark>/<method>/<configuration>".
            const std::string& full = r.run_name.function_name;
            const std::size_t a = full.find('/'), b = full.rfind('/');
            times_[full.substr(0, a) + "/" + full.substr(b + 1)][full.substr(a + 1, b - a - 1)] =
                r.GetAdjustedCPUTime();
        }
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        std::printf("\nMedian CPU time (us) and ratio generic / analytic:\n");
        for (const auto& [config, by_method] : times_) {
            const auto analytic = by_method.find("analytic"), generic = by_method.find("generic");
            std::printf("  %-26s", config.c_str());
            if (analytic != by_method.end()) std::printf("  analytic %10.3f", analytic->second);
            if (generic != by_method.end()) std::printf("  generic %10.3f", generic->second);
            if (analytic != by_method.end() && generic != by_method.end())
                std::printf("  ratio %.1f", generic->second / analytic->second);
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
    // Scenes are built before any timing and live until the end.
    std::map<std::string, Scene> per_query, barrels;
    for (const auto& [name, kind] : {std::pair{"flat", Terrain::flat}, std::pair{"hills", Terrain::hills},
                                     std::pair{"noisy", Terrain::noisy}}) {
        Scene& q = per_query[name];
        q.field = make_terrain(256, 0.1, kind, 1);
        q.poses = barrel_poses(std::get<HeightField>(q.field->geometry), 512, 0, 2);
        Scene& b = barrels[std::string(name) + "_resting"];
        b.field = make_terrain(1024, 0.1, kind, 3);
        b.poses = barrel_poses(std::get<HeightField>(b.field->geometry), 1000, 0, 4);
        Scene& h = barrels[std::string(name) + "_hovering"];
        h.field = b.field;
        h.poses = barrel_poses(std::get<HeightField>(h.field->geometry), 1000, 1.0, 4);
    }

    auto add = [](const std::string& name, auto fn, Method method, const Scene& scene) {
        benchmark::RegisterBenchmark(name.c_str(), [fn, method, &scene](benchmark::State& st) {
            fn(st, method, scene);
        })->Unit(benchmark::kMicrosecond);
    };
    for (Method m : {Method::analytic, Method::generic}) {
        const std::string method = m == Method::analytic ? "analytic" : "generic";
        for (const auto& [name, scene] : per_query)
            add("BM_PerQuery/" + method + "/" + name, BM_PerQuery, m, scene);
        for (const auto& [name, scene] : barrels)
            add("BM_Barrels/" + method + "/" + name, BM_Barrels, m, scene);
    }
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
