// Tests of compute_aabb for every shape type against brute force (corners, dense rim samples with a derived
// sampling error, vertices), plus the validation and bounds of compounds and the height-field pyramid (range
// queries against brute force over the cells).
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/shape.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>

namespace simpulse {
namespace {

Pose random_pose(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    std::uniform_real_distribution<double> u(-5, 5);
    return {Vec3(u(rng), u(rng), u(rng)), Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
}

// Samples of the shape's surface in its local frame that include its extreme points along any direction up to
// a known error: rims of discs sampled at n angles miss the true extreme by at most r (1 - cos(pi / n)).
std::vector<Vec3> surface_samples(const Shape& s, int n) {
    std::vector<Vec3> pts;
    auto rim = [&](double z, double r) {
        for (int k = 0; k < n; ++k) {
            const double a = 2 * std::numbers::pi * k / n;
            pts.emplace_back(r * std::cos(a), r * std::sin(a), z);
        }
    };
    switch (s.type()) {
        case ShapeType::box: {
            const Vec3 h = std::get<Box>(s.geometry).half_extents;
            for (int k = 0; k < 8; ++k)
                pts.emplace_back(k & 1 ? h.x() : -h.x(), k & 2 ? h.y() : -h.y(), k & 4 ? h.z() : -h.z());
            break;
        }
        case ShapeType::cylinder: {
            const auto& c = std::get<Cylinder>(s.geometry);
            rim(c.half_height, c.radius);
            rim(-c.half_height, c.radius);
            break;
        }
        case ShapeType::cone: {
            const auto& c = std::get<Cone>(s.geometry);
            rim(-c.half_height, c.radius);
            pts.emplace_back(0, 0, c.half_height);
            break;
        }
        default:
            break;
    }
    return pts;
}

// Box of the samples at the pose.
Aabb sample_box(const std::vector<Vec3>& pts, const Pose& pose) {
    Aabb b;
    for (const Vec3& p : pts) b.grow(pose.transform_point(p));
    return b;
}

double box_distance(const Aabb& a, const Aabb& b) {
    return std::max((a.min - b.min).cwiseAbs().maxCoeff(), (a.max - b.max).cwiseAbs().maxCoeff());
}

TEST(Aabb, PrimitivesMatchClosedFormsAndSamples) {
    std::mt19937_64 rng(1);
    const int n = 20000;
    // Rim sampling error r (1 - cos(pi / n)) ~ r * 1.2e-8 for n = 20000 and r <= 1; rounding ~1e-15.
    const double sampling = 1.0 * (1 - std::cos(std::numbers::pi / n)) + 1e-14;
    for (int trial = 0; trial < 50; ++trial) {
        const Pose pose = random_pose(rng);
        // Sphere and capsule: closed forms (centre +- r; segment ends +- r).
        const Aabb sphere = compute_aabb(*make_sphere(0.7), pose);
        EXPECT_LE(box_distance(sphere, Aabb::from_center_half(pose.position, Vec3::Constant(0.7))), 0.0);
        const Aabb capsule = compute_aabb(*make_capsule(0.3, 0.9), pose);
        Aabb ends;
        ends.grow(pose.transform_point(Vec3(0, 0, 0.9)));
        ends.grow(pose.transform_point(Vec3(0, 0, -0.9)));
        EXPECT_LE(box_distance(capsule, ends.inflated(0.3)), 1e-14);

        const Aabb box = compute_aabb(*make_box(Vec3(0.4, 1.0, 0.2)), pose);
        const double box_err =
            box_distance(box, sample_box(surface_samples(*make_box(Vec3(0.4, 1.0, 0.2)), 0), pose));
        EXPECT_LE(box_err, 1e-14) << "box error " << box_err;

        for (const ShapePtr& s : {make_cylinder(1.0, 0.6), make_cone(0.8, 1.1)}) {
            const Aabb exact = compute_aabb(*s, pose);
            const Aabb sampled = sample_box(surface_samples(*s, n), pose);
            // Samples never outside, and the faces no farther out than the sampling error.
            EXPECT_TRUE(exact.inflated(1e-14).contains(sampled)) << shape_type_name(s->type());
            const double err = box_distance(exact, sampled);
            EXPECT_LE(err, sampling) << shape_type_name(s->type()) << " error " << err;
        }
    }
    // Axis-aligned cylinder: the closed form must not produce NaN from sqrt(1 - a^2) with a^2 rounded
    // above 1.
    const Pose upright{Vec3(1, 2, 3), Quat(Eigen::AngleAxisd(1e-9, Vec3::UnitX()))};
    const Aabb c = compute_aabb(*make_cylinder(0.5, 2.0), upright);
    EXPECT_TRUE(c.min.allFinite() && c.max.allFinite());
    EXPECT_NEAR(c.max.z(), 5.0, 1e-9);
}

TEST(Aabb, HullMeshCompoundPlaneAndHeightField) {
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<Vec3> cloud(300);
    for (Vec3& p : cloud) p = Vec3(u(rng), 0.5 * u(rng), 2 * u(rng));
    const ShapePtr hull = make_convex_hull(cloud);
    const std::vector<Vec3> tri_vertices{{0, 0, 0}, {2, 0, 0}, {0, 3, 0}, {0, 0, 1}};
    const ShapePtr mesh = make_triangle_mesh(tri_vertices, {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}});
    for (int trial = 0; trial < 20; ++trial) {
        const Pose pose = random_pose(rng);
        // Hull: the box of all input points (the extremes along an axis are hull vertices; merging may drop
        // points up to the hull tolerance 1e-6 * diagonal inside the faces).
        const double tol = 1e-6 * 2 * Vec3(1, 0.5, 2).norm();
        const double hull_err = box_distance(compute_aabb(*hull, pose), sample_box(cloud, pose));
        EXPECT_LE(hull_err, tol) << "hull error " << hull_err;
        const double mesh_err = box_distance(compute_aabb(*mesh, pose), sample_box(tri_vertices, pose));
        EXPECT_LE(mesh_err, 1e-14) << "mesh error " << mesh_err;

        // Compound: union of its children's boxes at the composed poses.
        const Pose child_pose = random_pose(rng);
        const ShapePtr box = make_box(Vec3(0.3, 0.2, 0.1));
        const ShapePtr compound = make_compound({{box, child_pose}, {make_sphere(0.25), Pose{}}});
        Aabb expected = compute_aabb(*box, pose * child_pose);
        expected.grow(Aabb::from_center_half(pose.position, Vec3::Constant(0.25)));
        EXPECT_LE(box_distance(compute_aabb(*compound, pose), expected), 1e-14);
    }
    const Aabb plane = compute_aabb(*make_plane(Vec3(0, 0, 1), 0), Pose{});
    EXPECT_TRUE(std::isinf(plane.min.x()) && plane.min.x() < 0 && std::isinf(plane.max.z()) &&
                plane.max.z() > 0);
    // Height field: exact without rotation, down to the field's larger horizontal size (2.5) below its lowest
    // point (solid below its surface, so bodies that went through stay paired); with rotation it contains
    // every vertex.
    std::vector<double> h(6 * 4);
    for (std::size_t k = 0; k < h.size(); ++k) h[k] = std::sin(double(k));
    const ShapePtr field = make_height_field(Vec2(-1, 2), Vec2(0.5, 0.25), 4, 6, h);
    const double hmin = *std::min_element(h.begin(), h.end()), hmax = *std::max_element(h.begin(), h.end());
    const Aabb local = compute_aabb(*field, Pose{Vec3(1, 1, 1), Quat::Identity()});
    // Exact up to the rounding of the centre/half-extent form (one ulp of the coordinates).
    const Aabb expected_local{Vec3(0, 3, 1 + hmin - 5 * 0.5),
                              Vec3(-1 + 1 + 5 * 0.5, 2 + 1 + 3 * 0.25, 1 + hmax)};
    EXPECT_LE(box_distance(local, expected_local), 1e-15);
    const Pose tilted = random_pose(rng);
    const Aabb rotated = compute_aabb(*field, tilted);
    const auto& f = std::get<HeightField>(field->geometry);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 6; ++j) {
            const Vec3 p = tilted.transform_point(Vec3(-1 + j * 0.5, 2 + i * 0.25, f.height(i, j)));
            EXPECT_TRUE(rotated.inflated(1e-14).contains(Aabb{p, p}));
        }
}

void expect_compound_rejected(std::vector<CompoundChild> children, const std::string& reason) {
    try {
        make_compound(std::move(children));
        ADD_FAILURE() << "accepted: " << reason;
    } catch (const ShapeError& e) {
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
}

TEST(Compound, ValidatesChildrenAndBuildsBounds) {
    const ShapePtr sphere = make_sphere(0.5);
    expect_compound_rejected({}, "at least one child");
    expect_compound_rejected({{sphere, Pose{}}, {nullptr, Pose{}}}, "child 1 has no shape");
    expect_compound_rejected({{make_plane(Vec3::UnitZ(), 0), Pose{}}}, "child 0 is a plane");
    const ShapePtr inner = make_compound({{sphere, Pose{}}});
    expect_compound_rejected({{sphere, Pose{}}, {inner, Pose{}}}, "child 1 is a compound");
    expect_compound_rejected({{sphere, Pose{Vec3(0, std::nan(""), 0), Quat::Identity()}}}, "non-finite pose");
    expect_compound_rejected({{sphere, Pose{Vec3::Zero(), Quat(1.01, 0, 0, 0)}}}, "not a unit quaternion");

    // A float-precision quaternion (norm off by 6e-8) is accepted and normalised.
    const Quat q = Quat(0.5f, 0.5f, 0.5f, 0.5000001f);
    std::vector<CompoundChild> children;
    for (int k = 0; k < 40; ++k)
        children.push_back({make_box(Vec3(0.1, 0.2, 0.3)), Pose{Vec3(k, 0.5 * k, 0), q}});
    const ShapePtr shape = make_compound(children);
    const auto& c = std::get<Compound>(shape->geometry);
    ASSERT_EQ(c.child_bounds.size(), 40u);
    for (std::size_t k = 0; k < 40; ++k) {
        EXPECT_NEAR(c.children[k].pose.orientation.norm(), 1.0, 1e-15);
        const Aabb expected = compute_aabb(*children[k].shape, c.children[k].pose);
        EXPECT_LE(box_distance(c.child_bounds[k], expected), 0.0);
    }
    std::vector<std::uint32_t> hits;
    bvh_query(c.bvh, Aabb{Vec3(9.5, 4.5, -1), Vec3(10.5, 5.5, 1)}, hits);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0], 10u);
}

