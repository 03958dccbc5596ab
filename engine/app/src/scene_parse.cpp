// Reads a scene document into a validated SceneDesc (scene.h): top-level settings, materials and pairs,
// bodies with "array" expansion, joints, springs and cables, solver and collision options. Everything is
// checked in document order so that the message names the first problem in the file. Names may be used before
// they are defined (a body's material may be listed after the body), so a first pass collects the material
// and body names and the second pass checks references against them.
#include <simpulse/app/scene.h>
#include <simpulse/collision/number_text.h>
#include <simpulse/dynamics/link_ends.h>

#include "scene_reader.h"
#include "text_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <numbers>
#include <set>
#include <sstream>

namespace simpulse {
namespace {

using scene_detail::child_pointer;
using scene_detail::expected;
using scene_detail::fail;
using scene_detail::for_each_member;
using scene_detail::InputError;
using scene_detail::Json;
using scene_detail::json_quoted;
using scene_detail::Node;
using scene_detail::read_bool;
using scene_detail::read_integer;
using scene_detail::read_non_negative;
using scene_detail::read_number;
using scene_detail::read_orientation;
using scene_detail::read_positive;
using scene_detail::read_string;
using scene_detail::read_unit_interval;
using scene_detail::read_vec3;
using scene_detail::require_member;

constexpr long long kMaxArrayCount = 1'000'000;
// Bodies in a scene after array expansion: a million take about 1.5 GB to run, and a few lines of "array"
// must not be able to ask for all of the machine's memory.
constexpr long long kMaxBodies = 1'000'000;
constexpr long long kMaxInt = std::numeric_limits<int>::max();
constexpr std::string_view kWorld = "world";

// Names given by the "array" generator: NAME_1 ... NAME_N (1-based), or NAME alone without one.
std::vector<std::string> expanded_names(const std::string& name, long long count) {
    if (count == 0) return {name};
    std::vector<std::string> names;
    for (long long k = 1; k <= count; ++k) names.push_back(name + "_" + std::to_string(k));
    return names;
}

class SceneParser {
  public:
    explicit SceneParser(std::string_view file) {
        scene_.file = std::string(file);
        scene_.name = std::filesystem::path(std::string(file)).stem().string();
        scene_.materials.push_back({"default", Material{}});
    }

    SceneDesc parse(const Json& document) {
        const Node root{document, ""};
        if (!document.is_object()) expected(root, "a scene object");
        collect_names(document);
        for_each_member(root,
                        {"simpulse", "name", "description", "gravity", "planar", "dt", "duration",
                         "sample_every", "solver", "collision", "dynamics", "materials", "pairs", "bodies",
                         "joints", "springs", "cables"},
                        [&](std::string_view key, const Node& v) { top_level(key, v); });
        resolve();
        return std::move(scene_);
    }

  private:
    // Reference to something named, resolved once the whole document has been read.
    struct BodyExtra {
        std::string material = "default";
        bool density_given = false;
    };
    struct PairExtra {
        std::string a, b;
        std::optional<double> friction, restitution;
    };
    struct LinkExtra {
        std::string a, b;
        std::optional<double> rest_length;
    };
    struct CableExtra {
        std::string material = "default";
        bool density_given = false;
        std::vector<std::string> pin_bodies;  // per pin: a body name or "world"
    };

    // ---- pass 1: the names that references may use -------------------------------------------------------
    void collect_names(const Json& document) {
        known_materials_.insert("default");
        if (const auto it = document.find("materials"); it != document.end() && it->is_object())
            for (const auto& [name, value] : it->items()) known_materials_.insert(name);
        const auto bodies = document.find("bodies");
        if (bodies == document.end() || !bodies->is_array()) return;
        long long total = 0;
        for (std::size_t k = 0; k < bodies->size(); ++k) {
            const Json& body = (*bodies)[k];
            if (!body.is_object() || !body.contains("name") || !body["name"].is_string()) continue;
            // As pass 2 reads it (read_integer); a count it rejects fails there, so any value will do here.
            long long count = 0;
            if (const auto a = body.find("array"); a != body.end() && a->is_object() && a->contains("count"))
                count = scene_detail::whole_number((*a)["count"], 0, kMaxArrayCount).value_or(0);
            total += std::max(count, 1LL);
            if (total > kMaxBodies)
                fail("/bodies/" + std::to_string(k),
                     "with this entry the scene has " + std::to_string(total) +
                         " bodies (arrays expanded); at most " + std::to_string(kMaxBodies) + " are allowed");
            for (const std::string& name : expanded_names(body["name"].get<std::string>(), count))
                known_bodies_.insert(name);
        }
    }

