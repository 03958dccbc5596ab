// Builds a World from a validated scene description: settings, materials and pairs, then bodies, joints,
// springs and cables in scene order (so creation order, and with it the order of contact event pairs, is
// scene order).
#include <simpulse/app/run.h>

#include <simpulse/dynamics/settings_check.h>
#include "scene_json.h"

namespace simpulse {
namespace {

Error located(const SceneDesc& scene, const std::string& pointer, const Error& error) {
    return Error{scene.file + ": " + (pointer.empty() ? "(root)" : pointer) + ": " + error.message};
}

// Where a WorldSettings member is set in a scene (docs/scene-format.md): "solver.X" under /solver, the
// margins under /collision, sleeping and substeps under /dynamics.
std::string scene_pointer_of_setting(const std::string& setting) {
    if (setting.starts_with("solver.")) return "/solver/" + setting.substr(7);
    if (setting == "gravity") return "/gravity";
    if (setting == "contact_margin" || setting == "aabb_margin" || setting == "manifold_reuse_distance")
        return "/collision/" + setting;
    return "/dynamics/" + setting;
}

}  // namespace

JointDesc joint_desc(const SceneJoint& joint, const std::vector<BodyId>& bodies) {
    const auto handle = [&](std::size_t index) { return index == kSceneWorld ? BodyId{} : bodies[index]; };
    JointDesc desc;
    desc.type = joint.type;
    desc.body_a = handle(joint.body_a);
    desc.body_b = handle(joint.body_b);
    desc.anchor = joint.anchor;
    desc.anchor_b = joint.anchor_b;
    desc.axis = joint.axis;
    desc.min_length = joint.min_length;
    desc.max_length = joint.max_length;
    desc.limit = joint.limit;
    desc.motor = joint.motor;
    desc.collide_connected = joint.collide;
    return desc;
}

Result<SceneWorld> build_world(const SceneDesc& scene) {
    SceneWorld out;
    // The reader checks each value where it reads it; a SceneDesc built or changed in code is checked here,
    // by the same checks as World::set_settings, and still reported at the key that sets the value.
    if (const std::optional<SettingProblem> problem = find_setting_problem(scene.settings))
        return located(scene, scene_pointer_of_setting(problem->setting), Error{problem->message});
    if (Status s = out.world.set_settings(scene.settings); !s) return located(scene, "", s.error());

    if (Status s = out.world.set_material(0, scene.materials[0].material); !s)
        return located(scene, "/materials/default", s.error());
    for (std::size_t i = 1; i < scene.materials.size(); ++i) {
        const Result<MaterialId> id = out.world.add_material(scene.materials[i].material);
        if (!id)
            return located(scene, scene_detail::child_pointer("/materials", scene.materials[i].name),
                           id.error());
    }
    for (std::size_t i = 0; i < scene.pairs.size(); ++i) {
        const SceneMaterialPair& p = scene.pairs[i];
        if (Status s = out.world.set_material_pair(static_cast<MaterialId>(p.a), static_cast<MaterialId>(p.b),
                                                   p.friction, p.restitution);
            !s)
            return located(scene, "/pairs/" + std::to_string(i), s.error());
    }

    out.bodies.reserve(scene.bodies.size());
    for (const SceneBody& body : scene.bodies) {
        const Result<BodyId> id = out.world.create_body(body.desc);
        if (!id) return located(scene, body.pointer, id.error());
        out.bodies.push_back(id.value());
    }
    const auto handle = [&](std::size_t index) {
        return index == kSceneWorld ? BodyId{} : out.bodies[index];
    };
    for (const SceneJoint& joint : scene.joints) {
        const Result<JointId> id = out.world.add_joint(joint_desc(joint, out.bodies));
        if (!id) return located(scene, joint.pointer, id.error());
        out.joints.push_back(id.value());
    }
    for (const SceneSpring& spring : scene.springs) {
        const Result<SpringId> id =
            out.world.add_spring({handle(spring.body_a), handle(spring.body_b), spring.anchor_a,
                                  spring.anchor_b, spring.stiffness, spring.damping, spring.rest_length});
        if (!id) return located(scene, spring.pointer, id.error());
        out.springs.push_back(id.value());
    }
    for (const SceneCable& cable : scene.cables) {
        CableDesc desc = cable.desc;
        for (std::size_t k = 0; k < desc.pins.size() && k < cable.pin_bodies.size(); ++k)
            desc.pins[k].body = handle(cable.pin_bodies[k]);
        const Result<CableId> id = out.world.add_cable(desc);
        if (!id) return located(scene, cable.pointer, id.error());
        out.cables.push_back(id.value());
    }
    return out;
}

}  // namespace simpulse
