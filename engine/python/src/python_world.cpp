// The World of the Python module (python_world.h): scene reading and building through simpulse::app, steps
// through SceneStepper, bodies and joints through the public World API, each call under the world's mutex.
#include "python_world.h"

#include <chrono>
#include <stdexcept>
#include <utility>

namespace simpulse::python {
namespace {

template <class T>
T value_or_throw(Result<T> result) {
    if (!result) throw std::invalid_argument(result.error().message);
    return std::move(result).value();
}

std::unique_ptr<PythonWorld> make(Result<SceneDesc> scene,
                                  std::unique_ptr<PythonWorld> (*construct)(SceneDesc, SceneWorld)) {
    SceneDesc desc = value_or_throw(std::move(scene));
    SceneWorld world = value_or_throw(build_world(desc));
    return construct(std::move(desc), std::move(world));
}

}  // namespace

PythonWorld::PythonWorld(SceneDesc scene, SceneWorld world)
    : scene_(std::move(scene)), sw_(std::move(world)) {}

std::unique_ptr<PythonWorld> PythonWorld::from_file(const std::string& path,
                                                    const std::vector<std::string>& overrides) {
    return make(load_scene(path, overrides), [](SceneDesc s, SceneWorld w) {
        return std::unique_ptr<PythonWorld>(new PythonWorld(std::move(s), std::move(w)));
    });
}

std::unique_ptr<PythonWorld> PythonWorld::from_json(const std::string& text, const std::string& file_name,
                                                    const std::vector<std::string>& overrides) {
    return make(parse_scene(text, file_name, overrides), [](SceneDesc s, SceneWorld w) {
        return std::unique_ptr<PythonWorld>(new PythonWorld(std::move(s), std::move(w)));
    });
}

void PythonWorld::step(long long n) {
    if (n < 0)
        throw std::invalid_argument("n: expected a non-negative number of steps, got " + std::to_string(n));
    const std::lock_guard lock(mutex_);
    const auto start = std::chrono::steady_clock::now();
    bool ok = true;
    for (long long i = 0; i < n && ok; ++i) ok = stepper_.step(scene_, sw_);
    stepper_.report().wall_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!ok) throw std::runtime_error(scene_.file + ": " + stepper_.report().error);
}

void PythonWorld::run() {
    const std::uint64_t total = simpulse::step_count(scene_.duration, scene_.dt);
    const std::uint64_t done = step_count();
    step(total > done ? static_cast<long long>(total - done) : 0);
}

double PythonWorld::time() const {
    const std::lock_guard lock(mutex_);
    return sw_.world.time();
}

double PythonWorld::dt() const {
    return scene_.dt;  // never changes
}

double PythonWorld::duration() const {
    return scene_.duration;  // never changes
}

std::uint64_t PythonWorld::step_count() const {
    const std::lock_guard lock(mutex_);
    return sw_.world.step_count();
}

std::size_t PythonWorld::body_count() const {
    const std::lock_guard lock(mutex_);
    return sw_.bodies.size();
}

std::vector<std::string> PythonWorld::body_names() const {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> names;
    for (const SceneBody& b : scene_.bodies) names.push_back(b.name);
    return names;
}

std::size_t PythonWorld::body_index(const std::string& field, const std::string& name) const {
    for (std::size_t i = 0; i < scene_.bodies.size(); ++i)
        if (scene_.bodies[i].name == name) return i;
    throw std::invalid_argument(field + ": unknown body \"" + name + "\"");
}

BodyState PythonWorld::state(const std::string& name) const {
    const std::lock_guard lock(mutex_);
    return sw_.world.state(sw_.bodies[body_index("name", name)]).value();
}

void PythonWorld::create_body(const BodyArgs& args) {
    const std::lock_guard lock(mutex_);
    if (args.name.empty()) throw std::invalid_argument("name: expected a non-empty string");
    if (args.name == "world")
        throw std::invalid_argument("name: \"world\" names the fixed frame in joints; choose another name");
    for (const SceneBody& b : scene_.bodies)
        if (b.name == args.name)
            throw std::invalid_argument("name: a body \"" + args.name + "\" exists already");
    if (!args.desc.shape)
        throw std::invalid_argument("shape: expected a shape (simpulse.box(...), simpulse.sphere(...), ...)");
    if (args.desc.mass && args.density)
        throw std::invalid_argument("density: mass and density cannot both be given");
    BodyDesc desc = args.desc;
    desc.density = args.density.value_or(scene_.materials.front().material.density);
    const BodyId id = value_or_throw(sw_.world.create_body(desc));
    scene_.bodies.push_back({args.name, "(python) create_body(\"" + args.name + "\")", desc});
    sw_.bodies.push_back(id);
}

void PythonWorld::add_joint(const JointArgs& args) {
    const std::lock_guard lock(mutex_);
    const std::optional<JointType> type = parse_joint_type(args.type);
    if (!type)
        throw std::invalid_argument("type: expected one of ball, hinge, fixed, slider, distance, got \"" +
                                    args.type + "\"");
    SceneJoint joint = args.joint;
    joint.pointer = "(python) add_joint";
    joint.type = *type;
    joint.body_a = body_index("body_a", args.body_a);
    joint.body_b = args.body_b == "world" ? kSceneWorld : body_index("body_b", args.body_b);
    const JointId id = value_or_throw(sw_.world.add_joint(joint_desc(joint, sw_.bodies)));
    scene_.joints.push_back(std::move(joint));
    sw_.joints.push_back(id);
}

std::string PythonWorld::result_json() const {
    const std::lock_guard lock(mutex_);
    return simpulse::result_json(scene_, sw_, stepper_.report());
}

}  // namespace simpulse::python