    // ---- pass 2
    // ---------------------------------------------------------------------------------------------
    void top_level(std::string_view key, const Node& v) {
        if (key == "simpulse") {
            if (!v.value.is_number() || v.value.get<double>() != 1)
                fail(v.pointer, "expected 1 (the scene format version this program reads), got " +
                                    scene_detail::describe(v.value));
        } else if (key == "name") {
            scene_.name = read_string(v);
        } else if (key == "description") {
            if (!v.value.is_string()) expected(v, "a string");
        } else if (key == "gravity") {
            scene_.settings.gravity = read_vec3(v);
        } else if (key == "planar") {
            scene_.settings.planar = read_bool(v);
        } else if (key == "dt") {
            scene_.dt = read_positive(v);
            has_dt_ = true;
        } else if (key == "duration") {
            scene_.duration = read_positive(v);
        } else if (key == "sample_every") {
            scene_.sample_every = read_positive(v);
        } else if (key == "solver") {
            solver(v);
        } else if (key == "collision") {
            for_each_member(v, {"contact_margin", "aabb_margin", "manifold_reuse_distance"},
                            [&](std::string_view k, const Node& c) {
                                WorldSettings& w = scene_.settings;
                                (k == "contact_margin" ? w.contact_margin
                                 : k == "aabb_margin"  ? w.aabb_margin
                                                       : w.manifold_reuse_distance) = read_non_negative(c);
                            });
        } else if (key == "dynamics") {
            dynamics(v);
        } else if (key == "materials") {
            for_each_member_any(v, [&](const std::string& name, const Node& m) { material(name, m); });
        } else if (key == "pairs") {
            for_each_element(v, "an array of material pairs", [&](const Node& p) { pair(p); });
        } else if (key == "bodies") {
            for_each_element(v, "an array of bodies", [&](const Node& b) { body(b); });
        } else if (key == "joints") {
            for_each_element(v, "an array of joints", [&](const Node& j) { joint(j); });
        } else if (key == "springs") {
            for_each_element(v, "an array of springs", [&](const Node& s) { spring(s); });
        } else if (key == "cables") {
            for_each_element(v, "an array of cables", [&](const Node& c) { cable(c); });
        }
    }

    static void for_each_element(const Node& array, std::string_view what,
                                 const std::function<void(const Node&)>& visit) {
        scene_detail::require_array(array, what);
        for (std::size_t i = 0; i < array.value.size(); ++i) visit(array.element(i));
    }

    static void for_each_member_any(const Node& object,
                                    const std::function<void(const std::string&, const Node&)>& visit) {
        if (!object.value.is_object()) expected(object, "an object of named materials");
        for (const auto& [key, value] : object.value.items())
            visit(key, Node{value, child_pointer(object.pointer, key)});
    }

    // Addition: sleeping and substeps (jointed bodies, impacts across gaps; WorldSettings).
    void dynamics(const Node& node) {
        WorldSettings& w = scene_.settings;
        for_each_member(
            node,
            {"sleep", "sleep_speed", "sleep_time", "max_joint_rotation", "max_impact_gap", "max_substeps"},
            [&](std::string_view key, const Node& v) {
                if (key == "sleep") w.allow_sleeping = read_bool(v);
                if (key == "sleep_speed") w.sleep_speed = read_positive(v);
                if (key == "sleep_time") w.sleep_time = read_positive(v);
                if (key == "max_joint_rotation") w.max_joint_rotation = read_positive(v);
                if (key == "max_impact_gap") w.max_impact_gap = read_non_negative(v);
                if (key == "max_substeps")
                    w.max_substeps =
                        static_cast<int>(read_integer(v, 1, 1024, "a whole number from 1 to 1024"));
            });
    }

