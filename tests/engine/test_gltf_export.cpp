// The glTF export (`simpulse run --gltf`, engine/app/src/gltf_export.cpp): every shipped scene gives one node
// and one mesh per body and an animation whose sample times and transforms are the trajectory's (to the
// single precision glTF carries); a scene without dynamic bodies gives a static file; the display meshes are
// closed and outward-facing (their volume by the divergence theorem is the shape's); the CLI refuses an
// unwritable --gltf path with exit code 2 and leaves no file.
#include <simpulse/app/replay.h>
#include <simpulse/app/run.h>
#include <simpulse/app/scene.h>
#include <simpulse/shapes.h>

#include "../../engine/app/src/gltf_mesh.h"
#include "engine_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <numbers>
#include <sstream>
#include <string_view>

namespace simpulse {
namespace {

using nlohmann::json;

struct Glb {
    json document;
    std::string bin;
};

std::uint32_t u32(const std::string& bytes, std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
}

// Splits a GLB into its JSON and binary chunks, checking the header (glTF 2.0, section 4.4).
Glb parse_glb(const std::string& bytes) {
    EXPECT_EQ(u32(bytes, 0), 0x46546C67u);
    EXPECT_EQ(u32(bytes, 4), 2u);
    EXPECT_EQ(u32(bytes, 8), bytes.size());
    const std::uint32_t json_length = u32(bytes, 12);
    EXPECT_EQ(u32(bytes, 16), 0x4E4F534Au);
    Glb glb;
    glb.document = json::parse(bytes.substr(20, json_length));
    const std::size_t bin_at = 20 + json_length;
    EXPECT_EQ(u32(bytes, bin_at + 4), 0x004E4942u);
    glb.bin = bytes.substr(bin_at + 8, u32(bytes, bin_at));
    return glb;
}

// The floats of an accessor.
std::vector<float> floats(const Glb& glb, std::size_t accessor) {
    const json& a = glb.document["accessors"][accessor];
    const json& v = glb.document["bufferViews"][a["bufferView"].get<std::size_t>()];
    static const std::map<std::string, std::size_t> width = {{"SCALAR", 1}, {"VEC3", 3}, {"VEC4", 4}};
    const std::size_t n = a["count"].get<std::size_t>() * width.at(a["type"].get<std::string>());
    const std::size_t at = v.value("byteOffset", std::size_t{0}) + a.value("byteOffset", std::size_t{0});
    EXPECT_LE(at + 4 * n, v.value("byteOffset", std::size_t{0}) + v["byteLength"].get<std::size_t>());
    std::vector<float> out(n);
    std::memcpy(out.data(), glb.bin.data() + at, 4 * n);
    return out;
}

struct ExportedRun {
    SceneDesc scene;
    std::vector<json> trajectory;
    Glb glb;
};

ExportedRun run_and_export(const std::string& path, std::vector<std::string> overrides = {}) {
    ExportedRun r;
    r.scene = load_scene(path, overrides).value();
    SceneWorld world = build_world(r.scene).value();
    std::ostringstream trajectory;
    Recording recording;
    RunOptions options;
    options.trajectory = &trajectory;
    options.on_sample = [&](const SceneWorld& sw) { record_sample(sw, recording); };
    const RunReport report = run_scene(r.scene, world, options);
    EXPECT_TRUE(report.ok) << report.error;
    std::istringstream lines(trajectory.str());
    for (std::string line; std::getline(lines, line);) r.trajectory.push_back(json::parse(line));
    r.glb = parse_glb(gltf_binary(r.scene, recording, report.events));
    return r;
}

// Single precision carries 24 bits: a value x is stored within |x| 2^-24 < 1e-6 max(1, |x|).
double allowed(double x) {
    return 1e-6 * std::max(1.0, std::fabs(x));
}

// The cables' control points in extras.simpulse.cables (scenes with cables only) are the trajectory's, in
// single precision.
void check_cables(const ExportedRun& r) {
    const json& extras = r.glb.document["extras"]["simpulse"];
    if (r.scene.cables.empty()) {
        EXPECT_FALSE(extras.contains("cables"));
        return;
    }
    const json& cables = extras["cables"];
    ASSERT_EQ(cables["list"].size(), r.scene.cables.size());
    const std::size_t points = cables["point_count"];
    const json& view = r.glb.document["bufferViews"][cables["bufferView"].get<std::size_t>()];
    ASSERT_EQ(view["byteLength"].get<std::size_t>(), 12 * points * r.trajectory.size());
    std::vector<float> values(3 * points * r.trajectory.size());
    std::memcpy(values.data(), r.glb.bin.data() + view.value("byteOffset", std::size_t{0}),
                4 * values.size());
    for (std::size_t c = 0; c < r.scene.cables.size(); ++c) {
        const json& entry = cables["list"][c];
        EXPECT_EQ(entry["name"], r.scene.cables[c].name);
        EXPECT_EQ(entry["radius"], r.scene.cables[c].desc.radius);
        const std::size_t first = entry["first_point"], count = entry["points"];
        for (std::size_t k = 0; k < r.trajectory.size(); ++k) {
            const json& line = r.trajectory[k]["cables"][c];
            ASSERT_EQ(line["points"].size(), count);
            for (std::size_t i = 0; i < count; ++i)
                for (std::size_t a = 0; a < 3; ++a) {
                    const double expected = line["points"][i][a];
                    ASSERT_LE(std::fabs(double{values[3 * (k * points + first + i) + a]} - expected),
                              allowed(expected))
                        << entry["name"] << " sample " << k << " point " << i;
                }
        }
    }
}

TEST(GltfExport, EveryShippedSceneMatchesItsTrajectory) {
    std::size_t scenes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::repo_path("scenes"))) {
        if (entry.path().extension() != ".json") continue;
        ++scenes;
        SCOPED_TRACE(entry.path().string());
        // Half a second of each scene (the domino chain at its dt of 0.3 ms: 1667 samples).
        const ExportedRun r = run_and_export(entry.path().string(), {"/duration=0.5"});
        const json& doc = r.glb.document;
        const std::size_t bodies = r.scene.bodies.size();
        ASSERT_EQ(doc["nodes"].size(), bodies);
        ASSERT_EQ(doc["scenes"][0]["nodes"].size(), bodies);
        EXPECT_EQ(doc["extras"]["simpulse"]["scene"], r.scene.name);
        for (std::size_t i = 0; i < bodies; ++i) {
            EXPECT_EQ(doc["nodes"][i]["name"], r.scene.bodies[i].name);
            EXPECT_EQ(doc["meshes"][doc["nodes"][i]["mesh"].get<std::size_t>()]["name"],
                      r.scene.bodies[i].name);
        }
        check_cables(r);
        std::size_t dynamic = 0;
        for (const SceneBody& b : r.scene.bodies) dynamic += b.desc.is_static ? 0 : 1;
        if (dynamic == 0) {  // a cable over static bodies (rope_over_box.json)
            EXPECT_FALSE(doc.contains("animations"));
            continue;
        }
        ASSERT_EQ(doc["animations"].size(), 1u);
        const json& animation = doc["animations"][0];
        double worst = 0;
        std::size_t channels = 0;
        for (const json& channel : animation["channels"]) {
            ++channels;
            const json& sampler = animation["samplers"][channel["sampler"].get<std::size_t>()];
            const std::vector<float> times = floats(r.glb, sampler["input"]);
            const std::vector<float> values = floats(r.glb, sampler["output"]);
            ASSERT_EQ(times.size(), r.trajectory.size());
            const std::size_t node = channel["target"]["node"];
            const bool translation = channel["target"]["path"] == "translation";
            for (std::size_t k = 0; k < times.size(); ++k) {
                const double t = r.trajectory[k]["t"];
                ASSERT_LE(std::fabs(double{times[k]} - t), allowed(t)) << "sample " << k;
                const json& body = r.trajectory[k]["bodies"][node];
                ASSERT_EQ(body["name"], r.scene.bodies[node].name);
                const double expected[4] = {
                    translation ? body["position"][0].get<double>() : body["orientation"]["x"].get<double>(),
                    translation ? body["position"][1].get<double>() : body["orientation"]["y"].get<double>(),
                    translation ? body["position"][2].get<double>() : body["orientation"]["z"].get<double>(),
                    translation ? 0.0 : body["orientation"]["w"].get<double>()};
                const std::size_t width = translation ? 3 : 4;
                for (std::size_t c = 0; c < width; ++c) {
                    const double error = std::fabs(double{values[width * k + c]} - expected[c]);
                    worst = std::max(worst, error / allowed(expected[c]) * 1e-6);
                    ASSERT_LE(error, allowed(expected[c]))
                        << r.scene.bodies[node].name << " " << channel["target"]["path"] << " sample " << k
                        << " component " << c << ": error " << error;
                }
            }
        }
        EXPECT_EQ(channels, 2 * dynamic);
        std::printf("%s: %zu bodies, %zu samples, largest error / max(1, |x|) %.3g\n", r.scene.name.c_str(),
                    bodies, r.trajectory.size(), worst);
    }
    EXPECT_GE(scenes, 10u);
}

