// The glTF export at scale (engine/app/src/gltf_export.cpp): 10,000 boxes x 1,000 samples (a synthetic
// recording: every body dynamic, moving and turning), written as a GLB by write_gltf_binary to a file through
// a PartialFile, as `simpulse run --gltf` does. Reports the file size.
//   build/bench/bench_gltf_export --benchmark_repetitions=3 --benchmark_report_aggregates_only
#include <simpulse/app/partial_file.h>
#include <simpulse/app/replay.h>
#include <simpulse/shapes.h>

#include <benchmark/benchmark.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>

namespace {

simpulse::SceneDesc boxes(std::size_t n) {
    simpulse::SceneDesc scene;
    scene.name = "boxes";
    scene.materials.push_back({"default", {}});
    const simpulse::ShapePtr box = simpulse::create_box({0.25, 0.25, 0.25}).value();
    for (std::size_t i = 0; i < n; ++i) {
        simpulse::SceneBody b;
        b.name = "box_" + std::to_string(i);
        b.desc.shape = box;
        b.desc.pose.position = {0.6 * static_cast<double>(i % 100), 0.6 * static_cast<double>(i / 100), 1};
        scene.bodies.push_back(std::move(b));
    }
    return scene;
}

simpulse::Recording recording(const simpulse::SceneDesc& scene, std::size_t samples) {
    simpulse::Recording r;
    r.body_count = scene.bodies.size();
    for (std::size_t k = 0; k < samples; ++k) {
        const double t = 0.01 * static_cast<double>(k);
        r.times.push_back(t);
        for (std::size_t i = 0; i < r.body_count; ++i) {
            const simpulse::Vec3& p = scene.bodies[i].desc.pose.position;
            const float angle = static_cast<float>(0.5 * t + 1e-3 * static_cast<double>(i));
            r.translations.insert(r.translations.end(), {static_cast<float>(p.x()), static_cast<float>(p.y()),
                                                         static_cast<float>(p.z() + std::sin(t))});
            r.rotations.insert(r.rotations.end(), {0.f, 0.f, std::sin(angle), std::cos(angle)});
            r.velocities.insert(r.velocities.end(),
                                {0.f, 0.f, static_cast<float>(std::cos(t)), 0.f, 0.f, 1.f});
        }
        r.kinetic.push_back(1);
        r.potential.push_back(std::sin(t));
        r.momentum.insert(r.momentum.end(), {0, 0, std::cos(t)});
        r.contact_offsets.push_back(0);
    }
    return r;
}

void BM_ExportGlb(benchmark::State& state) {
    const auto bodies = static_cast<std::size_t>(state.range(0));
    const auto samples = static_cast<std::size_t>(state.range(1));
    const simpulse::SceneDesc scene = boxes(bodies);
    const simpulse::Recording rec = recording(scene, samples);
    const std::string path =
        (std::filesystem::temp_directory_path() / ("simpulse_bench_" + std::to_string(::getpid()) + ".glb"))
            .string();
    std::size_t size = 0;
    for (auto _ : state) {
        simpulse::PartialFile file;
        if (!file.open(path)) state.SkipWithError("cannot open the file");
        simpulse::write_gltf_binary(file.stream(), scene, rec, {});
        if (!file.commit()) state.SkipWithError("cannot write the file");
        size = std::filesystem::file_size(path);
    }
    std::filesystem::remove(path);
    state.counters["MB"] = static_cast<double>(size) / 1e6;
}
BENCHMARK(BM_ExportGlb)->Args({100, 1000})->Args({10000, 1000})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