    void solver(const Node& node) {
        SolverSettings& s = scene_.settings.solver;
        for_each_member(
            node,
            {"mode",
             "restitution_threshold",
             "direct_max_rows",
             "direct_first_max_rows",
             "dense_max_rows",
             "max_active_set_iterations",
             "iterative_tolerance",
             "iterative_accept",
             "max_iterations",
             "warm_start",
             "tolerance",
             "newton_max_factorizations",
             "newton_max_bodies",
             "penetration_slop",
             "penetration_correction",
             "max_correction",
             "joint_tolerance",
             "max_projection_iterations",
             "recheck_iterations",
             "threads"},
            [&](std::string_view key, const Node& v) {
                const auto count = [&](long long min, std::string_view what) {
                    return static_cast<int>(read_integer(v, min, kMaxInt, what));
                };
                if (key == "mode") {
                    const std::optional<SolverMode> mode =
                        v.value.is_string() ? parse_solver_mode(v.value.get<std::string>()) : std::nullopt;
                    if (!mode) expected(v, "\"thesis\" or \"exact\"");
                    s.mode = *mode;
                } else if (key == "restitution_threshold") {
                    s.restitution_threshold = read_non_negative(v);
                } else if (key == "direct_max_rows") {
                    s.direct_max_rows = count(0, "a non-negative integer");
                } else if (key == "direct_first_max_rows") {
                    s.direct_first_max_rows = count(0, "a non-negative integer");
                } else if (key == "dense_max_rows") {
                    s.dense_max_rows = count(0, "a non-negative integer");
                } else if (key == "max_active_set_iterations") {
                    s.max_active_set_iterations = count(1, "a positive integer");
                } else if (key == "iterative_tolerance") {
                    s.iterative_tolerance = read_positive(v);
                } else if (key == "iterative_accept") {
                    s.iterative_accept = read_non_negative(v);
                } else if (key == "tolerance") {
                    s.tolerance = read_positive(v);
                } else if (key == "newton_max_factorizations") {
                    s.newton_max_factorizations = count(1, "a positive integer");
                } else if (key == "newton_max_bodies") {
                    s.newton_max_bodies = count(0, "a non-negative integer");
                } else if (key == "max_iterations") {
                    s.max_iterations = count(1, "a positive integer");
                } else if (key == "warm_start") {
                    s.warm_start = read_bool(v);
                } else if (key == "penetration_slop") {
                    s.penetration_slop = read_non_negative(v);
                } else if (key == "penetration_correction") {
                    s.penetration_correction = read_unit_interval(v);
                } else if (key == "max_correction") {
                    s.max_correction = read_non_negative(v);
                } else if (key == "joint_tolerance") {
                    s.joint_tolerance = read_positive(v);
                } else if (key == "max_projection_iterations") {
                    s.max_projection_iterations = count(1, "a positive integer");
                } else if (key == "recheck_iterations") {
                    s.recheck_iterations = count(0, "a non-negative integer");
                } else if (key == "threads") {
                    s.threads = static_cast<int>(read_integer(v, 1, 256, "a whole number from 1 to 256"));
                }
            });
    }

    void material(const std::string& name, const Node& node) {
        if (name.empty()) fail(node.pointer, "a material name must not be empty");
        Material m;
        for_each_member(node, {"friction", "restitution", "density"},
                        [&](std::string_view key, const Node& v) {
                            if (key == "friction")
                                m.friction = read_non_negative(v);
                            else if (key == "restitution")
                                m.restitution = read_unit_interval(v);
                            else
                                m.density = read_positive(v);
                        });
        if (name == "default") {
            scene_.materials[0].material = m;
        } else {
            material_index_[name] = scene_.materials.size();
            scene_.materials.push_back({name, m});
        }
    }

    std::string material_reference(const Node& node) {
        std::string name = read_string(node);
        if (!known_materials_.contains(name)) {
            std::string list;
            for (const std::string& known : known_materials_) list += (list.empty() ? "" : ", ") + known;
            fail(node.pointer, "unknown material " + json_quoted(name) + " (materials: " + list + ")");
        }
        return name;
    }

    // A body name or "world" in a joint or spring.
    std::string body_reference(const Node& node) {
        std::string name = read_string(node);
        if (name != kWorld && !known_bodies_.contains(name))
            fail(node.pointer, "unknown body " + json_quoted(name) + " (expected a body name or \"world\")");
        return name;
    }

    void pair(const Node& node) {
        PairExtra p;
        for_each_member(node, {"materials", "friction", "restitution"},
                        [&](std::string_view key, const Node& v) {
                            if (key == "materials") {
                                if (!v.value.is_array() || v.value.size() != 2)
                                    expected(v, "an array of 2 material names");
                                p.a = material_reference(v.element(0));
                                p.b = material_reference(v.element(1));
                                const auto names = std::minmax(p.a, p.b);
                                const auto [it, inserted] = pair_pointers_.emplace(names, node.pointer);
                                if (!inserted)
                                    fail(v.pointer, "the pair " + json_quoted(p.a) + ", " + json_quoted(p.b) +
                                                        " is already set by " + it->second);
                            } else if (key == "friction") {
                                p.friction = read_non_negative(v);
                            } else {
                                p.restitution = read_unit_interval(v);
                            }
                        });
        require_member(node, "materials");
        pairs_.push_back(std::move(p));
    }

