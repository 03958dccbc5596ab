// Analytic tests of the cylinder-terrain algorithm (cylinder_terrain.h; Strashnov & Torgashev 2020): the
// broad stage (closed-form AABB against sampled rim points, index rectangle, pyramid rejection on a 2048 x
// 2048 field), the element classification of sect. II, and contact poses whose points, normals and depths
// have closed forms: standing on the base, lying on the side, tilted on the rim, on planar slopes split into
// rectangles or triangles, straddling a ridge, lying in a valley, across element boundaries and vertices (no
// extra normals).
#include <simpulse/collision/cylinder_terrain.h>
#include <simpulse/collision/narrow_phase.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <vector>

namespace simpulse {
namespace {

// Every expected value below is a handful of flops from the inputs (metre-scale, O(1)), and the algorithm's
// closed forms are exact: rounding stays within ~1e-15, so 1e-12 leaves three orders of magnitude.
constexpr double kRound = 1e-12;

const HeightField& field_of(const ShapePtr& s) {
    return std::get<HeightField>(s->geometry);
}

ShapePtr make_field(const std::function<double(double, double)>& h, const Vec2& origin, const Vec2& spacing,
                    int rows, int columns) {
    std::vector<double> heights(static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j)
            heights[static_cast<std::size_t>(i) * static_cast<std::size_t>(columns) +
                    static_cast<std::size_t>(j)] =
                h(origin.x() + j * spacing.x(), origin.y() + i * spacing.y());
    return make_height_field(origin, spacing, rows, columns, std::move(heights));
}

std::vector<Manifold> collide_terrain(const Cylinder& c, const Pose& pose, const HeightField& f,
                                      double margin = 0, CylinderTerrainStats* stats = nullptr,
                                      const Pose& field_pose = {}) {
    std::vector<Manifold> out;
    collide_cylinder_terrain(c, pose, f, field_pose, CollideSettings{margin}, out, stats);
    return out;
}

// The point of `m` closest to x, and its distance.
double closest(const Manifold& m, const Vec3& x, int* index = nullptr) {
    double best = 1e300;
    for (int i = 0; i < m.count; ++i) {
        const double d = (m.points[static_cast<std::size_t>(i)].position - x).norm();
        if (d < best) {
            best = d;
            if (index != nullptr) *index = i;
        }
    }
    return best;
}

Quat axis_angle(const Vec3& axis, double angle) {
    return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

constexpr double kH0 = 0.2;  // height of the flat fields

ShapePtr flat_field() {
    return make_field([](double, double) { return kH0; }, Vec2(-2, -2), Vec2(0.1, 0.1), 41, 41);
}

// The flat field with one vertex 1 mm higher: the corner of the index rectangle under the cylinder farthest
// from its axis, so that the flat fast path is off (every element goes through the per-element stage) while
// the elements around the bump stay out of reach (asserted: more than r + one cell diagonal from the axis).
ShapePtr bumped_flat_field(const Cylinder& c, const Pose& pose) {
    const ShapePtr flat = flat_field();
    const HeightField& f = field_of(flat);
    const Vec3 axis = pose.rotate(Vec3::UnitZ());
    const CellRange r = height_field_cells(f, cylinder_aabb(c, pose.position, axis));
    double best = -1;
    int bi = 0, bj = 0;
    for (int i : {r.row_begin, r.row_end})
        for (int j : {r.column_begin, r.column_end}) {
            const Vec3 p(f.origin.x() + j * f.spacing.x(), f.origin.y() + i * f.spacing.y(), kH0);
            const Vec3 d = p - pose.position;
            const double t = std::clamp(d.dot(axis), -c.half_height, c.half_height);
            const double dist = (d - t * axis).norm();
            if (dist > best) best = dist, bi = i, bj = j;
        }
    EXPECT_GT(best, c.radius + 0.15);
    std::vector<double> heights = f.heights;
    heights[static_cast<std::size_t>(bi * f.columns + bj)] += 1e-3;
    return make_height_field(f.origin, f.spacing, f.rows, f.columns, std::move(heights));
}

TEST(CylinderTerrainBroad, AabbMatchesSampledRim) {
    // The extreme points of a cylinder along any direction are on the rims; 20000 rim samples per pose bound
    // each coordinate from inside within r (1 - cos(pi / 20000)) < 1.3e-8 r, so the closed form must contain
    // them and exceed them by less than 5e-8.
#ifdef NDEBUG
    const int trials = 200;
#else
    const int trials = 30;  // unoptimised (sanitizer) builds
#endif
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    double worst = 0;
    for (int trial = 0; trial < trials; ++trial) {
        const Cylinder c{0.1 + 0.5 * (u(rng) + 1), 0.05 + 0.5 * (u(rng) + 1)};
        Vec3 axis(u(rng), u(rng), u(rng));
        if (trial < 6) axis = Vec3::Unit(trial % 3) * (trial < 3 ? 1 : -1);  // the guarded cases v_k^2 = 1
        axis.normalize();
        const Vec3 center(u(rng), u(rng), u(rng));
        const Aabb box = cylinder_aabb(c, center, axis);
        const Vec3 e1 = axis.unitOrthogonal(), e2 = axis.cross(e1);
        std::array<double, 3> lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
        for (int k = 0; k < 20000; ++k) {
            const double phi = 2 * std::numbers::pi * k / 20000, cs = std::cos(phi), sn = std::sin(phi);
            for (double side : {-1.0, 1.0})
                for (int d = 0; d < 3; ++d) {
                    const double x =
                        center[d] + side * c.half_height * axis[d] + c.radius * (cs * e1[d] + sn * e2[d]);
                    lo[static_cast<std::size_t>(d)] = std::min(lo[static_cast<std::size_t>(d)], x);
                    hi[static_cast<std::size_t>(d)] = std::max(hi[static_cast<std::size_t>(d)], x);
                }
        }
        for (int d = 0; d < 3; ++d) {
            EXPECT_LE(box.min[d], lo[static_cast<std::size_t>(d)] + kRound) << "trial " << trial;
            EXPECT_GE(box.max[d], hi[static_cast<std::size_t>(d)] - kRound) << "trial " << trial;
            worst = std::max({worst, box.max[d] - hi[static_cast<std::size_t>(d)],
                              lo[static_cast<std::size_t>(d)] - box.min[d]});
        }
    }
    EXPECT_LT(worst, 5e-8) << "largest gap between the closed form and the sampled rim " << worst;
}

TEST(CylinderTerrainBroad, CellRangeIsFormula4) {
    const ShapePtr s = flat_field();
    const HeightField& f = field_of(s);
    Aabb box{Vec3(-0.05, 0.27, 0), Vec3(0.31, 0.4, 1)};
    const CellRange r = height_field_cells(f, box);
    // floor((-0.05 + 2) / 0.1) = 19, ceil((0.31 + 2) / 0.1) = 24; floor(22.7) = 22, ceil(24) = 24.
    EXPECT_EQ(r.column_begin, 19);
    EXPECT_EQ(r.column_end, 24);
    EXPECT_EQ(r.row_begin, 22);
    EXPECT_EQ(r.row_end, 24);
    const CellRange outside = height_field_cells(f, Aabb{Vec3(5, 5, 0), Vec3(6, 6, 1)});
    EXPECT_TRUE(outside.empty());
    const CellRange clamped = height_field_cells(f, Aabb{Vec3(-1e30, 1.95, 0), Vec3(-1.95, 1e30, 1)});
    EXPECT_EQ(clamped.column_begin, 0);
    EXPECT_EQ(clamped.column_end, 1);
    EXPECT_EQ(clamped.row_begin, 39);
    EXPECT_EQ(clamped.row_end, 40);
}

TEST(CylinderTerrainBroad, ElementClassification) {
    // Flat: rectangle with normal z. Slope along x (H1 != H0, H2 = H0): rectangle. Slope along both axes: not
    // right-angled, two coplanar triangles. Twisted cell: two triangles with different normals.
    const std::vector<double> flat = {1, 1, 1, 1}, along_x = {1, 1.5, 1, 1.5},
                              diagonal = {1, 1.5, 1.25, 1.75}, twisted = {1, 1.5, 1.25, 1.25};
    std::array<TerrainElement, 2> e;
    auto cell = [&](const std::vector<double>& h) {
        const ShapePtr s = make_height_field(Vec2(0, 0), Vec2(0.5, 0.25), 2, 2, h);
        return cell_elements(field_of(s), 0, 0, e);
    };
    ASSERT_EQ(cell(flat), 1);
    EXPECT_EQ(e[0].kind, ElementKind::rectangle);
    EXPECT_LT((e[0].normal - Vec3::UnitZ()).norm(), kRound);
    ASSERT_EQ(cell(along_x), 1);
    EXPECT_EQ(e[0].kind, ElementKind::rectangle);
    EXPECT_LT((e[0].normal - Vec3(-1, 0, 1).normalized()).norm(), kRound);  // rise 0.5 over 0.5
    ASSERT_EQ(cell(diagonal), 2);
    const Vec3 n_diag = Vec3(-1, -1, 1).normalized();  // dH/dx = 0.5 / 0.5, dH/dy = 0.25 / 0.25
    EXPECT_LT((e[0].normal - n_diag).norm(), kRound);
    EXPECT_LT((e[1].normal - n_diag).norm(), kRound);
    ASSERT_EQ(cell(twisted), 2);
    // Lower triangle (0,0),(0.5,0),(0.5,0.25): dH/dx = 1, dH/dy = (1.25 - 1.5) / 0.25 = -1.
    EXPECT_LT((e[0].normal - Vec3(-1, 1, 1).normalized()).norm(), kRound);
    // Upper triangle (0,0),(0.5,0.25),(0,0.25): dH/dy = 1, dH/dx = (1.25 - 1.25) / 0.5 = 0.
    EXPECT_LT((e[1].normal - Vec3(0, -1, 1).normalized()).norm(), kRound);
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 3; ++i)
            EXPECT_NEAR(e[static_cast<std::size_t>(k)].normal.dot(
                            e[static_cast<std::size_t>(k)].vertices[static_cast<std::size_t>(i)]),
                        e[static_cast<std::size_t>(k)].offset, kRound);
}

TEST(CylinderTerrainBroad, PyramidRejectsFarCylinderOnLargeField) {
    // A 2048 x 2048 field (release; 512 x 512 unoptimised) of bumps up to 1 m: a cylinder 10 cm above the
    // highest point of the cells under it is rejected by the pyramid without touching a single element.
#ifdef NDEBUG
    const int n = 2048;
#else
    const int n = 512;
#endif
    const ShapePtr s =
        make_field([](double x, double y) { return 0.5 + 0.5 * std::sin(0.7 * x) * std::cos(0.9 * y); },
                   Vec2(0, 0), Vec2(0.05, 0.05), n, n);
    const HeightField& f = field_of(s);
    const Cylinder c{0.4, 0.3};
    const Vec3 center(0.5 * n * 0.05, 0.4 * n * 0.05, 0);
    const Aabb box = cylinder_aabb(c, center, Vec3::UnitZ());
    const auto [lo, hi] = cell_height_range(f, height_field_cells(f, box));
    Pose pose;
    pose.position = center + Vec3(0, 0, hi + c.half_height + 0.1);
    CylinderTerrainStats stats;
    EXPECT_TRUE(collide_terrain(c, pose, f, 0, &stats).empty());
    EXPECT_TRUE(stats.rejected_by_height);
    EXPECT_GT(stats.cells, 200);
    EXPECT_EQ(stats.elements, 0);
    // The same query 11 cm lower reaches the terrain and runs the element stage.
    pose.position.z() -= 0.2;
    EXPECT_FALSE(collide_terrain(c, pose, f, 0, &stats).empty());
    EXPECT_FALSE(stats.rejected_by_height);
    EXPECT_GT(stats.elements, 0);
    (void)lo;
}

TEST(CylinderTerrainBroad, FieldWithoutPyramidGivesTheSameContacts) {
    // A HeightField assembled by hand without `levels` takes the direct scans; contacts are identical bit for
    // bit, on flat, sloped and rough ground, and a far cylinder is still rejected.
    const ShapePtr with = make_field(
        [](double x, double y) {
            return x < 0 ? kH0 : kH0 + 0.2 * x + 0.03 * std::sin(7 * x) * std::cos(5 * y);
        },
        Vec2(-2, -2), Vec2(0.1, 0.1), 41, 41);
    HeightField without = field_of(with);
    without.levels.clear();
    const Cylinder c{0.3, 0.4};
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(-1, 1);
    int compared = 0;
    for (int k = 0; k < 200; ++k) {
        Pose pose;
        pose.orientation = Quat::UnitRandom();
        pose.position = Vec3(1.2 * u(rng), 1.2 * u(rng), kH0 + 0.35 + 0.2 * u(rng));
        const auto a = collide_terrain(c, pose, field_of(with), 0.002);
        const auto b = collide_terrain(c, pose, without, 0.002);
        ASSERT_EQ(a.size(), b.size()) << "pose " << k;
        for (std::size_t m = 0; m < a.size(); ++m) {
            ASSERT_EQ(a[m].count, b[m].count);
            EXPECT_EQ(a[m].normal, b[m].normal);
            for (int i = 0; i < a[m].count; ++i) {
                EXPECT_EQ(a[m].points[static_cast<std::size_t>(i)].position,
                          b[m].points[static_cast<std::size_t>(i)].position);
                EXPECT_EQ(a[m].points[static_cast<std::size_t>(i)].id,
                          b[m].points[static_cast<std::size_t>(i)].id);
            }
            ++compared;
        }
    }
    EXPECT_GT(compared, 100);
    Pose far;
    far.position = Vec3(0.5, 0.5, 5);
    CylinderTerrainStats stats;
    EXPECT_TRUE(collide_terrain(c, far, without, 0, &stats).empty());
    EXPECT_TRUE(stats.rejected_by_height);
}

// Standing on the base on a flat field: four body-fixed rim points (local +x, -x, +y, -y in the reduction's
// order: deepest = first body-fixed point, farthest, farthest from their line, largest area), depth exact.
void expect_standing(bool flat_path) {
    const Cylinder c{0.3, 0.4};
    const double depth = 0.01;
    for (double yaw : {0.0, 0.3, 1.2}) {
        Pose pose;
        pose.position = Vec3(0.03, -0.07, kH0 + c.half_height - depth);
        pose.orientation = axis_angle(Vec3::UnitZ(), yaw);
        const ShapePtr s = flat_path ? flat_field() : bumped_flat_field(c, pose);
        CylinderTerrainStats stats;
        const auto ms = collide_terrain(c, pose, field_of(s), 0, &stats);
        EXPECT_EQ(stats.flat_patch, flat_path);
        ASSERT_EQ(ms.size(), 1u);
        const Manifold& m = ms[0];
        EXPECT_LT((m.normal + Vec3::UnitZ()).norm(), kRound);
        ASSERT_EQ(m.count, 4);
        const Vec3 base = pose.position - Vec3(0, 0, c.half_height) + Vec3(0, 0, 0.5 * depth);
        for (const Vec3& dir :
             std::array<Vec3, 4>{Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0)}) {
            int k = -1;
            const double err = closest(m, base + c.radius * pose.rotate(dir), &k);
            EXPECT_LT(err, kRound) << "yaw " << yaw << " rim point " << dir.transpose() << " error " << err;
            EXPECT_NEAR(m.points[static_cast<std::size_t>(k)].depth, depth, kRound);
        }
    }
}

TEST(CylinderTerrainPoses, StandingOnBaseFlatPatch) {
    expect_standing(true);
}
TEST(CylinderTerrainPoses, StandingOnBaseElements) {
    expect_standing(false);
}

TEST(CylinderTerrainPoses, StandingOnBaseCentredOnVertex) {
    // Base centred on a grid vertex, through the element stage: eight cells meet under it, still one patch
    // with the up normal and the body-fixed rim points (no ghost normals at edges or vertices).
    const Cylinder c{0.25, 0.2};
    Pose pose;
    pose.position = Vec3(0.1, 0.2, kH0 + c.half_height - 0.004);
    const ShapePtr s = bumped_flat_field(c, pose);
    CylinderTerrainStats stats;
    const auto ms = collide_terrain(c, pose, field_of(s), 0, &stats);
    EXPECT_FALSE(stats.flat_patch);
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_LT((ms[0].normal + Vec3::UnitZ()).norm(), kRound);
    ASSERT_EQ(ms[0].count, 4);
    for (int i = 0; i < 4; ++i) {
        const ContactPoint& p = ms[0].points[static_cast<std::size_t>(i)];
        EXPECT_NEAR(p.depth, 0.004, kRound);
        EXPECT_NEAR((p.position - pose.position).head<2>().norm(), c.radius, kRound);
    }
}

// Lying on the side along x: the two ends of the lowest generator, depth exact.
void expect_lying(bool flat_path) {
    const Cylinder c{0.3, 0.45};
    const double depth = 0.004;
    for (double along : {0.0, 0.7}) {  // axis direction in the x/y plane
        Pose pose;
        pose.position = Vec3(0.05, 0.02, kH0 + c.radius - depth);
        pose.orientation = axis_angle(Vec3::UnitZ(), along) * axis_angle(Vec3::UnitY(), std::numbers::pi / 2);
        const ShapePtr s = flat_path ? flat_field() : bumped_flat_field(c, pose);
        CylinderTerrainStats stats;
        const auto ms = collide_terrain(c, pose, field_of(s), 0, &stats);
        EXPECT_EQ(stats.flat_patch, flat_path);
        ASSERT_EQ(ms.size(), 1u);
        EXPECT_LT((ms[0].normal + Vec3::UnitZ()).norm(), kRound);
        ASSERT_EQ(ms[0].count, 2);
        const Vec3 axis = pose.rotate(Vec3::UnitZ());
        const Vec3 low = pose.position - Vec3(0, 0, c.radius - 0.5 * depth);
        for (double e : {-1.0, 1.0}) {
            int k = -1;
            const double err = closest(ms[0], low + e * c.half_height * axis, &k);
            EXPECT_LT(err, kRound) << "end " << e << " error " << err;
            EXPECT_NEAR(ms[0].points[static_cast<std::size_t>(k)].depth, depth, kRound);
        }
    }
}

TEST(CylinderTerrainPoses, LyingOnSideFlatPatch) {
    expect_lying(true);
}
TEST(CylinderTerrainPoses, LyingOnSideElements) {
    expect_lying(false);
}

TEST(CylinderTerrainPoses, TiltedOnRimOnePoint) {
    // Axis tilted by 30 degrees about y: A1 = C1 + r (cos 30, 0, -sin 30) is the only rim point below the
    // plane.
    const Cylinder c{0.3, 0.4};
    const double theta = std::numbers::pi / 6, depth = 0.006;
    for (bool flat_path : {true, false}) {
        Pose pose;
        pose.orientation = axis_angle(Vec3::UnitY(), theta);
        const Vec3 v = pose.rotate(Vec3::UnitZ());
        const Vec3 a1_local = -c.half_height * v + c.radius * Vec3(std::cos(theta), 0, -std::sin(theta));
        pose.position = Vec3(0.02, 0.01, kH0 - depth) - a1_local;
        const ShapePtr s = flat_path ? flat_field() : bumped_flat_field(c, pose);
        CylinderTerrainStats stats;
        const auto ms = collide_terrain(c, pose, field_of(s), 0, &stats);
        EXPECT_EQ(stats.flat_patch, flat_path);
        ASSERT_EQ(ms.size(), 1u);
        ASSERT_EQ(ms[0].count, 1);
        EXPECT_LT((ms[0].normal + Vec3::UnitZ()).norm(), kRound);
        EXPECT_NEAR(ms[0].points[0].depth, depth, kRound);
        const Vec3 expected = pose.position + a1_local + Vec3(0, 0, 0.5 * depth);
        EXPECT_LT((ms[0].points[0].position - expected).norm(), kRound);
    }
}

TEST(CylinderTerrainPoses, MarginReportsSpeculativePoints) {
    // 3 mm above a flat field lying on the side: nothing without a margin, the two line ends at depth -3 mm
    // with a 5 mm margin.
    const ShapePtr s = flat_field();
    const Cylinder c{0.3, 0.45};
    Pose pose;
    pose.position = Vec3(0, 0, kH0 + c.radius + 0.003);
    pose.orientation = axis_angle(Vec3::UnitX(), std::numbers::pi / 2);
    EXPECT_TRUE(collide_terrain(c, pose, field_of(s)).empty());
    const auto ms = collide_terrain(c, pose, field_of(s), 0.005);
    ASSERT_EQ(ms.size(), 1u);
    ASSERT_EQ(ms[0].count, 2);
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(ms[0].points[static_cast<std::size_t>(i)].depth, -0.003, kRound);
}

TEST(CylinderTerrainPoses, SpeculativeNeighboursKeepTheLineEnds) {
    // A field flat to 10 nm but not coplanar (a +-1e-8 m checkerboard: every cell two triangles, no edge
    // internal) and a 3 cm margin, as the engine uses for a cylinder rolling at 3 m/s: the elements beside
    // the contact line are within the margin, and their second-stage points must not displace the two ends of
    // the line (each patch keeps them, at the exact depth).
    const ShapePtr s = make_field(
        [](double x, double y) {
            const long i = std::lround((y + 2) / 0.05), j = std::lround((x + 2) / 0.05);
            return kH0 + ((i + j) % 2 == 0 ? 1e-8 : -1e-8);
        },
        Vec2(-2, -2), Vec2(0.05, 0.05), 81, 81);
    const Cylinder c{0.3, 0.25};
    const double depth = 1e-4;
    Pose pose;
    pose.position = Vec3(0.013, 0.021, kH0 + c.radius - depth);
    pose.orientation = axis_angle(Vec3::UnitX(), std::numbers::pi / 2);
    const auto ms = collide_terrain(c, pose, field_of(s), 0.03);
    ASSERT_FALSE(ms.empty());
    // The triangles' normals differ by ~1e-6, so the line may come as two patches; every point is on the line
    // at the exact depth (the checkerboard moves the surface by 1e-8 m), and the two ends are among them.
    const Vec3 low = pose.position - Vec3(0, 0, c.radius - 0.5 * depth);
    double y_lo = 1e9, y_hi = -1e9;
    for (const Manifold& m : ms) {
        EXPECT_LT((m.normal + Vec3::UnitZ()).norm(), 1e-5);
        for (int i = 0; i < m.count; ++i) {
            const ContactPoint& p = m.points[static_cast<std::size_t>(i)];
            EXPECT_NEAR(p.position.x(), low.x(), 3e-7);
            EXPECT_NEAR(p.position.z(), low.z(), 3e-7);
            EXPECT_NEAR(p.depth, depth, 3e-7);
            y_lo = std::min(y_lo, p.position.y());
            y_hi = std::max(y_hi, p.position.y());
        }
    }
    EXPECT_NEAR(y_lo, low.y() - c.half_height, 3e-7);
    EXPECT_NEAR(y_hi, low.y() + c.half_height, 3e-7);
}

// Planar slope H = H0 + gx x + gy y: the contact normal is the slope's, whatever the split of the cells.
struct Slope {
    double gx, gy;
    Vec3 normal() const { return Vec3(-gx, -gy, 1).normalized(); }
    double height(double x, double y) const { return kH0 + gx * x + gy * y; }
};

TEST(CylinderTerrainPoses, LyingOnSlopes) {
    // Along x only (rectangles) and along both axes (coplanar triangles; the cylinder crosses their
    // diagonals): one patch, two points at the ends of the lowest generator, depth exact.
    for (const Slope slope : {Slope{0.3, 0}, Slope{0.2, -0.25}}) {
        const ShapePtr s = make_field([&](double x, double y) { return slope.height(x, y); }, Vec2(-2, -2),
                                      Vec2(0.1, 0.1), 41, 41);
        const Vec3 n = slope.normal();
        const Cylinder c{0.25, 0.5};
        // Axis along a horizontal direction of the slope, rotated within the plane by 0.4 rad.
        const Vec3 t1 = n.cross(Vec3::UnitX()).normalized(), t2 = n.cross(t1);
        const Vec3 axis = std::cos(0.4) * t1 + std::sin(0.4) * t2;
        const double depth = 0.003;
        const Vec3 ground(0.13, -0.21, slope.height(0.13, -0.21));
        Pose pose;
        pose.position = ground + (c.radius - depth) * n;
        pose.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), axis);
        CylinderTerrainStats stats;
        const auto ms = collide_terrain(c, pose, field_of(s), 0, &stats);
        EXPECT_FALSE(stats.flat_patch);
        ASSERT_EQ(ms.size(), 1u) << "slope " << slope.gx << ", " << slope.gy;
        EXPECT_LT((ms[0].normal + n).norm(), 1e-9) << "normal error " << (ms[0].normal + n).norm();
        ASSERT_EQ(ms[0].count, 2);
        for (double e : {-1.0, 1.0}) {
            int k = -1;
            const Vec3 expected = ground - 0.5 * depth * n + e * c.half_height * axis;
            const double err = closest(ms[0], expected, &k);
            EXPECT_LT(err, 1e-9) << "end " << e << " error " << err;
            EXPECT_NEAR(ms[0].points[static_cast<std::size_t>(k)].depth, depth, 1e-9);
        }
    }
}

