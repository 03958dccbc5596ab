// Reference scenes S2-S5 of ../shared/anchors/SCENES.md, simpulse (public World API, default settings)
// against Bullet 3.24 (btDiscreteDynamicsWorld with its defaults, as in ../shared/anchors/bullet/main.cpp) in
// the same process and the same run:
//   s2  pyramid of 210 unit boxes, 600 steps at 1/60: ms/step, top drift, max drift;
//   s3  pile of 1,000 boxes of 0.5 m dropped on the ground, 600 steps at 1/60: ms/step (all steps, and steps
//       151-600 when the whole pile rests in contact), kinetic energy and deepest penetration at the end;
//   s4  mass-ratio chain (20 spheres of 0.1 kg + a 10 or 100 kg sphere on ball joints), 5 s at 1/60, 1/240
//   and
//       1/1000: max and final joint error, stretch, ms/step, substeps per step;
//   p3  Jolt's PerformanceTest "Pyramid" (its PyramidScene.h, z up here): 15 layers of 2 m boxes (k x k boxes
//       in layer 15 - k, 1,240 in all), odd layers shifted by half a box so that each box lands across four
//       below (one island), layers dropped from 0.5 m apart; friction 0.2, density 1000, never sleeping,
//       500 steps at 1/60: steps per second, top box drift, deepest penetration, exactness;
//   s5  cylinder rolling on a flat 64 x 64 height field, 300 steps at 1/60: max |v_z|, max height deviation,
//       speed loss.
//   pendulum  a 1 kg ball (radius 5 cm) on a ball joint 1 m from the pivot, released at the pivot's height,
//       20 s at 1/60 and 1/240 (not in SCENES.md): the energy, 0 at the start (m g L = 9.81 J of swing), its
//       largest deviation and its mean over the last second.
//   hinge  a 2 kg plank (box 0.6 x 0.1 x 1 m) on a hinge of two ball joints 0.8 m apart, its centre level
//   with
//       the hinge and 0.6 m from it, turned 30 degrees about the vertical so that the hinge is no principal
//       axis of the plank; released at rest, 100 s at 1/60 and 1/240 (not in SCENES.md): energy as above
//       (11.8 J of swing).
// S2 and S3 run with sleeping on (both engines' default) and off (simpulse WorldSettings::allow_sleeping =
// false, Bullet DISABLE_DEACTIVATION). Step times are thread CPU time of the step call; a configuration is
// run --reps times, engines alternating, and the time figures are medians over the runs of the per-run
// statistic. The physical results are those of the last run (both engines are deterministic: every run gives
// the same).
//
// Run: bench_scenes [--scenes s2,s3,s3t,s3s,p3,s4,s5,pendulum,hinge] [--reps 5] [--engines simpulse,bullet]
// [--sleep on,off]
#include "thread_clock.h"

#include <simpulse/collision/narrow_phase.h>
#include <simpulse/world.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#ifdef SIMPULSE_HAVE_BULLET
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <btBulletDynamicsCommon.h>
#endif

