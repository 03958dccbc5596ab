// Typed readers of the scene reader: each takes a JSON value together with its pointer, checks it and returns
// the converted value, or throws InputError naming the pointer and what was expected ("expected a positive
// number, got -1"). Shared by the shape reader and the scene reader.
#pragma once

#include "scene_json.h"

#include <simpulse/collision/math.h>
#include <simpulse/collision/shape.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace simpulse::scene_detail {

// A value of the document and where it is.
struct Node {
    const Json& value;
    std::string pointer;

    Node member(std::string_view key) const {
        return {value.at(std::string(key)), child_pointer(pointer, key)};
    }
    Node element(std::size_t index) const { return {value.at(index), child_pointer(pointer, index)}; }
};

[[noreturn]] void fail(const std::string& pointer, std::string message);
// "expected EXPECTATION, got VALUE" at the node.
[[noreturn]] void expected(const Node& node, std::string_view expectation);

double read_number(const Node& node);         // finite
double read_positive(const Node& node);       // finite, > 0
double read_non_negative(const Node& node);   // finite, >= 0
double read_unit_interval(const Node& node);  // in [0, 1]
// The whole number a JSON value holds, written as an integer or as a float without a fraction (3.0, 1e3), if
// it is one in [min, max].
std::optional<long long> whole_number(const Json& value, long long min, long long max);
// Integer in [min, max]; `expectation` names the range in the message ("a positive integer").
long long read_integer(const Node& node, long long min, long long max, std::string_view expectation);
bool read_bool(const Node& node);
std::string read_string(const Node& node);  // non-empty
Vec3 read_vec3(const Node& node);           // [x, y, z], finite
Vec3 read_nonzero_vec3(const Node& node);
Vec2 read_vec2(const Node& node);
Vec2 read_positive_vec2(const Node& node);
// Array of any length; `what` describes the elements in the message ("an array of points").
void require_array(const Node& node, std::string_view what);
// {"w", "x", "y", "z"} within kUnitTolerance of unit length (then normalised), or {"axis": [..], "angle_deg":
// a}.
Quat read_orientation(const Node& node);
inline constexpr double kUnitTolerance = 1e-3;

// Visits the members of an object in document order. A key not in `keys` is an error at its pointer that
// lists the accepted keys. Throws "expected an object" for anything else.
void for_each_member(const Node& object, std::initializer_list<std::string_view> keys,
                     const std::function<void(std::string_view key, const Node& value)>& visit);
// Throws `missing required key "KEY"` at the object unless it has the key.
void require_member(const Node& object, std::string_view key);

// Reads a SHAPE object. Static-only shapes (plane, mesh, heightfield) are returned as such; the caller
// decides whether the body may have one. Geometry the collision module rejects (e.g. a flat hull) is reported
// with the module's message at the pointer of the offending key.
ShapePtr read_shape(const Node& node);

}  // namespace simpulse::scene_detail
