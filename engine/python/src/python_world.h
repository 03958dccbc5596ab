// The World of the Python module, without Python: a scene (read by the scene reader, from a file or from
// JSON text) built into a World and stepped by the scene runner's SceneStepper, so that Python and the CLI
// take the same steps and reach bit-identical states; bodies and joints added through the public World API;
// the result document of `simpulse run --out`. Bad input throws std::invalid_argument whose message names
// the field (ValueError in Python); a failed step throws std::runtime_error naming the body and the step.
// Every call holds the world's mutex: stepping runs without Python's GIL, and two threads may call one World.
#pragma once

#include <simpulse/app/run.h>
#include <simpulse/app/scene.h>
#include <simpulse/world.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace simpulse::python {

// A body to create: desc as World::create_body takes it (desc.density is replaced by the default material's
// when `density` is not given).
struct BodyArgs {
    std::string name;
    BodyDesc desc;
    std::optional<double> density;
};

// A joint to add: the scene's joint record with its geometry, limits and motor filled in; type and bodies by
// name, checked here ("world" is the fixed frame).
struct JointArgs {
    std::string type;  // ball, hinge, fixed, slider, distance
    std::string body_a;
    std::string body_b = "world";
    SceneJoint joint;
};

class PythonWorld {
  public:
    // Reads a scene file or JSON text (`file_name` for messages) with "--set" overrides and builds it.
    static std::unique_ptr<PythonWorld> from_file(const std::string& path,
                                                  const std::vector<std::string>& overrides);
    static std::unique_ptr<PythonWorld> from_json(const std::string& text, const std::string& file_name,
                                                  const std::vector<std::string>& overrides);

    // n steps of the scene's dt (n >= 0).
    void step(long long n);
    // The steps `simpulse run` takes (step_count(duration, dt)) less those taken already.
    void run();
    double time() const;
    double dt() const;
    double duration() const;
    std::uint64_t step_count() const;
    std::vector<std::string> body_names() const;
    BodyState state(const std::string& name) const;
    // Every body's state in scene order, written through `out(index, state)`, under one lock.
    template <class F>
    void for_each_state(F&& out) const {
        const std::lock_guard lock(mutex_);
        for (std::size_t i = 0; i < sw_.bodies.size(); ++i) out(i, sw_.world.state(sw_.bodies[i]).value());
    }
    std::size_t body_count() const;

    void create_body(const BodyArgs& args);
    void add_joint(const JointArgs& args);

    // The result document of `simpulse run --out` for the steps taken so far.
    std::string result_json() const;

  private:
    PythonWorld(SceneDesc scene, SceneWorld world);
    std::size_t body_index(const std::string& field, const std::string& name) const;

    mutable std::mutex mutex_;
    SceneDesc scene_;
    SceneWorld sw_;
    SceneStepper stepper_;
};

}  // namespace simpulse::python