namespace {

using namespace simpulse;

double median(std::vector<double> v) {
    if (v.empty()) return std::nan("");
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double max_of(const std::vector<double>& v) {
    return v.empty() ? std::nan("") : *std::max_element(v.begin(), v.end());
}

// Per-step CPU times of one run (ms) and the scene's figures (name -> value).
struct Run {
    std::vector<double> step_ms;
    std::map<std::string, double> values;
};

// Median and max of steps [first, last] (1-based, inclusive).
double window_median(const Run& r, int first, int last) {
    return median({r.step_ms.begin() + (first - 1), r.step_ms.begin() + last});
}
double window_max(const Run& r, int first, int last) {
    return max_of({r.step_ms.begin() + (first - 1), r.step_ms.begin() + last});
}

template <class T>
T must(Result<T> r) {
    if (!r.ok()) {
        std::fprintf(stderr, "simpulse error: %s\n", r.error().message.c_str());
        std::exit(1);
    }
    return std::move(r).value();
}

void must(const Status& s) {
    if (!s.ok()) {
        std::fprintf(stderr, "simpulse error: %s\n", s.error().message.c_str());
        std::exit(1);
    }
}

BodyDesc static_body(ShapePtr shape) {
    BodyDesc d;
    d.shape = std::move(shape);
    d.is_static = true;
    return d;
}

BodyDesc dynamic_body(ShapePtr shape, const Vec3& position, const Quat& orientation = Quat::Identity()) {
    BodyDesc d;
    d.shape = std::move(shape);
    d.pose = {position, orientation};
    return d;
}

WorldSettings settings_with_sleep(bool sleep) {
    WorldSettings s;
    s.allow_sleeping = sleep;
    return s;
}

// Times one step of a simpulse world.
void timed_step(World& w, double dt, Run& run) {
    const double t0 = bench::thread_cpu_seconds();
    must(w.step(dt));
    run.step_ms.push_back(1e3 * (bench::thread_cpu_seconds() - t0));
}

// S3 start poses. "s3" is the scene as SCENES.md defines it: a 10 x 10 x 10 grid, 0.6 apart, lowest layer at
// z = 2, centred on x = y = 0 (as the Bullet harness). In simpulse it lands as 100 aligned columns of 10
// boxes that stay standing (100 islands of 70 rows), so two variants make it a heap (the same start for both
// engines):
//   "s3t"  every box tilted by up to 10 degrees about a random horizontal axis (seeded); the horizontal half
//          extent stays below 0.25 (1 + sin 10 deg) = 0.29 < 0.3, so no two boxes overlap at the start;
//   "s3s"  odd layers shifted by (0.3, 0.3): every box of an odd layer lands across the corners of four boxes
//          below, so the pile is one connected island (the situation of the target: the whole pile in
//          one large island).
struct S3Pose {
    Vec3 position;
    Vec3 axis;
    double angle;
};
std::vector<S3Pose> s3_poses(const std::string& variant) {
    std::vector<S3Pose> poses;
    std::mt19937_64 rng(2026);
    std::uniform_real_distribution<double> unit(0, 1);
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 10; ++j)
            for (int k = 0; k < 10; ++k) {
                S3Pose p{Vec3((i - 4.5) * 0.6, (j - 4.5) * 0.6, 2.0 + k * 0.6), Vec3::UnitX(), 0.0};
                if (variant == "s3t") {
                    const double phi = 2 * std::numbers::pi * unit(rng);
                    p.axis = Vec3(std::cos(phi), std::sin(phi), 0);
                    p.angle = unit(rng) * 10 * std::numbers::pi / 180;
                } else if (variant == "s3s" && k % 2 == 1) {
                    p.position += Vec3(0.3, 0.3, 0);
                }
                poses.push_back(p);
            }
    return poses;
}

// ---------------------------------------------------------------- simpulse scenes

// Exactness over all steps of a run: the worst island residual, the steps with an island solve above the
// solver's tolerance, the Newton islands and the solver's peak memory.
struct Exactness {
    double worst_residual = 0, steps_missed = 0, newton_islands = 0, workspace_bytes = 0;
    void add(const SolverStats& st) {
        worst_residual = std::max(worst_residual, st.residual);
        steps_missed += st.missed_islands > 0;
        newton_islands += st.newton_islands;
        workspace_bytes = std::max(workspace_bytes, static_cast<double>(st.workspace_bytes));
    }
    void store(Run& run) const {
        run.values["residual_max_all"] = worst_residual;
        run.values["steps_missed_tolerance"] = steps_missed;
        run.values["newton_islands"] = newton_islands;
        run.values["solver_workspace_mib"] = workspace_bytes / (1024.0 * 1024.0);
    }
};

Run simpulse_s2(bool sleep) {
    World w = must(World::create(settings_with_sleep(sleep)));
    must(w.set_material(0, {.friction = 0.6, .restitution = 0, .density = 1000}));
    must(w.create_body(static_body(must(create_plane(Vec3::UnitZ(), 0)))));
    const ShapePtr box = must(create_box(Vec3::Constant(0.5)));
    std::vector<BodyId> b;
    std::vector<Vec3> start;
    for (int k = 0; k < 20; ++k)
        for (int j = 0; j < 20 - k; ++j) {
            const Vec3 p(j - (19 - k) * 0.5, 0, 0.5 + k);
            b.push_back(must(w.create_body(dynamic_body(box, p))));
            start.push_back(p);
        }
    Run run;
    Exactness exactness;
    for (int s = 0; s < 600; ++s) {
        timed_step(w, 1.0 / 60, run);
        exactness.add(w.solver_stats());
    }
    exactness.store(run);
    double max_drift = 0;
    for (std::size_t i = 0; i < b.size(); ++i)
        max_drift = std::max(max_drift, (must(w.state(b[i])).pose.position - start[i]).norm());
    run.values["top_drift"] = (must(w.state(b.back())).pose.position - start.back()).norm();
    run.values["max_drift"] = max_drift;
    return run;
}

// Deepest penetration among all pairs of the given bodies (boxes of half extent h) and the ground plane z =
// 0, recomputed with the narrow phase from the final poses: unlike the last step's manifolds, it includes
// pairs that were not collided because both bodies sleep.
double recomputed_penetration(const World& w, const std::vector<BodyId>& bodies, const ShapePtr& box,
                              const ShapePtr& ground, double h) {
    std::vector<Pose> pose;
    for (BodyId id : bodies) pose.push_back(must(w.state(id)).pose);
    std::vector<Manifold> out;
    double deepest = 0;
    auto scan = [&] {
        for (const Manifold& m : out)
            for (int k = 0; k < m.count; ++k)
                deepest = std::max(deepest, m.points[static_cast<std::size_t>(k)].depth);
        out.clear();
    };
    const double reach = 2 * std::sqrt(3.0) * h;
    for (std::size_t i = 0; i < pose.size(); ++i) {
        collide(*ground, Pose{}, *box, pose[i], CollideSettings{}, out);
        scan();
        for (std::size_t j = i + 1; j < pose.size(); ++j) {
            if ((pose[i].position - pose[j].position).squaredNorm() > reach * reach) continue;
            collide(*box, pose[i], *box, pose[j], CollideSettings{}, out);
            scan();
        }
    }
    return deepest;
}

Run simpulse_s3(bool sleep, const std::string& variant) {
    const std::vector<S3Pose> start = s3_poses(variant);
    World w = must(World::create(
        settings_with_sleep(sleep)));  // default material: friction 0.5, restitution 0, density 1000
    const ShapePtr ground = must(create_plane(Vec3::UnitZ(), 0));
    must(w.create_body(static_body(ground)));
    const ShapePtr box = must(create_box(Vec3::Constant(0.25)));
    std::vector<BodyId> b;
    for (const S3Pose& p : start)
        b.push_back(
            must(w.create_body(dynamic_body(box, p.position, Quat(Eigen::AngleAxisd(p.angle, p.axis))))));
    Run run;
    double max_rows = 0, max_island_rows = 0, max_iterative_islands = 0, max_residual = 0, max_islands = 0;
    double touching_at_150 = 0;
    Exactness exactness;
    for (int s = 1; s <= 600; ++s) {
        timed_step(w, 1.0 / 60, run);
        const SolverStats& st = w.solver_stats();
        exactness.add(st);
        if (s > 150) {
            max_rows = std::max(max_rows, static_cast<double>(st.rows));
            max_island_rows = std::max(max_island_rows, static_cast<double>(st.largest_island_rows));
            max_islands = std::max(max_islands, static_cast<double>(st.islands));
            max_iterative_islands =
                std::max(max_iterative_islands, static_cast<double>(st.iterative_islands));
            max_residual = std::max(max_residual, st.residual);
        }
        if (s == 150) {
            std::vector<char> touching(w.body_count() + 1, 0);  // no body was destroyed: slots 0..count-1
            for (const BodyManifold& m : w.contact_manifolds()) touching[m.a.index] = touching[m.b.index] = 1;
            for (BodyId id : b) touching_at_150 += touching[id.index] || must(w.is_asleep(id));
        }
    }
    double deepest = 0;
    for (const BodyManifold& m : w.contact_manifolds())
        for (int k = 0; k < m.manifold.count; ++k)
            deepest = std::max(deepest, m.manifold.points[static_cast<std::size_t>(k)].depth);
    int asleep = 0;
    for (BodyId id : b) asleep += must(w.is_asleep(id));
    run.values["kinetic_energy_at_end"] = w.energy().kinetic;
    run.values["max_penetration_at_end"] = deepest;
    run.values["recomputed_penetration_at_end"] = recomputed_penetration(w, b, box, ground, 0.25);
    run.values["asleep_at_end"] = asleep;
    run.values["touching_or_asleep_at_150"] = touching_at_150;
    run.values["rows_max_151_600"] = max_rows;
    run.values["islands_max_151_600"] = max_islands;
    run.values["largest_island_rows_151_600"] = max_island_rows;
    run.values["iterative_islands_max_151_600"] = max_iterative_islands;
    run.values["residual_max_151_600"] = max_residual;
    exactness.store(run);
    run.values["rows_at_end"] = w.solver_stats().rows;
    run.values["manifolds_at_end"] = static_cast<double>(w.contact_manifolds().size());
    return run;
}

// Centres of the p3 pyramid's boxes (layer i from the ground up) and the box half extent.
constexpr double kP3Half = 1.0;
std::vector<Vec3> p3_positions() {
    constexpr int kLayers = 15;
    std::vector<Vec3> out;
    for (int i = 0; i < kLayers; ++i)
        for (int j = i / 2; j < kLayers - (i + 1) / 2; ++j)
            for (int k = i / 2; k < kLayers - (i + 1) / 2; ++k) {
                const double shift = i % 2 == 1 ? kP3Half : 0.0;
                out.emplace_back(-kLayers + 2 * kP3Half * j + shift, -kLayers + 2 * kP3Half * k + shift,
                                 kP3Half + (2 * kP3Half + 0.5) * i);
            }
    return out;
}

Run simpulse_p3() {
    World w = must(World::create(settings_with_sleep(false)));
    must(w.set_material(0, {.friction = 0.2, .restitution = 0, .density = 1000}));
    const ShapePtr ground = must(create_plane(Vec3::UnitZ(), 0));
    must(w.create_body(static_body(ground)));
    const ShapePtr box = must(create_box(Vec3::Constant(kP3Half)));
    std::vector<BodyId> b;
    const std::vector<Vec3> start = p3_positions();
    for (const Vec3& p : start) b.push_back(must(w.create_body(dynamic_body(box, p))));
    Run run;
    Exactness exactness;
    double largest_island_rows = 0;
    for (int s = 0; s < 500; ++s) {
        timed_step(w, 1.0 / 60, run);
        exactness.add(w.solver_stats());
        largest_island_rows =
            std::max(largest_island_rows, static_cast<double>(w.solver_stats().largest_island_rows));
    }
    exactness.store(run);
    double total_ms = 0;
    for (double ms : run.step_ms) total_ms += ms;
    run.values["steps_per_second"] = 1e3 * static_cast<double>(run.step_ms.size()) / total_ms;
    // The top box lands 0.5 m per layer below its start (14 gaps): its drift from that resting height.
    const Vec3 top = must(w.state(b.back())).pose.position;
    run.values["top_height_error"] = top.z() - (kP3Half + 2 * kP3Half * 14);
    run.values["top_horizontal_drift"] = std::hypot(top.x() - start.back().x(), top.y() - start.back().y());
    run.values["recomputed_penetration_at_end"] = recomputed_penetration(w, b, box, ground, kP3Half);
    run.values["largest_island_rows"] = largest_island_rows;
    return run;
}

Run simpulse_s4(double ratio, double dt) {
    World w;
    std::vector<BodyId> spheres;
    const ShapePtr small = must(create_sphere(0.05));
    for (int i = 1; i <= 20; ++i) {
        BodyDesc d = dynamic_body(small, Vec3(0, 0, 10 - 0.1 * i));
        d.mass = 0.1;
        spheres.push_back(must(w.create_body(d)));
    }
    const Vec3 anchor(0, 0, 10), heavy_start(0, 0, 8.0 - 0.25);
    BodyDesc heavy_desc = dynamic_body(must(create_sphere(0.2)), heavy_start);
    heavy_desc.velocity = Vec3(2, 0, 0);
    heavy_desc.mass = 0.1 * ratio;
    const BodyId heavy = must(w.create_body(heavy_desc));
    spheres.push_back(heavy);
    must(w.add_ball_joint({.body_a = spheres[0], .body_b = {}, .anchor = Vec3(0, 0, 9.95)}));
    for (int i = 1; i <= 20;
         ++i)  // sphere i's bottom to sphere i+1's top (the heavy sphere's top for i = 20)
        must(w.add_ball_joint({.body_a = spheres[static_cast<std::size_t>(i - 1)],
                               .body_b = spheres[static_cast<std::size_t>(i)],
                               .anchor = Vec3(0, 0, 9.95 - 0.1 * i)}));
    Run run;
    const int steps = static_cast<int>(std::lround(5.0 / dt));
    double max_error = 0, contact_steps = 0;
    std::vector<double> substeps;
    // Kinetic plus potential energy of the chain (spheres: inertia 0.4 m r^2).
    auto energy = [&] {
        double e = 0;
        for (std::size_t i = 0; i < spheres.size(); ++i) {
            const BodyState st = must(w.state(spheres[i]));
            const double m = i + 1 < spheres.size() ? 0.1 : 0.1 * ratio,
                         r = i + 1 < spheres.size() ? 0.05 : 0.2;
            e += 0.5 * m * st.velocity.squaredNorm() + 0.2 * m * r * r * st.angular_velocity.squaredNorm() +
                 m * 9.81 * st.pose.position.z();
        }
        return e;
    };
    const double initial_energy = energy();
    double max_energy_change = 0;
    for (int s = 0; s < steps; ++s) {
        timed_step(w, dt, run);
        max_error = std::max(max_error, w.max_joint_error());
        substeps.push_back(w.last_substeps());
        contact_steps += !w.contact_manifolds().empty();
        max_energy_change = std::max(max_energy_change, std::abs(energy() - initial_energy));
    }
    // Relative to the swing's kinetic energy at the start (the heavy sphere at 2 m/s).
    const double swing = 0.5 * 0.1 * ratio * 4;
    run.values["max_energy_change_of_swing"] = max_energy_change / swing;
    run.values["final_energy_change_of_swing"] = (energy() - initial_energy) / swing;
    run.values["max_joint_error"] = max_error;
    run.values["final_joint_error"] = w.max_joint_error();
    run.values["stretch"] =
        (must(w.state(heavy)).pose.position - anchor).norm() - (heavy_start - anchor).norm();
    run.values["substeps_median"] = median(substeps);
    run.values["substeps_max"] = max_of(substeps);
    double total = 0;
    for (double x : substeps) total += x;
    run.values["substeps_mean"] = total / static_cast<double>(substeps.size());
    run.values["steps_with_contacts"] = contact_steps;  // simpulse has no collision filter: members may touch
    return run;
}

Run simpulse_s5() {
    World w;
    must(w.set_material(0, {.friction = 0.8, .restitution = 0, .density = 1000}));
    const int n = 64;
    must(w.create_body(static_body(must(create_height_field(
        Vec2(0, 0), Vec2(0.5, 0.5), n, n, std::vector<double>(static_cast<std::size_t>(n * n), 0.0))))));
    const double r = 0.3, v0 = 3;
    const Vec3 dir = Vec3(1, 1, 0).normalized(), axis = Vec3(-1, 1, 0).normalized();
    // The cylinder's axis is local z: turn it onto (-1, 1, 0)/sqrt2, across the rolling direction. Rolling
    // without slipping: v = R omega x z, so omega = (v / R) axis.
    BodyDesc d =
        dynamic_body(must(create_cylinder(r, 0.1)), Vec3(4, 4, r), Quat::FromTwoVectors(Vec3::UnitZ(), axis));
    d.velocity = v0 * dir;
    d.angular_velocity = (v0 / r) * axis;
    const BodyId cyl = must(w.create_body(d));
    Run run;
    double max_vz = 0, max_dev = 0;
    for (int s = 0; s < 300; ++s) {
        timed_step(w, 1.0 / 60, run);
        const BodyState st = must(w.state(cyl));
        max_vz = std::max(max_vz, std::abs(st.velocity.z()));
        max_dev = std::max(max_dev, std::abs(st.pose.position.z() - r));
    }
    const Vec3 v = must(w.state(cyl)).velocity;
    run.values["max_abs_vz"] = max_vz;
    run.values["max_height_dev"] = max_dev;
    run.values["speed_loss"] = 1 - std::hypot(v.x(), v.y()) / v0;
    run.values["distance_travelled"] = (must(w.state(cyl)).pose.position - Vec3(4, 4, r)).norm();
    return run;
}

constexpr double kPendulumLength = 1, kPendulumRadius = 0.05, kPendulumMass = 1;

// Records the pendulum's energy (J, from the state after each step) as its largest deviation and its mean
// over the last second.
struct EnergyRecord {
    std::vector<double> energy;
    void store(Run& run, double dt) const {
        double worst = 0, last_second = 0;
        const auto tail = static_cast<std::size_t>(std::lround(1 / dt));
        for (std::size_t i = 0; i < energy.size(); ++i) {
            worst = std::max(worst, std::abs(energy[i]));
            if (i + tail >= energy.size()) last_second += energy[i];
        }
        run.values["max_energy_change_J"] = worst;
        run.values["mean_energy_change_last_second_J"] = last_second / static_cast<double>(tail);
    }
};

// Energy of the body of a joint energy scene from its state, J.
using EnergyOf = double (*)(const Quat& orientation, const Vec3& position, const Vec3& velocity,
                            const Vec3& angular_velocity);

// Steps a world for `seconds` and records the energy of one body after every step.
Run record_energy(World& w, BodyId body, EnergyOf energy, double seconds, double dt) {
    Run run;
    EnergyRecord record;
    const int steps = static_cast<int>(std::lround(seconds / dt));
    for (int s = 0; s < steps; ++s) {
        timed_step(w, dt, run);
        const BodyState st = must(w.state(body));
        record.energy.push_back(
            energy(st.pose.orientation, st.pose.position, st.velocity, st.angular_velocity));
    }
    record.store(run, dt);
    return run;
}

double pendulum_energy(const Quat&, const Vec3& position, const Vec3& velocity,
                       const Vec3& angular_velocity) {
    const double inertia = 0.4 * kPendulumMass * kPendulumRadius * kPendulumRadius;
    return 0.5 * kPendulumMass * velocity.squaredNorm() + 0.5 * inertia * angular_velocity.squaredNorm() +
           kPendulumMass * 9.81 * position.z();
}

Run simpulse_pendulum(double dt) {
    World w;
    BodyDesc d = dynamic_body(must(create_sphere(kPendulumRadius)), Vec3(kPendulumLength, 0, 0));
    d.mass = kPendulumMass;
    const BodyId ball = must(w.create_body(d));
    must(w.add_ball_joint({.body_a = ball, .body_b = {}, .anchor = Vec3::Zero()}));
    return record_energy(w, ball, pendulum_energy, 20, dt);
}

constexpr double kPlankMass = 2, kPlankArm = 0.6, kPlankTurn = std::numbers::pi / 6, kHingeHalfLength = 0.4;
const Vec3 kPlankHalfExtents(0.3, 0.05, 0.5);

double plank_energy(const Quat& orientation, const Vec3& position, const Vec3& velocity,
                    const Vec3& angular_velocity) {
    const Vec3 h2 = kPlankHalfExtents.cwiseAbs2();
    const Vec3 principal = kPlankMass / 3 * Vec3(h2.y() + h2.z(), h2.x() + h2.z(), h2.x() + h2.y());
    const Mat3 r = orientation.toRotationMatrix();
    const Mat3 inertia = r * principal.asDiagonal() * r.transpose();
    return 0.5 * kPlankMass * velocity.squaredNorm() +
           0.5 * angular_velocity.dot(inertia * angular_velocity) + kPlankMass * 9.81 * position.z();
}

Run simpulse_hinge(double dt) {
    World w;
    BodyDesc d = dynamic_body(must(create_box(kPlankHalfExtents)), Vec3(0, kPlankArm, 0),
                              Quat(Eigen::AngleAxisd(kPlankTurn, Vec3::UnitZ())));
    d.mass = kPlankMass;
    const BodyId plank = must(w.create_body(d));
    for (const double x : {-kHingeHalfLength, kHingeHalfLength})
        must(w.add_ball_joint({.body_a = plank, .body_b = {}, .anchor = Vec3(x, 0, 0)}));
    return record_energy(w, plank, plank_energy, 100, dt);
}

// ---------------------------------------------------------------- Bullet scenes (mirror the anchor harness)
#ifdef SIMPULSE_HAVE_BULLET
struct BulletWorld {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    std::vector<std::unique_ptr<btTypedConstraint>> constraints;
    bool no_sleep = false;
    Run run;