    void body(const Node& node) {
        SceneBody b;
        BodyExtra extra;
        std::string name;
        long long count = 0;
        Vec3 offset = Vec3::Zero();
        for_each_member(
            node,
            {"name", "shape", "material", "static", "mass", "density", "position", "orientation", "velocity",
             "angular_velocity", "collision_group", "collision_mask", "ccd", "array"},
            [&](std::string_view key, const Node& v) {
                if (key == "name") {
                    name = read_string(v);
                    if (name == kWorld)
                        fail(v.pointer,
                             "the name \"world\" is reserved for the fixed world frame "
                             "in joints and springs");
                } else if (key == "shape") {
                    b.desc.shape = scene_detail::read_shape(v);
                } else if (key == "material") {
                    extra.material = material_reference(v);
                } else if (key == "static") {
                    b.desc.is_static = read_bool(v);
                } else if (key == "mass" || key == "density") {
                    if (partner_comes_first(node, key))
                        fail(v.pointer, "\"mass\" and \"density\" cannot both be given");
                    if (key == "mass") {
                        b.desc.mass = read_positive(v);
                    } else {
                        b.desc.density = read_positive(v);
                        extra.density_given = true;
                    }
                } else if (key == "position") {
                    b.desc.pose.position = read_vec3(v);
                } else if (key == "orientation") {
                    b.desc.pose.orientation = read_orientation(v);
                } else if (key == "velocity") {
                    b.desc.velocity = read_vec3(v);
                } else if (key == "angular_velocity") {
                    b.desc.angular_velocity = read_vec3(v);
                } else if (key == "ccd") {
                    b.desc.ccd = read_bool(v);
                } else if (key == "collision_group" || key == "collision_mask") {
                    const auto bits = static_cast<std::uint32_t>(
                        read_integer(v, 0, 0xffffffffLL, "an integer in [0, 4294967295] (32 bits)"));
                    (key == "collision_group" ? b.desc.collision_group : b.desc.collision_mask) = bits;
                } else if (key == "array") {
                    for_each_member(v, {"count", "offset"}, [&](std::string_view k, const Node& a) {
                        if (k == "count")
                            count =
                                read_integer(a, 1, kMaxArrayCount, "a positive integer (at most 1000000)");
                        else
                            offset = read_vec3(a);
                    });
                    require_member(v, "count");
                    require_member(v, "offset");
                }
            });
        require_member(node, "name");
        require_member(node, "shape");
        const ShapeType type = b.desc.shape->type();
        if (!b.desc.is_static && is_static_only(type))
            fail(child_pointer(node.pointer, "shape"),
                 std::string("a ") + shape_type_name(type) +
                     " is static-only (planes, meshes and height fields): the body needs \"static\": true");
        // The dynamics ignores the velocity of a static body; saying so beats dropping it silently.
        if (b.desc.is_static && !b.desc.velocity.isZero(0))
            fail(child_pointer(node.pointer, "velocity"),
                 "a static body cannot move; expected [0, 0, 0] or no key");
        if (b.desc.is_static && !b.desc.angular_velocity.isZero(0))
            fail(child_pointer(node.pointer, "angular_velocity"),
                 "a static body cannot move; expected [0, 0, 0] or no key");
        b.pointer = node.pointer;
        const std::vector<std::string> names = expanded_names(name, count);
        for (std::size_t k = 0; k < names.size(); ++k) {
            const auto [it, inserted] = body_pointers_.emplace(names[k], node.pointer);
            if (!inserted)
                fail(child_pointer(node.pointer, "name"), "duplicate body name " + json_quoted(names[k]) +
                                                              " (already used by " + it->second + ")");
            SceneBody copy = b;
            copy.name = names[k];
            copy.desc.pose.position += static_cast<double>(k) * offset;
            copy.desc.user_data = scene_.bodies.size();
            scene_.bodies.push_back(std::move(copy));
            bodies_.push_back(extra);
        }
    }

    // Whether the object has the exclusive partner of `key` ("mass" or "density") before it: the later of the
    // two is the one reported.
    static bool partner_comes_first(const Node& node, std::string_view key) {
        const std::string partner = key == "mass" ? "density" : "mass";
        for (const auto& [k, value] : node.value.items()) {
            if (k == partner) return true;
            if (k == key) return false;
        }
        return false;
    }