TEST(CylinderTerrainPoses, StandingOnSlopeBaseContact) {
    // Vertical axis on a 0.15 slope, sunk so that the whole lower base is below the plane (base contact, case
    // (a)): four points on the base rim, each at its rim point's exact depth, the deepest being A1 (the rim
    // point downhill... uphill, farthest below the plane) with depth s(A1).
    const Slope slope{0.15, 0.05};
    const ShapePtr s = make_field([&](double x, double y) { return slope.height(x, y); }, Vec2(-2, -2),
                                  Vec2(0.1, 0.1), 41, 41);
    const Vec3 n = slope.normal();
    const Cylinder c{0.2, 0.3};
    Pose pose;
    pose.position = Vec3(0.04, 0.02, slope.height(0.04, 0.02) + c.half_height - 0.05);
    const auto ms = collide_terrain(c, pose, field_of(s));
    ASSERT_EQ(ms.size(), 1u);
    EXPECT_LT((ms[0].normal + n).norm(), 1e-9);
    ASSERT_EQ(ms[0].count, 4);
    const Vec3 c1 = pose.position - c.half_height * Vec3::UnitZ();
    const double k = n.dot(Vec3(0, 0, kH0));
    double deepest = -1;
    for (int i = 0; i < 4; ++i) {
        const ContactPoint& p = ms[0].points[static_cast<std::size_t>(i)];
        const Vec3 cyl_point = p.position - 0.5 * p.depth * n;  // the cylinder's point of this contact
        EXPECT_NEAR(cyl_point.z(), c1.z(), 1e-9);
        EXPECT_NEAR((cyl_point - c1).norm(), c.radius, 1e-9);
        EXPECT_NEAR(p.depth, k - n.dot(cyl_point), 1e-9);
        deepest = std::max(deepest, p.depth);
    }
    // s(A1) = s(C1) + r |v x n|.
    EXPECT_NEAR(deepest, k - n.dot(c1) + c.radius * Vec3::UnitZ().cross(n).norm(), 1e-9);
}

