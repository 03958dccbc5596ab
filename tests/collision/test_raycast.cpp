// Ray casts against every shape type, against closed forms: the entry distance, point and normal of a ray on
// a sphere, a turned box, a capsule, a cylinder, a cone and a hull (the box's corners, so both must agree),
// a plane, a two-triangle mesh from both sides, a sloped height field and a compound; rays that start
// inside a solid and rays that miss or stop short; and 10,000 random rays at random solid shapes against a
// brute-force answer from point containment.
#include <simpulse/collision/point_query.h>
#include <simpulse/collision/raycast.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

namespace simpulse {
namespace {

// Round-off of the closed forms and of GJK's ray cast on curved shapes (its tolerance: 1e-10 of the size).
constexpr double kTolerance = 1e-9;
// The normal of GJK's ray cast is its last search direction, which on a curved surface converges like the
// square root of the distance tolerance (the simplex's points close in on the hit from both sides): 1e-10 of
// the size gives normals to about 1e-5 (measured 3.4e-6 on the cylinder's side).
constexpr double kNormalTolerance = 1e-5;

void expect_hit(const std::optional<RayHit>& hit, double distance, const Vec3& normal, const char* what) {
    ASSERT_TRUE(hit.has_value()) << what << ": missed";
    EXPECT_NEAR(hit->distance, distance, kTolerance) << what;
    EXPECT_LT((hit->normal - normal).norm(), kNormalTolerance)
        << what << ": normal " << hit->normal.transpose();
}

TEST(Raycast, ConvexShapesAgainstClosedForms) {
    const Vec3 x = Vec3::UnitX();
    // Sphere r 1 from (-5, 0.3, 0) along x: enters at x = -sqrt(1 - 0.09).
    const double sx = std::sqrt(0.91);
    expect_hit(raycast(*make_sphere(1), Pose{}, Vec3(-5, 0.3, 0), x, 10), 5 - sx, Vec3(-sx, 0.3, 0),
               "sphere");
    // Box turned 90 degrees about z and moved: its half extent along x is the y one.
    const Pose turned{Vec3(2, 0, 0), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()))};
    expect_hit(raycast(*make_box(Vec3(0.5, 0.25, 1)), turned, Vec3(-5, 0.1, 0.2), x, 10), 7 - 0.25, -x,
               "box");
    // The same box as a hull of its corners.
    std::vector<Vec3> corners;
    for (int i = 0; i < 8; ++i)
        corners.emplace_back(i & 1 ? 0.5 : -0.5, i & 2 ? 0.25 : -0.25, i & 4 ? 1.0 : -1.0);
    expect_hit(raycast(*make_convex_hull(corners), turned, Vec3(-5, 0.1, 0.2), x, 10), 7 - 0.25, -x, "hull");
    // Capsule (axis z, r 0.5, half length 1): from the side at z = 0.4 on the cylinder part; from above on
    // the cap, entering at z = 1 + 0.5.
    expect_hit(raycast(*make_capsule(0.5, 1), Pose{}, Vec3(-3, 0, 0.4), x, 10), 2.5, -x, "capsule side");
    expect_hit(raycast(*make_capsule(0.5, 1), Pose{}, Vec3(0, 0, 5), -Vec3::UnitZ(), 10), 3.5, Vec3::UnitZ(),
               "capsule cap");
    // Cylinder (r 0.5, half height 1) from the side at y = 0.3: enters at x = -0.4; from below at the base.
    expect_hit(raycast(*make_cylinder(0.5, 1), Pose{}, Vec3(-3, 0.3, 0.2), x, 10), 2.6, Vec3(-0.8, 0.6, 0),
               "cylinder side");
    expect_hit(raycast(*make_cylinder(0.5, 1), Pose{}, Vec3(0.2, 0.1, -4), Vec3::UnitZ(), 10), 3,
               -Vec3::UnitZ(), "cylinder base");
    // Cone (base r 1 at z = -1, apex at z = 1): straight down at radius 0.5 it enters at z = 1 - 2 * 0.5 = 0;
    // the surface normal there is (2, 0, 1) / sqrt(5) (slope r / h = 1 / 2).
    expect_hit(raycast(*make_cone(1, 1), Pose{}, Vec3(0.5, 0, 3), -Vec3::UnitZ(), 10), 3,
               Vec3(2, 0, 1).normalized(), "cone");
}

