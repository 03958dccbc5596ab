// The Python module `simpulse` (pybind11; docs/python.md): load_scene, the World (steps without the GIL,
// states as dicts, all positions and orientations as NumPy arrays, bodies and joints, the result document)
// and the shape factories of the public API. Values are converted here, each with the name of its argument in
// the message of the ValueError a bad one raises; python_world.cpp does the rest.
#include <simpulse/shapes.h>
#include <simpulse/version.h>

#include "bindings.h"
#include "python_world.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace py = pybind11;
using simpulse::python::PythonWorld;

namespace {

// A shape of the public API (simpulse.box(...), ...), immutable and shared by the bodies that use it.
struct PyShape {
    simpulse::ShapePtr shape;
};

[[noreturn]] void bad_value(const std::string& field, const std::string& expected, const py::handle& got) {
    throw py::value_error(field + ": expected " + expected + ", got " + py::repr(got).cast<std::string>());
}

double number(const std::string& field, const py::handle& value) {
    if (py::isinstance<py::bool_>(value) ||
        !(py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value) ||
          py::hasattr(value, "__float__")))
        bad_value(field, "a number", value);
    const double x = py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>();
    if (!std::isfinite(x)) bad_value(field, "a finite number", value);
    return x;
}

}  // namespace

std::vector<double> simpulse::python::numbers(const std::string& field, const py::handle& value,
                                              std::size_t n) {
    const std::string expected = "a sequence of " + std::to_string(n) + " numbers";
    if (py::isinstance<py::str>(value) || !py::isinstance<py::sequence>(value))
        bad_value(field, expected, value);
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(value);
    if (seq.size() != n) bad_value(field, expected, value);
    std::vector<double> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(number(field + "[" + std::to_string(i) + "]", seq[i]));
    return out;
}

std::vector<std::string> simpulse::python::override_list(const py::object& overrides) {
    if (overrides.is_none()) return {};
    if (py::isinstance<py::str>(overrides) || !py::isinstance<py::sequence>(overrides))
        bad_value("overrides", "a list of \"/json/pointer=VALUE\" strings", overrides);
    std::vector<std::string> out;
    for (const py::handle& o : overrides) {
        if (!py::isinstance<py::str>(o))
            bad_value("overrides", "a list of \"/json/pointer=VALUE\" strings", o);
        out.push_back(o.cast<std::string>());
    }
    return out;
}

namespace {
using simpulse::python::numbers;
using simpulse::python::override_list;

simpulse::Vec3 vec3(const std::string& field, const py::handle& value) {
    const std::vector<double> v = numbers(field, value, 3);
    return {v[0], v[1], v[2]};
}

std::optional<double> optional_number(const std::string& field, const py::object& value) {
    if (value.is_none()) return std::nullopt;
    return number(field, value);
}

std::optional<std::pair<double, double>> optional_pair(const std::string& field, const py::object& value) {
    if (value.is_none()) return std::nullopt;
    const std::vector<double> v = numbers(field, value, 2);
    return std::pair{v[0], v[1]};
}

PyShape shape_of(simpulse::Result<simpulse::ShapePtr> result) {
    if (!result) throw py::value_error(result.error().message);
    return {std::move(result).value()};
}

py::list list3(const simpulse::Vec3& v) {
    py::list l;
    for (int i = 0; i < 3; ++i) l.append(v[i]);
    return l;
}

// A body's state as the result document writes it (docs/scene-format.md): lists and {"w", "x", "y", "z"}, so
// that it compares equal to the body's entry of `simpulse run --out` without its name.
py::dict state_dict(const simpulse::BodyState& s) {
    const simpulse::Quat& q = s.pose.orientation;
    py::dict d;
    d["position"] = list3(s.pose.position);
    d["orientation"] =
        py::dict(py::arg("w") = q.w(), py::arg("x") = q.x(), py::arg("y") = q.y(), py::arg("z") = q.z());
    d["velocity"] = list3(s.velocity);
    d["angular_velocity"] = list3(s.angular_velocity);
    return d;
}

// An orientation given as (w, x, y, z) or as the result document's {"w", "x", "y", "z"}.
simpulse::Quat quaternion(const std::string& field, const py::handle& value) {
    if (py::isinstance<py::dict>(value)) {
        const py::dict d = py::reinterpret_borrow<py::dict>(value);
        for (const char* key : {"w", "x", "y", "z"})
            if (!d.contains(key)) bad_value(field, "(w, x, y, z) or {\"w\", \"x\", \"y\", \"z\"}", value);
        return {number(field + ".w", d["w"]), number(field + ".x", d["x"]), number(field + ".y", d["y"]),
                number(field + ".z", d["z"])};
    }
    const std::vector<double> q = numbers(field, value, 4);
    return {q[0], q[1], q[2], q[3]};
}

// An (n, columns) array of every body's state, filled under one lock of the world.
template <int columns, class F>
py::array_t<double> state_array(const PythonWorld& world, F&& fill) {
    py::array_t<double> out(
        {static_cast<py::ssize_t>(world.body_count()), static_cast<py::ssize_t>(columns)});
    auto view = out.mutable_unchecked<2>();
    world.for_each_state([&](std::size_t i, const simpulse::BodyState& s) {
        if (static_cast<py::ssize_t>(i) < view.shape(0)) fill(&view(static_cast<py::ssize_t>(i), 0), s);
    });
    return out;
}

void put(double* row, const simpulse::Vec3& v) {
    row[0] = v.x();
    row[1] = v.y();
    row[2] = v.z();
}

std::unique_ptr<PythonWorld> load_scene(const py::object& source, const py::object& overrides) {
    const std::vector<std::string> sets = override_list(overrides);
    if (py::isinstance<py::dict>(source)) {
        // The same reader as files: the dict is written as JSON text first.
        const std::string text = py::module_::import("json").attr("dumps")(source).cast<std::string>();
        return PythonWorld::from_json(text, "<dict>", sets);
    }
    if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__"))
        return PythonWorld::from_file(py::module_::import("os").attr("fspath")(source).cast<std::string>(),
                                      sets);
    bad_value("path_or_dict", "a file path or a dict", source);
}

}  // namespace