    explicit BulletWorld(bool sleep) : no_sleep(!sleep) { world.setGravity(btVector3(0, 0, -9.81)); }
    ~BulletWorld() {
        for (auto& c : constraints) world.removeConstraint(c.get());
        for (auto& b : bodies) world.removeRigidBody(b.get());
    }
    BulletWorld(const BulletWorld&) = delete;
    BulletWorld& operator=(const BulletWorld&) = delete;
    template <class S>
    S* shape(S* s) {
        shapes.emplace_back(s);
        return s;
    }
    btRigidBody* add(btCollisionShape* s, btScalar mass, const btTransform& tr, btScalar friction,
                     btScalar restitution, int group = 0, int mask = 0) {
        btVector3 inertia(0, 0, 0);
        if (mass > 0) s->calculateLocalInertia(mass, inertia);
        btRigidBody::btRigidBodyConstructionInfo ci(mass, nullptr, s, inertia);
        ci.m_startWorldTransform = tr;
        ci.m_friction = friction;
        ci.m_restitution = restitution;
        auto* b = new btRigidBody(ci);
        if (no_sleep && mass > 0) b->setActivationState(DISABLE_DEACTIVATION);
        bodies.emplace_back(b);
        if (group)
            world.addRigidBody(b, group, mask);
        else
            world.addRigidBody(b);
        return b;
    }
    void ground(btScalar friction) {
        add(shape(new btStaticPlaneShape(btVector3(0, 0, 1), 0)), 0, btTransform::getIdentity(), friction, 0);
    }
    void add_point_joint(btRigidBody& body, const btVector3& pivot_in_body) {
        auto* joint = new btPoint2PointConstraint(body, pivot_in_body);
        constraints.emplace_back(joint);
        world.addConstraint(joint, true);
    }
    void step(btScalar dt) {
        const double t0 = bench::thread_cpu_seconds();
        world.stepSimulation(dt, 0);
        run.step_ms.push_back(1e3 * (bench::thread_cpu_seconds() - t0));
    }
};

btTransform at(const btVector3& p, const btQuaternion& q = btQuaternion::getIdentity()) {
    return btTransform(q, p);
}

Run bullet_s2(bool sleep) {
    BulletWorld w(sleep);
    const btScalar f = std::sqrt(btScalar(0.6));  // Bullet multiplies the pair: 0.6
    w.ground(f);
    auto* box = w.shape(new btBoxShape(btVector3(0.5, 0.5, 0.5)));
    std::vector<btRigidBody*> b;
    std::vector<btVector3> start;
    for (int k = 0; k < 20; ++k)
        for (int j = 0; j < 20 - k; ++j) {
            const btVector3 p(btScalar(j - (19 - k) * 0.5), 0, btScalar(0.5 + k));
            b.push_back(w.add(box, 1000, at(p), f, 0));
            start.push_back(p);
        }
    for (int s = 0; s < 600; ++s) w.step(btScalar(1.0 / 60));
    double max_drift = 0;
    for (std::size_t i = 0; i < b.size(); ++i)
        max_drift = std::max<double>(max_drift, (b[i]->getWorldTransform().getOrigin() - start[i]).length());
    w.run.values["top_drift"] = (b.back()->getWorldTransform().getOrigin() - start.back()).length();
    w.run.values["max_drift"] = max_drift;
    return w.run;
}

Run bullet_s3(bool sleep, const std::string& variant) {
    const std::vector<S3Pose> start = s3_poses(variant);
    BulletWorld w(sleep);
    const btScalar f = std::sqrt(btScalar(0.5));
    w.ground(f);
    auto* box = w.shape(new btBoxShape(btVector3(0.25, 0.25, 0.25)));
    std::vector<btRigidBody*> b;
    for (const S3Pose& p : start) {
        const btQuaternion q(btVector3(btScalar(p.axis.x()), btScalar(p.axis.y()), btScalar(p.axis.z())),
                             btScalar(p.angle));
        const btVector3 x(btScalar(p.position.x()), btScalar(p.position.y()), btScalar(p.position.z()));
        b.push_back(w.add(box, btScalar(1000 * 0.125), at(x, q), f, 0));
    }
    for (int s = 0; s < 600; ++s) w.step(btScalar(1.0 / 60));
    double min_distance = 0, ke = 0;
    for (int i = 0; i < w.dispatcher.getNumManifolds(); ++i) {
        auto* m = w.dispatcher.getManifoldByIndexInternal(i);
        for (int c = 0; c < m->getNumContacts(); ++c)
            min_distance = std::min<double>(min_distance, m->getContactPoint(c).getDistance());
    }
    int asleep = 0;
    for (auto* r : b) {
        const btVector3 wl = r->getWorldTransform().getBasis().transpose() * r->getAngularVelocity();
        ke += 0.5 / double(r->getInvMass()) * double(r->getLinearVelocity().length2()) +
              0.5 * double(wl.dot(r->getLocalInertia() * wl));
        asleep += r->getActivationState() == ISLAND_SLEEPING;
    }
    w.run.values["kinetic_energy_at_end"] = ke;
    w.run.values["max_penetration_at_end"] = -min_distance;
    w.run.values["asleep_at_end"] = asleep;
    w.run.values["manifolds_at_end"] = w.dispatcher.getNumManifolds();
    return w.run;
}

Run bullet_p3() {
    BulletWorld w(false);
    const btScalar f = std::sqrt(btScalar(0.2));  // Bullet multiplies the pair: 0.2
    w.ground(f);
    auto* box = w.shape(new btBoxShape(btVector3(kP3Half, kP3Half, kP3Half)));
    std::vector<btRigidBody*> b;
    const std::vector<Vec3> start = p3_positions();
    for (const Vec3& p : start)
        b.push_back(w.add(box, btScalar(1000 * 8 * kP3Half * kP3Half * kP3Half),
                          at(btVector3(btScalar(p.x()), btScalar(p.y()), btScalar(p.z()))), f, 0));
    for (int s = 0; s < 500; ++s) w.step(btScalar(1.0 / 60));
    double total_ms = 0;
    for (double ms : w.run.step_ms) total_ms += ms;
    w.run.values["steps_per_second"] = 1e3 * static_cast<double>(w.run.step_ms.size()) / total_ms;
    const btVector3 top = b.back()->getWorldTransform().getOrigin();
    w.run.values["top_height_error"] = double(top.z()) - (kP3Half + 2 * kP3Half * 14);
    w.run.values["top_horizontal_drift"] =
        std::hypot(double(top.x()) - start.back().x(), double(top.y()) - start.back().y());
    double min_distance = 0;
    for (int i = 0; i < w.dispatcher.getNumManifolds(); ++i) {
        auto* m = w.dispatcher.getManifoldByIndexInternal(i);
        for (int c = 0; c < m->getNumContacts(); ++c)
            min_distance = std::min<double>(min_distance, m->getContactPoint(c).getDistance());
    }
    w.run.values["max_penetration_at_end"] = -min_distance;
    return w.run;
}

Run bullet_s4(double ratio, double dt) {
    BulletWorld w(true);
    const btScalar m = btScalar(0.1), heavy_mass = m * btScalar(ratio);
    const int chain = 64;  // collision group of the chain; its mask excludes the group itself
    const int no_chain = btBroadphaseProxy::AllFilter ^ chain;
    auto* small = w.shape(new btSphereShape(btScalar(0.05)));
    std::vector<btRigidBody*> s;
    for (int i = 1; i <= 20; ++i)
        s.push_back(
            w.add(small, m, at(btVector3(0, 0, btScalar(10 - 0.1 * i))), btScalar(0.5), 0, chain, no_chain));
    const btVector3 anchor(0, 0, 10), heavy_start(0, 0, btScalar(8.0 - 0.25));
    auto* heavy = w.add(w.shape(new btSphereShape(btScalar(0.2))), heavy_mass, at(heavy_start), btScalar(0.5),
                        0, chain, no_chain);
    heavy->setLinearVelocity(btVector3(2, 0, 0));
    std::vector<btPoint2PointConstraint*> joints;
    auto link = [&](btPoint2PointConstraint* c) {
        w.constraints.emplace_back(c);
        w.world.addConstraint(c, true);
        joints.push_back(c);
    };
    link(new btPoint2PointConstraint(*s[0], btVector3(0, 0, btScalar(0.05))));
    for (int i = 0; i + 1 < 20; ++i)
        link(new btPoint2PointConstraint(*s[static_cast<std::size_t>(i)], *s[static_cast<std::size_t>(i + 1)],
                                         btVector3(0, 0, btScalar(-0.05)), btVector3(0, 0, btScalar(0.05))));
    link(new btPoint2PointConstraint(*s[19], *heavy, btVector3(0, 0, btScalar(-0.05)),
                                     btVector3(0, 0, btScalar(0.2))));
    auto joint_error = [&] {
        double e = 0;
        for (auto* c : joints) {
            const btVector3 pa = c->getRigidBodyA().getWorldTransform() * c->getPivotInA();
            const btVector3 pb = c->getRigidBodyB().getWorldTransform() * c->getPivotInB();
            e = std::max<double>(e, (pa - pb).length());
        }
        return e;
    };
    double max_error = 0;
    const int steps = static_cast<int>(std::lround(5.0 / dt));
    for (int k = 0; k < steps; ++k) {
        w.step(btScalar(dt));
        max_error = std::max(max_error, joint_error());
    }
    w.run.values["max_joint_error"] = max_error;
    w.run.values["final_joint_error"] = joint_error();
    w.run.values["stretch"] =
        (heavy->getWorldTransform().getOrigin() - anchor).length() - (heavy_start - anchor).length();
    return w.run;
}

// Bullet's counterpart of record_energy.
Run record_energy(BulletWorld& w, const btRigidBody& body, EnergyOf energy, double seconds, double dt) {
    EnergyRecord record;
    const int steps = static_cast<int>(std::lround(seconds / dt));
    auto vec = [](const btVector3& v) { return Vec3(v.x(), v.y(), v.z()); };
    for (int k = 0; k < steps; ++k) {
        w.step(btScalar(dt));
        const btQuaternion q = body.getWorldTransform().getRotation();
        record.energy.push_back(energy(Quat(q.w(), q.x(), q.y(), q.z()),
                                       vec(body.getWorldTransform().getOrigin()),
                                       vec(body.getLinearVelocity()), vec(body.getAngularVelocity())));
    }
    record.store(w.run, dt);
    return w.run;
}

Run bullet_pendulum(double dt) {
    BulletWorld w(false);
    auto* ball = w.add(w.shape(new btSphereShape(btScalar(kPendulumRadius))), btScalar(kPendulumMass),
                       at(btVector3(btScalar(kPendulumLength), 0, 0)), 0, 0);
    w.add_point_joint(*ball, btVector3(btScalar(-kPendulumLength), 0, 0));
    return record_energy(w, *ball, pendulum_energy, 20, dt);
}

Run bullet_hinge(double dt) {
    BulletWorld w(false);
    const btQuaternion turn(btVector3(0, 0, 1), btScalar(kPlankTurn));
    auto* plank = w.add(
        w.shape(new btBoxShape(btVector3(btScalar(kPlankHalfExtents.x()), btScalar(kPlankHalfExtents.y()),
                                         btScalar(kPlankHalfExtents.z())))),
        btScalar(kPlankMass), at(btVector3(0, btScalar(kPlankArm), 0), turn), 0, 0);
    // The pivots in the plank's frame: the anchors relative to its centre, turned back.
    for (const double x : {-kHingeHalfLength, kHingeHalfLength})
        w.add_point_joint(*plank,
                          quatRotate(turn.inverse(), btVector3(btScalar(x), -btScalar(kPlankArm), 0)));
    return record_energy(w, *plank, plank_energy, 100, dt);
}

Run bullet_s5() {
    const int n = 64;
    std::vector<float> heights(static_cast<std::size_t>(n * n), 0.f);  // must outlive the world
    BulletWorld w(true);
    const btScalar f = std::sqrt(btScalar(0.8)), r = btScalar(0.3), len = btScalar(0.2), v0 = 3,
                   h = btScalar(0.5);
    auto* hf =
        w.shape(new btHeightfieldTerrainShape(n, n, heights.data(), btScalar(-1), btScalar(1), 2, false));
    hf->setLocalScaling(btVector3(h, h, 1));
    w.add(hf, 0, at(btVector3(btScalar(0.5) * h * (n - 1), btScalar(0.5) * h * (n - 1), 0)), f, 0);
    const btVector3 dir = btVector3(1, 1, 0).normalized(), axis = btVector3(-1, 1, 0).normalized();
    auto* cyl = w.shape(new btCylinderShape(btVector3(r, len / 2, r)));
    auto* body =
        w.add(cyl, btScalar(1000 * std::numbers::pi) * r * r * len,
              at(btVector3(4, 4, r), btQuaternion(btVector3(0, 0, 1), btScalar(std::numbers::pi / 4))), f, 0);
    body->setLinearVelocity(dir * v0);
    body->setAngularVelocity(axis * (v0 / r));
    double max_vz = 0, max_dev = 0;
    for (int k = 0; k < 300; ++k) {
        w.step(btScalar(1.0 / 60));
        max_vz = std::max<double>(max_vz, std::abs(body->getLinearVelocity().z()));
        max_dev = std::max<double>(max_dev, std::abs(body->getWorldTransform().getOrigin().z() - r));
    }
    const btVector3 v = body->getLinearVelocity();
    w.run.values["max_abs_vz"] = max_vz;
    w.run.values["max_height_dev"] = max_dev;
    w.run.values["speed_loss"] = 1 - std::sqrt(v.x() * v.x() + v.y() * v.y()) / v0;
    w.run.values["distance_travelled"] =
        (body->getWorldTransform().getOrigin() - btVector3(4, 4, r)).length();
    return w.run;
}
#endif

// ---------------------------------------------------------------- driver

struct Config {
    std::string scene, label, engine;
    std::function<Run()> run;
    int first = 1, last = 0;  // step window reported besides all steps (0: none)
};

struct Summary {
    std::vector<double> median_all, max_all, median_window, max_window, wall_total;
    Run last;
};

void print_summary(const Config& c, const Summary& s, int steps) {
    std::printf("%-4s %-22s %-9s steps %5d  ms/step median %8.4f  max %8.3f", c.scene.c_str(),
                c.label.c_str(), c.engine.c_str(), steps, median(s.median_all), median(s.max_all));
    if (c.last > 0)
        std::printf("  | steps %d-%d: median %8.4f max %8.3f", c.first, c.last, median(s.median_window),
                    median(s.max_window));
    std::printf("  | run CPU %.3f s\n", median(s.wall_total));
    std::printf("     per-run medians:");
    for (double x : s.median_all) std::printf(" %.4f", x);
    if (c.last > 0) {
        std::printf("  window medians:");
        for (double x : s.median_window) std::printf(" %.4f", x);
    }
    const auto slowest = std::max_element(s.last.step_ms.begin(), s.last.step_ms.end());
    std::printf("  slowest step (last run): %td\n    ", slowest - s.last.step_ms.begin() + 1);
    for (const auto& [k, v] : s.last.values) std::printf(" %s=%.6g", k.c_str(), v);
    std::printf("\n");
    std::fflush(stdout);
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = s.find(',', start);
        out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return out;
        start = end + 1;
    }
}

