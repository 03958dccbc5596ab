// Point containment of every shape type at a turned, moved pose: points 1e-6 m inside and outside the surface
// along its normal (faces, edges, caps, rims, a cone's side, a hull's face), closed-form expectations; a
// plane's and a height field's solid below the surface; a mesh contains only the points on its surface; a
// compound through its children.
#include <simpulse/collision/point_query.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace simpulse {
namespace {

// The queries' tolerance (kPointQueryTolerance of the world): far below the 1e-6 offsets, so the inside and
// outside points are decided by the geometry and not by the tolerance.
constexpr double kTolerance = 1e-9;
constexpr double kOffset = 1e-6;

// A turned and moved pose, so that every test goes through the frame change.
const Pose kPose{Vec3(1, -2, 0.5), Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()))};

// `surface` (local) and its outward unit normal there: the point kOffset inside is contained, kOffset
// outside is not.
void expect_surface(const Shape& shape, const Vec3& surface, const Vec3& normal, const char* what) {
    const Vec3 n = normal.normalized();
    EXPECT_TRUE(contains_point(shape, kPose, kPose.transform_point(surface - kOffset * n), kTolerance))
        << what << ": inside point at " << surface.transpose();
    EXPECT_FALSE(contains_point(shape, kPose, kPose.transform_point(surface + kOffset * n), kTolerance))
        << what << ": outside point at " << surface.transpose();
    EXPECT_TRUE(contains_point(shape, kPose, kPose.transform_point(surface), kTolerance))
        << what << ": surface point at " << surface.transpose();
}