    // The two names of a joint's or spring's "bodies": known, not both "world", not the same body.
    std::pair<std::string, std::string> link_bodies(const Node& v, std::string_view what) {
        if (!v.value.is_array() || v.value.size() != 2) expected(v, "an array of 2 body names");
        std::string a = body_reference(v.element(0));
        std::string b = body_reference(v.element(1));
        const LinkEndsProblem problem = link_ends_problem(a, b, std::string(kWorld));
        if (problem != LinkEndsProblem::none)
            fail(problem == LinkEndsProblem::both_world ? v.pointer : v.element(1).pointer,
                 link_ends_message(problem, what, json_quoted(kWorld), json_quoted(a)));
        return {std::move(a), std::move(b)};
    }

    // The keys a joint of each type takes besides "type", "name", "bodies" and "collide".
    static std::vector<std::string_view> joint_keys(JointType type) {
        switch (type) {
            case JointType::ball:
            case JointType::fixed:
                return {"anchor"};
            case JointType::hinge:
            case JointType::slider:
                return {"anchor", "axis", "limits", "restitution", "motor"};
            case JointType::distance:
                return {"anchors", "min", "max", "restitution"};
            case JointType::planar:
                return {"anchor", "axis"};
        }
        return {};
    }

    void joint(const Node& node) {
        SceneJoint j;
        LinkExtra extra;
        j.pointer = node.pointer;
        require_member(node, "type");
        const Node type_node = node.member("type");
        const std::optional<JointType> type =
            type_node.value.is_string() ? parse_joint_type(type_node.value.get<std::string>()) : std::nullopt;
        if (!type)
            expected(type_node, "\"ball\", \"hinge\", \"fixed\", \"slider\", \"distance\" or \"planar\"");
        j.type = *type;
        const std::vector<std::string_view> keys = joint_keys(j.type);
        if (node.value.is_object())
            for (const auto& [key, value] : node.value.items()) {
                if (key == "type" || key == "name" || key == "bodies" || key == "collide" ||
                    std::find(keys.begin(), keys.end(), key) != keys.end())
                    continue;
                std::string accepted = "type, name, bodies";
                for (const std::string_view k : keys) accepted += ", " + std::string(k);
                accepted += ", collide";
                const bool other_type = key == "anchor" || key == "anchors" || key == "axis" ||
                                        key == "min" || key == "max" || key == "limits" ||
                                        key == "restitution" || key == "motor";
                fail(child_pointer(node.pointer, key),
                     other_type ? std::string("does not apply to a ") + to_string(j.type) +
                                      " joint; expected one of " + accepted
                                : "unknown key; expected one of " + accepted);
            }
        for_each_member(
            node,
            {"type", "name", "bodies", "anchor", "anchors", "axis", "min", "max", "limits", "restitution",
             "motor", "collide"},
            [&](std::string_view key, const Node& v) {
                if (key == "name") {
                    j.name = read_string(v);
                    const auto [it, inserted] = joint_pointers_.emplace(j.name, node.pointer);
                    if (!inserted)
                        fail(v.pointer, "duplicate joint name " + json_quoted(j.name) + " (already used by " +
                                            it->second + ")");
                } else if (key == "bodies") {
                    std::tie(extra.a, extra.b) = link_bodies(v, "a joint");
                } else if (key == "anchor") {
                    j.anchor = read_vec3(v);
                } else if (key == "anchors") {
                    if (!v.value.is_array() || v.value.size() != 2) expected(v, "an array of 2 points");
                    j.anchor = read_vec3(v.element(0));
                    j.anchor_b = read_vec3(v.element(1));
                } else if (key == "axis") {
                    j.axis = read_nonzero_vec3(v);
                } else if (key == "motor") {
                    const char* force_key = j.type == JointType::hinge ? "max_torque" : "max_force";
                    j.motor.enabled = true;
                    for_each_member(v, {"speed", "max_torque", "max_force"},
                                    [&](std::string_view motor_key, const Node& m) {
                                        if (motor_key == "speed") {
                                            j.motor.speed = read_number(m);
                                        } else if (motor_key == force_key) {
                                            j.motor.max_force = read_non_negative(m);
                                        } else {
                                            fail(m.pointer, std::string("a ") + to_string(j.type) +
                                                                " motor takes \"" + force_key + "\"");
                                        }
                                    });
                    require_member(v, "speed");
                    require_member(v, force_key);
                } else if (key == "limits") {
                    if (!v.value.is_array() || v.value.size() != 2) expected(v, "an array [lower, upper]");
                    JointLimit& limit = j.limit;
                    limit.enabled = true;
                    limit.lower = read_number(v.element(0));
                    limit.upper = read_number(v.element(1));
                    if (limit.lower > limit.upper)
                        fail(v.pointer, "expected lower <= upper, got [" + number_text(limit.lower) + ", " +
                                            number_text(limit.upper) + "]");
                    if (j.type == JointType::hinge &&
                        (limit.lower < -std::numbers::pi || limit.upper > std::numbers::pi))
                        fail(v.pointer, "expected hinge angles in [-pi, pi] (rad), got [" +
                                            number_text(limit.lower) + ", " + number_text(limit.upper) + "]");
                } else if (key == "restitution") {
                    j.limit.restitution = read_unit_interval(v);
                } else if (key == "min") {
                    j.min_length = read_non_negative(v);
                } else if (key == "max") {
                    j.max_length = read_positive(v);
                } else if (key == "collide") {
                    j.collide = read_bool(v);
                }
            });
        require_member(node, "bodies");
        for (const std::string_view key : keys)
            if (key != "min" && key != "max" && key != "limits" && key != "restitution" && key != "motor")
                require_member(node, key);
        if (j.min_length >= 0 && j.max_length >= 0 && j.min_length > j.max_length)
            fail(node.member("min").pointer, "expected at most \"max\" (" + number_text(j.max_length) +
                                                 "), got " + number_text(j.min_length));
        if (j.type == JointType::distance && j.min_length < 0 && j.max_length < 0 &&
            (j.anchor_b - j.anchor).norm() <= 1e-9)
            fail(
                node.member("anchors").pointer,
                "a distance joint without \"min\"/\"max\" needs its anchors apart (it keeps their distance)");
        scene_.joints.push_back(std::move(j));
        joints_.push_back(std::move(extra));
    }

