// libFuzzer target: the CLI's --set overrides. The bytes are split at newlines into "/pointer=VALUE" strings
// applied to a fixed valid scene (every key kind: settings, materials, pairs, bodies, joints, springs); the
// result must be a scene or one error line, never a crash or a hang. A scene that reads is built and stepped
// once.
#include <simpulse/app/run.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kScene =
    R"({"name": "fuzz", "dt": 0.01, "duration": 0.05, "gravity": [0, 0, -9.81],
  "solver": {"mode": "exact", "restitution_threshold": 0.05},
  "materials": {"default": {"friction": 0.5, "restitution": 0.2}, "ice": {"friction": 0.05, "restitution": 0.1}},
  "pairs": [{"materials": ["default", "ice"], "friction": 0.1}],
  "bodies": [{"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
             {"name": "box", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [0, 0, 0.6], "material": "ice"},
             {"name": "ball", "shape": {"type": "sphere", "radius": 0.2}, "position": [0, 0, 2], "mass": 1},
             {"name": "bob", "shape": {"type": "capsule", "radius": 0.1, "length": 0.4}, "position": [2, 0, 1]}],
  "joints": [{"type": "ball", "bodies": ["bob", "world"], "anchor": [2, 0, 2]}],
  "springs": [{"bodies": ["ball", "box"], "anchors": [[0, 0, 2], [0, 0, 1.1]], "stiffness": 10}]})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> overrides;
    std::string current;
    for (std::size_t i = 0; i < size && overrides.size() < 16; ++i) {
        if (data[i] == '\n') {
            overrides.push_back(current);
            current.clear();
        } else {
            current.push_back(static_cast<char>(data[i]));
        }
    }
    if (!current.empty()) overrides.push_back(current);
    simpulse::Result<simpulse::SceneDesc> scene = simpulse::parse_scene(kScene, "fuzz.json", overrides);
    if (!scene) return 0;
    simpulse::Result<simpulse::SceneWorld> world = simpulse::build_world(scene.value());
    if (!world) return 0;
    (void)world.value().world.step(scene.value().dt);
    return 0;
}