// Through the CLI: with a sample interval that does not divide the duration, the animation holds the
// trajectory's samples and then the final state, the result's.
TEST(GltfExport, CliAnimationEndsWithTheResultsState) {
    const std::filesystem::path dir = test::test_dir();
    const test::CliResult r = test::run_cli(
        {"run", test::repo_path("scenes/projectile.json"), "--set", "/sample_every=0.3", "--duration", "0.5",
         "--gltf", "run.glb", "--trajectory", "run.jsonl", "--out", "result.json"},
        dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Glb glb = parse_glb(test::read_file(dir / "run.glb"));
    const std::vector<std::string> lines = test::read_lines(dir / "run.jsonl");
    const json result = json::parse(test::read_file(dir / "result.json"));
    const json& animation = glb.document["animations"][0];
    const std::vector<float> times = floats(glb, animation["samplers"][0]["input"]);
    const std::vector<float> moves = floats(glb, animation["samplers"][0]["output"]);
    ASSERT_EQ(lines.size(), 2u);  // t = 0 and the first step at or past 0.3; none at 0.5
    ASSERT_EQ(times.size(), lines.size() + 1);
    for (std::size_t k = 0; k <= lines.size(); ++k) {
        const json state = k < lines.size() ? json::parse(lines[k]) : result;
        const double t = state[k < lines.size() ? "t" : "time"];
        EXPECT_LE(std::fabs(double{times[k]} - t), allowed(t)) << "sample " << k;
        for (std::size_t c = 0; c < 3; ++c) {
            const double x = state["bodies"][0]["position"][c];
            EXPECT_LE(std::fabs(double{moves[3 * k + c]} - x), allowed(x))
                << "sample " << k << " component " << c << ": error "
                << std::fabs(double{moves[3 * k + c]} - x);
        }
    }
}

TEST(GltfExport, SceneWithoutDynamicBodiesIsStatic) {
    const std::filesystem::path dir = test::test_dir();
    test::write_file(dir / "static.json", R"({"name": "still", "duration": 0.1, "bodies": [
        {"name": "ground", "shape": {"type": "plane", "normal": [0, 0, 1]}, "static": true},
        {"name": "block", "shape": {"type": "box", "size": [2, 4, 1]}, "static": true,
         "position": [0, 0, 0.5]}]})");
    const ExportedRun r = run_and_export((dir / "static.json").string());
    const json& doc = r.glb.document;
    EXPECT_EQ(doc["nodes"].size(), 2u);
    EXPECT_FALSE(doc.contains("animations"));
    EXPECT_EQ(doc["nodes"][1]["translation"], json::array({0.0, 0.0, 0.5}));
    EXPECT_EQ(doc["extras"]["simpulse"]["scene"], "still");
}

