// Mass properties against closed forms: primitives (textbook formulas written independently of the
// library's), meshes by signed tetrahedra (a box, a corner tetrahedron, an offset mesh) and convergence of
// tessellated hulls to the analytic cylinder and cone.
#include <simpulse/dynamics/mass_properties.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace simpulse {
namespace {

constexpr double kPi = std::numbers::pi;

void expect_matrix_near(const Mat3& got, const Mat3& want, double relative, const char* what) {
    const double err = (got - want).norm() / want.norm();
    EXPECT_LT(err, relative) << what << ": relative error " << err << "\ngot\n" << got << "\nwant\n" << want;
}

TEST(MassProperties, Sphere) {
    const double r = 0.37, rho = 780;
    const MassProperties p = compute_mass_properties(*make_sphere(r), rho);
    const double m = rho * 4.0 / 3.0 * kPi * r * r * r;
    EXPECT_NEAR(p.mass, m, 1e-12 * m);
    expect_matrix_near(p.inertia, Mat3::Identity() * (2.0 / 5.0 * m * r * r), 1e-12, "sphere inertia");
    EXPECT_EQ(p.center_of_mass, Vec3::Zero());
}

TEST(MassProperties, Box) {
    const Vec3 size(0.3, 1.2, 0.05);  // full edge lengths
    const double rho = 2700;
    const MassProperties p = compute_mass_properties(*make_box(size / 2), rho);
    const double m = rho * size.prod();
    EXPECT_NEAR(p.mass, m, 1e-12 * m);
    const Vec3 i = m / 12.0 *
                   Vec3(size.y() * size.y() + size.z() * size.z(), size.x() * size.x() + size.z() * size.z(),
                        size.x() * size.x() + size.y() * size.y());
    expect_matrix_near(p.inertia, i.asDiagonal(), 1e-12, "box inertia");
}

TEST(MassProperties, Cylinder) {
    const double r = 0.3, h = 0.2, rho = 1000;
    const MassProperties p = compute_mass_properties(*make_cylinder(r, h / 2), rho);
    const double m = rho * kPi * r * r * h;
    EXPECT_NEAR(p.mass, m, 1e-12 * m);
    expect_matrix_near(
        p.inertia,
        Vec3(m * (3 * r * r + h * h) / 12, m * (3 * r * r + h * h) / 12, m * r * r / 2).asDiagonal(), 1e-12,
        "cylinder inertia");
}

TEST(MassProperties, ConeHasItsCentreOfMassAQuarterUpFromTheBase) {
    const double r = 0.4, h = 1.1, rho = 500;
    const MassProperties p = compute_mass_properties(*make_cone(r, h / 2), rho);
    const double m = rho * kPi * r * r * h / 3;
    EXPECT_NEAR(p.mass, m, 1e-12 * m);
    // Base at z = -h/2, apex at +h/2: the centre of mass is h/4 above the base.
    EXPECT_NEAR(p.center_of_mass.z(), -h / 2 + h / 4, 1e-15);
    const double ixx =
        3.0 / 5.0 * m * (r * r / 4 + h * h) - m * (3 * h / 4) * (3 * h / 4);  // about apex, moved
    expect_matrix_near(p.inertia, Vec3(ixx, ixx, 3.0 / 10.0 * m * r * r).asDiagonal(), 1e-12, "cone inertia");
}

TEST(MassProperties, Capsule) {
    const double r = 0.1, length = 0.5, rho = 1200;  // length between the sphere centres
    const MassProperties p = compute_mass_properties(*make_capsule(r, length / 2), rho);
    // Independent composition: cylinder + full sphere split in two hemispheres at +-L/2.
    const double mc = rho * kPi * r * r * length, ms = rho * 4.0 / 3.0 * kPi * r * r * r;
    const double izz = mc * r * r / 2 + 2.0 / 5.0 * ms * r * r;
    // Hemisphere (mass ms/2) about its own centroid 3r/8 from the flat face: 83/320 m r^2 (transverse).
    const double d = length / 2 + 3 * r / 8;
    const double ixx =
        mc * (3 * r * r + length * length) / 12 + 2 * (83.0 / 320.0 * (ms / 2) * r * r + (ms / 2) * d * d);
    EXPECT_NEAR(p.mass, mc + ms, 1e-12 * (mc + ms));
    expect_matrix_near(p.inertia, Vec3(ixx, ixx, izz).asDiagonal(), 1e-12, "capsule inertia");
}

std::vector<Vec3> box_vertices(const Vec3& h, const Vec3& offset) {
    std::vector<Vec3> v;
    for (int i = 0; i < 8; ++i)
        v.push_back(offset +
                    Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z()));
    return v;
}

