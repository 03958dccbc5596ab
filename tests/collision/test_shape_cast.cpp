// Shape casts against closed forms: a sphere at a box face, a turned box at a plane and at a box, a sphere at
// a sphere off the line of centres, a capsule onto a mesh floor, a sphere onto a sloped height field, a cone
// and a cylinder at a box, compounds as cast shape and as target; casts that miss or stop short; a cast that
// starts overlapping. Then 1,000 random sphere casts and 300 random box casts against conservative
// advancement on the GJK distance (an independent answer: the first t where the distance reaches 0,
// approached from below), and the rejection of shapes that cannot be cast.
#include <simpulse/collision/gjk.h>
#include <simpulse/collision/shape_cast.h>
#include <simpulse/collision/support.h>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

namespace simpulse {
namespace {

// Polytope and ball cores converge in a few exact steps, so the closed forms hold to the rounding of metre
// coordinates (~1e-15); curved cores (cylinder, cone) stop within the cast's tolerance, 1e-10 of the shapes'
// size. 1e-9 m covers both at the sizes used here.
constexpr double kTolerance = 1e-9;
// The normal of a flat contact is the converged separating direction: exact on faces, to the rounding of the
// closest-point solve (~1e-12) on ball cores.
constexpr double kNormalTolerance = 1e-9;

Pose at(const Vec3& p, const Quat& q = Quat::Identity()) {
    return Pose{p, q};
}

void expect_hit(const std::optional<CastHit>& hit, double fraction, const Vec3& normal, const char* what) {
    ASSERT_TRUE(hit.has_value()) << what << ": missed";
    EXPECT_NEAR(hit->fraction, fraction, kTolerance)
        << what << ": error " << std::abs(hit->fraction - fraction);
    EXPECT_LT((hit->normal - normal).norm(), kNormalTolerance)
        << what << ": normal " << hit->normal.transpose() << ", error " << (hit->normal - normal).norm();
}

TEST(ShapeCast, ConvexShapesAgainstClosedForms) {
    const Vec3 x = Vec3::UnitX();
    // Sphere r 0.5 from x = -5 along x (10 m) at a box face x = 1 (centre 2, half 1): the centre stops at
    // x = 0.5 after 5.5 m; the point is on the face at the sphere's y, z.
    const auto sphere_box = shape_cast(*make_sphere(0.5), at(Vec3(-5, 0.3, 0.2)), 10 * x,
                                       *make_box(Vec3::Ones()), at(Vec3(2, 0, 0)));
    expect_hit(sphere_box, 0.55, -x, "sphere at box");
    EXPECT_LT((sphere_box->point - Vec3(1, 0.3, 0.2)).norm(), kTolerance) << sphere_box->point.transpose();

    // Box (0.5, 0.25, 1) turned 30 degrees about x, from z = 5 by (1, 0, -10) onto the plane z = 1: its
    // lowest point is 0.25 sin 30 + cos 30 below its centre.
    const double angle = std::numbers::pi / 6;
    const Quat turned(Eigen::AngleAxisd(angle, x));
    const double reach = 0.25 * std::sin(angle) + std::cos(angle);
    const auto box_plane = shape_cast(*make_box(Vec3(0.5, 0.25, 1)), at(Vec3(0, 0, 5), turned),
                                      Vec3(1, 0, -10), *make_plane(Vec3::UnitZ(), 1), Pose{});
    expect_hit(box_plane, (4 - reach) / 10, Vec3::UnitZ(), "box at plane");
    EXPECT_NEAR(box_plane->point.z(), 1, kTolerance);

    // Sphere r1 0.5 at the origin along x at a sphere r2 1 centred (4, 0.6, 0): the centres are 1.5 apart at
    // the touch, x = 4 - sqrt(1.5^2 - 0.6^2); the normal is from the target's centre to the cast one's.
    const double touch = 4 - std::sqrt(2.25 - 0.36);
    const auto spheres = shape_cast(*make_sphere(0.5), Pose{}, 10 * x, *make_sphere(1), at(Vec3(4, 0.6, 0)));
    const Vec3 n = (Vec3(touch, 0, 0) - Vec3(4, 0.6, 0)).normalized();
    expect_hit(spheres, touch / 10, n, "sphere at sphere");
    EXPECT_LT((spheres->point - (Vec3(4, 0.6, 0) + n)).norm(), kTolerance);

    // Box half 0.5 turned 45 degrees about z reaches 0.5 sqrt 2 along x: from the origin to a face at x = 3;
    // the same box as a hull of its corners gives the same answer.
    const Quat diagonal(Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitZ()));
    const ShapePtr target = make_box(Vec3(1, 1, 1));
    expect_hit(shape_cast(*make_box(Vec3::Constant(0.5)), at(Vec3::Zero(), diagonal), 5 * x, *target,
                          at(Vec3(4, 0.2, 0.1))),
               (3 - 0.5 * std::sqrt(2.0)) / 5, -x, "turned box at box");
    std::vector<Vec3> corners;
    for (int i = 0; i < 8; ++i)
        corners.emplace_back(i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5);
    expect_hit(shape_cast(*make_convex_hull(corners), at(Vec3::Zero(), diagonal), 5 * x, *target,
                          at(Vec3(4, 0.2, 0.1))),
               (3 - 0.5 * std::sqrt(2.0)) / 5, -x, "turned hull at box");