TEST(Raycast, StartsInsideMissesAndStopsShort) {
    const auto inside = raycast(*make_box(Vec3::Ones()), Pose{}, Vec3(0.2, 0, 0), Vec3::UnitX(), 10);
    ASSERT_TRUE(inside.has_value());
    EXPECT_EQ(inside->distance, 0);
    EXPECT_FALSE(raycast(*make_sphere(1), Pose{}, Vec3(-5, 1.01, 0), Vec3::UnitX(), 10).has_value());
    EXPECT_FALSE(raycast(*make_cylinder(1, 1), Pose{}, Vec3(-5, 0, 0), -Vec3::UnitX(), 100).has_value());
    // The cone's radius at z = 0 is 0.5: the ray from x = -5 reaches it after 4.5.
    EXPECT_FALSE(raycast(*make_cone(1, 1), Pose{}, Vec3(-5, 0, 0), Vec3::UnitX(), 4.4).has_value());
    EXPECT_TRUE(raycast(*make_cone(1, 1), Pose{}, Vec3(-5, 0, 0), Vec3::UnitX(), 4.6).has_value());
}

TEST(Raycast, PlaneMeshHeightFieldAndCompound) {
    // Plane z = 1 (the solid below): a ray down from z = 4 at 45 degrees travels 3 sqrt(2).
    const Vec3 slanted = Vec3(1, 0, -1).normalized();
    expect_hit(raycast(*make_plane(Vec3::UnitZ(), 1), Pose{}, Vec3(0, 0, 4), slanted, 10), 3 * std::sqrt(2.0),
               Vec3::UnitZ(), "plane");
    // A square of two triangles in z = 0, hit from above and from below (the normal faces the ray).
    const ShapePtr square = make_triangle_mesh(
        {Vec3(-1, -1, 0), Vec3(1, -1, 0), Vec3(1, 1, 0), Vec3(-1, 1, 0)}, {{0, 1, 2}, {0, 2, 3}});
    expect_hit(raycast(*square, Pose{}, Vec3(0.3, -0.2, 2), -Vec3::UnitZ(), 10), 2, Vec3::UnitZ(),
               "mesh above");
    expect_hit(raycast(*square, Pose{}, Vec3(0.3, -0.2, -2), Vec3::UnitZ(), 10), 2, -Vec3::UnitZ(),
               "mesh below");
    // Height field of the plane z = 0.1 x + 0.2 y on a 21 x 11 grid of 0.5 m from (-5, -2.5): planar, so its
    // triangles are the plane. A ray from (-4, 1, 5) along (1, 0.2, -1) / |.| crosses many cells before the
    // plane: 0.1 (-4 + s) + 0.2 (1 + 0.2 s) = 5 - s, s = 5.2 / 1.14 in units of the unnormalised direction.
    std::vector<double> heights;
    for (int i = 0; i < 11; ++i)
        for (int j = 0; j < 21; ++j) heights.push_back(0.1 * (-5 + 0.5 * j) + 0.2 * (-2.5 + 0.5 * i));
    const ShapePtr field = make_height_field(Vec2(-5, -2.5), Vec2(0.5, 0.5), 11, 21, heights);
    const Vec3 direction(1, 0.2, -1);
    const double s = 5.2 / 1.14;
    expect_hit(raycast(*field, Pose{}, Vec3(-4, 1, 5), direction.normalized(), 20), s * direction.norm(),
               Vec3(-0.1, -0.2, 1).normalized(), "height field");
    EXPECT_FALSE(raycast(*field, Pose{}, Vec3(-4, 1, 5), Vec3(-1, 0, 0), 20).has_value());
    // Compound of two unit spheres at x = 0 and x = 3: a ray along -x from x = 10 hits the nearer one,
    // child 1.
    std::vector<CompoundChild> children{{make_sphere(1), Pose{}},
                                        {make_sphere(1), Pose{Vec3(3, 0, 0), Quat::Identity()}}};
    const auto hit = raycast(*make_compound(children), Pose{}, Vec3(10, 0, 0), -Vec3::UnitX(), 20);
    expect_hit(hit, 6, Vec3::UnitX(), "compound");
    EXPECT_EQ(hit->sub, 1u);
}