// Outward counter-clockwise triangles of the box of box_vertices().
std::vector<std::array<std::uint32_t, 3>> box_triangles() {
    return {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
            {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
}

TEST(MassProperties, TriangleMeshBoxMatchesTheBoxClosedFormAlsoFarFromTheOrigin) {
    const Vec3 h(0.5, 0.25, 1.5);
    for (const Vec3& offset : {Vec3(0, 0, 0), Vec3(100, -250, 37)}) {
        const MassProperties mesh = mesh_mass_properties(box_vertices(h, offset), box_triangles(), 3.0);
        const MassProperties box = compute_mass_properties(*make_box(h), 3.0);
        EXPECT_NEAR(mesh.mass, box.mass, 1e-12 * box.mass);
        EXPECT_LT((mesh.center_of_mass - offset).norm(), 1e-12 * (1 + offset.norm()))
            << "centre of mass " << mesh.center_of_mass.transpose();
        expect_matrix_near(mesh.inertia, box.inertia, 1e-11, "mesh box inertia about its centre of mass");
    }
}

TEST(MassProperties, CornerTetrahedron) {
    // (0,0,0), (a,0,0), (0,b,0), (0,0,c): V = abc/6, centroid (a,b,c)/4, and about the origin
    // int (y^2 + z^2) dm = m (b^2 + c^2) / 10, int x y dm = m a b / 20.
    const double a = 1.0, b = 2.0, c = 3.0, rho = 7.0;
    const std::vector<Vec3> v = {Vec3(0, 0, 0), Vec3(a, 0, 0), Vec3(0, b, 0), Vec3(0, 0, c)};
    const std::vector<std::array<std::uint32_t, 3>> t = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    const MassProperties p = mesh_mass_properties(v, t, rho);
    const double m = rho * a * b * c / 6;
    EXPECT_NEAR(p.mass, m, 1e-12 * m);
    EXPECT_LT((p.center_of_mass - Vec3(a, b, c) / 4).norm(), 1e-14);
    Mat3 about_origin;
    about_origin << m * (b * b + c * c) / 10, -m * a * b / 20, -m * a * c / 20, -m * a * b / 20,
        m * (a * a + c * c) / 10, -m * b * c / 20, -m * a * c / 20, -m * b * c / 20, m * (a * a + b * b) / 10;
    expect_matrix_near(inertia_about(p, Vec3::Zero()), about_origin, 1e-12,
                       "tetrahedron inertia about the origin");
}

TEST(MassProperties, InvertedMeshIsRejected) {
    auto t = box_triangles();
    for (auto& tri : t) std::swap(tri[1], tri[2]);
    EXPECT_THROW(mesh_mass_properties(box_vertices(Vec3::Ones(), Vec3::Zero()), t, 1.0), ShapeError);
}

TEST(MassProperties, CompoundOfTwoBoxesUsesTheParallelAxisTheorem) {
    const Vec3 h(0.5, 0.5, 0.5);
    Pose left, right;
    left.position = Vec3(-1, 0, 0);
    right.position = Vec3(2, 0, 0);
    right.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));  // a cube is isotropic
    const MassProperties p =
        compute_mass_properties(*make_compound({{make_box(h), left}, {make_box(h), right}}), 1.0);
    EXPECT_NEAR(p.mass, 2.0, 1e-14);
    EXPECT_LT((p.center_of_mass - Vec3(0.5, 0, 0)).norm(), 1e-14);
    const double cube = 1.0 / 6.0;  // m a^2 / 6 for a unit cube
    const Mat3 want = Vec3(2 * cube, 2 * cube + 2 * 1.5 * 1.5, 2 * cube + 2 * 1.5 * 1.5).asDiagonal();
    expect_matrix_near(p.inertia, want, 1e-13, "compound inertia");
}

