// Contact dynamics at the scene level, against closed forms (issue 4): restitution (rebound to e^2 h),
// Coulomb friction on an incline (sticking below tan(theta) = mu, sliding with g (sin - mu cos) above),
// rolling (5/7 g sin for a ball), stacking, a thin rod coming to rest on its radius, high mass ratios and
// ball joints (pendulum period, a heavy sphere on a chain).
#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>

namespace simpulse {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kG = 9.81;

WorldSettings settings_for(SolverMode mode) {
    WorldSettings s;
    s.solver.mode = mode;
    return s;
}

BodyId add_ground(DynamicsWorld& w, const Vec3& normal = Vec3::UnitZ()) {
    BodyDesc g;
    g.shape = make_plane(normal, 0);
    g.is_static = true;
    return w.create_body(g);
}

class BothModes : public ::testing::TestWithParam<SolverMode> {};

// Kinetic (translation and rotation) plus potential energy of a body under the default gravity, J.
double mechanical_energy(const Body& b) {
    return 0.5 * b.mass * b.velocity.squaredNorm() +
           0.5 * b.angular_velocity.dot(b.inverse_inertia_world.inverse() * b.angular_velocity) +
           b.mass * kG * b.com_position.z();
}

// A ball dropped from h rebounds to e^2 h. The step size is part of the claim: semi-implicit Euler with the
// bounce resolved at a step boundary errs by up to about v dt (1 + e) / 2 in height, v = sqrt(2 g h); the
// steps below keep that under 0.7 % of e^2 h for e >= 0.5 (the thesis mode uses the thesis' step, 0.0003 s).
TEST_P(BothModes, BallReboundsToESquaredTimesTheDropHeight) {
    const double h = 1.0, r = 0.1;
    const double dt = GetParam() == SolverMode::thesis ? 0.0003 : 0.0005;
    for (double e : {0.5, 0.8, 1.0}) {
        DynamicsWorld w(settings_for(GetParam()));
        w.materials().set(0, Material{0.5, e, 1000});
        add_ground(w);
        BodyDesc b;
        b.shape = make_sphere(r);
        b.pose.position = Vec3(0, 0, r + h);
        const BodyId ball = w.create_body(b);
        double apex = 0, previous_vz = 0;
        int bounces = 0;
        for (int i = 0; i < static_cast<int>(3.0 / dt) && bounces < 2; ++i) {
            ASSERT_TRUE(w.step(dt).ok);
            const Body& body = w.body(ball);
            if (previous_vz < 0 && body.velocity.z() > 0) ++bounces;
            if (bounces == 1) apex = std::max(apex, body.com_position.z() - r);
            previous_vz = body.velocity.z();
        }
        const double expected = e * e * h;
        EXPECT_NEAR(apex / expected, 1.0, 0.01)
            << "e " << e << ": rebound " << apex << " m, e^2 h " << expected << " m";
    }
}

// A ball at e = 1 bouncing on the ground at 60 Hz, whole steps or split at the impact (max_impact_gap 1 mm):
// it must rise to its drop height after every bounce, over 40 bounces. Two corrections make that hold at a
// game step: the solve sees the step's mid-point velocity, so the rebound is corrected for when in the step
// the ball meets the ground (and the position projection for where), and split substeps restagger the
// carried velocity to their length. The tolerance is the apex's sampling at the step, g dt^2 / 4 (0.7 mm).
// Before them: whole steps alternated between 0.9865 m and 1.0000 m (13.5 mm), split steps lost 7 % of the
// height per bounce (0.58 m after 7 bounces); measured now: within 0.3 mm.
TEST(ContactDynamics, BallAtFullRestitutionReturnsToItsDropHeightAtAGameStep) {
    const double h = 1.0, r = 0.1, dt = 1.0 / 60;
    for (const double impact_gap : {1e9, kDefaultImpactGap}) {
        WorldSettings ws;
        ws.allow_sleeping = false;
        ws.max_impact_gap = impact_gap;
        DynamicsWorld w(ws);
        w.materials().set(0, Material{0.0, 1.0, 1000});
        add_ground(w);
        BodyDesc b;
        b.shape = make_sphere(r);
        b.pose.position = Vec3(0, 0, r + h);
        const BodyId ball = w.create_body(b);
        double apex = 0, worst = 0, previous_vz = 0;
        int apexes = 0;
        for (int i = 0; i < static_cast<int>(40.0 / dt) && apexes < 40; ++i) {
            ASSERT_TRUE(w.step(dt).ok);
            const Body& body = w.body(ball);
            apex = std::max(apex, body.com_position.z() - r);
            if (previous_vz > 0 && body.velocity.z() <= 0) {
                worst = std::max(worst, std::abs(apex - h));
                ++apexes;
            }
            if (body.velocity.z() < 0) apex = 0;
            previous_vz = body.velocity.z();
        }
        EXPECT_EQ(apexes, 40) << "max_impact_gap " << impact_gap;
        EXPECT_LE(worst, kG * dt * dt / 4)
            << "max_impact_gap " << impact_gap << ": an apex " << worst << " m off the drop height";
    }
}

// Incline through the origin with normal q z, q = rotation by theta about y; q x points down the slope.
struct Incline {
    DynamicsWorld world;
    Quat q;
    BodyId body;
    Incline(SolverMode mode, double theta, double mu, const ShapePtr& shape, double rest_height)
        : world(settings_for(mode)) {
        q = Quat(Eigen::AngleAxisd(theta, Vec3::UnitY()));
        world.materials().set(0, Material{mu, 0, 1000});
        add_ground(world, q * Vec3::UnitZ());
        BodyDesc d;
        d.shape = shape;
        d.pose.orientation = q;
        d.pose.position = q * Vec3(0, 0, rest_height);
        body = world.create_body(d);
    }
    double along_slope() const { return (q * Vec3::UnitX()).dot(world.body(body).com_position); }
    double speed_along_slope() const { return (q * Vec3::UnitX()).dot(world.body(body).velocity); }
};

TEST(ContactDynamics, BoxOnInclineStaysPutBelowTheFrictionAngle) {
    const double mu = 0.5, theta = 0.8 * std::atan(mu), dt = 1.0 / 240;
    Incline incline(SolverMode::exact, theta, mu, make_box(Vec3(0.1, 0.1, 0.1)), 0.1);
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(incline.world.step(dt).ok);  // settle into contact
    const Vec3 start = incline.world.body(incline.body).com_position;
    for (int i = 0; i < static_cast<int>(2.0 / dt); ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double drift = (incline.world.body(incline.body).com_position - start).norm();
    EXPECT_LT(drift, 1e-5) << "drift " << drift << " m in 2 s at tan(theta) = " << std::tan(theta)
                           << " < mu = " << mu;
}

TEST(ContactDynamics, BoxSlidesDownAnInclineWithCoulombDeceleration) {
    const double mu = 0.2, theta = 30 * kPi / 180, dt = 1.0 / 240;
    Incline incline(SolverMode::exact, theta, mu, make_box(Vec3(0.1, 0.1, 0.1)), 0.1);
    for (int i = 0; i < 24; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double v0 = incline.speed_along_slope();
    const int steps = static_cast<int>(1.0 / dt);
    for (int i = 0; i < steps; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double a = (incline.speed_along_slope() - v0) / (steps * dt);
    const double expected = kG * (std::sin(theta) - mu * std::cos(theta));
    EXPECT_NEAR(a / expected, 1.0, 0.01) << "acceleration " << a << " m/s^2, closed form " << expected;
}

TEST(ContactDynamics, BallRollsDownAnInclineAtFiveSeventhsGSinTheta) {
    const double mu = 0.5, theta = 20 * kPi / 180,
                 dt = 1.0 / 240;  // rolling needs mu >= 2/7 tan(theta) = 0.10
    Incline incline(SolverMode::exact, theta, mu, make_sphere(0.1), 0.1);
    for (int i = 0; i < 24; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double v0 = incline.speed_along_slope();
    const int steps = static_cast<int>(1.0 / dt);
    for (int i = 0; i < steps; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double a = (incline.speed_along_slope() - v0) / (steps * dt);
    const double expected = 5.0 / 7.0 * kG * std::sin(theta);
    EXPECT_NEAR(a / expected, 1.0, 0.01) << "acceleration " << a << " m/s^2, closed form " << expected;
}

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

TEST(ContactDynamics, TenBoxStackStandsTenSeconds) {
    Stack s(settings_for(SolverMode::exact));
    for (int i = 0; i < 10; ++i) s.add_box(Vec3(0, 0, 0.5 + i));
    for (int i = 0; i < 600; ++i) ASSERT_TRUE(s.world.step(1.0 / 60).ok);
    EXPECT_LT(s.max_drift(), 1e-3) << "largest displacement " << s.max_drift()
                                   << " m after 10 s at dt = 1/60";
}

TEST(ContactDynamics, TwentyRowPyramidStandsTenSeconds) {
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

TEST(ContactDynamics, LightBoxUnderAThousandTimesHeavierBoxDoesNotSink) {
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
TEST(ContactDynamics, TallTowersBeyondTheDirectRowLimitStand) {
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
// axes, falling onto each other and the ground.
TEST(ContactDynamics, EveryIslandSolveMeetsTheToleranceInAStackAPyramidAndAHeap) {
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
        EXPECT_GT(newton, 0) << scene << ": no island went to the Newton method";
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
TEST(ContactDynamics, IslandsSolvedOnTwoThreadsMatchOneThreadBitForBit) {
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
            if (group % 3 == 0) {  // a heap: 12 boxes (an island for the Newton method) or 8
                const int side = 2, layers = group == 0 ? 3 : 2;
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

// Simple pendulum: a small ball on a massless... rod approximated by a ball joint to the world; period of a
// physical pendulum T = 2 pi sqrt(I_pivot / (m g L)) at small amplitude (the ball's own inertia included).
TEST_P(BothModes, BallJointPendulumPeriod) {
    const double length = 1.0, r = 0.05, dt = 1.0 / 1000, amplitude = 0.05;
    WorldSettings ws = settings_for(GetParam());
    DynamicsWorld w(ws);
    BodyDesc d;
    d.shape = make_sphere(r);
    d.mass = 1.0;
    d.pose.position = Vec3(length * std::sin(amplitude), 0, -length * std::cos(amplitude));
    const BodyId ball = w.create_body(d);
    BallJointDesc j;
    j.body_a = ball;
    j.anchor = Vec3::Zero();
    w.add_ball_joint(j);
    std::vector<double> crossings;
    double previous = w.body(ball).com_position.x();
    for (int i = 1; i < 20000 && crossings.size() < 11; ++i) {
        ASSERT_TRUE(w.step(dt).ok);
        const double x = w.body(ball).com_position.x();
        if (previous < 0 && x >= 0) crossings.push_back((i - 1 + previous / (previous - x)) * dt);
        previous = x;
    }
    ASSERT_GE(crossings.size(), 6u);
    const double period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
    const double inertia = 0.4 * r * r + length * length;  // per unit mass, about the pivot
    // Small-amplitude closed form with the first finite-amplitude correction (1 + theta0^2 / 16).
    const double expected = 2 * kPi * std::sqrt(inertia / (kG * length)) * (1 + amplitude * amplitude / 16);
    EXPECT_NEAR(period / expected, 1.0, 0.005)
        << "period " << period << " s, closed form " << expected << " s";
}

// A pendulum released horizontally keeps its energy (exact mode, ball joint to the world; E = 0 at the start,
// the ball at rest at the pivot's height): semi-implicit Euler's energy error oscillates within about dt/2
// times the largest power of gravity, m g v_max dt / 2 with v_max = sqrt(2 g L) (0.36 J of m g L = 9.81 J at
// 60 Hz), and does not accumulate (measured: 0.24 J at 60 Hz, 0.057 J at 240 Hz). A joint that only keeps
// J v = 0 at the start of each step loses (w dt)^2 of the kinetic energy per step: 6.9 J within 20 s at 60
// Hz, 3.5 J at 240 Hz (before the joint rows got the curvature of the anchors' arcs as their target).
// The thesis mode writes a ball joint as "the anchors coincide at the end of the step" (eq. 21-22): a drift d
// becomes a velocity d / dt. A body moved 0.5 m off its joint to the world (no gravity, dt 1/60) would be
// thrown back at 30 m/s and keep the 7.5 J that gave it; the drift corrected per step is capped at
// max_correction (2 cm, as the exact mode's position projection), so the body returns at 1.2 m/s, 2 cm per
// step, and stops when the drift is gone. Without the cap a jointed random scene's energy grew from 4.1 kJ to
// 1.9e73 J (bench/stress_findings/unreduced_s128.json).
TEST(ContactDynamics, ThesisModeCorrectsALargeJointDriftAtMostMaxCorrectionPerStep) {
    WorldSettings s = settings_for(SolverMode::thesis);
    s.gravity = Vec3::Zero();
    DynamicsWorld w(s);
    BodyDesc d;
    d.shape = make_sphere(0.1);
    d.mass = 1;
    const BodyId ball = w.create_body(d);
    BallJointDesc j;
    j.body_a = ball;
    j.anchor = Vec3::Zero();
    w.add_ball_joint(j);
    const double offset = 0.5, dt = 1.0 / 60, cap = s.solver.max_correction;
    w.set_pose(ball, Pose{Vec3(offset, 0, 0), Quat::Identity()});
    const int steps = static_cast<int>(std::ceil(offset / cap));  // 25
    for (int k = 1; k <= steps + 1; ++k) {
        ASSERT_TRUE(w.step(dt).ok);
        const double expected_x = std::max(offset - k * cap, 0.0);
        const double expected_speed = k <= steps ? (std::min(offset - (k - 1) * cap, cap)) / dt : 0.0;
        EXPECT_NEAR(w.body(ball).com_position.x(), expected_x, 1e-9) << "step " << k;
        EXPECT_NEAR(w.body(ball).velocity.norm(), expected_speed, 1e-6)
            << "step " << k << ": speed " << w.body(ball).velocity.norm() << " m/s";
    }
    EXPECT_LT(w.body(ball).angular_velocity.norm(), 1e-9);
}

TEST(ContactDynamics, PendulumKeepsItsEnergy) {
    const double length = 1.0, mass = 1.0, r = 0.05;
    for (const double dt : {1.0 / 60, 1.0 / 240}) {
        DynamicsWorld w;
        BodyDesc d;
        d.shape = make_sphere(r);
        d.mass = mass;
        d.pose.position = Vec3(length, 0, 0);
        const BodyId ball = w.create_body(d);
        BallJointDesc j;
        j.body_a = ball;
        j.anchor = Vec3::Zero();
        w.add_ball_joint(j);
        auto energy = [&] { return mechanical_energy(w.body(ball)); };
        const double band = 0.5 * mass * kG * std::sqrt(2 * kG * length) * dt;
        double worst = 0;
        const int steps = static_cast<int>(std::lround(20 / dt));
        for (int i = 0; i < steps; ++i) {
            ASSERT_TRUE(w.step(dt).ok);
            worst = std::max(worst, std::abs(energy()));
        }
        EXPECT_LE(worst, band) << "dt " << dt << ": largest energy change in 20 s " << worst << " J of "
                               << mass * kG * length << " J, allowed " << band << " J";
    }
}

// A plank (box 0.6 x 0.1 x 1 m) on a hinge of two ball joints to the world 0.8 m apart along x at height
// `height`, its centre level with the hinge and `arm` from it, turned by `turn` about the vertical.
BodyId add_plank_on_hinge(DynamicsWorld& w, double mass, double arm, double turn, double height) {
    BodyDesc d;
    d.shape = make_box(Vec3(0.3, 0.05, 0.5));
    d.mass = mass;
    d.pose.position = Vec3(0, arm, height);
    d.pose.orientation = Quat(Eigen::AngleAxisd(turn, Vec3::UnitZ()));
    const BodyId plank = w.create_body(d);
    for (const double x : {-0.4, 0.4}) {
        BallJointDesc j;
        j.body_a = plank;
        j.anchor = Vec3(x, 0, height);
        w.add_ball_joint(j);
    }
    return plank;
}

// A hinge made of two ball joints to the world holding a plank that swings down from level with the hinge.
// The two joints' rows are redundant (both fix the motion along the axis), so curvature targets that disagree
// along it (the plank's spin leaves the hinge axis whenever the axis is no principal axis of the plank)
// cannot be reached as they are: the solver must make them reachable (remove the part along the redundant
// direction) rather than fall back to J v = 0, whose loss of (w dt)^2 of the kinetic energy per step took 6.3
// J of the 11.8 J of swing within 10 s at 60 Hz with the hinge turned 30 degrees off the plank's principal
// axis. Both ways the swing keeps its energy within semi-implicit Euler's band (measured: 0.33 J and 0.49 J
// of the allowed 0.56 J), the joints stay closed, and the solve reaches its targets to round-off (the
// solver's residual; 9.4e-5 m/s before). Over longer runs the turned hinge still drifts (up to -2.0 J in 100
// s at 60 Hz, -0.54 J at 240 Hz; bench_scenes --scenes hinge): the integrator's angular-momentum bookkeeping
// across impulses (docs/findings.md, "Angular momentum across impulses").
TEST(ContactDynamics, HingeOfTwoBallJointsKeepsItsEnergy) {
    const double dt = 1.0 / 60, mass = 2.0, arm = 0.6;
    for (const double turn : {0.0, kPi / 6}) {
        DynamicsWorld w;
        const BodyId plank = add_plank_on_hinge(w, mass, arm, turn, 0);
        auto energy = [&] { return mechanical_energy(w.body(plank)); };
        const double band = 0.5 * mass * kG * std::sqrt(2 * kG * arm) * dt;
        double highest = 0, lowest = 0, worst_joint_error = 0, worst_residual = 0;
        for (int i = 0; i < 600; ++i) {
            ASSERT_TRUE(w.step(dt).ok);
            highest = std::max(highest, energy());
            lowest = std::min(lowest, energy());
            worst_joint_error = std::max(worst_joint_error, w.max_joint_error());
            worst_residual = std::max(worst_residual, w.solver_stats().residual);
        }
        EXPECT_LE(highest, band) << "turn " << turn << ": energy gained " << highest << " J, allowed "
                                 << band;
        EXPECT_GE(lowest, -band) << "turn " << turn << ": energy lost " << -lowest << " J, allowed " << band;
        EXPECT_LE(worst_joint_error, 1e-6)
            << "turn " << turn << ": joint error " << worst_joint_error << " m";
        EXPECT_LE(worst_residual, 1e-9)
            << "turn " << turn << ": solver residual " << worst_residual << " m/s";
    }
}

// Two planks (2 kg and 1 kg, turned off the world axes) on a hinge of two ball joints 0.8 m apart along x
// through `hinge`, 0.6 m and 0.5 m to either side of it; the first spins at (0.3, -0.2, 0.5) rad/s.
void add_hinged_planks(DynamicsWorld& w, const Vec3& hinge, const Vec3& velocity_a, const Vec3& velocity_b,
                       const Vec3& spin_b) {
    BodyDesc d;
    d.shape = make_box(Vec3(0.3, 0.05, 0.5));
    d.mass = 2;
    d.pose.position = hinge + Vec3(0, 0.6, 0);
    d.pose.orientation = Quat(Eigen::AngleAxisd(0.5, Vec3::UnitZ()));
    d.velocity = velocity_a;
    d.angular_velocity = Vec3(0.3, -0.2, 0.5);
    const BodyId a = w.create_body(d);
    d.shape = make_box(Vec3(0.4, 0.05, 0.3));
    d.mass = 1;
    d.pose.position = hinge + Vec3(0, -0.5, 0);
    d.pose.orientation = Quat(Eigen::AngleAxisd(-0.5, Vec3::UnitY()));
    d.velocity = velocity_b;
    d.angular_velocity = spin_b;
    const BodyId b = w.create_body(d);
    for (const double x : {-0.4, 0.4}) {
        BallJointDesc j;
        j.body_a = a;
        j.body_b = b;
        j.anchor = hinge + Vec3(x, 0, 0);
        w.add_ball_joint(j);
    }
}

// Two free bodies on a hinge of two ball joints, without gravity, spinning about three axes: both bodies
// turn, so their anchors' curvature targets disagree along the hinge axis at every step. Kinetic energy is
// conserved up to the discretisation: measured over 10 s at 60 Hz, a largest change of 1.0 % (0.07 % at
// 240 Hz); the bound is twice the 60 Hz figure. The pair is a free island, so the rotation step carries the
// solver's angular impulses exactly and |L| is kept to the solver's tolerance: each step's impulses are exact
// to 1e-9 m/s, which over 600 steps at these bodies' mass and size allows at most ~1e-6 of |L|; measured
// 1.8e-10 (2.2e-13 at 240 Hz).
TEST(ContactDynamics, FreeHingedPairKeepsEnergyAndAngularMomentum) {
    WorldSettings ws;
    ws.gravity = Vec3::Zero();
    DynamicsWorld w(ws);
    add_hinged_planks(w, Vec3::Zero(), Vec3(0, 0, 1), Vec3(0, 0, -2), Vec3(0.3, -0.2, 0.5));
    auto kinetic = [&] { return w.energy().kinetic; };
    auto momentum = [&] { return w.angular_momentum(); };
    const double dt = 1.0 / 60;
    ASSERT_TRUE(w.step(dt).ok);  // the joints take their share of the start velocities, which do not fit them
    const double energy_start = kinetic();
    const Vec3 momentum_start = momentum();
    double worst_energy = 0, worst_momentum = 0, worst_residual = 0;
    for (int i = 0; i < 600; ++i) {
        ASSERT_TRUE(w.step(dt).ok);
        worst_energy = std::max(worst_energy, std::abs(kinetic() - energy_start));
        worst_momentum = std::max(worst_momentum, (momentum() - momentum_start).norm());
        worst_residual = std::max(worst_residual, w.solver_stats().residual);
    }
    EXPECT_LE(worst_energy, 0.02 * energy_start)
        << "energy change " << worst_energy << " J of " << energy_start << " J";
    EXPECT_LE(worst_momentum, 1e-6 * momentum_start.norm())
        << "angular momentum change " << worst_momentum << " of " << momentum_start.norm() << " N m s";
    EXPECT_LE(worst_residual, 1e-9) << "solver residual " << worst_residual << " m/s";
}

// Two planks on a hinge of two ball joints, spinning, dropped onto the ground (e = 0.5, no friction): the
// bounces leave the hinge open by up to 2e-5 m before the projection closes it, so its rows are only nearly
// redundant and J v has a part along the direction they share. The solver must remove that part from the
// right-hand side (target - J v), not from the targets alone, or its direct solve misses the joint targets
// and the impulses grow like the regularisation's inverse. Measured over 10 s at 60 Hz: largest solver
// residual 2.3e-8 m/s (1.5e-6 with the targets alone made reachable, 8e-4 before); the bound is 1e-7. The
// energy only falls.
TEST(ContactDynamics, HingedPairBouncingOnTheGroundSolvesItsJoints) {
    WorldSettings ws;
    ws.allow_sleeping = false;
    ws.max_impact_gap =
        1;  // steps not split at impacts (the default max_impact_gap would): bounces open the hinge
    DynamicsWorld w(ws);
    w.materials().set(0, Material{0.0, 0.5, 1000});
    add_ground(w);
    add_hinged_planks(w, Vec3(0, 0, 1.5), Vec3::Zero(), Vec3(0, 0, -1), Vec3::Zero());
    auto total = [&] { return w.energy().kinetic + w.energy().potential; };
    const double start = total();
    double worst_residual = 0, highest = start;
    for (int i = 0; i < 600; ++i) {
        ASSERT_TRUE(w.step(1.0 / 60).ok);
        worst_residual = std::max(worst_residual, w.solver_stats().residual);
        highest = std::max(highest, total());
    }
    EXPECT_LE(worst_residual, 1e-7) << "solver residual " << worst_residual << " m/s";
    EXPECT_LE(highest, start + 1e-9) << "energy rose by " << highest - start << " J";
}

// A plank on a hinge of two ball joints (turned 30 degrees off its principal axes) swings down onto the
// ground at e = 1 with the default settings. A bounce across an open gap reverses the plank before it has
// reached the ground, and the position projection cannot move a jointed body back to where it would have
// bounced: before such steps were split (max_impact_gap, 1 mm), the plank gained 8.4 J of
// its 13.7 J within 10 s at 60 Hz. Now its energy must not rise beyond semi-implicit Euler's band, m g v_max
// dt / 2 with v_max = sqrt(2 g arm). Measured: at most +0.41 J, 14.02 J at the end; before split substeps
// restaggered their velocities and rebounds were timed within the step (docs/architecture.md, "Impacts inside
// a step") it never rose but lost 3.2 J in its split bounces.
TEST(ContactDynamics, HingedPlankBouncingAtFullRestitutionGainsNoEnergy) {
    const double dt = 1.0 / 60, mass = 2, arm = 0.6;
    WorldSettings ws;
    ws.allow_sleeping = false;
    DynamicsWorld w(ws);
    w.materials().set(0, Material{0.0, 1.0, 1000});
    add_ground(w);
    const BodyId plank = add_plank_on_hinge(w, mass, arm, kPi / 6, 0.7);
    const double start = mechanical_energy(w.body(plank));
    const double band = 0.5 * mass * kG * std::sqrt(2 * kG * arm) * dt;
    double highest = start;
    for (int i = 0; i < 600; ++i) {
        ASSERT_TRUE(w.step(dt).ok);
        highest = std::max(highest, mechanical_energy(w.body(plank)));
    }
    EXPECT_LE(highest - start, band) << "energy gained " << highest - start << " J, allowed " << band << " J";
}

// The mass-ratio chain of ../shared/anchors/SCENES.md S4: 20 spheres of 0.1 kg, 0.1 m apart, hanging from a
// fixed point by ball joints, holding a heavy sphere (10 or 100 kg) that starts swinging at 2 m/s. Bullet,
// ODE and MuJoCo lose the sphere at dt = 1/60; here the joints are projected to convergence after every
// (sub)step.
struct ChainRun {
    double max_error = 0;  // largest joint separation after a step, m
    double max_drift = 0;  // largest separation the projection had to remove, m
    double stretch = 0;    // final anchor-to-heavy-sphere distance minus the initial one, m
};

ChainRun run_chain(double ratio, double dt) {
    DynamicsWorld w;
    std::vector<BodyId> spheres;
    BodyDesc d;
    d.shape = make_sphere(0.05);
    d.mass = 0.1;
    for (int i = 1; i <= 20; ++i) {
        d.pose.position = Vec3(0, 0, 10 - 0.1 * i);
        spheres.push_back(w.create_body(d));
    }
    BodyDesc heavy;
    heavy.shape = make_sphere(0.2);
    heavy.mass = 0.1 * ratio;
    heavy.pose.position = Vec3(0, 0, 8.0 - 0.25);
    heavy.velocity = Vec3(2, 0, 0);
    spheres.push_back(w.create_body(heavy));
    BallJointDesc j;
    j.body_a = spheres[0];
    j.anchor = Vec3(0, 0, 9.95);
    w.add_ball_joint(j);
    for (int i = 1; i <= 20;
         ++i) {  // sphere i's bottom to sphere i+1's top (the heavy sphere's top for i = 20)
        j.body_a = spheres[static_cast<std::size_t>(i - 1)];
        j.body_b = spheres[static_cast<std::size_t>(i)];
        j.anchor = Vec3(0, 0, 9.95 - 0.1 * i);
        w.add_ball_joint(j);
    }
    ChainRun run;
    const Vec3 anchor(0, 0, 10);
    const double start = (w.body(spheres.back()).com_position - anchor).norm();
    for (int i = 0; i < static_cast<int>(std::lround(5.0 / dt)); ++i) {
        EXPECT_TRUE(w.step(dt).ok);
        run.max_error = std::max(run.max_error, w.max_joint_error());
        run.max_drift = std::max(run.max_drift, w.last_joint_drift());
    }
    run.stretch = (w.body(spheres.back()).com_position - anchor).norm() - start;
    return run;
}

TEST(ContactDynamics, HeavySphereOnALightChainKeepsItsJoints) {
    for (double ratio : {100.0, 1000.0}) {
        double previous_drift = 1e9;
        for (double dt : {1.0 / 60, 1.0 / 240, 1.0 / 1000}) {
            const ChainRun run = run_chain(ratio, dt);
            EXPECT_LT(run.max_error, 1e-3)
                << "ratio " << ratio << ", dt " << dt << ": largest joint error " << run.max_error;
            // A chain can bow (the end-to-end distance shrinks) but not stretch beyond its 21 joint errors.
            EXPECT_LT(run.stretch, 21 * run.max_error + 1e-12)
                << "ratio " << ratio << ", dt " << dt << ": stretch " << run.stretch;
            // The drift the projection removes per step shrinks with the step (first order or better).
            EXPECT_LT(run.max_drift, previous_drift)
                << "ratio " << ratio << ", dt " << dt << ": drift " << run.max_drift;
            previous_drift = run.max_drift;
            std::printf(
                "chain ratio %g dt %.5f: max joint error %.2e m, max drift before projection %.2e m, stretch "
                "%.2e m\n",
                ratio, dt, run.max_error, run.max_drift, run.stretch);
        }
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
TEST(ContactDynamics, RodDroppedOnABoxComesToRestLyingOnItsRadius) {
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

std::string mode_name(const ::testing::TestParamInfo<SolverMode>& mode) {
    return to_string(mode.param);
}
INSTANTIATE_TEST_SUITE_P(Modes, BothModes, ::testing::Values(SolverMode::thesis, SolverMode::exact),
                         mode_name);

}  // namespace
}  // namespace simpulse