    void spring(const Node& node) {
        SceneSpring s;
        LinkExtra extra;
        s.pointer = node.pointer;
        for_each_member(node, {"bodies", "anchors", "stiffness", "damping", "rest_length"},
                        [&](std::string_view key, const Node& v) {
                            if (key == "bodies") {
                                std::tie(extra.a, extra.b) = link_bodies(v, "a spring");
                            } else if (key == "anchors") {
                                if (!v.value.is_array() || v.value.size() != 2)
                                    expected(v, "an array of 2 points [[x, y, z], [x, y, z]]");
                                s.anchor_a = read_vec3(v.element(0));
                                s.anchor_b = read_vec3(v.element(1));
                            } else if (key == "stiffness") {
                                s.stiffness = read_non_negative(v);
                            } else if (key == "damping") {
                                s.damping = read_non_negative(v);
                            } else {
                                extra.rest_length = read_non_negative(v);
                            }
                        });
        for (const char* key : {"bodies", "anchors", "stiffness"}) require_member(node, key);
        s.rest_length = extra.rest_length.value_or((s.anchor_b - s.anchor_a).norm());
        scene_.springs.push_back(std::move(s));
        springs_.push_back(std::move(extra));
    }

    // A pinned entry: a control point index (held by the world) or {"index": i, "body": NAME}. The index is
    // checked against the number of points once the whole cable has been read.
    void cable_pin(const Node& node, SceneCable& c, CableExtra& extra) {
        CablePin pin;
        std::string body(kWorld);
        const auto index = [](const Node& v) {
            return static_cast<std::uint32_t>(read_integer(v, 0,
                                                           std::numeric_limits<std::uint32_t>::max() - 1,
                                                           "a control point index (a non-negative integer)"));
        };
        if (node.value.is_object()) {
            for_each_member(node, {"index", "body"}, [&](std::string_view key, const Node& v) {
                if (key == "index")
                    pin.index = index(v);
                else
                    body = body_reference(v);
            });
            require_member(node, "index");
            require_member(node, "body");
        } else if (node.value.is_number()) {
            pin.index = index(node);
        } else {
            expected(node, "a control point index or {\"index\": i, \"body\": NAME}");
        }
        c.desc.pins.push_back(pin);
        extra.pin_bodies.push_back(std::move(body));
    }