// Hulls of tessellated solids (a prism and a pyramid over the inscribed regular n-gon) against their own
// closed forms: a regular n-gon of circumradius R has area (n/2) R^2 sin(2 pi / n) and the isotropic second
// moment int y^2 dA / A = R^2 (1 + 2 cos^2(pi / n)) / 12. This checks the signed-tetrahedra path through
// make_convex_hull, and the values converge to the analytic cylinder and cone as n grows.
TEST(MassProperties, TessellatedHullsMatchPrismAndPyramidClosedForms) {
    const double r = 0.5, h = 2.0;
    for (int n : {6, 64, 256}) {
        std::vector<Vec3> cyl, cone;
        for (int k = 0; k < n; ++k) {
            const double phi = 2 * kPi * k / n;
            cyl.push_back(Vec3(r * std::cos(phi), r * std::sin(phi), -h / 2));
            cyl.push_back(Vec3(r * std::cos(phi), r * std::sin(phi), h / 2));
            cone.push_back(Vec3(r * std::cos(phi), r * std::sin(phi), -h / 2));
        }
        cone.push_back(Vec3(0, 0, h / 2));
        const double area = 0.5 * n * r * r * std::sin(2 * kPi / n);
        const double c = std::cos(kPi / n);
        const double k2 = r * r * (1 + 2 * c * c) / 12;  // int y^2 dA / A of the polygon
        const MassProperties prism = compute_mass_properties(*make_convex_hull(cyl), 1.0);
        const double mp = area * h;
        EXPECT_NEAR(prism.mass, mp, 1e-12 * mp) << "n = " << n;
        expect_matrix_near(prism.inertia,
                           Vec3(mp * (k2 + h * h / 12), mp * (k2 + h * h / 12), mp * 2 * k2).asDiagonal(),
                           1e-12, "prism inertia");
        const MassProperties pyramid = compute_mass_properties(*make_convex_hull(cone), 1.0);
        const double mc = area * h / 3;
        EXPECT_NEAR(pyramid.mass, mc, 1e-12 * mc) << "n = " << n;
        EXPECT_NEAR(pyramid.center_of_mass.z(), -h / 4, 1e-13) << "n = " << n;
        // Pyramid about its centre of mass: 3/5 of the base moment plus 3/80 h^2 (as for the cone), axial 3/5
        // J/A.
        const double ixx = mc * (0.6 * k2 + 3.0 / 80.0 * h * h);
        expect_matrix_near(pyramid.inertia, Vec3(ixx, ixx, mc * 0.6 * 2 * k2).asDiagonal(), 1e-12,
                           "pyramid inertia");
        if (n == 256) {  // and they approach the analytic solids: relative differences O(1/n^2)
            const MassProperties cylinder = compute_mass_properties(*make_cylinder(r, h / 2), 1.0);
            EXPECT_NEAR(prism.inertia(2, 2) / cylinder.inertia(2, 2), 1.0, 1e-3);
        }
    }
}

TEST(MassProperties, WithMassScalesInertia) {
    const MassProperties p = with_mass(compute_mass_properties(*make_box(Vec3(1, 2, 3)), 10.0), 6.0);
    EXPECT_NEAR(p.mass, 6.0, 1e-15);
    EXPECT_NEAR(p.inertia(0, 0), 6.0 * (4 + 9) / 3.0, 1e-13);
}

}  // namespace
}  // namespace simpulse