bool has(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// Every listed value must be one of `allowed`; otherwise says which option and value, and what was expected.
bool check_values(const char* option, const std::vector<std::string>& values,
                  const std::vector<std::string>& allowed) {
    if (values.empty()) {
        std::fprintf(stderr, "bench_scenes: %s needs at least one value\n", option);
        return false;
    }
    for (const std::string& v : values)
        if (!has(allowed, v)) {
            std::string list;
            for (const std::string& a : allowed) list += (list.empty() ? "" : ",") + a;
            std::fprintf(stderr, "bench_scenes: %s: unknown value '%s' (expected some of %s)\n", option,
                         v.c_str(), list.c_str());
            return false;
        }
    return true;
}

constexpr const char* kUsage =
    "usage: bench_scenes [--scenes s2,s3,s3t,s3s,p3,s4,s5,pendulum,hinge] [--reps N (>= 1, default 5)]\n"
    "                    [--engines simpulse,bullet] [--sleep on,off]\n";
}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> all_scenes{"s2", "s3", "s3t",      "s3s",  "p3",
                                              "s4", "s5", "pendulum", "hinge"};
    // Every scene but p3 by default: its 500 steps of one 56,000-row island take minutes.
    std::vector<std::string> scenes = all_scenes, engines{"simpulse", "bullet"}, sleeps{"on", "off"};
    scenes.erase(std::find(scenes.begin(), scenes.end(), "p3"));
    int reps = 5;
    for (int i = 1; i < argc; i += 2) {
        const std::string key = argv[i];
        if (key == "--help" || key == "-h") {
            std::printf("%s", kUsage);
            return 0;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "bench_scenes: option %s needs a value\n%s", key.c_str(), kUsage);
            return 2;
        }
        const std::string value = argv[i + 1];
        if (key == "--scenes") {
            scenes = split(value);
            if (!check_values("--scenes", scenes, all_scenes)) return 2;
        } else if (key == "--engines") {
            engines = split(value);
            if (!check_values("--engines", engines, {"simpulse", "bullet"})) return 2;
        } else if (key == "--sleep") {
            sleeps = split(value);
            if (!check_values("--sleep", sleeps, {"on", "off"})) return 2;
        } else if (key == "--reps") {
            char* end = nullptr;
            const long n = std::strtol(value.c_str(), &end, 10);
            if (end == value.c_str() || *end != '\0' || n < 1 || n > 1000) {
                std::fprintf(stderr, "bench_scenes: --reps: '%s' is not a whole number from 1 to 1000\n",
                             value.c_str());
                return 2;
            }
            reps = static_cast<int>(n);
        } else {
            std::fprintf(stderr, "bench_scenes: unknown option %s\n%s", key.c_str(), kUsage);
            return 2;
        }
    }
