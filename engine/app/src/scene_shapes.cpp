// Reads SHAPE objects of a scene (sphere, box, capsule, cylinder, cone, convex, mesh, heightfield, plane,
// compound, prism) into collision shapes, converting the scene's full sizes to the shapes' half sizes.
#include <simpulse/shapes.h>

#include "scene_reader.h"

#include <array>
#include <limits>
#include <vector>

namespace simpulse::scene_detail {
namespace {

constexpr std::string_view kTypes =
    "sphere, box, capsule, cylinder, cone, convex, mesh, heightfield, plane, compound, prism";

// Unwraps a factory result; a rejection is reported at `pointer` with the collision module's message.
ShapePtr made(Result<ShapePtr> result, const std::string& pointer) {
    if (!result) fail(pointer, result.error().message);
    return std::move(result).value();
}

// A full size of the scene, of which the shape stores half: the smallest positive double (5e-324) has no
// positive half, and the shape would report a half extent of 0 that the file never gave.
double read_halved_size(const Node& node) {
    const double size = read_positive(node);
    if (!(0.5 * size > 0)) expected(node, "a size of at least 1e-323 (the shape stores half of it)");
    return 0.5 * size;
}

ShapePtr read_sphere(const Node& node) {
    double radius = 0;
    for_each_member(node, {"type", "radius"}, [&](std::string_view key, const Node& v) {
        if (key == "radius") radius = read_positive(v);
    });
    require_member(node, "radius");
    return made(create_sphere(radius), node.pointer);
}

ShapePtr read_box(const Node& node) {
    Vec3 half = Vec3::Constant(0.5);
    for_each_member(node, {"type", "size"}, [&](std::string_view key, const Node& v) {
        if (key != "size") return;
        if (!v.value.is_array() || v.value.size() != 3) expected(v, "an array of 3 positive numbers");
        for (int k = 0; k < 3; ++k) half[k] = read_halved_size(v.element(static_cast<std::size_t>(k)));
    });
    require_member(node, "size");
    return made(create_box(half), node.pointer);
}

// Capsule, cylinder and cone: a radius and a length along local z (`length_key`), stored as half of it.
ShapePtr read_axial(const Node& node, ShapeType type, std::string_view length_key) {
    double radius = 0, half_length = 0;
    for_each_member(node, {"type", "radius", length_key}, [&](std::string_view key, const Node& v) {
        if (key == "radius")
            radius = read_positive(v);
        else if (key == length_key)
            half_length = read_halved_size(v);
    });
    require_member(node, "radius");
    require_member(node, length_key);
    switch (type) {
        case ShapeType::capsule:
            return made(create_capsule(radius, half_length), node.pointer);
        case ShapeType::cylinder:
            return made(create_cylinder(radius, half_length), node.pointer);
        default:
            return made(create_cone(radius, half_length), node.pointer);
    }
}

std::vector<Vec3> read_points(const Node& node) {
    require_array(node, "an array of points [x, y, z]");
    std::vector<Vec3> points;
    points.reserve(node.value.size());
    for (std::size_t i = 0; i < node.value.size(); ++i) points.push_back(read_vec3(node.element(i)));
    return points;
}

ShapePtr read_convex(const Node& node) {
    std::vector<Vec3> points;
    for_each_member(node, {"type", "points"}, [&](std::string_view key, const Node& v) {
        if (key == "points") points = read_points(v);
    });
    require_member(node, "points");
    return made(create_convex_hull(points), child_pointer(node.pointer, "points"));
}

ShapePtr read_mesh(const Node& node) {
    std::vector<Vec3> vertices;
    std::vector<std::array<std::uint32_t, 3>> triangles;
    for_each_member(node, {"type", "vertices", "triangles"}, [&](std::string_view key, const Node& v) {
        if (key == "vertices") vertices = read_points(v);
        if (key != "triangles") return;
        require_array(v, "an array of triangles [i, j, k]");
        for (std::size_t t = 0; t < v.value.size(); ++t) {
            const Node triangle = v.element(t);
            if (!triangle.value.is_array() || triangle.value.size() != 3)
                expected(triangle, "a triangle [i, j, k] of vertex indices");
            std::array<std::uint32_t, 3> indices{};
            for (std::size_t k = 0; k < 3; ++k)
                indices[k] = static_cast<std::uint32_t>(
                    read_integer(triangle.element(k), 0, std::numeric_limits<std::uint32_t>::max(),
                                 "a vertex index (integer >= 0)"));
            triangles.push_back(indices);
        }
    });
    require_member(node, "vertices");
    require_member(node, "triangles");
    // Checked after both keys are read: "triangles" may come before "vertices".
    for (std::size_t t = 0; t < triangles.size(); ++t)
        for (std::size_t k = 0; k < 3; ++k)
            if (triangles[t][k] >= vertices.size())
                fail(child_pointer(child_pointer(child_pointer(node.pointer, "triangles"), t), k),
                     "vertex index " + std::to_string(triangles[t][k]) + " is out of range (the mesh has " +
                         std::to_string(vertices.size()) + " vertices)");
    return made(create_triangle_mesh(std::move(vertices), std::move(triangles)), node.pointer);
}

ShapePtr read_heightfield(const Node& node) {
    Vec2 origin = Vec2::Zero(), spacing = Vec2::Ones();
    std::vector<double> heights;
    std::size_t rows = 0, columns = 0;
    for_each_member(node, {"type", "origin", "spacing", "heights"}, [&](std::string_view key, const Node& v) {
        if (key == "origin") {
            origin = read_vec2(v);
        } else if (key == "spacing") {
            spacing = read_positive_vec2(v);
        } else if (key == "heights") {
            if (!v.value.is_array() || v.value.size() < 2)
                expected(v, "an array of at least 2 rows of heights");
            rows = v.value.size();
            for (std::size_t i = 0; i < rows; ++i) {
                const Node row = v.element(i);
                if (i == 0) {
                    if (!row.value.is_array() || row.value.size() < 2)
                        expected(row, "a row of at least 2 heights");
                    columns = row.value.size();
                } else if (!row.value.is_array() || row.value.size() != columns) {
                    expected(row, "a row of " + std::to_string(columns) + " heights like row 0");
                }
                for (std::size_t j = 0; j < columns; ++j) heights.push_back(read_number(row.element(j)));
            }
        }
    });
    require_member(node, "origin");
    require_member(node, "spacing");
    require_member(node, "heights");
    return made(create_height_field(origin, spacing, static_cast<int>(rows), static_cast<int>(columns),
                                    std::move(heights)),
                node.pointer);
}

ShapePtr read_plane(const Node& node) {
    Vec3 normal = Vec3::UnitZ();
    double offset = 0;
    for_each_member(node, {"type", "normal", "offset"}, [&](std::string_view key, const Node& v) {
        if (key == "normal")
            normal = read_nonzero_vec3(v);
        else if (key == "offset")
            offset = read_number(v);
    });
    require_member(node, "normal");
    return made(create_plane(normal, offset), node.pointer);
}

ShapePtr read_compound(const Node& node) {
    std::vector<CompoundChild> children;
    for_each_member(node, {"type", "children"}, [&](std::string_view key, const Node& v) {
        if (key != "children") return;
        if (!v.value.is_array() || v.value.empty())
            expected(v, "a non-empty array of {shape, position, orientation}");
        for (std::size_t i = 0; i < v.value.size(); ++i) {
            const Node child = v.element(i);
            ShapePtr shape;
            Pose pose;
            for_each_member(child, {"shape", "position", "orientation"},
                            [&](std::string_view k, const Node& c) {
                                if (k == "shape")
                                    shape = read_shape(c);
                                else if (k == "position")
                                    pose.position = read_vec3(c);
                                else
                                    pose.orientation = read_orientation(c);
                            });
            require_member(child, "shape");
            if (is_static_only(shape->type()))
                fail(child_pointer(child_pointer(child.pointer, "shape"), "type"),
                     std::string("a compound child cannot be a ") + shape_type_name(shape->type()) +
                         " (static-only shapes go on a static body of their own)");
            // A compound inside a compound is flattened: its children join this one, placed through both
            // poses.
            if (shape->type() == ShapeType::compound) {
                for (const CompoundChild& grandchild : std::get<Compound>(shape->geometry).children)
                    children.push_back({grandchild.shape, pose * grandchild.pose});
            } else {
                children.push_back({std::move(shape), pose});
            }
        }
    });
    require_member(node, "children");
    return made(create_compound(std::move(children)), node.pointer);
}

// Prism (SEEDS.md section 5): boundaries [outer, hole, ...] of [x, y] points, thickness along local z, and
// the decomposition's quality threshold (default 0: an exact convex partition).
ShapePtr read_prism(const Node& node) {
    std::vector<std::vector<Vec2>> boundaries;
    double thickness = 0, tolerance = 0;
    for_each_member(
        node, {"type", "boundaries", "thickness", "tolerance"}, [&](std::string_view key, const Node& v) {
            if (key == "thickness") {
                thickness = read_positive(v);
            } else if (key == "tolerance") {
                tolerance = read_number(v);
                if (!(tolerance >= 0 && tolerance < 1)) expected(v, "a tolerance in [0, 1)");
            } else if (key == "boundaries") {
                if (!v.value.is_array() || v.value.empty())
                    expected(
                        v, "a non-empty array of boundaries (outer counter-clockwise, then clockwise holes)");
                for (std::size_t b = 0; b < v.value.size(); ++b) {
                    const Node ring = v.element(b);
                    if (!ring.value.is_array() || ring.value.size() < 3)
                        expected(ring, "a boundary of at least 3 points [x, y]");
                    std::vector<Vec2> points;
                    for (std::size_t i = 0; i < ring.value.size(); ++i)
                        points.push_back(read_vec2(ring.element(i)));
                    boundaries.push_back(std::move(points));
                }
            }
        });
    require_member(node, "boundaries");
    require_member(node, "thickness");
    return made(create_prism(std::move(boundaries), thickness, tolerance),
                child_pointer(node.pointer, "boundaries"));
}

}  // namespace

ShapePtr read_shape(const Node& node) {
    if (!node.value.is_object()) expected(node, "a shape object with a \"type\"");
    require_member(node, "type");
    const Node type_node = node.member("type");
    if (!type_node.value.is_string())
        expected(type_node, std::string("a shape type (") + std::string(kTypes) + ")");
    const std::string& type = type_node.value.get_ref<const std::string&>();
    if (type == "sphere") return read_sphere(node);
    if (type == "box") return read_box(node);
    if (type == "capsule") return read_axial(node, ShapeType::capsule, "length");
    if (type == "cylinder") return read_axial(node, ShapeType::cylinder, "height");
    if (type == "cone") return read_axial(node, ShapeType::cone, "height");
    if (type == "convex") return read_convex(node);
    if (type == "mesh") return read_mesh(node);
    if (type == "heightfield") return read_heightfield(node);
    if (type == "plane") return read_plane(node);
    if (type == "compound") return read_compound(node);
    if (type == "prism") return read_prism(node);
    expected(type_node, std::string("a shape type (") + std::string(kTypes) + ")");
}

}  // namespace simpulse::scene_detail