PYBIND11_MODULE(simpulse, m) {
    m.doc() = "simpulse: rigid-body physics with a simultaneous impulse solver (docs/python.md)";
    m.attr("__version__") = simpulse::version();

    py::class_<PyShape>(m, "Shape", "A collision shape of the public API, shared by the bodies that use it");
    m.def(
        "sphere", [](const py::object& r) { return shape_of(simpulse::create_sphere(number("radius", r))); },
        py::arg("radius"));
    m.def(
        "box", [](const py::object& h) { return shape_of(simpulse::create_box(vec3("half_extents", h))); },
        py::arg("half_extents"));
    m.def(
        "capsule",
        [](const py::object& r, const py::object& h) {
            return shape_of(simpulse::create_capsule(number("radius", r), number("half_length", h)));
        },
        py::arg("radius"), py::arg("half_length"));
    m.def(
        "cylinder",
        [](const py::object& r, const py::object& h) {
            return shape_of(simpulse::create_cylinder(number("radius", r), number("half_height", h)));
        },
        py::arg("radius"), py::arg("half_height"));
    m.def(
        "cone",
        [](const py::object& r, const py::object& h) {
            return shape_of(simpulse::create_cone(number("radius", r), number("half_height", h)));
        },
        py::arg("radius"), py::arg("half_height"));
    m.def(
        "convex_hull",
        [](const py::sequence& points) {
            std::vector<simpulse::Vec3> p;
            for (std::size_t i = 0; i < points.size(); ++i)
                p.push_back(vec3("points[" + std::to_string(i) + "]", points[i]));
            return shape_of(simpulse::create_convex_hull(p));
        },
        py::arg("points"));
    m.def(
        "plane",
        [](const py::object& normal, const py::object& offset) {
            return shape_of(simpulse::create_plane(vec3("normal", normal), number("offset", offset)));
        },
        py::arg("normal"), py::arg("offset") = 0.0);

    py::class_<PythonWorld>(m, "World", "A world built from a scene, stepped by the scene's dt")
        .def(py::init([]() { return PythonWorld::from_json("{}", "<new world>", {}); }),
             "An empty world with the scene format's defaults (dt 1/240 s, gravity (0, 0, -9.81))")
        .def(
            "step",
            [](PythonWorld& w, long long n) {
                const py::gil_scoped_release release;  // other Python threads run while this world steps
                w.step(n);
            },
            py::arg("n") = 1,
            "Takes n steps of the scene's dt; RuntimeError if a body's state became non-finite")
        .def(
            "run",
            [](PythonWorld& w) {
                const py::gil_scoped_release release;
                w.run();
            },
            "Steps to the scene's duration: the steps `simpulse run` takes, less those taken already")
        .def_property_readonly("time", &PythonWorld::time, "Simulated time, s")
        .def_property_readonly("duration", &PythonWorld::duration, "The scene's duration, s")
        .def_property_readonly("dt", &PythonWorld::dt, "The step, s (the scene's dt)")
        .def_property_readonly("steps", &PythonWorld::step_count, "Steps taken")
        .def_property_readonly("body_names", &PythonWorld::body_names, "Body names in scene order")
        .def(
            "state", [](const PythonWorld& w, const std::string& name) { return state_dict(w.state(name)); },
            py::arg("name"),
            "{'position', 'orientation' (w, x, y, z), 'velocity', 'angular_velocity'} of a body")
        .def(
            "positions",
            [](const PythonWorld& w) {
                return state_array<3>(
                    w, [](double* row, const simpulse::BodyState& s) { put(row, s.pose.position); });
            },
            "Every body's position, an (n, 3) array in scene order (a fresh copy)")
        .def(
            "orientations",
            [](const PythonWorld& w) {
                return state_array<4>(w, [](double* row, const simpulse::BodyState& s) {
                    const simpulse::Quat& q = s.pose.orientation;
                    row[0] = q.w();
                    put(row + 1, q.vec());
                });
            },
            "Every body's orientation, an (n, 4) array of unit quaternions (w, x, y, z) in scene order")
        .def(
            "velocities",
            [](const PythonWorld& w) {
                return state_array<3>(
                    w, [](double* row, const simpulse::BodyState& s) { put(row, s.velocity); });
            },
            "Every body's centre-of-mass velocity, an (n, 3) array")
        .def(
            "angular_velocities",
            [](const PythonWorld& w) {
                return state_array<3>(
                    w, [](double* row, const simpulse::BodyState& s) { put(row, s.angular_velocity); });
            },
            "Every body's angular velocity (world frame), an (n, 3) array")
        .def(
            "create_body",
            [](PythonWorld& w, const std::string& name, const PyShape& shape, const py::object& position,
               const py::object& orientation, const py::object& velocity, const py::object& angular_velocity,
               bool is_static, const py::object& mass, const py::object& density, bool ccd) {
                simpulse::python::BodyArgs args;
                args.name = name;
                args.desc.shape = shape.shape;
                args.desc.pose.position = vec3("position", position);
                args.desc.pose.orientation = quaternion("orientation", orientation);
                args.desc.velocity = vec3("velocity", velocity);
                args.desc.angular_velocity = vec3("angular_velocity", angular_velocity);
                args.desc.is_static = is_static;
                args.desc.mass = optional_number("mass", mass);
                args.density = optional_number("density", density);
                args.desc.ccd = ccd;
                w.create_body(args);
            },
            py::arg("name"), py::arg("shape"), py::arg("position") = py::make_tuple(0, 0, 0),
            py::arg("orientation") = py::make_tuple(1, 0, 0, 0),
            py::arg("velocity") = py::make_tuple(0, 0, 0),
            py::arg("angular_velocity") = py::make_tuple(0, 0, 0), py::arg("static") = false,
            py::arg("mass") = py::none(), py::arg("density") = py::none(), py::arg("ccd") = true,
            "Adds a body (World::create_body); ValueError naming the argument if it is refused")
        .def(
            "add_joint",
            [](PythonWorld& w, const std::string& type, const std::string& body_a, const std::string& body_b,
               const py::object& anchor, const py::object& axis, const py::object& anchor_b,
               const py::object& min_length, const py::object& max_length, const py::object& limits,
               const py::object& motor, bool collide, const std::string& name) {
                simpulse::python::JointArgs args{type, body_a, body_b, {}};
                simpulse::SceneJoint& j = args.joint;
                j.name = name;
                j.anchor = vec3("anchor", anchor);
                j.axis = vec3("axis", axis);
                j.anchor_b = vec3("anchor_b", anchor_b);
                j.min_length = optional_number("min_length", min_length).value_or(-1);
                j.max_length = optional_number("max_length", max_length).value_or(-1);
                if (const auto l = optional_pair("limits", limits)) j.limit = {true, l->first, l->second, 0};
                if (const auto drive = optional_pair("motor", motor))
                    j.motor = {true, drive->first, drive->second};
                j.collide = collide;
                w.add_joint(args);
            },
            py::arg("type"), py::arg("body_a"), py::arg("body_b") = "world",
            py::arg("anchor") = py::make_tuple(0, 0, 0), py::arg("axis") = py::make_tuple(1, 0, 0),
            py::arg("anchor_b") = py::make_tuple(0, 0, 0), py::arg("min_length") = py::none(),
            py::arg("max_length") = py::none(), py::arg("limits") = py::none(), py::arg("motor") = py::none(),
            py::arg("collide") = false, py::arg("name") = "",
            "Adds a joint (World::add_joint): type ball, hinge, fixed, slider or distance; body_b 'world' is "
            "the fixed frame; limits (lower, upper), motor (speed, max torque or force)")
        .def(
            "result",
            [](const PythonWorld& w) { return py::module_::import("json").attr("loads")(w.result_json()); },
            "The result document of `simpulse run --out` for the steps taken, as a dict");

    simpulse::python::bind_sweep(m);
    m.def(
        "load_scene", &load_scene, py::arg("path_or_dict"), py::arg("overrides") = py::none(),
        "Reads a scene file (or a dict in the scene format) with optional '--set' overrides "
        "['/json/pointer=VALUE', ...] and builds its World; ValueError naming the file and the JSON pointer");
}