// Rays that run exactly along the height field's grid lines: straight down onto a grid line, onto a grid
// vertex and onto a cell's diagonal, and level rays along a row and a column line through a ridge. Each lies
// on the edge shared by two triangles, so rounding in one triangle's test must not lose the hit: the walk
// also tests the cells on the other side of the line. Expected: the closed-form height of the field.
TEST(Raycast, HeightFieldRaysAlongGridLinesHit) {
    // z = 0.3 sin(x) cos(1.3 y) sampled on a 0.37 x 0.41 grid from (-2.1, -1.7): irregular spacings, so the
    // grid lines are not exact binary fractions.
    const Vec2 origin(-2.1, -1.7), spacing(0.37, 0.41);
    const int rows = 9, columns = 12;
    std::vector<double> heights;
    auto height_at = [](double x, double y) { return 0.3 * std::sin(x) * std::cos(1.3 * y); };
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j)
            heights.push_back(height_at(origin.x() + j * spacing.x(), origin.y() + i * spacing.y()));
    const ShapePtr field = make_height_field(origin, spacing, rows, columns, heights);
    const HeightField& f = std::get<HeightField>(field->geometry);
    int rays = 0;
    for (int i = 1; i + 1 < rows; ++i)
        for (int j = 1; j + 1 < columns; ++j) {
            const double x = origin.x() + j * spacing.x(), y = origin.y() + i * spacing.y();
            // Down onto the vertex (i, j): the height there.
            const auto vertex = raycast(*field, Pose{}, Vec3(x, y, 5), -Vec3::UnitZ(), 10);
            ASSERT_TRUE(vertex.has_value()) << "vertex " << i << " " << j;
            EXPECT_NEAR(vertex->point.z(), f.height(i, j), 1e-12) << "vertex " << i << " " << j;
            // Down onto the row line y_i between x_j and x_j+1, onto the column line x_j between y_i and
            // y_i+1, and onto the cell's diagonal (v0 to v3): linear along each edge.
            for (int k = 1; k < 10; ++k) {
                const double along = 0.1 * k;
                const Vec3 on_row(x + along * spacing.x(), y, 5), on_column(x, y + along * spacing.y(), 5);
                const Vec3 on_diagonal(x + along * spacing.x(), y + along * spacing.y(), 5);
                const double row_height = (1 - along) * f.height(i, j) + along * f.height(i, j + 1);
                const double column_height = (1 - along) * f.height(i, j) + along * f.height(i + 1, j);
                const double diagonal_height = (1 - along) * f.height(i, j) + along * f.height(i + 1, j + 1);
                for (const auto& [start, expected, what] :
                     {std::tuple{on_row, row_height, "row line"},
                      std::tuple{on_column, column_height, "column line"},
                      std::tuple{on_diagonal, diagonal_height, "diagonal"}}) {
                    const auto hit = raycast(*field, Pose{}, start, -Vec3::UnitZ(), 10);
                    ASSERT_TRUE(hit.has_value()) << what << " " << i << " " << j << " at " << along;
                    EXPECT_NEAR(hit->point.z(), expected, 1e-12) << what << " " << i << " " << j;
                    ++rays;
                }
            }
            ++rays;
        }
    // Level rays along row and column lines, from outside the field, at the height of the line's highest
    // vertex less 1 mm: they hit the first edge of the line that rises above them.
    for (int i = 1; i + 1 < rows; ++i) {
        const double y = origin.y() + i * spacing.y();
        double top = -1e300;
        for (int j = 0; j < columns; ++j) top = std::max(top, f.height(i, j));
        const auto hit = raycast(*field, Pose{}, Vec3(origin.x() - 1, y, top - 1e-3), Vec3::UnitX(), 20);
        ASSERT_TRUE(hit.has_value()) << "level ray along row " << i;
        EXPECT_NEAR(hit->point.z(), top - 1e-3, 1e-12);
        ++rays;
    }
    for (int j = 1; j + 1 < columns; ++j) {
        const double x = origin.x() + j * spacing.x();
        double top = -1e300;
        for (int i = 0; i < rows; ++i) top = std::max(top, f.height(i, j));
        const auto hit = raycast(*field, Pose{}, Vec3(x, origin.y() - 1, top - 1e-3), Vec3::UnitY(), 20);
        ASSERT_TRUE(hit.has_value()) << "level ray along column " << j;
        EXPECT_NEAR(hit->point.z(), top - 1e-3, 1e-12);
        ++rays;
    }
    EXPECT_EQ(rays, 28 * (rows - 2) * (columns - 2) + (rows - 2) + (columns - 2));
}

