// Stacking and resting contact (issue 4): a ten-box stack and a twenty-row pyramid standing for 10 s (the
// pyramid also kept awake, within 0.1 mm), a light box under a thousand times heavier one, towers whose
// islands exceed the direct solver's row limit, every island solve of landing stacks and heaps meeting the
// solver's tolerance, islands solved on several threads matching one thread bit for bit, and a thin rod
// dropped on a box coming to rest lying on its radius.
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace simpulse::test {
namespace {

struct Stack {
    DynamicsWorld world;
    std::vector<BodyId> boxes;
    std::vector<Vec3> start;
    explicit Stack(const WorldSettings& s) : world(s) {
        world.materials().set(0, Material{0.6, 0, 1000});
        add_ground(world);
    }
    void add_box(const Vec3& position, std::optional<double> mass = std::nullopt) {
        BodyDesc d;
        d.shape = make_box(Vec3(0.5, 0.5, 0.5));
        d.pose.position = position;
        d.mass = mass;
        boxes.push_back(world.create_body(d));
        start.push_back(position);
    }
    double max_drift() const {
        double d = 0;
        for (std::size_t i = 0; i < boxes.size(); ++i)
            d = std::max(d, (world.body(boxes[i]).pose().position - start[i]).norm());
        return d;
    }
};

TEST(Stacking, TenBoxStackStandsTenSeconds) {
    Stack s(settings_for(SolverMode::exact));
    for (int i = 0; i < 10; ++i) s.add_box(Vec3(0, 0, 0.5 + i));
    for (int i = 0; i < 600; ++i) ASSERT_TRUE(s.world.step(1.0 / 60).ok);
    EXPECT_LT(s.max_drift(), 1e-3) << "largest displacement " << s.max_drift()
                                   << " m after 10 s at dt = 1/60";
}

TEST(Stacking, TwentyRowPyramidStandsTenSeconds) {
#ifdef NDEBUG
    const int rows = 20;
#else
    const int rows =
        8;  // unoptimised sanitizer builds run a smaller pyramid; the 20-row claim is checked in Release
#endif
    Stack s(settings_for(SolverMode::exact));
    for (int k = 0; k < rows; ++k)
        for (int j = 0; j < rows - k; ++j) s.add_box(Vec3(j - (rows - 1 - k) * 0.5, 0, 0.5 + k));
    for (int i = 0; i < 600; ++i) ASSERT_TRUE(s.world.step(1.0 / 60).ok);
    // Standing: no box has moved by more than a small fraction of its size (1 m).
    EXPECT_LT(s.max_drift(), 0.02) << "largest displacement " << s.max_drift() << " m after 10 s";
}

// The same pyramid kept awake (bench_scenes' S2): its first step solves the island of 4,130 rows from nothing
// by the Newton method to the tolerance, and that answer warm-starts the sweeps of every later step, whose
// answers (within iterative_accept) keep it in place. Issue 17's target: no box drifts by more than 0.1 mm in
// 10 s (measured 0.016 mm; 3.9 mm when the first solve stopped at its factorisation cap short of the
// tolerance).
TEST(Stacking, TwentyRowPyramidKeptAwakeDriftsUnderATenthOfAMillimetre) {
#ifdef NDEBUG
    const int rows = 20;
#else
    const int rows = 8;  // as above
#endif
    WorldSettings settings = settings_for(SolverMode::exact);
    settings.allow_sleeping = false;
    Stack s(settings);
    for (int k = 0; k < rows; ++k)
        for (int j = 0; j < rows - k; ++j) s.add_box(Vec3(j - (rows - 1 - k) * 0.5, 0, 0.5 + k));
    for (int i = 0; i < 600; ++i) ASSERT_TRUE(s.world.step(1.0 / 60).ok);
    EXPECT_LT(s.max_drift(), 1e-4) << "largest displacement " << s.max_drift() << " m after 10 s awake";
}

TEST(Stacking, LightBoxUnderAThousandTimesHeavierBoxDoesNotSink) {
    Stack s(settings_for(SolverMode::exact));
    s.add_box(Vec3(0, 0, 0.5), 1.0);
    s.add_box(Vec3(0, 0, 1.5), 1000.0);
    for (int i = 0; i < 600; ++i) ASSERT_TRUE(s.world.step(1.0 / 60).ok);
    const double sink = s.start[1].z() - s.world.body(s.boxes[1]).pose().position.z();
    EXPECT_LT(sink, 1e-3) << "the heavy box sank " << sink << " m";
}

// Towers whose island exceeds direct_max_rows (96): 14 boxes alternating 1 kg and 1000 kg (14 patches of 7
// rows: 98), and 50 equal boxes (350 rows). The iterative method stalls on such load paths (residual 0.12 and
// 0.0088 m/s after its 60 sweeps) and its answer let both towers collapse; the Newton method takes over
// there. Standing: no box moves by more than the penetration slop (0.5 mm) plus 0.5 mm.
TEST(Stacking, TallTowersBeyondTheDirectRowLimitStand) {
    struct Tower {
        int boxes;
        double light, heavy;
    };
    for (const Tower t : {Tower{14, 1, 1000}, Tower{50, 1, 1}}) {
        Stack s(settings_for(SolverMode::exact));
        for (int i = 0; i < t.boxes; ++i) s.add_box(Vec3(0, 0, 0.5 + i), i % 2 == 0 ? t.light : t.heavy);
        for (int i = 0; i < 600; ++i) ASSERT_TRUE(s.world.step(1.0 / 60).ok);
        EXPECT_LT(s.max_drift(), 1e-3) << t.boxes << " boxes of " << t.light << " and " << t.heavy
                                       << " kg: largest displacement " << s.max_drift() << " m after 10 s";
    }
}

// Every island solve of a landing and resting stack, pyramid and heap meets the solver's tolerance when no
// iterative answer short of it is kept (iterative_tolerance = tolerance, iterative_accept = 0): islands above
// direct_max_rows go to the Newton method, smaller ones to the direct method. The heap is 27 unit boxes in a
// 3 x 3 x 3 grid (0.2 m apart sideways, 0.4 m vertically) tilted by up to 10 degrees about random horizontal
// axes, falling onto each other and the ground. It lands as piles of at most 46 rows, which the direct method
// solves; its only island above direct_max_rows was the falling grid's, joined by speculative manifolds of
// boxes falling together, which are now set aside (speculative_manifolds.cpp). Packed 5 cm apart, the same
// heap lands as one island of up to 538 rows, on which the Newton method still ends above the tolerance
// (docs/BENCHMARKS.md, "Large islands"), so that heap is not claimed here.
TEST(Stacking, EveryIslandSolveMeetsTheToleranceInAStackAPyramidAndAHeap) {
    WorldSettings settings = settings_for(SolverMode::exact);
    settings.solver.iterative_tolerance = settings.solver.tolerance;
    settings.solver.iterative_accept = 0;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (const char* scene : {"stack", "pyramid", "heap"}) {
        Stack s(settings);
        const std::string name = scene;
        if (name == "stack")
            for (int i = 0; i < 20; ++i) s.add_box(Vec3(0.02 * (i % 3), 0, 0.5 + i));
        if (name == "pyramid")
            for (int k = 0; k < 10; ++k)
                for (int j = 0; j < 10 - k; ++j) s.add_box(Vec3(j - (9 - k) * 0.5, 0, 0.5 + k));
        if (name == "heap")
            for (int i = 0; i < 27; ++i) {
                const double axis = 2 * kPi * unit(rng), tilt = kPi / 18 * unit(rng);
                const Vec3 position(1.2 * (i % 3) - 1.2, 1.2 * (i / 3 % 3) - 1.2, 0.8 + 1.4 * (i / 9));
                s.add_box(position);
                s.world.set_pose(
                    s.boxes.back(),
                    Pose{position, Quat(Eigen::AngleAxisd(tilt, Vec3(std::cos(axis), std::sin(axis), 0)))});
            }
        double worst = 0;
        int newton = 0, missed = 0;
        for (int i = 0; i < 90; ++i) {
            ASSERT_TRUE(s.world.step(1.0 / 60).ok) << scene;
            const SolverStats& stats = s.world.solver_stats();
            worst = std::max(worst, stats.residual);
            newton += stats.newton_islands;
            missed += stats.missed_islands;
        }
        if (name != "heap") {
            EXPECT_GT(newton, 0) << scene << ": no island went to the Newton method";
        }
        EXPECT_LE(worst, settings.solver.tolerance)
            << scene << ": worst residual " << worst << " m/s, " << missed << " island solves missed "
            << settings.solver.tolerance << " m/s";
        EXPECT_EQ(missed, 0) << scene;
    }
}

// Islands solved on several threads give the same bits as on one: six separate groups (landing heaps of
// tilted boxes, among them islands the Newton method solves; bouncing spheres at e = 0.5; ball-joint chains
// swinging into boxes) each form their own islands, and every body's state is compared exactly after every
// step for 1, 2 and 3 threads.
TEST(Stacking, IslandsSolvedOnTwoThreadsMatchOneThreadBitForBit) {
    struct State {
        std::vector<Vec3> position, velocity, angular_velocity;
        std::vector<Quat> orientation;
        bool operator==(const State& o) const {
            auto same_quats = [](const std::vector<Quat>& a, const std::vector<Quat>& b) {
                for (std::size_t i = 0; i < a.size(); ++i)
                    if (a[i].coeffs() != b[i].coeffs()) return false;
                return a.size() == b.size();
            };
            return position == o.position && velocity == o.velocity &&
                   angular_velocity == o.angular_velocity && same_quats(orientation, o.orientation);
        }
    };
    constexpr int kSteps = 80;
    auto run = [&](int threads, int& parallel_steps, int& newton_islands) {
        WorldSettings settings = settings_for(SolverMode::exact);
        settings.solver.threads = threads;
        settings.solver.iterative_tolerance = settings.solver.tolerance;  // the heaps go to the Newton method
        settings.solver.iterative_accept = 0;
        DynamicsWorld w(settings);
        w.materials().set(0, Material{0.6, 0, 1000});
        const MaterialId bouncy = w.materials().add(Material{0.3, 0.5, 1000});
        add_ground(w);
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        std::vector<BodyId> bodies;
        auto add = [&](ShapePtr shape, const Vec3& position, MaterialId material) {
            BodyDesc d;
            d.shape = std::move(shape);
            d.material = material;
            const double axis = 2 * kPi * unit(rng), tilt = kPi / 18 * unit(rng);
            d.pose = Pose{position, Quat(Eigen::AngleAxisd(tilt, Vec3(std::cos(axis), std::sin(axis), 0)))};
            bodies.push_back(w.create_body(d));
            return bodies.back();
        };
        for (int group = 0; group < 6; ++group) {
            const Vec3 origin(12.0 * (group % 3), 12.0 * (group / 3), 0);
            if (group % 3 == 0) {  // a heap: 27 boxes (an island for the Newton method) or 8
                const int side = group == 0 ? 3 : 2, layers = group == 0 ? 3 : 2;
                for (int i = 0; i < side * side * layers; ++i) {
                    const int layer = i / (side * side);  // odd layers shifted: each box lands on four
                    add(make_box(Vec3(0.5, 0.5, 0.5)),
                        origin + Vec3(1.2 * (i % side) + 0.6 * (layer % 2),
                                      1.2 * (i / side % side) + 0.6 * (layer % 2), 0.8 + 1.4 * layer),
                        0);
                }
            } else if (group % 3 == 1) {  // spheres dropped in a column onto a box: bounces at e = 0.5
                add(make_box(Vec3(1, 1, 0.25)), origin + Vec3(0, 0, 0.3), bouncy);
                for (int i = 0; i < 4; ++i)
                    add(make_sphere(0.3), origin + Vec3(0.05 * i, 0, 1.2 + 0.8 * i), bouncy);
            } else {  // a chain of three spheres on ball joints, released sideways into a box
                add(make_box(Vec3(0.4, 0.4, 0.4)), origin + Vec3(0.6, 0, 0.45), 0);
                BodyId previous;
                for (int i = 0; i < 3; ++i) {
                    const BodyId link = add(make_sphere(0.2), origin + Vec3(-2.0 + 0.5 * i, 0, 3.0), bouncy);
                    BallJointDesc j;
                    j.body_a = link;
                    if (i > 0) j.body_b = previous;
                    j.anchor = origin + Vec3(-2.25 + 0.5 * i, 0, 3.0);
                    w.add_ball_joint(j);
                    previous = link;
                }
            }
        }
        std::vector<State> states;
        for (int step = 0; step < kSteps; ++step) {
            EXPECT_TRUE(w.step(1.0 / 60).ok) << threads << " threads, step " << step;
            parallel_steps += w.solver_stats().islands >= 2;
            newton_islands += w.solver_stats().newton_islands;
            State s;
            for (BodyId id : bodies) {
                const Body& b = w.body(id);
                s.position.push_back(b.com_position);
                s.orientation.push_back(b.orientation);
                s.velocity.push_back(b.velocity);
                s.angular_velocity.push_back(b.angular_velocity);
            }
            states.push_back(std::move(s));
        }
        return states;
    };
    int parallel_steps = 0, newton_islands = 0;
    const std::vector<State> one = run(1, parallel_steps, newton_islands);
    EXPECT_GT(parallel_steps, kSteps / 2) << "the groups should form several islands most steps";
    EXPECT_GT(newton_islands, 0) << "no island went to the Newton method";
    for (int threads : {2, 3}) {
        int unused_steps = 0, unused_newton = 0;
        const std::vector<State> many = run(threads, unused_steps, unused_newton);
        ASSERT_EQ(many.size(), one.size());
        for (std::size_t step = 0; step < one.size(); ++step)
            ASSERT_TRUE(many[step] == one[step])
                << threads << " threads: the state differs from one thread's at step " << step;
    }
}

// A thin rod (radius 3 mm, 0.1 m between the ends) dropped tilted 20 degrees from the vertical onto a static
// box lands on one end, topples and must come to rest lying on the face: its axis at its radius above the
// face, level, and still. The stress finding bench/stress_findings/capsule_box_embedded.json for a capsule
// and a cylinder. The position projection leaves up to its slop (0.5 mm) of penetration uncorrected, so each
// end rests between r - slop and r above the face, up to the iterative projection's micrometre
// (position_projection.cpp). Measured: the ends at 3.000 / 2.991 mm (capsule) and 3.000 / 2.979 mm
// (cylinder), asleep.
// Before the face clipping (one axis-rotation point for a rod tilted over 0.02 rad) both ended with their
// axis ends 0.8 and 14.6 mm (capsule), 1.0 and 16.4 mm (cylinder) below the face, rocking by about 8 degrees
// either way at every step.
TEST(Stacking, RodDroppedOnABoxComesToRestLyingOnItsRadius) {
    const double r = 0.003, h = 0.05, dt = 1.0 / 60;
    const double slop = WorldSettings{}.solver.penetration_slop, allowance = 1e-6;
    for (const bool cylinder : {false, true}) {
        DynamicsWorld w;
        w.materials().set(0, Material{0.8, 0.0, 1000});
        BodyDesc ground;
        ground.shape = make_box(Vec3(5, 5, 0.5));
        ground.pose.position = Vec3(0, 0, -0.5);
        ground.is_static = true;
        w.create_body(ground);
        BodyDesc rod;
        rod.shape = cylinder ? make_cylinder(r, h) : make_capsule(r, h);
        rod.mass = 1.0;
        rod.pose.position = Vec3(0.01, 0.02, 0.2);
        rod.pose.orientation = Quat(Eigen::AngleAxisd(20 * kPi / 180, Vec3(1, 1, 0).normalized()));
        const BodyId id = w.create_body(rod);
        for (int i = 0; i < static_cast<int>(2.0 / dt); ++i) ASSERT_TRUE(w.step(dt).ok);
        const Body& b = w.body(id);
        const Vec3 axis = b.orientation * Vec3::UnitZ();
        const char* what = cylinder ? "cylinder" : "capsule";
        for (const double end : {b.com_position.z() - h * axis.z(), b.com_position.z() + h * axis.z()}) {
            EXPECT_LE(end, r + allowance) << what << ": an end of the axis at " << end << " m, radius " << r;
            EXPECT_GE(end, r - slop - allowance)
                << what << ": an end of the axis at " << end << " m, " << r - end << " m below its radius";
        }
        EXPECT_LT(b.velocity.norm() + h * b.angular_velocity.norm(), 1e-3)
            << what << ": still moving at " << b.velocity.norm() << " m/s, " << b.angular_velocity.norm()
            << " rad/s";
        std::printf("%s at rest: axis ends %.4f / %.4f mm above the face (radius %.1f mm)\n", what,
                    1e3 * (b.com_position.z() - h * axis.z()), 1e3 * (b.com_position.z() + h * axis.z()),
                    1e3 * r);
    }
}

}  // namespace
}  // namespace simpulse::test