    // Curved cores: a cylinder (r 0.5) sideways along x at the face x = 2, a cone (base r 1 at z = -1) down z
    // base first at the top face z = -3.
    expect_hit(shape_cast(*make_cylinder(0.5, 1), Pose{}, 4 * x, *target, at(Vec3(3, 0, 0))), 1.5 / 4, -x,
               "cylinder at box");
    expect_hit(shape_cast(*make_cone(1, 1), Pose{}, Vec3(0, 0, -4), *target, at(Vec3(0.1, 0, -4))), 2.0 / 4,
               Vec3::UnitZ(), "cone at box");
}

TEST(ShapeCast, MeshHeightFieldAndCompounds) {
    // A capsule (r 0.3, half length 0.5) lying along y at z = 2, cast down 5 m onto a 20 m square of two
    // triangles at z = 0: its lowest line reaches z = 0 after 1.7 m; upright it reaches after 2 - 0.8.
    const ShapePtr floor = make_triangle_mesh(
        {Vec3(-10, -10, 0), Vec3(10, -10, 0), Vec3(10, 10, 0), Vec3(-10, 10, 0)}, {{0, 1, 2}, {0, 2, 3}});
    const ShapePtr capsule = make_capsule(0.3, 0.5);
    const Quat lying(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()));
    const Vec3 down(0, 0, -5);
    const auto flat = shape_cast(*capsule, at(Vec3(0.4, 0.7, 2), lying), down, *floor, Pose{});
    expect_hit(flat, 1.7 / 5, Vec3::UnitZ(), "capsule lying on mesh");
    EXPECT_NEAR(flat->point.z(), 0, kTolerance);
    expect_hit(shape_cast(*capsule, at(Vec3(0.4, 0.7, 2)), down, *floor, Pose{}), 1.2 / 5, Vec3::UnitZ(),
               "capsule upright on mesh");
    // From below, the mesh is touched too (a surface), the normal facing the capsule.
    expect_hit(shape_cast(*capsule, at(Vec3(0.4, 0.7, -2)), -down, *floor, Pose{}), 1.2 / 5, -Vec3::UnitZ(),
               "capsule under mesh");

    // Height field: flat at 0.25 on a 5 x 5 grid of 1 m; a sphere r 0.5 from z = 3 down 10 m lands
    // after 2.25.
    const ShapePtr flat_field =
        make_height_field(Vec2::Zero(), Vec2::Ones(), 5, 5, std::vector<double>(25, 0.25));
    expect_hit(shape_cast(*make_sphere(0.5), at(Vec3(1.3, 2.7, 3)), Vec3(0, 0, -10), *flat_field, Pose{}),
               0.225, Vec3::UnitZ(), "sphere on flat height field");
    // Sloped z = 0.1 x + 0.2 y (planar, so every triangle is the plane): the centre stops r |(-0.1, -0.2, 1)|
    // above the plane's height under it.
    std::vector<double> heights;
    for (int i = 0; i < 11; ++i)
        for (int j = 0; j < 21; ++j) heights.push_back(0.1 * (-5 + 0.5 * j) + 0.2 * (-2.5 + 0.5 * i));
    const ShapePtr sloped = make_height_field(Vec2(-5, -2.5), Vec2(0.5, 0.5), 11, 21, heights);
    const Vec3 slope_normal = Vec3(-0.1, -0.2, 1).normalized();
    const double stop = 0.1 * 1.3 + 0.2 * 0.4 + 0.5 * Vec3(-0.1, -0.2, 1).norm();
    expect_hit(shape_cast(*make_sphere(0.5), at(Vec3(1.3, 0.4, 4)), Vec3(0, 0, -8), *sloped, Pose{}),
               (4 - stop) / 8, slope_normal, "sphere on sloped height field");
    // Past the field's edge nothing is under the sphere.
    EXPECT_FALSE(
        shape_cast(*make_sphere(0.5), at(Vec3(8, 0.4, 4)), Vec3(0, 0, -8), *sloped, Pose{}).has_value());