#ifndef SIMPULSE_HAVE_BULLET
    std::printf("# built without Bullet (pkg-config bullet not found): simpulse only\n");
    engines.erase(std::remove(engines.begin(), engines.end(), "bullet"), engines.end());
#endif
    // Groups of configurations run alternately (engine A run 1, engine B run 1, A run 2, ...).
    std::vector<std::vector<Config>> groups;
    auto add_group = [&](std::vector<Config> g) {
        std::vector<Config> kept;
        for (Config& c : g)
            if (has(engines, c.engine)) kept.push_back(std::move(c));
        if (!kept.empty()) groups.push_back(std::move(kept));
    };
    for (const std::string& sl : sleeps) {
        const bool on = sl == "on";
        const std::string label = on ? "sleep on" : "sleep off";
        if (has(scenes, "s2"))
            add_group({{"s2", label, "simpulse", [on] { return simpulse_s2(on); }, 1, 0}
#ifdef SIMPULSE_HAVE_BULLET
                       ,
                       {"s2", label, "bullet", [on] { return bullet_s2(on); }, 1, 0}
#endif
            });
        for (const std::string name : {"s3", "s3t", "s3s"}) {
            if (!has(scenes, name)) continue;
            add_group({{name, label, "simpulse", [on, name] { return simpulse_s3(on, name); }, 151, 600}
#ifdef SIMPULSE_HAVE_BULLET
                       ,
                       {name, label, "bullet", [on, name] { return bullet_s3(on, name); }, 151, 600}
#endif
            });
        }
    }
    if (has(scenes, "p3"))
        add_group({{"p3", "1,240 boxes, awake", "simpulse", [] { return simpulse_p3(); }, 1, 0}
#ifdef SIMPULSE_HAVE_BULLET
                   ,
                   {"p3", "1,240 boxes, awake", "bullet", [] { return bullet_p3(); }, 1, 0}
#endif
        });
    if (has(scenes, "s4"))
        for (double ratio : {100.0, 1000.0})
            for (double dt : {1.0 / 60, 1.0 / 240, 1.0 / 1000}) {
                char label[64];
                std::snprintf(label, sizeof label, "ratio %g dt 1/%g", ratio, std::round(1 / dt));
                add_group({{"s4", label, "simpulse", [ratio, dt] { return simpulse_s4(ratio, dt); }, 1, 0}
#ifdef SIMPULSE_HAVE_BULLET
                           ,
                           {"s4", label, "bullet", [ratio, dt] { return bullet_s4(ratio, dt); }, 1, 0}
#endif
                });
            }
    // Joint energy scenes: the same two step sizes, simpulse against Bullet.
    auto add_joint_energy_scene = [&](const std::string& name, Run (*ours)(double),
                                      [[maybe_unused]] Run (*bullet)(double)) {
        if (!has(scenes, name)) return;
        for (double dt : {1.0 / 60, 1.0 / 240}) {
            char label[64];
            std::snprintf(label, sizeof label, "dt 1/%g", std::round(1 / dt));
            add_group({{name, label, "simpulse", [ours, dt] { return ours(dt); }, 1, 0}
#ifdef SIMPULSE_HAVE_BULLET
                       ,
                       {name, label, "bullet", [bullet, dt] { return bullet(dt); }, 1, 0}
#endif
            });
        }
    };
