// Pictures of a run: the states sampled while a scene runs (Recording, filled from RunOptions::on_sample at
// the trajectory's sample times), written as an animated glTF 2.0 binary (`simpulse run --gltf`) or as a
// self-contained HTML replay that embeds that binary and a three.js viewer (`simpulse run --html`;
// docs/replay.md).
//
//   simpulse::Recording recording;
//   simpulse::RunOptions options;
//   options.on_sample = [&](const simpulse::SceneWorld& sw) { simpulse::record_sample(sw, recording); };
//   simpulse::RunReport report = simpulse::run_scene(scene, world, options);
//   std::string glb = simpulse::gltf_binary(scene, recording, report.events);
#pragma once

#include <simpulse/app/domino.h>
#include <simpulse/app/run.h>
#include <simpulse/app/scene.h>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace simpulse {

// Body states and totals at the sample times, in scene order. Transforms are single precision (what glTF
// animations carry); times and totals double.
struct Recording {
    std::size_t body_count = 0;
    std::vector<double> times;        // s, increasing
    std::vector<float> translations;  // per sample, per body: x y z
    std::vector<float> rotations;     // per sample, per body: x y z w (glTF's order)
    std::vector<float> velocities;    // per sample, per body: vx vy vz wx wy wz
    std::vector<double> kinetic;      // per sample, J
    std::vector<double> potential;    // per sample, J (gravity and springs)
    std::vector<double> momentum;     // per sample: px py pz, kg m/s
    // Contact points of the sample's step: sample k's are points [contact_offsets[k], contact_offsets[k+1]),
    // each x y z nx ny nz (position midway between the surfaces, unit normal from the first body).
    std::vector<std::uint32_t> contact_offsets{0};
    std::vector<float> contacts;
    // Cables (scene order): cable_point_counts[c] control points each; per sample, every cable's points in
    // order, x y z.
    std::vector<std::size_t> cable_point_counts;
    std::vector<float> cable_points;
};

// Appends the world's current state as a sample.
void record_sample(const SceneWorld& world, Recording& recording);

// The run as a binary glTF 2.0 file (GLB): per body (scene order) a node and a mesh named after it, the mesh
// a display tessellation in the body frame coloured by its material; one animation "simulation" with a
// translation and a rotation channel per dynamic body at the sample times (linear interpolation); the scene
// name, the contact events, the totals and the contact points in extras, and for a scene with cables their
// control points per sample (drawn as tubes by the HTML viewer; docs/replay.md). Coordinates are the
// scene's (metres, its own up axis: extras.simpulse.up). Throws std::invalid_argument if the recording does
// not match the scene (body count, array sizes).
std::string gltf_binary(const SceneDesc& scene, const Recording& recording,
                        const std::vector<SceneEvent>& events,
                        const std::optional<DominoTiming>& domino = std::nullopt);

// gltf_binary written to `out` without assembling the file in memory first (`simpulse run --gltf`).
void write_gltf_binary(std::ostream& out, const SceneDesc& scene, const Recording& recording,
                       const std::vector<SceneEvent>& events,
                       const std::optional<DominoTiming>& domino = std::nullopt);

// Whether this build embeds the replay viewer (built when node and npm were found: SIMPULSE_BUILD_VIEWER).
bool replay_viewer_built();

// One HTML file that shows the run offline (nothing loaded from the network): the viewer bundle and the GLB
// (base64) inline. Throws std::logic_error if !replay_viewer_built().
std::string html_replay(const std::string& title, const std::string& glb);

}  // namespace simpulse
