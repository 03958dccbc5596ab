// The shared world fixture of the tests: the settings, grounds, static bodies, spheres and boxes at a pose
// with a mass (or the density's), ball joints to the world, energy measures and the both-solver-modes
// parameterisation that the test files used to declare each for themselves, with the values they used. A test
// gets the part its module's headers allow: the engine tests (which see the public <simpulse/world.h>) get
// the overloads for the public simpulse::World, written with the public headers only; the dynamics tests get
// those for DynamicsWorld and Body; the dynamics and solver tests those for SolverBody and SolverMode.
#pragma once

#include <gtest/gtest.h>

#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#if __has_include(<simpulse/world.h>)
#define SIMPULSE_TEST_PUBLIC_WORLD 1
#include <simpulse/world.h>
#else
#include <simpulse/solver/solver.h>
#if __has_include(<simpulse/dynamics/world.h>)
#define SIMPULSE_TEST_DYNAMICS_WORLD 1
#include <simpulse/dynamics/world.h>
#endif
#endif

namespace simpulse::test {

inline constexpr double kPi = std::numbers::pi;
inline constexpr double kG = 9.81;  // magnitude of the default gravity (WorldSettings::gravity), m/s^2

#ifndef SIMPULSE_TEST_PUBLIC_WORLD

// ---- Solver modes and solver bodies (dynamics and solver tests)

// Tests run in both solver modes: TEST_P(BothModes, Name), and once in the file
// INSTANTIATE_TEST_SUITE_P(Modes, BothModes, ::testing::Values(SolverMode::thesis, SolverMode::exact),
// mode_name).
class BothModes : public ::testing::TestWithParam<SolverMode> {};

// The mode's name as the parameterised tests' suffix ("thesis", "exact").
inline std::string mode_name(const ::testing::TestParamInfo<SolverMode>& mode) {
    return to_string(mode.param);
}

// Solver settings under which every compressed contact restitutes (restitution_threshold 0), the setting
// under which the thesis' energy theorem holds.
inline SolverSettings every_contact_restitutes(SolverMode mode = SolverSettings{}.mode) {
    SolverSettings s;
    s.mode = mode;
    s.restitution_threshold = 0;
    return s;
}

// Kinetic energy (translation and rotation) of a dynamic solver body, J.
inline double kinetic_energy(const SolverBody& b) {
    return 0.5 * b.velocity.squaredNorm() / b.inverse_mass +
           0.5 * b.angular_velocity.dot(b.inverse_inertia.inverse() * b.angular_velocity);
}

// Kinetic energy of the dynamic bodies among `bodies` (static ones have zero inverse mass), J.
inline double kinetic_energy(const std::vector<SolverBody>& bodies) {
    double e = 0;
    for (const SolverBody& b : bodies) {
        if (b.inverse_mass <= 0) continue;
        e += kinetic_energy(b);
    }
    return e;
}

#endif  // !SIMPULSE_TEST_PUBLIC_WORLD

#ifdef SIMPULSE_TEST_DYNAMICS_WORLD

// ---- DynamicsWorld (dynamics tests)

// Default settings in the given solver mode.
inline WorldSettings settings_for(SolverMode mode) {
    WorldSettings s;
    s.solver.mode = mode;
    return s;
}

// Default settings with the given gravity.
inline WorldSettings with_gravity(const Vec3& g) {
    WorldSettings s;
    s.gravity = g;
    return s;
}

// Default settings, but no body ever falls asleep.
inline WorldSettings never_sleeping() {
    WorldSettings ws;
    ws.allow_sleeping = false;
    return ws;
}

// No gravity, no sleeping: nothing outside the bodies acts on them.
inline WorldSettings free_space() {
    WorldSettings ws;
    ws.gravity = Vec3::Zero();
    ws.allow_sleeping = false;
    return ws;
}

// A dynamic body of `shape` at `pose`; its mass from the density (1000 kg/m^3) unless `mass` is given.
inline BodyDesc body_desc(ShapePtr shape, const Pose& pose, std::optional<double> mass = std::nullopt) {
    BodyDesc d;
    d.shape = std::move(shape);
    d.pose = pose;
    d.mass = mass;
    return d;
}

// A sphere of `radius` at `position`, unturned; its mass from the density unless `mass` is given.
inline BodyDesc sphere_desc(double radius, const Vec3& position = Vec3::Zero(),
                            std::optional<double> mass = std::nullopt) {
    return body_desc(make_sphere(radius), Pose{position, Quat::Identity()}, mass);
}

// A box of `half_extents` at `position`, unturned; its mass from the density unless `mass` is given.
inline BodyDesc box_desc(const Vec3& half_extents, const Vec3& position = Vec3::Zero(),
                         std::optional<double> mass = std::nullopt) {
    return body_desc(make_box(half_extents), Pose{position, Quat::Identity()}, mass);
}

// A static body of `shape` at `pose`, of `material`.
inline BodyId add_static(DynamicsWorld& w, ShapePtr shape, const Pose& pose = Pose{},
                         MaterialId material = 0) {
    BodyDesc d;
    d.shape = std::move(shape);
    d.pose = pose;
    d.is_static = true;
    d.material = material;
    return w.create_body(d);
}

// The ground: a static plane through the origin with the given normal (up by default).
inline BodyId add_ground(DynamicsWorld& w, const Vec3& normal = Vec3::UnitZ()) {
    return add_static(w, make_plane(normal, 0));
}

// A sphere of `radius` at `position` moving at `velocity`; its mass from the density unless `mass` is given.
inline BodyId add_sphere(DynamicsWorld& w, double radius, const Vec3& position,
                         std::optional<double> mass = std::nullopt, const Vec3& velocity = Vec3::Zero()) {
    BodyDesc d = sphere_desc(radius, position, mass);
    d.velocity = velocity;
    return w.create_body(d);
}

// A ball joint holding `body` at the world point `anchor`.
inline JointId add_joint_to_world(DynamicsWorld& w, BodyId body, const Vec3& anchor) {
    BallJointDesc j;
    j.body_a = body;
    j.anchor = anchor;
    return w.add_ball_joint(j);
}

// Kinetic energy (translation and rotation) of a body, J.
inline double kinetic_energy(const Body& b) {
    return 0.5 * b.mass * b.velocity.squaredNorm() +
           0.5 * b.angular_velocity.dot(b.inverse_inertia_world.inverse() * b.angular_velocity);
}

// Kinetic plus potential energy of a body under the default gravity (zero at z = 0), J.
inline double mechanical_energy(const Body& b) {
    return kinetic_energy(b) + b.mass * kG * b.com_position.z();
}

#endif  // SIMPULSE_TEST_DYNAMICS_WORLD

#ifdef SIMPULSE_TEST_PUBLIC_WORLD

// ---- The public World (engine tests; public headers only)

// A body of `shape` at `position`, unturned; its mass from the density (1000 kg/m^3) unless `mass` is given.
inline BodyDesc body_desc(ShapePtr shape, const Vec3& position, std::optional<double> mass) {
    BodyDesc d;
    d.shape = std::move(shape);
    d.pose.position = position;
    d.mass = mass;
    return d;
}

inline BodyDesc sphere_desc(double radius, const Vec3& position = Vec3::Zero(),
                            std::optional<double> mass = std::nullopt) {
    return body_desc(create_sphere(radius).value(), position, mass);
}

inline BodyDesc box_desc(const Vec3& half_extents, const Vec3& position = Vec3::Zero(),
                         std::optional<double> mass = std::nullopt) {
    return body_desc(create_box(half_extents).value(), position, mass);
}

// A static body of `shape` at `pose`.
inline Result<BodyId> add_static(World& w, ShapePtr shape, const Pose& pose = Pose{}) {
    BodyDesc d;
    d.shape = std::move(shape);
    d.pose = pose;
    d.is_static = true;
    return w.create_body(d);
}

// The ground: a static plane through the origin with the given normal (up by default).
inline Result<BodyId> add_ground(World& w, const Vec3& normal = Vec3::UnitZ()) {
    return add_static(w, create_plane(normal, 0).value());
}

// Kinetic plus potential energy (gravity and springs) of the world, J.
inline double total_energy(const World& w) {
    const Energy e = w.energy();
    return e.kinetic + e.potential;
}

#endif  // SIMPULSE_TEST_PUBLIC_WORLD

}  // namespace simpulse::test