#ifdef SIMPULSE_HAVE_BULLET
    add_joint_energy_scene("pendulum", simpulse_pendulum, bullet_pendulum);
    add_joint_energy_scene("hinge", simpulse_hinge, bullet_hinge);
#else
    add_joint_energy_scene("pendulum", simpulse_pendulum, nullptr);
    add_joint_energy_scene("hinge", simpulse_hinge, nullptr);
#endif
    if (has(scenes, "s5"))
        add_group({{"s5", "flat height field", "simpulse", [] { return simpulse_s5(); }, 1, 0}
#ifdef SIMPULSE_HAVE_BULLET
                   ,
                   {"s5", "flat height field", "bullet", [] { return bullet_s5(); }, 1, 0}
#endif
        });

    std::printf("# thread CPU time per step call, ms; medians over %d runs of the per-run median / max\n",
                reps);
    for (const std::vector<Config>& group : groups) {
        std::vector<Summary> summaries(group.size());
        for (int r = 0; r < reps; ++r)
            for (std::size_t c = 0; c < group.size(); ++c) {
                const double t0 = bench::thread_cpu_seconds();
                Run run = group[c].run();
                Summary& s = summaries[c];
                s.wall_total.push_back(bench::thread_cpu_seconds() - t0);
                s.median_all.push_back(median(run.step_ms));
                s.max_all.push_back(max_of(run.step_ms));
                if (group[c].last > 0) {
                    s.median_window.push_back(window_median(run, group[c].first, group[c].last));
                    s.max_window.push_back(window_max(run, group[c].first, group[c].last));
                }
                s.last = std::move(run);
            }
        for (std::size_t c = 0; c < group.size(); ++c)
            print_summary(group[c], summaries[c], static_cast<int>(summaries[c].last.step_ms.size()));
        if (group.size() == 2) {
            const double ratio = median(summaries[0].median_all) / median(summaries[1].median_all);
            std::printf("     ratio simpulse / bullet, median ms/step: %.3g", ratio);
            if (group[0].last > 0)
                std::printf("; steps %d-%d: %.3g", group[0].first, group[0].last,
                            median(summaries[0].median_window) / median(summaries[1].median_window));
            std::printf("\n");
        }
    }
    return 0;
}
