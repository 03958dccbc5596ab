// Cables in the world (issue 21; docs/cables.md): B-spline cables whose control points carry the mass, held
// by rods, colliding with bodies through contacts spread over a segment's control points.
#include "world_fixture.h"

#include <simpulse/collision/cable_segment.h>
#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace simpulse::test {
namespace {

CableDesc straight_cable(const Vec3& start, const Vec3& step, int points, double radius) {
    CableDesc d;
    for (int i = 0; i < points; ++i) d.points.push_back(start + i * step);
    d.radius = radius;
    return d;
}

// Lowest and highest centreline height over the cable's segments (sampled).
std::pair<double, double> centreline_height_range(const std::vector<Vec3>& points, double radius) {
    double lo = 1e300, hi = -1e300;
    const std::size_t n = points.size();
    for (std::size_t k = 0; k + 1 < n; ++k) {
        const CableSegment s =
            cable_chain_segment(k == 0 ? nullptr : &points[k - 1], points[k], points[k + 1],
                                k + 2 == n ? nullptr : &points[k + 2], radius);
        for (int i = 0; i <= 20; ++i) {
            const double z = cable_point(s, i / 20.0).z();
            lo = std::min(lo, z), hi = std::max(hi, z);
        }
    }
    return {lo, hi};
}

// Like every contact, a cable's may rest up to SolverSettings::penetration_slop deep (0.5 mm by default,
// 1 % of this cable's radius): the slop is set to 0.1 mm here so that the claim is about the cable's
// contacts.
TEST(Cables, FallingCableRestsOnThePlaneAtItsRadius) {
    WorldSettings settings;
    settings.solver.penetration_slop = 1e-4;
    DynamicsWorld w(settings);
    add_ground(w);
    const double r = 0.05;
    const CableId cable = w.add_cable(straight_cable({0, 0, 0.5}, {0.1, 0, 0}, 12, r));
    for (int i = 0; i < 480; ++i) ASSERT_TRUE(w.step(1.0 / 240).ok);
    const auto [lo, hi] = centreline_height_range(w.cable_points(cable), r);
    EXPECT_NEAR(lo, r, 0.01 * r);
    EXPECT_NEAR(hi, r, 0.01 * r);
}

// A rope laid over a static box hangs down both sides, its surface outside the box (grown by r) to within
// 10 % of r.
TEST(Cables, RopeDrapedOverABoxHangsDownBothSides) {
    DynamicsWorld w;
    add_ground(w);
    const Vec3 half(0.2, 0.2, 0.25);
    add_static(w, make_box(half), Pose{Vec3(0, 0, 0.25), Quat::Identity()});
    const double r = 0.02;
    const CableId cable = w.add_cable(straight_cable({-0.6, 0, 0.6}, {0.05, 0, 0}, 25, r));
    for (int i = 0; i < 720; ++i) ASSERT_TRUE(w.step(1.0 / 240).ok);
    const std::vector<Vec3> points = w.cable_points(cable);
    const std::size_t n = points.size();
    // Penetration of the swept ball into the box: r minus the centreline's distance to the box.
    double worst = 0;
    for (std::size_t k = 0; k + 1 < n; ++k) {
        const CableSegment s = cable_chain_segment(k == 0 ? nullptr : &points[k - 1], points[k],
                                                   points[k + 1], k + 2 == n ? nullptr : &points[k + 2], r);
        for (int i = 0; i <= 50; ++i) {
            const Vec3 c = cable_point(s, i / 50.0) - Vec3(0, 0, 0.25);
            const Vec3 outside = (c.cwiseAbs() - half).cwiseMax(0.0);
            worst = std::max(worst, r - outside.norm());
        }
    }
    EXPECT_LE(worst, 0.1 * r) << "deepest entry into the box grown by r: " << worst << " m (r = " << r << ")";
    EXPECT_LT(points.front().z(), 0.3) << "first end at z = " << points.front().z();
    EXPECT_LT(points.back().z(), 0.3) << "last end at z = " << points.back().z();
    EXPECT_LT(points.front().x(), -half.x()) << "first end at x = " << points.front().x();
    EXPECT_GT(points.back().x(), half.x()) << "last end at x = " << points.back().x();
}

// A box dropped on three cables lying on the ground comes to rest on them: its bottom at 2 r. Once it has
// landed (the last 2 s), every island solve meets the solver's tolerance, so the box stays still.
TEST(Cables, BoxDroppedOnCablesRestsOnThem) {
    DynamicsWorld w;
    add_ground(w);
    const double r = 0.03;
    for (const double y : {-0.2, 0.0, 0.2}) w.add_cable(straight_cable({-0.5, y, r}, {0.1, 0, 0}, 11, r));
    const BodyId box = w.create_body(box_desc(Vec3(0.25, 0.3, 0.1), Vec3(0, 0, 0.5), 5.0));
    double worst = 0;
    for (int i = 0; i < 720; ++i) {
        ASSERT_TRUE(w.step(1.0 / 240).ok);
        if (i >= 240) worst = std::max(worst, w.solver_stats().residual);
    }
    const Body& b = w.body(box);
    const double bottom = b.com_position.z() - 0.1;
    EXPECT_NEAR(bottom, 2 * r, 0.05 * r) << "box bottom at " << bottom << " m, cables' tops at " << 2 * r;
    EXPECT_LE(worst, w.settings().solver.tolerance) << "worst island residual at rest " << worst << " m/s";
    EXPECT_LT(b.velocity.norm(), 1e-6) << "box speed " << b.velocity.norm() << " m/s";
}

// A pendulum of a light rope (1 % of the bob's mass) pinned to the world and a bob pinned at its centre to
// the rope's end swings like the rigid pendulum of the same point masses: T = 2 pi sqrt(I / (g sum m l))
// times the finite-amplitude factor 1 + theta0^2 / 16, within 1 %.
TEST(Cables, CablePendulumSwingsWithTheRigidPendulumsPeriod) {
    WorldSettings settings;
    settings.allow_sleeping = false;
    DynamicsWorld w(settings);
    const double length = 1.0, theta0 = 5 * kPi / 180, bob_mass = 1.0, rope_mass = 0.01;
    const int n = 11;
    const Vec3 pivot(0, 0, 2);
    const Vec3 along(std::sin(theta0), 0, -std::cos(theta0));
    CableDesc rope = straight_cable(pivot, along * (length / (n - 1)), n, 0.005);
    rope.mass = rope_mass;
    const BodyId bob = w.create_body(sphere_desc(0.05, pivot + length * along, bob_mass));
    rope.pins = {{0, BodyId{}}, {static_cast<std::uint32_t>(n - 1), bob}};
    w.add_cable(rope);
    // The rigid pendulum of the same point masses (rope: half a link at each end, a link elsewhere).
    double inertia = bob_mass * length * length, moment = bob_mass * length;
    for (int i = 0; i < n; ++i) {
        const double share = (i == 0 || i == n - 1 ? 0.5 : 1.0) / (n - 1), l = length * i / (n - 1);
        inertia += rope_mass * share * l * l;
        moment += rope_mass * share * l;
    }
    const double expected = 2 * kPi * std::sqrt(inertia / (kG * moment)) * (1 + theta0 * theta0 / 16);
    const double dt = 1.0 / 1000;
    double previous = w.body(bob).velocity.x(), first = -1, last = -1;
    int crossings = 0;
    for (int i = 1; i <= 12000 && crossings < 7; ++i) {
        ASSERT_TRUE(w.step(dt).ok);
        const double vx = w.body(bob).velocity.x();
        if (previous < 0 && vx >= 0) {  // a turning point on the -x side, interpolated within the step
            const double t = (i - 1 + previous / (previous - vx)) * dt;
            if (first < 0) first = t;
            last = t;
            ++crossings;
        }
        previous = vx;
    }
    ASSERT_GE(crossings, 3);
    const double period = (last - first) / (crossings - 1);
    EXPECT_NEAR(period / expected, 1.0, 0.01)
        << "period " << period << " s, rigid pendulum " << expected << " s";
}

// A frictionless cable dropped flat on the ground at e = 1 bounces back to its drop height: its energy at
// every apex (where its vertical momentum turns) is the released energy within 1 %. At the apexes the
// integrator's staggering (velocities half a step behind the positions: g dt |v| / 2 per unit mass) vanishes
// with the velocity; the step splits at each impact restagger the velocities.
TEST(Cables, ElasticCableBounceKeepsItsEnergy) {
    WorldSettings settings;
    settings.allow_sleeping = false;
    DynamicsWorld w(settings);
    w.materials().set(0, Material{0.0, 1.0, 1000});
    add_ground(w);
    const double r = 0.02, dt = 1.0 / 480;
    w.add_cable(straight_cable({0, 0, 0.3}, {0.1, 0, 0}, 8, r));
    auto energy = [&] { return w.energy().kinetic + w.energy().potential; };
    const double e0 = energy();
    double worst = 0, previous_pz = 0;
    int apexes = 0;
    for (int i = 0; i < 960; ++i) {  // 2 s
        ASSERT_TRUE(w.step(dt).ok);
        const double pz = w.linear_momentum().z();
        if (previous_pz > 0 && pz <= 0) {
            ++apexes;
            worst = std::max(worst, std::abs(energy() - e0) / e0);
        }
        previous_pz = pz;
    }
    EXPECT_GE(apexes, 3);
    EXPECT_LE(worst, 0.01) << "largest relative energy change at an apex " << worst << " over " << apexes
                           << " apexes";
}

// Joints between point masses (a cable's rods) iterate their curvature targets: a free cable whipping in
// zero gravity keeps its kinetic energy (at 1/480 s it lost 34 % in 4 s when a misfit fell back to J v = 0).
TEST(Cables, WhippingCableKeepsItsEnergy) {
    WorldSettings settings;
    settings.allow_sleeping = false;
    settings.gravity = Vec3::Zero();
    DynamicsWorld w(settings);
    const CableId cable = w.add_cable(straight_cable({0, 0, 0}, {0.1, 0, 0}, 8, 0.02));
    std::vector<Vec3> v;
    for (int i = 0; i < 8; ++i) v.push_back(Vec3(0, 0, std::sin(1.3 * i) + 0.3 * std::cos(2.1 * i)));
    w.set_cable_velocities(cable, v);
    const double e0 = w.energy().kinetic;
    double worst = 0;
    for (int i = 0; i < 2000; ++i) {
        ASSERT_TRUE(w.step(1.0 / 480).ok);
        worst = std::max(worst, std::abs(w.energy().kinetic - e0) / e0);
    }
    EXPECT_LE(worst, 0.01) << "largest relative change of the kinetic energy " << worst;
}

// A cable dropped across another one lying on the ground rests on it: where they cross, its centreline is
// at 3 r (the lower one's centreline at r plus both radii) less the two contacts' rest depth (each may rest
// up to penetration_slop deep, as every contact does), within 5 % of r; elsewhere it is at least r less one
// contact's.
TEST(Cables, CableDroppedAcrossAnotherRestsOnIt) {
    DynamicsWorld w;
    add_ground(w);
    const double r = 0.02, slop = w.settings().solver.penetration_slop;
    w.add_cable(straight_cable({-0.5, 0, r}, {0.1, 0, 0}, 11, r));
    const CableId upper = w.add_cable(straight_cable({0, -0.5, 0.3}, {0, 0.1, 0}, 11, r));
    for (int i = 0; i < 720; ++i) ASSERT_TRUE(w.step(1.0 / 240).ok);
    const std::vector<Vec3> points = w.cable_points(upper);
    // The upper centreline's highest point is where it lies on the lower cable.
    const auto [lowest, highest] = centreline_height_range(points, r);
    EXPECT_NEAR(highest, 3 * r - 2 * slop, 0.05 * r) << "upper centreline at most " << highest << " m high";
    EXPECT_NEAR(lowest, r - slop, 0.05 * r) << "upper centreline at least " << lowest << " m high";
}

// Coulomb friction through the spread rows: a straight cable lying along the fall line of a 20 degree
// slope stays put at mu = 0.6 (> tan 20 = 0.364) and slides at mu = 0.1 with a = g (sin 20 - mu cos 20)
// within 2 %.
TEST(Cables, CableOnASlopeSticksOrSlidesByCoulombFriction) {
    const double angle = 20 * kPi / 180, r = 0.02;
    const Vec3 normal(-std::sin(angle), 0, std::cos(angle));
    const Vec3 down(-std::cos(angle), 0, -std::sin(angle));  // along the slope, downhill
    for (const double mu : {0.6, 0.1}) {
        WorldSettings settings;
        settings.allow_sleeping = false;
        DynamicsWorld w(settings);
        w.materials().set(0, Material{mu, 0.0, 1000});
        add_ground(w, normal);
        const CableId cable = w.add_cable(straight_cable(r * normal - 0.5 * down, 0.1 * down, 11, r));
        const double dt = 1.0 / 240;
        for (int i = 0; i < 24; ++i) ASSERT_TRUE(w.step(dt).ok);  // settle onto the slope
        const Vec3 start = w.cable_points(cable)[5];
        const double v0 = w.cable_velocities(cable)[5].dot(down);
        const int steps = 240;
        for (int i = 0; i < steps; ++i) ASSERT_TRUE(w.step(dt).ok);
        const double travelled = (w.cable_points(cable)[5] - start).dot(down);
        const double t = steps * dt;
        if (mu > std::tan(angle)) {
            EXPECT_LT(std::abs(travelled), 1e-3) << "mu " << mu << ": moved " << travelled << " m";
        } else {
            const double a = kG * (std::sin(angle) - mu * std::cos(angle));
            const double expected = v0 * t + 0.5 * a * t * t;
            EXPECT_NEAR(travelled / expected, 1.0, 0.02)
                << "mu " << mu << ": slid " << travelled << " m, closed form " << expected << " m";
        }
    }
}

// A crate hangs on a cable pinned to a heavy body that is itself held by a ball joint (a crane's hook):
// the rods and pins hold it where it hangs, at rest, within 1 mm over 2 s.
TEST(Cables, CrateHangsOnACablePinnedToABody) {
    DynamicsWorld w;
    const BodyId hook = w.create_body(box_desc(Vec3(0.1, 0.1, 0.1), Vec3(0, 0, 3), 50.0));
    add_joint_to_world(w, hook, Vec3(0, 0, 3));
    const BodyId crate = w.create_body(box_desc(Vec3(0.2, 0.2, 0.2), Vec3(0, 0, 1.8), 20.0));  // top at 2.0
    CableDesc rope = straight_cable({0, 0, 2.9}, {0, 0, -0.1}, 10, 0.01);
    rope.pins = {{0, hook}, {9, crate}};
    const CableId cable = w.add_cable(rope);
    const double start = w.body(crate).com_position.z();
    double worst = 0;
    for (int i = 0; i < 480; ++i) {
        ASSERT_TRUE(w.step(1.0 / 240).ok);
        worst = std::max(worst, std::abs(w.body(crate).com_position.z() - start));
    }
    EXPECT_LT(worst, 1e-3) << "the crate moved by up to " << worst << " m";
    EXPECT_LT(w.body(crate).velocity.norm(), 1e-3);
    EXPECT_NEAR(w.cable_points(cable).back().z(), 2.0, 1e-3);
}

// Islands with cable contacts are solved by the sweeps, then the direct method from their answer, kept only
// if it converged closer (island_method.cpp, solve_spread_island): the friction rows of cables lying straight
// are redundant with their rods, a degenerate problem on which the direct method alone stalled or blew up
// (residuals above 1e11 m/s here). A box resting on three cables with every island solve aimed at the
// tolerance (iterative_accept 0): no solve ends above 1e-2 m/s, and the box rests on the cables.
TEST(Cables, IslandsWithCableContactsStayBoundedAndRest) {
    WorldSettings settings;
    settings.solver.iterative_accept = 0;
    DynamicsWorld w(settings);
    add_ground(w);
    const double r = 0.03;
    for (const double y : {-0.2, 0.0, 0.2}) w.add_cable(straight_cable({-0.5, y, r}, {0.1, 0, 0}, 11, r));
    const BodyId box = w.create_body(box_desc(Vec3(0.25, 0.3, 0.1), Vec3(0, 0, 0.5), 5.0));
    double worst = 0;
    int largest = 0;
    for (int i = 0; i < 480; ++i) {
        ASSERT_TRUE(w.step(1.0 / 240).ok);
        worst = std::max(worst, w.solver_stats().residual);
        largest = std::max(largest, w.solver_stats().largest_island_rows);
    }
    EXPECT_GT(largest, settings.solver.direct_max_rows);
    EXPECT_LE(worst, 1e-2) << "worst residual " << worst << " m/s";
    EXPECT_NEAR(w.body(box).com_position.z() - 0.1, 2 * r, 0.05 * r);
}

// Bad cable descriptions are refused naming the field, and leave the world as it was.
TEST(Cables, InvalidCablesAreRefusedNamingTheField) {
    DynamicsWorld w;
    auto message = [&](const CableDesc& d) {
        try {
            w.add_cable(d);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CableDesc d = straight_cable({0, 0, 1}, {0.1, 0, 0}, 3, 0.01);
    EXPECT_NE(message(d).find("points: expected at least 4"), std::string::npos) << message(d);
    d = straight_cable({0, 0, 1}, {0.1, 0, 0}, 5, 0.0);
    EXPECT_NE(message(d).find("radius"), std::string::npos) << message(d);
    d = straight_cable({0, 0, 1}, {0.1, 0, 0}, 5, 0.01);
    d.pins = {{5, BodyId{}}};
    EXPECT_NE(message(d).find("pins[0].index"), std::string::npos) << message(d);
    d.pins = {{0, BodyId{7, 1}}};
    EXPECT_NE(message(d).find("pins[0].body"), std::string::npos) << message(d);
    // Of two repeated pins the first repeat is named, with the earliest pin it repeats.
    d.pins = {{1, BodyId{}}, {2, BodyId{}}, {3, BodyId{}}, {2, BodyId{}}, {1, BodyId{}}, {2, BodyId{}}};
    EXPECT_NE(message(d).find("pins[3]: control point 2 is already pinned to the same body by pins[1]"),
              std::string::npos)
        << message(d);
    d.pins.clear();
    d.points[2] = d.points[1];
    EXPECT_NE(message(d).find("points[2]"), std::string::npos) << message(d);
    d = straight_cable({0, 0, 1}, {0.1, 0, 0}, 5, 0.01);
    d.points[3].x() = std::nan("");
    EXPECT_NE(message(d).find("points[3]"), std::string::npos) << message(d);
    d = straight_cable({0, 0, 1}, {0.1, 0, 0}, 5, 0.01);
    d.stretch_stiffness = -1;
    EXPECT_NE(message(d).find("stretch_stiffness"), std::string::npos) << message(d);
    EXPECT_EQ(w.cable_count(), 0u);
    EXPECT_EQ(w.body_count(), 0u);
}

// The control points are the world's bodies but not the caller's: not counted, not valid ids; removing
// the cable frees them.
TEST(Cables, ControlPointsAreNotBodiesOfTheCaller) {
    DynamicsWorld w;
    add_ground(w);
    const CableId cable = w.add_cable(straight_cable({0, 0, 1}, {0.1, 0, 0}, 6, 0.01));
    EXPECT_EQ(w.body_count(), 1u);
    EXPECT_EQ(w.cable_count(), 1u);
    for (std::uint32_t i = 0; i < w.body_slots().size(); ++i)
        if (w.body_slots()[i].cable != kInvalidIndex) {
            EXPECT_FALSE(w.is_valid(BodyId{i, w.body_slots()[i].generation}));
        }
    ASSERT_TRUE(w.step(1.0 / 60).ok);
    w.remove_cable(cable);
    EXPECT_FALSE(w.is_valid(cable));
    EXPECT_EQ(w.cable_count(), 0u);
    ASSERT_TRUE(w.step(1.0 / 60).ok);
    EXPECT_EQ(w.body_count(), 1u);
}

}  // namespace
}  // namespace simpulse::test
