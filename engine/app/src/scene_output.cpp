// Writes the result document and trajectory lines of a run (docs/scene-format.md). Doubles are printed in the
// shortest form that reads back to the same value, so identical runs give identical bytes (wall_s aside).
#include "scene_output.h"

#include <simpulse/app/run.h>

namespace simpulse {
namespace {

using scene_detail::Json;

Json vec(const Vec3& v) {
    return Json::array({v.x(), v.y(), v.z()});
}

Json body_state(const std::string& name, const BodyState& s) {
    const Quat& q = s.pose.orientation;
    Json b = Json::object();
    b["name"] = name;
    b["position"] = vec(s.pose.position);
    b["orientation"] = Json{{"w", q.w()}, {"x", q.x()}, {"y", q.y()}, {"z", q.z()}};
    b["velocity"] = vec(s.velocity);
    b["angular_velocity"] = vec(s.angular_velocity);
    return b;
}

Json bodies(const SceneDesc& scene, const SceneWorld& sw) {
    Json out = Json::array();
    for (std::size_t i = 0; i < sw.bodies.size(); ++i)
        out.push_back(body_state(scene.bodies[i].name, sw.world.state(sw.bodies[i]).value()));
    return out;
}

// Each cable's control points, in order; the key is only written for scenes with cables, so the documents of
// scenes without them keep their bytes.
Json cables(const SceneDesc& scene, const SceneWorld& sw) {
    Json out = Json::array();
    for (std::size_t k = 0; k < scene.cables.size() && k < sw.cables.size(); ++k) {
        Json points = Json::array();
        if (const Result<std::vector<Vec3>> p = sw.world.cable_points(sw.cables[k]))
            for (const Vec3& point : p.value()) points.push_back(vec(point));
        out.push_back(Json{{"name", scene.cables[k].name}, {"points", std::move(points)}});
    }
    return out;
}

}  // namespace

std::string scene_detail::layout(const Json& document) {
    std::string out = "{\n";
    bool first = true;
    for (const auto& [key, value] : document.items()) {
        out += first ? "  " : ",\n  ";
        first = false;
        out += Json(key).dump() + ": ";
        if (value.is_array() && !value.empty() && value.front().is_object()) {
            out += "[\n";
            for (std::size_t i = 0; i < value.size(); ++i)
                out += "    " + value[i].dump() + (i + 1 < value.size() ? ",\n" : "\n");
            out += "  ]";
        } else {
            out += value.dump();
        }
    }
    return out + "\n}\n";
}

namespace {

// Each joint's reaction on its body B in the last step (force at B's anchor, N; torque, N m); unnamed joints
// are "joint_K" after their place in the scene.
Json joints(const SceneDesc& scene, const SceneWorld& sw) {
    Json out = Json::array();
    for (std::size_t k = 0; k < scene.joints.size() && k < sw.joints.size(); ++k) {
        const SceneJoint& j = scene.joints[k];
        const Result<JointReaction> reaction = sw.world.joint_reaction(sw.joints[k]);
        const JointReaction value = reaction ? reaction.value() : JointReaction{};
        out.push_back(Json{{"name", j.name.empty() ? "joint_" + std::to_string(k) : j.name},
                           {"type", to_string(j.type)},
                           {"force", vec(value.force)},
                           {"torque", vec(value.torque)}});
    }
    return out;
}

}  // namespace

Json scene_detail::result_document(const SceneDesc& scene, const SceneWorld& sw, const RunReport& report) {
    Json r = Json::object();
    r["simpulse"] = 1;
    r["scene"] = scene.name;
    r["steps"] = report.steps;
    r["time"] = report.time;
    r["wall_s"] = report.wall_seconds;
    Json events = Json::array();
    for (const SceneEvent& e : report.events)
        events.push_back(Json{{"t", e.time},
                              {"type", e.type == ContactEvent::Type::begin ? "contact_begin" : "contact_end"},
                              {"a", scene.bodies[e.a].name},
                              {"b", scene.bodies[e.b].name}});
    r["events"] = std::move(events);
    r["bodies"] = bodies(scene, sw);
    if (!scene.cables.empty()) r["cables"] = cables(scene, sw);
    const Energy energy = sw.world.energy();
    r["energy"] = Json{{"kinetic", energy.kinetic}, {"potential", energy.potential}};
    r["momentum"] = vec(sw.world.linear_momentum());
    r["angular_momentum"] = vec(sw.world.angular_momentum(Vec3::Zero()));
    // Engine additions, kept apart from the contract's keys.
    r["max_joint_error"] = report.max_joint_error;
    if (!scene.joints.empty()) r["joints"] = joints(scene, sw);
    const SolverSummary& s = report.solver;
    r["solver"] = Json{{"mode", to_string(scene.settings.solver.mode)},
                       {"max_islands", s.max_islands},
                       {"max_rows", s.max_rows},
                       {"max_island_rows", s.max_island_rows},
                       {"max_iterations", s.max_iterations},
                       {"total_iterations", s.total_iterations},
                       {"total_pivots", s.total_pivots},
                       {"max_residual", s.max_residual},
                       {"max_relative_residual", s.max_relative_residual},
                       {"tolerance", scene.settings.solver.tolerance},
                       {"missed_islands", s.missed_islands},
                       {"steps_missed", s.steps_missed},
                       {"newton_islands", s.newton_islands},
                       {"newton_capped", s.newton_capped},
                       {"total_factorizations", s.total_factorizations},
                       {"workspace_bytes", s.max_workspace_bytes}};
    if (!report.ok) {
        Json error = Json{{"message", report.error}, {"step", report.failed_step}};
        error["body"] =
            report.failed_body == kSceneWorld ? Json(nullptr) : Json(scene.bodies[report.failed_body].name);
        if (report.failed_cable != kSceneWorld) {
            error["cable"] = scene.cables[report.failed_cable].name;
            error["point"] = report.failed_cable_point;
        }
        r["error"] = std::move(error);
    }
    return r;
}

std::string result_json(const SceneDesc& scene, const SceneWorld& sw, const RunReport& report) {
    return scene_detail::layout(scene_detail::result_document(scene, sw, report));
}

std::string trajectory_line(const SceneDesc& scene, const SceneWorld& sw) {
    Json line = Json::object();
    line["t"] = sw.world.time();
    line["bodies"] = bodies(scene, sw);
    if (!scene.cables.empty()) line["cables"] = cables(scene, sw);
    return line.dump();
}

}  // namespace simpulse