void expect_field_rejected(int rows, int cols, std::vector<double> h, const std::string& reason,
                           Vec2 spacing = Vec2::Ones()) {
    try {
        make_height_field(Vec2::Zero(), spacing, rows, cols, std::move(h));
        ADD_FAILURE() << "accepted: " << reason;
    } catch (const ShapeError& e) {
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
}

TEST(HeightField, ValidatesItsInput) {
    expect_field_rejected(1, 5, std::vector<double>(5), "at least 2 rows and 2 columns");
    expect_field_rejected(3, 3, std::vector<double>(8), "has 8 heights, expected rows * columns = 9");
    expect_field_rejected(2, 2, {0, 0, std::nan(""), 0}, "height 2 (row 1, column 0) is not finite");
    expect_field_rejected(2, 2, {0, 0, 0, 0}, "spacing must be positive", Vec2(1, 0));
}

TEST(HeightField, PyramidRangesMatchBruteForce) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-10, 10);
    for (const auto& [rows, cols] : {std::pair{2, 2}, {3, 9}, {100, 77}, {513, 1025}}) {
        std::vector<double> h(static_cast<std::size_t>(rows) * cols);
        for (double& x : h) x = u(rng);
        const ShapePtr shape = make_height_field(Vec2::Zero(), Vec2::Ones(), rows, cols, h);
        const auto& f = std::get<HeightField>(shape->geometry);
        // Levels halve (rounding up) down to a single node holding the global range.
        const int expected_levels = 1 + static_cast<int>(std::ceil(std::log2(std::max(rows - 1, cols - 1))));
        EXPECT_EQ(static_cast<int>(f.levels.size()), expected_levels);
        EXPECT_EQ(f.levels.back().min_height[0], *std::min_element(h.begin(), h.end()));
        EXPECT_EQ(f.levels.back().max_height[0], *std::max_element(h.begin(), h.end()));
        std::uniform_int_distribution<int> ri(-3, rows + 2), ci(-3, cols + 2);
        int mismatches = 0;
        for (int k = 0; k < 300; ++k) {
            int r0 = ri(rng), r1 = ri(rng), c0 = ci(rng), c1 = ci(rng);
            if (k % 3 == 0) r1 = r0 + 1 + k % 5, c1 = c0 + 1 + k % 7;  // small footprints, the common case
            std::pair<double, double> expected{std::numeric_limits<double>::infinity(),
                                               -std::numeric_limits<double>::infinity()};
            for (int i = std::max(r0, 0); i < std::min(r1, rows - 1); ++i)
                for (int j = std::max(c0, 0); j < std::min(c1, cols - 1); ++j)
                    for (int di = 0; di < 2; ++di)
                        for (int dj = 0; dj < 2; ++dj) {
                            expected.first = std::min(expected.first, f.height(i + di, j + dj));
                            expected.second = std::max(expected.second, f.height(i + di, j + dj));
                        }
            mismatches += height_field_range(f, r0, c0, r1, c1) != expected;
        }
        EXPECT_EQ(mismatches, 0) << rows << " x " << cols;
    }
}

}  // namespace
}  // namespace simpulse