TEST(CylinderTerrainPoses, StraddlingRidge) {
    // Two slopes H = H0 - tan(alpha) |x| meet at a ridge along y. A cylinder lying along the ridge, its axis
    // zc above the apex, reaches into both: two patches with the two slope normals. On the right element the
    // deepest point along n_R = (sin a, 0, cos a) is on the ridge line (its own projection falls beyond the
    // ridge), at depth D = sqrt(r^2 - zc^2 sin^2 a) - zc cos a (the normal line through the apex crosses the
    // cylinder's section circle there).
    const double alpha = 0.3;
    const ShapePtr s = make_field([&](double x, double) { return kH0 - std::tan(alpha) * std::abs(x); },
                                  Vec2(-2, -2), Vec2(0.1, 0.1), 41, 41);
    const Cylinder c{0.3, 0.35};
    const double zc = 0.28;
    Pose pose;
    pose.position = Vec3(0, 0.03, kH0 + zc);
    pose.orientation = axis_angle(Vec3::UnitX(), std::numbers::pi / 2);
    const auto ms = collide_terrain(c, pose, field_of(s));
    ASSERT_EQ(ms.size(), 2u);
    const double d =
        std::sqrt(c.radius * c.radius - zc * zc * std::sin(alpha) * std::sin(alpha)) - zc * std::cos(alpha);
    for (const Manifold& m : ms) {
        const double side = m.normal.x() < 0 ? 1 : -1;  // the normal points into the terrain: -n
        const Vec3 n(side * std::sin(alpha), 0, std::cos(alpha));
        EXPECT_LT((m.normal + n).norm(), 1e-9);
        ASSERT_EQ(m.count, 2);
        double y_lo = 1e9, y_hi = -1e9;
        for (int i = 0; i < m.count; ++i) {
            const ContactPoint& p = m.points[static_cast<std::size_t>(i)];
            EXPECT_NEAR(p.depth, d, 1e-9);
            const Vec3 terrain = p.position + 0.5 * p.depth * n;
            EXPECT_NEAR(terrain.x(), 0, 1e-9);
            EXPECT_NEAR(terrain.z(), kH0, 1e-9);
            y_lo = std::min(y_lo, terrain.y());
            y_hi = std::max(y_hi, terrain.y());
        }
        // The patch spans the ridge under the whole cylinder.
        EXPECT_NEAR(y_lo, 0.03 - c.half_height, 1e-9);
        EXPECT_NEAR(y_hi, 0.03 + c.half_height, 1e-9);
    }
}