// Straight down within rounding of a grid line: on a grid of 0.1 m from y = -1, y = -1e-17 falls in the row
// above the line y = 0 by the cell index ((y + 1) / 0.1 rounds to 10) but below it by the triangle test. The
// ray must still hit, at the height of the line's edge.
TEST(Raycast, HeightFieldRayJustBesideAGridLineHits) {
    const Vec2 origin(-0.5, -1), spacing(0.1, 0.1);
    const int rows = 21, columns = 31;
    std::vector<double> heights;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j) heights.push_back(0.2 * std::sin(3.0 * j * 0.1) + 0.05 * i * 0.1);
    const ShapePtr field = make_height_field(origin, spacing, rows, columns, heights);
    const HeightField& f = std::get<HeightField>(field->geometry);
    int misses = 0, rays = 0;
    for (const double y : {-1e-17, -1e-18, -1e-30, 0.0, 1e-30, 1e-17})
        for (int k = 0; k < 240; ++k) {
            const double x = origin.x() + 0.0123 * k;  // across the field (3 m), off the vertices
            const int column = static_cast<int>(std::floor((x - origin.x()) / spacing.x()));
            const double along = (x - origin.x()) / spacing.x() - column;
            const double expected = (1 - along) * f.height(10, column) + along * f.height(10, column + 1);
            const auto hit = raycast(*field, Pose{}, Vec3(x, y, 2), -Vec3::UnitZ(), 5);
            ++rays;
            if (!hit) {
                ++misses;
                continue;
            }
            EXPECT_NEAR(hit->point.z(), expected, 1e-12) << "x " << x << " y " << y;
        }
    EXPECT_EQ(misses, 0) << "of " << rays << " rays";
}

// A random solid shape of sizes in [0.1, 1] m: sphere, box, capsule, cylinder, cone, a hull of 12 random
// points, or a compound of a box and a turned capsule.
ShapePtr random_solid(std::mt19937& random) {
    std::uniform_real_distribution<double> size(0.1, 1), unit(-1, 1);
    const double a = size(random), b = size(random), c = size(random);
    switch (random() % 7) {
        case 0:
            return make_sphere(a);
        case 1:
            return make_box(Vec3(a, b, c));
        case 2:
            return make_capsule(a, b);
        case 3:
            return make_cylinder(a, b);
        case 4:
            return make_cone(a, b);
        case 5: {
            std::vector<Vec3> points;
            for (int k = 0; k < 12; ++k)
                points.emplace_back(a * unit(random), b * unit(random), c * unit(random));
            return make_convex_hull(points);
        }
        default:
            return make_compound({{make_box(Vec3(a, b, c)), Pose{}},
                                  {make_capsule(0.5 * a, b),
                                   Pose{Vec3(a, 0, 0), Quat(Eigen::AngleAxisd(1.0, Vec3::UnitY()))}}});
    }
}

