// Time of impact (time_of_impact.h) against closed forms: a box translating onto a plane, a mesh sheet and a
// static box hits where its face is at the target separation, s = (distance - half height - target) / travel;
// a thin plate turning about its centre above a plane hits when its end comes down to the target; a body
// moving or turning away, or one that stops short, is not hit; a plate resting on one corner and turning flat
// onto a sheet within the step is stopped before its far corner passes the sheet; a ball rolling over the
// sheet's seam is not; the smallest extents.
#include <simpulse/collision/time_of_impact.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace simpulse {
namespace {

constexpr double kTarget = 5e-4;     // the continuous phase's target: a quarter of the 2 mm contact margin
constexpr double kTolerance = 1e-4;  // a hit's separation is in [target, target + tolerance]

ToiSettings settings() {
    ToiSettings s;
    s.target = kTarget;
    s.tolerance = kTolerance;
    return s;
}

ShapePtr sheet() {  // 4 m x 4 m at z = 0, facing +z
    return make_triangle_mesh({Vec3(-2, -2, 0), Vec3(2, -2, 0), Vec3(-2, 2, 0), Vec3(2, 2, 0)},
                              {{{0, 1, 3}}, {{0, 3, 2}}});
}

Quat about_y(double angle) {
    return Quat(Eigen::AngleAxisd(angle, Vec3::UnitY()));
}

// Lowest z of the box's corners at `pose`.
double lowest_corner(const Vec3& half, const Pose& pose) {
    double lowest = INFINITY;
    for (int k = 0; k < 8; ++k)
        lowest = std::min(
            lowest,
            pose.transform_point(half.cwiseProduct(Vec3(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1)))
                .z());
    return lowest;
}

TEST(TimeOfImpact, TranslatingBoxHitsAtTheClosedForm) {
    const Vec3 half(0.3, 0.2, 0.1);
    const ShapePtr box = make_box(half);
    const double radius = half.norm();
    // Straight down from z = 1 to z = -1 (travel 2): the bottom face reaches z = target at
    // s = (1 - 0.1 - target) / 2. Translation only: the bound along the face normal is exact, so conservative
    // advancement lands on it in one step, and the hit is within the tolerance / travel of the closed form.
    const Sweep sweep{Vec3::Zero(), Vec3(0.1, 0, 1), Vec3(0.1, 0, -1), Quat::Identity(), Quat::Identity()};
    const double expected = (1 - 0.1 - kTarget) / 2;
    const ShapePtr static_box = make_box(Vec3(1, 1, 0.5));
    struct Case {
        const char* name;
        ShapePtr target;
        Pose pose;
    } cases[] = {{"plane", make_plane(Vec3::UnitZ(), 0), Pose{}},
                 {"mesh sheet", sheet(), Pose{}},
                 {"static box", static_box, Pose{Vec3(0, 0, -0.5), Quat::Identity()}}};
    for (const Case& c : cases) {
        const ToiResult r = time_of_impact(*box, sweep, radius, *c.target, c.pose, settings());
        ASSERT_EQ(r.state, ToiResult::State::hit) << c.name;
        EXPECT_NEAR(r.s, expected, kTolerance / 2) << c.name;
        EXPECT_LT((r.normal + Vec3::UnitZ()).norm(), 1e-9) << c.name << ": normal " << r.normal.transpose();
        const double gap = lowest_corner(half, sweep.pose(r.s));
        EXPECT_GE(gap, kTarget - 1e-12) << c.name;
        EXPECT_LE(gap, kTarget + kTolerance) << c.name;
        std::printf("box onto %s: s = %.9f (closed form %.9f), %d distance queries\n", c.name, r.s, expected,
                    r.iterations);
    }
}

// A plate 1 m x 0.2 m x 2 cm, centre fixed at z = 0.3, turning by 90 degrees about y within the step: its
// ends come down to z = 0.3 - 0.5 sin(a) - 0.01 cos(a), which reaches the target at
// a = asin((0.3 - target) / R) - atan(0.01 / 0.5), R = |(0.5, 0.01)|, i.e. s = a / (pi / 2).
TEST(TimeOfImpact, RotatingThinPlateHitsWhenItsEndComesDown) {
    const Vec3 half(0.5, 0.1, 0.01);
    const ShapePtr plate = make_box(half);
    const Sweep sweep{Vec3::Zero(), Vec3(0, 0, 0.3), Vec3(0, 0, 0.3), Quat::Identity(),
                      about_y(std::numbers::pi / 2)};
    const double angle = std::asin((0.3 - kTarget) / std::hypot(0.5, 0.01)) - std::atan(0.01 / 0.5);
    const double expected = angle / (std::numbers::pi / 2);
    for (const bool mesh : {false, true}) {
        const ShapePtr target = mesh ? sheet() : make_plane(Vec3::UnitZ(), 0);
        const ToiResult r = time_of_impact(*plate, sweep, half.norm(), *target, Pose{}, settings());
        ASSERT_EQ(r.state, ToiResult::State::hit);
        const double gap = lowest_corner(half, sweep.pose(r.s));
        EXPECT_GE(gap, kTarget - 1e-12);
        EXPECT_LE(gap, kTarget + kTolerance);
        // d(gap)/ds is about (pi / 2) 0.5 cos(a) near the hit, so the tolerance on the gap is one on s.
        EXPECT_NEAR(r.s, expected, kTolerance / (std::numbers::pi / 2 * 0.5 * std::cos(angle)));
        std::printf("turning plate onto %s: s = %.9f (closed form %.9f), %d distance queries\n",
                    mesh ? "sheet" : "plane", r.s, expected, r.iterations);
    }
}

TEST(TimeOfImpact, NoHitWhenMovingAwayOrStoppingShort) {
    const Vec3 half(0.3, 0.2, 0.1);
    const ShapePtr box = make_box(half);
    const ShapePtr plane = make_plane(Vec3::UnitZ(), 0);
    const Sweep up{Vec3::Zero(), Vec3(0, 0, 0.5), Vec3(0, 0, 3), Quat::Identity(), Quat::Identity()};
    const Sweep short_of_it{Vec3::Zero(), Vec3(0, 0, 0.5), Vec3(0, 0, 0.2), Quat::Identity(),
                            Quat::Identity()};
    const Sweep sideways{Vec3::Zero(), Vec3(-3, 0, 0.5), Vec3(3, 0, 0.5), Quat::Identity(), about_y(0.1)};
    for (const Sweep& sweep : {up, short_of_it, sideways})
        for (const ShapePtr& target : {plane, sheet()})
            EXPECT_EQ(time_of_impact(*box, sweep, half.norm(), *target, Pose{}, settings()).state,
                      ToiResult::State::separated);
    // From behind the sheet (its back face): the sheet is one-sided, as its contacts are.
    const Sweep from_behind{Vec3::Zero(), Vec3(0, 0, -1), Vec3(0, 0, 1), Quat::Identity(), Quat::Identity()};
    EXPECT_EQ(time_of_impact(*box, from_behind, half.norm(), *sheet(), Pose{}, settings()).state,
              ToiResult::State::separated);
}

// A plate on one corner (touching the sheet at the start, so distance-based advancement has nowhere to go)
// turning about its centre so that its other end would pass 0.13 m through the sheet: stopped when the
// far end reaches the sheet's plane, the touching corner left where it is.
TEST(TimeOfImpact, PlateTouchingAtTheStartIsStoppedBeforeItsFarEndPasses) {
    const Vec3 half(0.5, 0.1, 0.01);
    const ShapePtr plate = make_box(half);
    // Tilted 30 degrees with its lower end at z = target, turning by 80 degrees about y about its centre.
    const Quat q0 = about_y(-std::numbers::pi / 6);
    const double lift = kTarget - lowest_corner(half, Pose{Vec3::Zero(), q0});
    const Sweep sweep{Vec3::Zero(), Vec3(0, 0, lift), Vec3(0, 0, lift), q0,
                      about_y(std::numbers::pi * 50 / 180)};
    ASSERT_LT(lowest_corner(half, sweep.pose(1)), -0.1);
    for (const bool mesh : {false, true}) {
        const ShapePtr target = mesh ? sheet() : make_plane(Vec3::UnitZ(), 0);
        const ToiResult r = time_of_impact(*plate, sweep, half.norm(), *target, Pose{}, settings());
        ASSERT_EQ(r.state, ToiResult::State::hit) << (mesh ? "sheet" : "plane");
        EXPECT_GT(r.s, 0.1);
        EXPECT_GE(lowest_corner(half, sweep.pose(r.s)), -kTolerance) << "s " << r.s;
    }
}

// A ball (r = 0.1 m) rolling level over the sheet's seam, its bottom within the target of the plane: the
// second triangle's edge comes within the target as the ball crosses it, a hit unless triangles whose plane
// the centre does not approach (by face_approach, a quarter of the ball's smallest extent) are left out.
TEST(TimeOfImpact, BodyRollingOverASeamIsNotStopped) {
    const ShapePtr ball = make_sphere(0.1);
    const Sweep sweep{Vec3::Zero(), Vec3(-0.5, 0.3, 0.1 + 0.5 * kTarget),
                      Vec3(0.5, -0.3, 0.1 + 0.5 * kTarget), Quat::Identity(), about_y(1)};
    ToiSettings s = settings();
    const ToiResult all = time_of_impact(*ball, sweep, 0.1, *sheet(), Pose{}, s);
    s.face_approach = 0.25 * smallest_extent(*ball);
    const ToiResult approaching = time_of_impact(*ball, sweep, 0.1, *sheet(), Pose{}, s);
    std::printf(
        "rolling ball over the seam: every triangle: state %d at s = %.6f; approached only: state %d\n",
        static_cast<int>(all.state), all.s, static_cast<int>(approaching.state));
    EXPECT_NE(approaching.state, ToiResult::State::hit);
}

TEST(TimeOfImpact, SmallestExtents) {
    EXPECT_EQ(smallest_extent(*make_box(Vec3(0.2, 0.15, 0.005))), 0.01);
    EXPECT_EQ(smallest_extent(*make_sphere(0.3)), 0.6);
    EXPECT_EQ(smallest_extent(*make_capsule(0.1, 1)), 0.2);
    EXPECT_EQ(smallest_extent(*make_cylinder(0.5, 0.02)), 0.04);
    const std::vector<Vec3> corners{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 2, 0), Vec3(1, 2, 0),
                                    Vec3(0, 0, 3), Vec3(1, 0, 3), Vec3(0, 2, 3), Vec3(1, 2, 3)};
    EXPECT_NEAR(smallest_extent(*make_convex_hull(corners)), 1, 1e-12);
    EXPECT_TRUE(std::isinf(smallest_extent(*sheet())));
}

}  // namespace
}  // namespace simpulse