// Volume enclosed by a triangle mesh, sum of signed tetrahedra from the origin (divergence theorem): equal to
// the solid's only if the mesh is closed and every triangle faces outward.
double enclosed_volume(const gltf_detail::DisplayMesh& m) {
    double v = 0;
    auto p = [&](std::uint32_t i) {
        return Vec3(m.positions[3 * i], m.positions[3 * i + 1], m.positions[3 * i + 2]);
    };
    for (std::size_t t = 0; t < m.indices.size(); t += 3)
        v += p(m.indices[t]).dot(p(m.indices[t + 1]).cross(p(m.indices[t + 2]))) / 6;
    return v;
}

TEST(GltfExport, DisplayMeshesAreClosedAndFaceOutward) {
    const int n = 24;  // segments around
    const double pi = std::numbers::pi;
    // A prism or pyramid over the inscribed n-gon holds n sin(2 pi / n) / (2 pi) of the disc's area.
    const double polygon = n * std::sin(2 * pi / n) / (2 * pi);
    auto volume = [&](const ShapePtr& s) { return enclosed_volume(gltf_detail::tessellate(*s, 10, n)); };
    // Float positions: relative error about 1e-7 per vertex.
    EXPECT_NEAR(volume(create_box({0.5, 1, 2}).value()), 8.0, 1e-5);
    EXPECT_NEAR(volume(create_cylinder(0.5, 1).value()), pi * 0.25 * 2 * polygon, 1e-5);
    EXPECT_NEAR(volume(create_cone(0.5, 1).value()), pi * 0.25 * 2 / 3 * polygon, 1e-5);
    const std::vector<Vec3> corners = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const ShapePtr hull = create_convex_hull(corners).value();
    EXPECT_NEAR(volume(hull), 1.0 / 6, 1e-6);
    // A 2 x 2 square with a 1 x 1 hole, 0.5 thick (its convex parts, tiling it exactly): 3 x 0.5.
    const std::vector<std::vector<Vec2>> ring = {{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}},
                                                 {{-0.5, -0.5}, {-0.5, 0.5}, {0.5, 0.5}, {0.5, -0.5}}};
    EXPECT_NEAR(volume(create_prism(ring, 0.5).value()), 1.5, 1e-6);
    // Spheres and capsules: inscribed polyhedra, between the solid of radius r cos^2(pi / n) (every face is
    // at least that far from the centre) and the solid itself.
    const double shrink = std::pow(std::cos(pi / n), 2);
    const double sphere = volume(create_sphere(1).value());
    EXPECT_LT(sphere, 4 * pi / 3);
    EXPECT_GT(sphere, 4 * pi / 3 * std::pow(shrink, 3));
    const double capsule = volume(create_capsule(1, 1).value());
    EXPECT_LT(capsule, 4 * pi / 3 + 2 * pi);
    EXPECT_GT(capsule, (4 * pi / 3 + 2 * pi) * std::pow(shrink, 3));
}