    // A compound target (unit spheres at x = 0 and 3) hit by a box (half 0.5) coming down -x from x = 10: the
    // nearer child, 1, after 10 - 4 - 0.5; the sub is the child.
    std::vector<CompoundChild> children{{make_sphere(1), Pose{}}, {make_sphere(1), at(Vec3(3, 0, 0))}};
    const ShapePtr pair = make_compound(children);
    const auto box_pair =
        shape_cast(*make_box(Vec3::Constant(0.5)), at(Vec3(10, 0, 0)), Vec3(-10, 0, 0), *pair, Pose{});
    expect_hit(box_pair, 0.55, Vec3::UnitX(), "box at compound");
    EXPECT_EQ(box_pair->sub, 1u);
    // The same compound cast down onto the plane z = -2 from z = 3: both children touch after 4 m.
    expect_hit(shape_cast(*pair, at(Vec3(0, 0, 3)), Vec3(0, 0, -10), *make_plane(Vec3::UnitZ(), -2), Pose{}),
               0.4, Vec3::UnitZ(), "compound at plane");
}

TEST(ShapeCast, MissesStopsShortAndStartsOverlapping) {
    const ShapePtr box = make_box(Vec3::Ones());
    const ShapePtr ball = make_sphere(0.5);
    // Beside the box: the sphere's side passes 1e-6 clear of the face y = 1.
    EXPECT_FALSE(shape_cast(*ball, at(Vec3(-5, 1.5 + 1e-6, 0)), Vec3(10, 0, 0), *box, Pose{}).has_value());
    // Grazing it by 1e-6 is a hit.
    EXPECT_TRUE(shape_cast(*ball, at(Vec3(-5, 1.5 - 1e-6, 0)), Vec3(10, 0, 0), *box, Pose{}).has_value());
    // Short: the touch is 3.5 m away.
    EXPECT_FALSE(shape_cast(*ball, at(Vec3(-5, 0, 0)), Vec3(3.4, 0, 0), *box, Pose{}).has_value());
    EXPECT_TRUE(shape_cast(*ball, at(Vec3(-5, 0, 0)), Vec3(3.6, 0, 0), *box, Pose{}).has_value());
    // Moving away.
    EXPECT_FALSE(shape_cast(*ball, at(Vec3(-5, 0, 0)), Vec3(-10, 0, 0), *box, Pose{}).has_value());
    // Overlapping at the start: fraction 0, the normal against the translation, the point the start.
    const Vec3 translation(0, 3, 4);
    const auto inside = shape_cast(*ball, at(Vec3(1.2, 0, 0)), translation, *box, Pose{});
    ASSERT_TRUE(inside.has_value());
    EXPECT_EQ(inside->fraction, 0);
    EXPECT_LT((inside->normal + translation.normalized()).norm(), 1e-15);
    EXPECT_EQ(inside->point, Vec3(1.2, 0, 0));
    const ShapePtr floor = make_triangle_mesh({Vec3(-1, -1, 0), Vec3(1, -1, 0), Vec3(0, 1, 0)}, {{0, 1, 2}});
    ASSERT_TRUE(shape_cast(*ball, at(Vec3(0, 0, 0.2)), Vec3(1, 0, 0), *floor, Pose{}).has_value());
    EXPECT_EQ(shape_cast(*ball, at(Vec3(0, 0, 0.2)), Vec3(1, 0, 0), *floor, Pose{})->fraction, 0);
}

TEST(ShapeCast, RejectsShapesThatCannotBeCast) {
    const ShapePtr plane = make_plane(Vec3::UnitZ(), 0);
    try {
        shape_cast(*plane, Pose{}, Vec3::UnitX(), *make_sphere(1), Pose{});
        FAIL() << "a plane was cast";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "shape: expected a convex shape or compound of convex shapes");
    }
}

// Conservative advancement (Mirtich 1996): from t = 0, step by the distance over the speed; the distance is a
// lower bound on the travel before a touch, so the steps never pass the first touch and end on it. An answer
// that shares no code with the cast but GJK's distance. nullopt: no touch within the translation.
std::optional<double> advance(const Shape& cast, const Pose& start, const Vec3& translation,
                              const Shape& target, const Pose& target_pose) {
    const double speed = translation.norm();
    double t = 0;
    for (int i = 0; i < 1000000 && t <= 1; ++i) {
        const Pose moved{start.position + t * translation, start.orientation};
        const GjkResult r = gjk(ConvexSupport(cast, moved).core(), ConvexSupport(target, target_pose).core());
        const double gap = r.distance - core_radius(cast) - core_radius(target);
        if (r.intersecting || gap <= 1e-13) return t;
        t += gap / speed;
    }
    return std::nullopt;
}