    void cable(const Node& node) {
        SceneCable c;
        CableExtra extra;
        c.pointer = node.pointer;
        for_each_member(
            node,
            {"name", "points", "radius", "mass", "density", "material", "pinned", "stretch_stiffness",
             "bend_stiffness", "collision_group", "collision_mask"},
            [&](std::string_view key, const Node& v) {
                if (key == "name") {
                    c.name = read_string(v);
                    const auto [it, inserted] = cable_pointers_.emplace(c.name, node.pointer);
                    if (!inserted)
                        fail(v.pointer, "duplicate cable name " + json_quoted(c.name) + " (already used by " +
                                            it->second + ")");
                } else if (key == "points") {
                    scene_detail::require_array(v, "an array of control points [[x, y, z], ...]");
                    if (v.value.size() < 4)
                        fail(v.pointer, "expected at least 4 control points (one B-spline segment), got " +
                                            std::to_string(v.value.size()));
                    for (std::size_t i = 0; i < v.value.size(); ++i) {
                        c.desc.points.push_back(read_vec3(v.element(i)));
                        if (i > 0 && c.desc.points[i] == c.desc.points[i - 1])
                            fail(v.element(i).pointer, "coincides with point " + std::to_string(i - 1) +
                                                           " (neighbouring control points must be apart)");
                    }
                } else if (key == "radius") {
                    c.desc.radius = read_positive(v);
                } else if (key == "mass" || key == "density") {
                    if (partner_comes_first(node, key))
                        fail(v.pointer, "\"mass\" and \"density\" cannot both be given");
                    if (key == "mass") {
                        c.desc.mass = read_positive(v);
                    } else {
                        c.desc.density = read_positive(v);
                        extra.density_given = true;
                    }
                } else if (key == "material") {
                    extra.material = material_reference(v);
                } else if (key == "pinned") {
                    for_each_element(v, "an array of pinned control points",
                                     [&](const Node& p) { cable_pin(p, c, extra); });
                } else if (key == "stretch_stiffness") {
                    c.desc.stretch_stiffness = read_positive(v);
                } else if (key == "bend_stiffness") {
                    c.desc.bend_stiffness = read_non_negative(v);
                } else if (key == "collision_group" || key == "collision_mask") {
                    const auto bits = static_cast<std::uint32_t>(
                        read_integer(v, 0, 0xffffffffLL, "an integer in [0, 4294967295] (32 bits)"));
                    (key == "collision_group" ? c.desc.collision_group : c.desc.collision_mask) = bits;
                }
            });
        require_member(node, "name");
        require_member(node, "points");
        const std::size_t n = c.desc.points.size();
        // (control point, body name) -> the first pin of it: O(P log P) for a cable of many pins.
        std::map<std::pair<std::uint32_t, std::string>, std::size_t> first_pin;
        for (std::size_t k = 0; k < c.desc.pins.size(); ++k) {
            const Node pin = node.member("pinned").element(k);
            const std::string at = pin.value.is_object() ? child_pointer(pin.pointer, "index") : pin.pointer;
            if (c.desc.pins[k].index >= n)
                fail(at, "expected a control point index below " + std::to_string(n) + " (the cable has " +
                             std::to_string(n) + " points), got " + std::to_string(c.desc.pins[k].index));
            const auto [earlier, inserted] =
                first_pin.emplace(std::pair(c.desc.pins[k].index, extra.pin_bodies[k]), k);
            if (!inserted)
                fail(pin.pointer, "control point " + std::to_string(c.desc.pins[k].index) +
                                      " is already pinned to " + json_quoted(extra.pin_bodies[k]) + " by " +
                                      node.member("pinned").element(earlier->second).pointer);
        }
        scene_.cables.push_back(std::move(c));
        cables_.push_back(std::move(extra));
    }

    // ---- after pass 2: names to indices, defaults that depend on other entries --------------------------
    std::size_t material_id(const std::string& name) const {
        return name == "default" ? 0 : material_index_.at(name);
    }