TEST(GltfExport, UnwritablePathExitsTwoAndWritesNothing) {
    const std::filesystem::path dir = test::test_dir();
    const std::string target = (dir / "missing" / "run.glb").string();
    const test::CliResult r =
        test::run_cli({"run", test::repo_path("scenes/projectile.json"), "--gltf", target}, dir);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("run.glb: cannot open for writing"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "missing"));
}

// --html: with the viewer built, one page that holds the --gltf file byte for byte (base64) and the viewer;
// without it, exit 2 naming the missing viewer and no file.
TEST(GltfExport, HtmlPageEmbedsTheGlbOrExitsTwoWithoutTheViewer) {
    const std::filesystem::path dir = test::test_dir();
    const test::CliResult r = test::run_cli(
        {"run", test::repo_path("scenes/projectile.json"), "--gltf", "run.glb", "--html", "run.html"}, dir);
    if (!replay_viewer_built()) {
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find("--html: this simpulse was built without the replay viewer"), std::string::npos)
            << r.err;
        EXPECT_FALSE(std::filesystem::exists(dir / "run.html"));
        EXPECT_FALSE(std::filesystem::exists(dir / "run.glb"));
        return;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string page = test::read_file(dir / "run.html");
    const std::string open = "<script id=\"simpulse-glb\" type=\"application/octet-stream\">";
    const std::size_t from = page.find(open);
    ASSERT_NE(from, std::string::npos);
    const std::size_t to = page.find("</script>", from);
    std::string decoded;
    std::uint32_t bits = 0;
    int count = 0;
    for (std::size_t i = from + open.size(); i < to; ++i) {
        const char c = page[i];
        const std::string_view digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const std::size_t v = digits.find(c);
        if (v == std::string_view::npos) continue;  // newlines and padding
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        if (++count == 4) {
            decoded += {static_cast<char>(bits >> 16), static_cast<char>(bits >> 8), static_cast<char>(bits)};
            bits = 0;
            count = 0;
        }
    }
    if (count == 3) decoded += {static_cast<char>(bits >> 10), static_cast<char>(bits >> 2)};
    if (count == 2) decoded += static_cast<char>(bits >> 4);
    EXPECT_TRUE(decoded == test::read_file(dir / "run.glb"))
        << "decoded " << decoded.size() << " bytes, the file has " << test::read_file(dir / "run.glb").size();
    EXPECT_NE(page.find("<title>simpulse: projectile</title>"), std::string::npos);
    // Offline: nothing in the page refers to the network.
    EXPECT_EQ(page.find("src=\"http"), std::string::npos);
    EXPECT_EQ(page.find("href=\"http"), std::string::npos);
}

}  // namespace
}  // namespace simpulse
