// libFuzzer target: bytes -> scene. Any byte string given to the scene reader must give a scene or an error
// line naming the file, never a crash, a hang or a leak; a scene that reads is built into a World, and a
// small one (at most 8 bodies) is stepped once: the World must refuse or run it. Larger scenes are not
// stepped because one step of a big scene at a huge dt is legitimately slow (the domino chain at dt = 1 s:
// 0.16 s per step in Release, 9 s in this instrumented build), which libFuzzer would report as a hang;
// fuzz_world covers stepping.
#include <simpulse/app/run.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    simpulse::Result<simpulse::SceneDesc> scene = simpulse::parse_scene(text, "fuzz.json");
    if (!scene) return 0;
    simpulse::Result<simpulse::SceneWorld> world = simpulse::build_world(scene.value());
    if (!world) return 0;
    if (scene.value().bodies.size() <= 8) (void)world.value().world.step(scene.value().dt);
    return 0;
}
