// Scene description: the validated in-memory form of a scene file (docs/scene-format.md, contract
// SCENE_FORMAT.md version 1) and the functions that read one from JSON text. Reading only checks and
// converts; build_world (simpulse/app/run.h) turns a description into a World. Keeping the two apart lets the
// validation be used and tested without stepping anything.
//
//   auto scene = simpulse::load_scene("scenes/projectile.json", {"/dt=0.001"});
//   if (!scene) { std::fprintf(stderr, "%s\n", scene.error().message.c_str()); return 2; }
#pragma once

#include <simpulse/collision/shape.h>
#include <simpulse/dynamics/body.h>
#include <simpulse/dynamics/material.h>
#include <simpulse/dynamics/world.h>
#include <simpulse/result.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace simpulse {

// Body index standing for the fixed world frame ("world" in joints and springs).
inline constexpr std::size_t kSceneWorld = std::numeric_limits<std::size_t>::max();

struct SceneMaterial {
    std::string name;
    Material material;
};

// Explicit friction/restitution for contacts between two materials (indices into SceneDesc::materials).
struct SceneMaterialPair {
    std::size_t a = 0;
    std::size_t b = 0;
    double friction = 0;
    double restitution = 0;
};

struct SceneBody {
    std::string name;     // unique; "NAME_k" for the k-th copy of an "array" body
    std::string pointer;  // JSON pointer of the body's entry, for messages about it
    BodyDesc desc;        // desc.material indexes SceneDesc::materials
};

struct SceneJoint {
    std::string name;  // optional in the file
    std::string pointer;
    std::size_t body_a = 0;  // index into SceneDesc::bodies, never kSceneWorld
    std::size_t body_b = 0;  // index, or kSceneWorld
    JointType type = JointType::ball;
    Vec3 anchor = Vec3::Zero();    // world point (distance joints: the anchor on A)
    Vec3 anchor_b = Vec3::Zero();  // distance joints: the anchor on B
    Vec3 axis = Vec3::UnitX();     // hinge and slider
    double min_length = -1;        // distance joints; negative: not given (JointDesc)
    double max_length = -1;
    JointLimit limit;      // hinge and slider: "limits": [lower, upper]; "restitution" (also distance joints)
    JointMotor motor;      // hinge and slider: "motor": {"speed", "max_torque" | "max_force"}
    bool collide = false;  // whether the two bodies still collide with each other
};

struct SceneSpring {
    std::string pointer;
    std::size_t body_a = 0;  // index into SceneDesc::bodies, or kSceneWorld
    std::size_t body_b = 0;
    Vec3 anchor_a = Vec3::Zero();
    Vec3 anchor_b = Vec3::Zero();
    double stiffness = 0;
    double damping = 0;
    double rest_length = 0;
};

// A cable (contract "Cables"; docs/scene-format.md): desc.pins[k].body is left invalid here and filled by
// build_world from pin_bodies; desc.material indexes SceneDesc::materials.
struct SceneCable {
    std::string name;  // unique among the cables
    std::string pointer;
    CableDesc desc;
    std::vector<std::size_t> pin_bodies;  // per desc.pins entry: scene body index, or kSceneWorld
};

struct SceneDesc {
    std::string file;        // as given to the reader; every message about the scene starts with it
    std::string name;        // the "name" key, else the file name without directory and extension
    WorldSettings settings;  // gravity, "solver", "collision"
    double dt = 1.0 / 240;
    double duration = 1.0;
    std::optional<double> sample_every;    // trajectory interval, s; none: every step
    std::vector<SceneMaterial> materials;  // [0] is "default"; the rest in document order
    std::vector<SceneMaterialPair> pairs;
    std::vector<SceneBody> bodies;  // after "array" expansion, in document order (= creation order)
    std::vector<SceneJoint> joints;
    std::vector<SceneSpring> springs;
    std::vector<SceneCable> cables;  // in document order (created after bodies, joints and springs)
};

// Largest number of steps a run may take (duration / dt); more is treated as a mistake in the input.
inline constexpr std::uint64_t kMaxSteps = 1'000'000'000;

// Number of fixed steps of size dt covering `duration`: ceil(duration / dt), where a quotient within 1e-9 of
// an integer counts as that integer (1.0 / (1.0 / 240) is 240.00000000000003).
std::uint64_t step_count(double duration, double dt);

// Reads and validates a scene from JSON text. `overrides` are "--set" arguments "/json/pointer=VALUE" (RFC
// 6901 pointer; VALUE parsed as JSON, else taken as a string), applied in order before validation. On failure
// the error message is one line "FILE: /json/pointer: what was expected, got what", for the first problem in
// document order (see docs/scene-format.md).
Result<SceneDesc> parse_scene(std::string_view json_text, std::string_view file_name,
                              std::span<const std::string> overrides = {});

// parse_scene on the contents of the file at `path` ("PATH: cannot read: reason" if it cannot be read).
Result<SceneDesc> load_scene(const std::string& path, std::span<const std::string> overrides = {});

}  // namespace simpulse