TEST(CylinderTerrainPoses, LyingInValley) {
    // Valley H = H0 + tan(alpha) |x| with a cylinder along y resting on both walls, sunk by `depth` along
    // each wall's normal: each wall is a side contact, two points at the ends of its tangent generator.
    const double alpha = 0.4, depth = 0.002;
    const ShapePtr s = make_field([&](double x, double) { return kH0 + std::tan(alpha) * std::abs(x); },
                                  Vec2(-2, -2), Vec2(0.1, 0.1), 41, 41);
    const Cylinder c{0.3, 0.35};
    // Distance from the axis to each wall is r - depth: the axis is at height (r - depth) / cos(alpha) above
    // the valley floor line.
    Pose pose;
    pose.position = Vec3(0, 0.03, kH0 + (c.radius - depth) / std::cos(alpha));
    pose.orientation = axis_angle(Vec3::UnitX(), std::numbers::pi / 2);
    const auto ms = collide_terrain(c, pose, field_of(s));
    ASSERT_EQ(ms.size(), 2u);
    for (const Manifold& m : ms) {
        const double side = m.normal.x() > 0 ? 1 : -1;  // the right wall's normal points to -x
        const Vec3 n(-side * std::sin(alpha), 0, std::cos(alpha));
        EXPECT_LT((m.normal + n).norm(), 1e-9);
        ASSERT_EQ(m.count, 2);
        for (double e : {-1.0, 1.0}) {
            int k = -1;
            const Vec3 expected =
                pose.position - (c.radius - 0.5 * depth) * n + Vec3(0, e * c.half_height, 0);
            const double err = closest(m, expected, &k);
            EXPECT_LT(err, 1e-9) << "error " << err;
            EXPECT_NEAR(m.points[static_cast<std::size_t>(k)].depth, depth, 1e-9);
        }
    }
}