Quat random_rotation(std::mt19937_64& rng) {
    std::normal_distribution<double> normal;
    return Quat(normal(rng), normal(rng), normal(rng), normal(rng)).normalized();
}

// The random targets: every convex type with sizes in [0.3, 1.5] at a random pose near the origin.
ShapePtr random_target(std::mt19937_64& rng, int kind) {
    std::uniform_real_distribution<double> size(0.3, 1.5);
    switch (kind) {
        case 0:
            return make_box(Vec3(size(rng), size(rng), size(rng)));
        case 1:
            return make_capsule(size(rng), size(rng));
        case 2:
            return make_cylinder(size(rng), size(rng));
        case 3:
            return make_cone(size(rng), size(rng));
        case 4:
            return make_sphere(size(rng));
        default: {
            std::vector<Vec3> points;
            std::uniform_real_distribution<double> coordinate(-1, 1);
            for (int i = 0; i < 12; ++i)
                points.emplace_back(coordinate(rng), coordinate(rng), coordinate(rng));
            return make_convex_hull(points);
        }
    }
}

// Casts from 6-10 m away aimed within 0.05 m of an interior point of the target (its origin, or a hull's
// centroid: the targets are at least ~0.15 m thick around it, so the cast hits well inside the silhouette)
// or at a point 30 m beside its position: that line passes at least 5.8 m from it, beyond the reach of
// both shapes (4.8 m at most), a clear miss.
void random_casts(const char* what, int count, std::uint64_t seed,
                  const std::function<ShapePtr(std::mt19937_64&)>& caster, double tolerance) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(-1, 1), distance(6, 10), overshoot(1, 2);
    double worst = 0;
    int hits = 0;
    for (int i = 0; i < count; ++i) {
        const ShapePtr target = random_target(rng, i % 6);
        const Pose target_pose{Vec3(unit(rng), unit(rng), unit(rng)), random_rotation(rng)};
        const ShapePtr cast = caster(rng);
        const Vec3 towards = Vec3(unit(rng), unit(rng), unit(rng)).normalized();
        const Pose start{target_pose.position - distance(rng) * towards, random_rotation(rng)};
        const bool aim = i % 4 != 0;
        const Vec3 inside = ConvexSupport(*target, target_pose).center();
        Vec3 aim_point = inside + 0.05 * Vec3(unit(rng), unit(rng), unit(rng)) / std::sqrt(3.0);
        if (!aim)
            aim_point =
                target_pose.position + 30 * towards.cross(Vec3(unit(rng), unit(rng), unit(rng))).normalized();
        const Vec3 translation = overshoot(rng) * (aim_point - start.position);
        const std::optional<CastHit> hit = shape_cast(*cast, start, translation, *target, target_pose);
        const std::optional<double> expected = advance(*cast, start, translation, *target, target_pose);
        ASSERT_EQ(hit.has_value(), expected.has_value()) << what << " cast " << i;
        ASSERT_EQ(hit.has_value(), aim) << what << " cast " << i;
        if (!hit) continue;
        ++hits;
        const double error = std::abs(hit->fraction - *expected) * translation.norm();
        worst = std::max(worst, error);
        EXPECT_LT(error, tolerance) << what << " cast " << i << ": error " << error << " m";
        // The normal is unit and against the motion.
        EXPECT_NEAR(hit->normal.norm(), 1, 1e-12) << what << " cast " << i;
        EXPECT_LT(hit->normal.dot(translation), 0) << what << " cast " << i;
    }
    std::cout << what << ": " << hits << " hits of " << count << ", largest distance error " << worst
              << " m\n";
}

// Both answers stop within their tolerance of the touch: the cast within 1e-10 of the shapes' size (~1e-10 m)
// of the surface, conservative advancement within 1e-13 m of it or GJK's distance error (~1e-10 of the size
// on curved shapes); the aim keeps the approach at least ~10 degrees off the surface, so the distance along
// the motion is within ~6 times that. 1e-8 m leaves a margin of ten.
constexpr double kRandomTolerance = 1e-8;

TEST(ShapeCast, RandomSphereCastsAgreeWithConservativeAdvancement) {
    random_casts(
        "sphere", 1000, 20261127,
        [](std::mt19937_64& rng) { return make_sphere(std::uniform_real_distribution<double>(0.1, 1)(rng)); },
        kRandomTolerance);
}

TEST(ShapeCast, RandomBoxCastsAgreeWithConservativeAdvancement) {
    random_casts(
        "box", 300, 7,
        [](std::mt19937_64& rng) {
            std::uniform_real_distribution<double> size(0.1, 1);
            return make_box(Vec3(size(rng), size(rng), size(rng)));
        },
        kRandomTolerance);
}

}  // namespace
}  // namespace simpulse