TEST(PointQuery, ConvexShapesInsideAndOutsideTheirSurface) {
    const ShapePtr sphere = make_sphere(0.5);
    const Vec3 u = Vec3(1, -2, 2).normalized();
    expect_surface(*sphere, 0.5 * u, u, "sphere");

    const ShapePtr box = make_box(Vec3(0.5, 0.25, 1));
    expect_surface(*box, Vec3(0.5, 0.1, -0.3), Vec3::UnitX(), "box face");
    expect_surface(*box, Vec3(0.5, 0.25, 0.2), Vec3(1, 1, 0), "box edge");
    expect_surface(*box, Vec3(-0.5, 0.25, -1), Vec3(-1, 1, -1), "box corner");

    const ShapePtr capsule = make_capsule(0.3, 0.5);
    expect_surface(*capsule, Vec3(0, 0.3, 0.4), Vec3::UnitY(), "capsule side");
    expect_surface(*capsule, Vec3(0, 0, 0.5) + 0.3 * u, u, "capsule cap");

    const ShapePtr cylinder = make_cylinder(0.5, 1);
    expect_surface(*cylinder, Vec3(0.3, 0.4, 0.2), Vec3(0.3, 0.4, 0), "cylinder side");
    expect_surface(*cylinder, Vec3(0.1, -0.2, -1), -Vec3::UnitZ(), "cylinder base");
    expect_surface(*cylinder, Vec3(0.3, 0.4, 1), Vec3(0.6, 0.8, 1), "cylinder rim");

    // Cone (base r 1 at z = -1, apex z = 1): radius 0.5 at z = 0, the side's normal (2, 0, 1) / sqrt 5.
    const ShapePtr cone = make_cone(1, 1);
    expect_surface(*cone, Vec3(0.5, 0, 0), Vec3(2, 0, 1), "cone side");
    expect_surface(*cone, Vec3(0.2, 0.3, -1), -Vec3::UnitZ(), "cone base");
    expect_surface(*cone, Vec3(0, 0, 1), Vec3::UnitZ(), "cone apex");

    // A hull (a tetrahedron): its slanted face x + y + z = 1.
    const std::vector<Vec3> corners{Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
    const ShapePtr hull = make_convex_hull(corners);
    expect_surface(*hull, Vec3(0.2, 0.3, 0.5), Vec3::Ones(), "hull face");
    expect_surface(*hull, Vec3(0.2, 0.3, 0), -Vec3::UnitZ(), "hull base");
}

TEST(PointQuery, PlaneHeightFieldMeshAndCompound) {
    // Plane z = 0.5 in its frame: the solid below, however deep.
    const ShapePtr plane = make_plane(Vec3::UnitZ(), 0.5);
    expect_surface(*plane, Vec3(3, -4, 0.5), Vec3::UnitZ(), "plane");
    EXPECT_TRUE(contains_point(*plane, kPose, kPose.transform_point(Vec3(0, 0, -100)), kTolerance));

    // Height field of the plane z = 0.1 x + 0.2 y on a 21 x 11 grid of 0.5 m from (-5, -2.5): planar, so the
    // surface is that plane everywhere; its solid is below it, within the xy extent.
    std::vector<double> heights;
    for (int i = 0; i < 11; ++i)
        for (int j = 0; j < 21; ++j) heights.push_back(0.1 * (-5 + 0.5 * j) + 0.2 * (-2.5 + 0.5 * i));
    const ShapePtr field = make_height_field(Vec2(-5, -2.5), Vec2(0.5, 0.5), 11, 21, heights);
    for (const Vec2& xy : {Vec2(1.3, 0.4), Vec2(-4.9, 2.45), Vec2(2.2, -1.1)}) {
        const Vec3 surface(xy.x(), xy.y(), 0.1 * xy.x() + 0.2 * xy.y());
        // The tolerance is vertical: offsets along z.
        expect_surface(*field, surface, Vec3::UnitZ(), "height field");
    }
    EXPECT_TRUE(contains_point(*field, kPose, kPose.transform_point(Vec3(0, 0, -50)), kTolerance));
    EXPECT_FALSE(contains_point(*field, kPose, kPose.transform_point(Vec3(5 + kOffset, 0, -50)), kTolerance))
        << "beside the field";
    EXPECT_FALSE(
        contains_point(*field, kPose, kPose.transform_point(Vec3(0, -2.5 - kOffset, -50)), kTolerance))
        << "beside the field";

    // A closed mesh (a tetrahedron) is a surface: its faces' points within the tolerance, not its interior.
    const ShapePtr mesh = make_triangle_mesh({Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()},
                                             {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}});
    const Vec3 on_face(0.2, 0.3, 0.5), n = Vec3::Ones().normalized();
    EXPECT_TRUE(
        contains_point(*mesh, kPose, kPose.transform_point(on_face + 0.5 * kTolerance * n), kTolerance));
    EXPECT_TRUE(
        contains_point(*mesh, kPose, kPose.transform_point(on_face - 0.5 * kTolerance * n), kTolerance));
    EXPECT_FALSE(contains_point(*mesh, kPose, kPose.transform_point(on_face + kOffset * n), kTolerance));
    EXPECT_FALSE(contains_point(*mesh, kPose, kPose.transform_point(on_face - kOffset * n), kTolerance))
        << "inside a closed mesh: meshes have no interior";
    // Beside a face's edge, the nearest point is on the edge: 1e-6 past the edge (x + y + z = 1, z = 0).
    EXPECT_FALSE(contains_point(*mesh, kPose, kPose.transform_point(Vec3(0.5, 0.5, -kOffset)), kTolerance));

    // Compound of a box and a sphere 3 m apart: inside each child, not between them.
    const ShapePtr compound = make_compound(
        {{make_box(Vec3::Constant(0.5)), Pose{}}, {make_sphere(1), Pose{Vec3(3, 0, 0), Quat::Identity()}}});
    expect_surface(*compound, Vec3(0.5, 0.2, 0.1), Vec3::UnitX(), "compound box");
    expect_surface(*compound, Vec3(2, 0, 0), -Vec3::UnitX(), "compound sphere");
    EXPECT_FALSE(contains_point(*compound, kPose, kPose.transform_point(Vec3(1.5, 0, 0)), kTolerance));
}

}  // namespace
}  // namespace simpulse