TEST(CylinderTerrainPoses, FieldPoseAndDispatchOrder) {
    // A rotated and translated field gives the transformed contacts of the same pose in its frame, and
    // collide() with the field first flips the normal and keeps points, depths and ids.
    const auto cyl_shape = make_cylinder(0.3, 0.45);
    const Cylinder& c = std::get<Cylinder>(cyl_shape->geometry);
    Pose local;
    local.position = Vec3(0.05, 0.02, kH0 + c.radius - 0.004);
    local.orientation = axis_angle(Vec3(0.2, 1, 0.1), 1.4);
    const ShapePtr s = bumped_flat_field(c, local);
    Pose field_pose;
    field_pose.position = Vec3(3, -1, 0.5);
    field_pose.orientation = axis_angle(Vec3(1, 2, 3), 0.6);
    const auto reference = collide_terrain(c, local, field_of(s));
    const auto moved = collide_terrain(c, field_pose * local, field_of(s), 0, nullptr, field_pose);
    ASSERT_FALSE(reference.empty());
    ASSERT_EQ(reference.size(), moved.size());
    for (std::size_t k = 0; k < reference.size(); ++k) {
        EXPECT_LT((field_pose.rotate(reference[k].normal) - moved[k].normal).norm(), kRound);
        ASSERT_EQ(reference[k].count, moved[k].count);
        for (int i = 0; i < reference[k].count; ++i) {
            const auto& a = reference[k].points[static_cast<std::size_t>(i)];
            const auto& b = moved[k].points[static_cast<std::size_t>(i)];
            EXPECT_LT((field_pose.transform_point(a.position) - b.position).norm(), 1e-11);
            EXPECT_NEAR(a.depth, b.depth, 1e-11);
            EXPECT_EQ(a.id, b.id);
        }
    }
    std::vector<Manifold> ab, ba;
    collide(*cyl_shape, field_pose * local, *s, field_pose, CollideSettings{}, ab);
    collide(*s, field_pose, *cyl_shape, field_pose * local, CollideSettings{}, ba);
    ASSERT_EQ(ab.size(), moved.size());
    ASSERT_EQ(ba.size(), moved.size());
    for (std::size_t k = 0; k < ab.size(); ++k) {
        EXPECT_EQ(ab[k].normal, moved[k].normal) << "collide(cylinder, field) runs the analytic algorithm";
        EXPECT_EQ(ba[k].normal, -moved[k].normal);
        EXPECT_EQ(ba[k].sub_a, moved[k].sub_b);
        for (int i = 0; i < ab[k].count; ++i) {
            EXPECT_EQ(ab[k].points[static_cast<std::size_t>(i)].position,
                      moved[k].points[static_cast<std::size_t>(i)].position);
            EXPECT_EQ(ba[k].points[static_cast<std::size_t>(i)].id,
                      moved[k].points[static_cast<std::size_t>(i)].id);
        }
    }
}

TEST(CylinderTerrainPoses, IdsStableWhileRollingOnFlatPatch) {
    // Rolling along x on a flat field: the flat-patch points keep their ids from pose to pose.
    const ShapePtr s = flat_field();
    const Cylinder c{0.3, 0.45};
    std::vector<std::uint32_t> first_ids;
    for (int step = 0; step < 50; ++step) {
        const double x = -0.5 + 0.02 * step;
        Pose pose;
        pose.position = Vec3(x, 0.1, kH0 + c.radius - 0.001);
        pose.orientation =
            axis_angle(Vec3::UnitY(), -x / c.radius) * axis_angle(Vec3::UnitX(), std::numbers::pi / 2);
        const auto ms = collide_terrain(c, pose, field_of(s));
        ASSERT_EQ(ms.size(), 1u);
        ASSERT_EQ(ms[0].count, 2);
        std::vector<std::uint32_t> ids = {ms[0].points[0].id, ms[0].points[1].id};
        std::sort(ids.begin(), ids.end());
        if (step == 0) first_ids = ids;
        EXPECT_EQ(ids, first_ids) << "step " << step;
    }
}

}  // namespace
}  // namespace simpulse