    void resolve() {
        for (std::size_t i = 0; i < scene_.bodies.size(); ++i) {
            BodyDesc& d = scene_.bodies[i].desc;
            d.material = static_cast<MaterialId>(material_id(bodies_[i].material));
            if (!bodies_[i].density_given) d.density = scene_.materials[d.material].material.density;
        }
        for (const PairExtra& p : pairs_) {
            const std::size_t a = material_id(p.a), b = material_id(p.b);
            const Material& ma = scene_.materials[a].material;
            const Material& mb = scene_.materials[b].material;
            scene_.pairs.push_back({a, b, p.friction.value_or(0.5 * (ma.friction + mb.friction)),
                                    p.restitution.value_or(0.5 * (ma.restitution + mb.restitution))});
        }
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < scene_.bodies.size(); ++i) index.emplace(scene_.bodies[i].name, i);
        const auto lookup = [&](const std::string& name) {
            return name == kWorld ? kSceneWorld : index.at(name);
        };
        // The link-ends rule's static part (link_ends.h), now that every body's "static" is known.
        const auto require_dynamic_end = [&](const LinkExtra& link, const std::string& pointer,
                                             std::string_view what) {
            const auto is_static = [&](const std::string& name) {
                return name == kWorld || scene_.bodies[index.at(name)].desc.is_static;
            };
            const LinkEndsProblem problem = link_statics_problem(is_static(link.a), is_static(link.b));
            if (problem != LinkEndsProblem::none)
                fail(pointer + "/bodies", link_ends_message(problem, what, json_quoted(kWorld),
                                                            json_quoted(link.a), json_quoted(link.b)));
        };
        for (std::size_t i = 0; i < scene_.joints.size(); ++i) {
            require_dynamic_end(joints_[i], scene_.joints[i].pointer, "a joint");
            std::size_t a = lookup(joints_[i].a), b = lookup(joints_[i].b);
            if (a == kSceneWorld) std::swap(a, b);  // the dynamics wants the world, if any, as body B
            scene_.joints[i].body_a = a;
            scene_.joints[i].body_b = b;
        }
        for (std::size_t i = 0; i < scene_.springs.size(); ++i) {
            require_dynamic_end(springs_[i], scene_.springs[i].pointer, "a spring");
            scene_.springs[i].body_a = lookup(springs_[i].a);
            scene_.springs[i].body_b = lookup(springs_[i].b);
        }
        for (std::size_t i = 0; i < scene_.cables.size(); ++i) {
            SceneCable& c = scene_.cables[i];
            c.desc.material = static_cast<MaterialId>(material_id(cables_[i].material));
            if (!cables_[i].density_given)
                c.desc.density = scene_.materials[c.desc.material].material.density;
            for (const std::string& body : cables_[i].pin_bodies) c.pin_bodies.push_back(lookup(body));
        }
        if (step_count(scene_.duration, scene_.dt) > kMaxSteps)
            fail(has_dt_ ? "/dt" : "/duration",
                 "duration / dt is more than " + std::to_string(kMaxSteps) + " steps");
    }

    SceneDesc scene_;
    bool has_dt_ = false;
    std::set<std::string> known_materials_;
    std::set<std::string> known_bodies_;
    std::map<std::string, std::size_t> material_index_;
    std::map<std::pair<std::string, std::string>, std::string> pair_pointers_;
    std::map<std::string, std::string> body_pointers_;
    std::map<std::string, std::string> joint_pointers_;
    std::vector<BodyExtra> bodies_;
    std::vector<PairExtra> pairs_;
    std::vector<LinkExtra> joints_;
    std::vector<LinkExtra> springs_;
    std::map<std::string, std::string> cable_pointers_;
    std::vector<CableExtra> cables_;
};

}  // namespace

std::uint64_t step_count(double duration, double dt) {
    const double steps = duration / dt;
    if (!(steps < 1e18)) return std::numeric_limits<std::uint64_t>::max();
    const double nearest = std::round(steps);
    const double n = std::abs(steps - nearest) <= 1e-9 * std::max(1.0, nearest) ? nearest : std::ceil(steps);
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(n));
}

Result<SceneDesc> parse_scene(std::string_view json_text, std::string_view file_name,
                              std::span<const std::string> overrides) {
    Json document;  // outside the try block: see parse_json_text
    try {
        scene_detail::parse_json_text(json_text, document);
        for (const std::string& o : overrides) scene_detail::apply_override(document, o);
        return SceneParser(file_name).parse(document);
    } catch (const InputError& e) {
        return Error{scene_detail::format_error(file_name, e)};
    } catch (const std::bad_alloc&) {
        scene_detail::release_without_allocating(document);
        return Error{ErrorCode::out_of_memory,
                     std::string(file_name) + ": out of memory while reading the scene"};
    } catch (const std::exception& e) {
        // Not expected (every check above throws InputError); still one line and no crash.
        return Error{std::string(file_name) + ": internal error while reading the scene: " + e.what()};
    }
}

Result<SceneDesc> load_scene(const std::string& path, std::span<const std::string> overrides) {
    Result<std::string> text = scene_detail::read_text_file(path, "the scene");
    if (!text) return text.error();
    return parse_scene(*text, path, overrides);
}

}  // namespace simpulse