// Brute force: the first point of the ray inside the shape, by containment (contains_point: closed forms,
// or GJK's point distance for hulls, not the ray cast's code) sampled every `step` over the part of
// the ray inside the shape's bounding box, then bisection between the last sample outside and the first
// inside to 1e-13 m. Negative when no sample is inside.
double brute_force_entry(const Shape& shape, const Pose& pose, const Vec3& origin, const Vec3& unit,
                         double max_distance, double step) {
    const Aabb box = compute_aabb(shape, pose);
    double t0 = 0, t1 = max_distance;  // the ray's interval in the box (slabs)
    for (int k = 0; k < 3; ++k) {
        if (unit[k] == 0) {
            if (origin[k] < box.min[k] || origin[k] > box.max[k]) return -1;
            continue;
        }
        const double near = (box.min[k] - origin[k]) / unit[k], far = (box.max[k] - origin[k]) / unit[k];
        t0 = std::max(t0, std::min(near, far));
        t1 = std::min(t1, std::max(near, far));
    }
    if (t0 > t1) return -1;
    const auto inside = [&](double t) { return contains_point(shape, pose, origin + t * unit, 0.0); };
    if (inside(t0)) return t0;
    for (double outside = t0, t = t0 + step;; t += step) {
        t = std::min(t, t1);
        if (inside(t)) {
            double in = t;
            while (in - outside > 1e-13) {
                const double mid = 0.5 * (outside + in);
                (inside(mid) ? in : outside) = mid;
            }
            return in;
        }
        if (t >= t1) return -1;
        outside = t;
    }
}

// 10,000 rays from a sphere of radius 4 towards random points within 0.4 m (per axis) of a random solid
// shape's origin, at random poses near the world's origin. Where the brute force finds the ray inside, the
// ray cast hits at the same entry: to 1e-9 m across the surface (the distance error times |n . d|: along a
// grazing ray the entry is ill-conditioned, an error e across the surface moving it by e / |n . d|), and
// within the 1 mm sampling step along the ray. Where the ray cast hits and the brute force saw no sample
// inside, the ray only grazed the shape: it must leave it within one sampling step.
TEST(Raycast, RandomRaysAgreeWithBruteForceContainment) {
    std::mt19937 random(2026);
    std::uniform_real_distribution<double> unit(-1, 1);
    const double step = 1e-3, max_distance = 10;
    int hits = 0, grazes = 0;
    double worst_across = 0, worst_along = 0;
    for (int n = 0; n < 10000; ++n) {
        const ShapePtr shape = random_solid(random);
        const Vec3 axis = Vec3(unit(random), unit(random), unit(random)).normalized();
        const Pose pose{0.5 * Vec3(unit(random), unit(random), unit(random)),
                        Quat(Eigen::AngleAxisd(3 * unit(random), axis))};
        const Vec3 origin = 4 * Vec3(unit(random), unit(random), unit(random)).normalized();
        const Vec3 target = pose.position + 0.4 * Vec3(unit(random), unit(random), unit(random));
        const Vec3 direction = (target - origin).normalized();
        const std::optional<RayHit> hit = raycast(*shape, pose, origin, direction, max_distance);
        const double entry = brute_force_entry(*shape, pose, origin, direction, max_distance, step);
        if (entry >= 0) {
            ASSERT_TRUE(hit.has_value()) << "ray " << n << " enters at " << entry << " m but the cast missed";
            ++hits;
            const double error = std::abs(hit->distance - entry);
            const double across = error * std::abs(hit->normal.dot(direction));
            worst_across = std::max(worst_across, across);
            worst_along = std::max(worst_along, error);
            ASSERT_LT(across, 1e-9) << "ray " << n << " (shape type " << static_cast<int>(shape->type())
                                    << ", n.d " << hit->normal.dot(direction) << "): cast " << hit->distance
                                    << " m, brute force " << entry;
            ASSERT_LT(error, step) << "ray " << n << ": cast " << hit->distance << " m, brute force "
                                   << entry;
        } else if (hit) {
            ++grazes;
            const Vec3 beyond = origin + (hit->distance + step) * direction;
            ASSERT_FALSE(contains_point(*shape, pose, beyond, 0.0))
                << "ray " << n << ": hit at " << hit->distance << " m and still inside a step later";
        }
    }
    std::printf(
        "10,000 random rays: %d hits, %d grazing hits between samples; largest entry error %.3g m "
        "across the surface, %.3g m along the ray\n",
        hits, grazes, worst_across, worst_along);
    EXPECT_GT(hits, 5000);  // the rays aim at the shapes' neighbourhood: most of them hit
}

}  // namespace
}  // namespace simpulse
