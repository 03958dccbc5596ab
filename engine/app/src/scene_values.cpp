// Typed readers of scene values (numbers, vectors, orientations, objects) with messages that name the pointer
// and what was expected (see scene_reader.h).
#include "scene_reader.h"

#include <simpulse/collision/number_text.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace simpulse::scene_detail {
namespace {

std::string key_list(std::initializer_list<std::string_view> keys) {
    std::string out;
    for (const std::string_view key : keys) {
        if (!out.empty()) out += ", ";
        out += key;
    }
    return out;
}

}  // namespace

void fail(const std::string& pointer, std::string message) {
    throw InputError{pointer, std::move(message)};
}

void expected(const Node& node, std::string_view expectation) {
    fail(node.pointer, "expected " + std::string(expectation) + ", got " + describe(node.value));
}

double read_number(const Node& node) {
    if (!node.value.is_number()) expected(node, "a number");
    const double x = node.value.get<double>();
    if (!std::isfinite(x)) expected(node, "a finite number");
    return x;
}

double read_positive(const Node& node) {
    if (!node.value.is_number()) expected(node, "a positive number");
    const double x = node.value.get<double>();
    if (!(x > 0) || !std::isfinite(x)) expected(node, "a positive number");
    return x;
}

double read_non_negative(const Node& node) {
    if (!node.value.is_number()) expected(node, "a non-negative number");
    const double x = node.value.get<double>();
    if (!(x >= 0) || !std::isfinite(x)) expected(node, "a non-negative number");
    return x;
}

double read_unit_interval(const Node& node) {
    if (!node.value.is_number()) expected(node, "a number in [0, 1]");
    const double x = node.value.get<double>();
    if (!(x >= 0 && x <= 1)) expected(node, "a number in [0, 1]");
    return x;
}

std::optional<long long> whole_number(const Json& value, long long min, long long max) {
    if (value.is_number_integer()) {
        // Unsigned values beyond the signed range are out of every range used here.
        if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
            return std::nullopt;
        const long long v = value.get<long long>();
        if (v < min || v > max) return std::nullopt;
        return v;
    }
    // 3.0 (e.g. from a generated file) is the integer 3; 2.5 is not an integer.
    if (value.is_number_float()) {
        const double x = value.get<double>();
        if (std::isfinite(x) && x == std::floor(x) && x >= static_cast<double>(min) &&
            x <= static_cast<double>(max))
            return static_cast<long long>(x);
    }
    return std::nullopt;
}

long long read_integer(const Node& node, long long min, long long max, std::string_view expectation) {
    const std::optional<long long> v = whole_number(node.value, min, max);
    if (!v) expected(node, expectation);
    return *v;
}

bool read_bool(const Node& node) {
    if (!node.value.is_boolean()) expected(node, "true or false");
    return node.value.get<bool>();
}

std::string read_string(const Node& node) {
    if (!node.value.is_string() || node.value.get_ref<const std::string&>().empty())
        expected(node, "a non-empty string");
    return node.value.get<std::string>();
}

Vec3 read_vec3(const Node& node) {
    if (!node.value.is_array() || node.value.size() != 3) expected(node, "an array of 3 numbers");
    return {read_number(node.element(0)), read_number(node.element(1)), read_number(node.element(2))};
}

Vec3 read_nonzero_vec3(const Node& node) {
    const Vec3 v = read_vec3(node);
    if (!(v.norm() > 0)) expected(node, "a non-zero vector");
    return v;
}

Vec2 read_vec2(const Node& node) {
    if (!node.value.is_array() || node.value.size() != 2) expected(node, "an array of 2 numbers");
    return {read_number(node.element(0)), read_number(node.element(1))};
}

Vec2 read_positive_vec2(const Node& node) {
    if (!node.value.is_array() || node.value.size() != 2) expected(node, "an array of 2 positive numbers");
    return {read_positive(node.element(0)), read_positive(node.element(1))};
}

void require_array(const Node& node, std::string_view what) {
    if (!node.value.is_array()) expected(node, what);
}

Quat read_orientation(const Node& node) {
    if (!node.value.is_object())
        expected(node, "an orientation {\"w\", \"x\", \"y\", \"z\"} or {\"axis\", \"angle_deg\"}");
    // The form is chosen by its keys; a key of the other form is then reported as unknown.
    const bool axis_angle = node.value.contains("axis") || node.value.contains("angle_deg");
    if (axis_angle) {
        Vec3 axis = Vec3::UnitZ();
        double angle_deg = 0;
        for_each_member(node, {"axis", "angle_deg"}, [&](std::string_view key, const Node& v) {
            if (key == "axis")
                axis = read_nonzero_vec3(v);
            else
                angle_deg = read_number(v);
        });
        require_member(node, "axis");
        require_member(node, "angle_deg");
        return Quat(Eigen::AngleAxisd(angle_deg * std::numbers::pi / 180.0, axis.normalized()));
    }
    double c[4] = {0, 0, 0, 0};
    for_each_member(node, {"w", "x", "y", "z"}, [&](std::string_view key, const Node& v) {
        c[key == "w" ? 0 : key == "x" ? 1 : key == "y" ? 2 : 3] = read_number(v);
    });
    for (const char* key : {"w", "x", "y", "z"}) require_member(node, key);
    const Quat q(c[0], c[1], c[2], c[3]);
    const double norm = q.norm();
    if (!(norm > 0)) fail(node.pointer, "expected a unit quaternion, got the zero quaternion");
    if (!std::isfinite(norm) || std::abs(norm - 1) > kUnitTolerance)
        fail(node.pointer, "expected a unit quaternion (|q| within " + number_text(kUnitTolerance) +
                               " of 1), got |q| = " + number_text(norm));
    return q.normalized();
}

void for_each_member(const Node& object, std::initializer_list<std::string_view> keys,
                     const std::function<void(std::string_view key, const Node& value)>& visit) {
    if (!object.value.is_object()) expected(object, "an object");
    for (const auto& [key, value] : object.value.items()) {
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
            fail(child_pointer(object.pointer, key), "unknown key; expected one of " + key_list(keys));
        visit(key, Node{value, child_pointer(object.pointer, key)});
    }
}

void require_member(const Node& object, std::string_view key) {
    if (!object.value.contains(std::string(key)))
        fail(object.pointer, "missing required key \"" + std::string(key) + "\"");
}

}  // namespace simpulse::scene_detail
