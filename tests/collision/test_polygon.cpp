// Plane polygons (SEEDS.md section 5): validation of bad boundaries, the thesis' approximate convex
// decomposition (ch. 5) on polygons with several holes (parts convex, covering the polygon by point sampling,
// total area within the quality threshold), and the seed's SAT with one polygon whole against an independent
// check: the intersection area by Sutherland-Hodgman clipping (exact for a non-convex subject clipped by a
// convex window) on 10,000 random pairs.
#include <simpulse/collision/polygon.h>
#include <simpulse/collision/prism_contacts.h>
#include <simpulse/collision/shape.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

namespace simpulse {
namespace {

constexpr double kPi = std::numbers::pi;

Ring2 circle(Vec2 c, double r, int n, bool clockwise, double phase = 0) {
    Ring2 p;
    for (int i = 0; i < n; ++i) {
        const double a = 2 * kPi * (i + phase) / n * (clockwise ? -1 : 1);
        p.push_back(c + r * Vec2(std::cos(a), std::sin(a)));
    }
    return p;
}

double cross(const Vec2& a, const Vec2& b) {
    return a.x() * b.y() - a.y() * b.x();
}

// Signed area of ring ∩ convex window (counter-clockwise), Sutherland-Hodgman.
double clipped_area(const Ring2& subject, const Ring2& window) {
    Ring2 poly = subject;
    for (std::size_t i = 0; i < window.size() && !poly.empty(); ++i) {
        const Vec2 a = window[i], b = window[(i + 1) % window.size()];
        const auto inside = [&](const Vec2& p) { return cross(b - a, p - a) >= 0; };
        Ring2 next;
        for (std::size_t k = 0; k < poly.size(); ++k) {
            const Vec2 p = poly[k], q = poly[(k + 1) % poly.size()];
            const bool pin = inside(p), qin = inside(q);
            if (pin) next.push_back(p);
            if (pin != qin) {
                const double s = cross(b - a, p - a) / (cross(b - a, p - a) - cross(b - a, q - a));
                next.push_back(p + s * (q - p));
            }
        }
        poly = std::move(next);
    }
    return poly.size() < 3 ? 0 : signed_area2(poly) / 2;
}

double intersection_area(const std::vector<Ring2>& a, const Ring2& convex) {
    double s = 0;
    for (const Ring2& ring : a) s += clipped_area(ring, convex);
    return s;
}

// The parts of `rings` decomposed at `tolerance`: strictly convex, covering the region (every one of 20,000
// sampled points of it inside a part), total area within the threshold.
void expect_convex_cover(const std::vector<Ring2>& rings, double tolerance, std::size_t s) {
    ASSERT_EQ(validate_polygon(rings), "") << "shape " << s;
    const std::vector<Ring2> parts = decompose_polygon(rings, tolerance);
    ASSERT_FALSE(parts.empty());
    const double area = polygon_moments(rings).area;
    double sum = 0;
    for (const Ring2& p : parts) {
        sum += signed_area2(p) / 2;
        for (std::size_t i = 0; i < p.size(); ++i)
            EXPECT_GT(cross(p[(i + 1) % p.size()] - p[i], p[(i + 2) % p.size()] - p[(i + 1) % p.size()]), 0)
                << "shape " << s << " part not strictly convex at " << i;
    }
    // Each part is the hull of a piece; the pieces partition the region, so the excess is the hulls'.
    EXPECT_GE(sum, area * (1 - 1e-9)) << "shape " << s << " tolerance " << tolerance;
    EXPECT_LE(sum - area, tolerance * area + 1e-9 * area)
        << "shape " << s << " tolerance " << tolerance << " excess " << (sum - area) / area;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-4, 9);
    int missed = 0, in_region = 0;
    for (int k = 0; k < 20000; ++k) {
        const Vec2 q(u(rng), u(rng));
        if (!polygon_contains(rings, q)) continue;
        ++in_region;
        bool covered = false;
        for (const Ring2& p : parts) {
            bool in = true;
            for (std::size_t i = 0; i < p.size() && in; ++i)
                in = cross(p[(i + 1) % p.size()] - p[i], q - p[i]) >= -1e-12;
            covered = covered || in;
        }
        missed += !covered;
    }
    EXPECT_GT(in_region, 100);
    EXPECT_EQ(missed, 0) << "shape " << s << " tolerance " << tolerance;
}

TEST(Polygon, ValidationNamesBoundaryAndPoint) {
    const Ring2 square{{0, 0}, {2, 0}, {2, 2}, {0, 2}};
    EXPECT_EQ(validate_polygon({square}), "");
    EXPECT_NE(validate_polygon({{{0, 0}, {2, 0}, {0, 1}, {1, 2}}}).find("boundary 0 point"),
              std::string::npos)
        << "bow tie: " << validate_polygon({{{0, 0}, {2, 0}, {0, 1}, {1, 2}}});
    EXPECT_NE(validate_polygon({{{0, 0}, {0, 2}, {2, 2}, {2, 0}}}).find("clockwise"), std::string::npos);
    EXPECT_NE(validate_polygon({{{0, 0}, {1, 0}, {2, 0}}}).find("zero area"), std::string::npos);
    EXPECT_NE(validate_polygon({{{0, 0}, {1, 0}, {1, 0}, {0, 1}}}).find("boundary 0 point 1"),
              std::string::npos);
    const Ring2 hole_outside{{5, 5}, {5, 6}, {6, 6}, {6, 5}};
    EXPECT_NE(validate_polygon({square, hole_outside}).find("boundary 1 point 0"), std::string::npos)
        << validate_polygon({square, hole_outside});
    const Ring2 hole_ccw{{0.5, 0.5}, {1, 0.5}, {1, 1}};
    EXPECT_NE(validate_polygon({square, hole_ccw}).find("boundary 1"), std::string::npos);
    const Ring2 hole_crossing{{1, 1}, {1, 3}, {1.5, 1}};
    EXPECT_NE(validate_polygon({square, hole_crossing}).find("boundary 1 point"), std::string::npos)
        << validate_polygon({square, hole_crossing});
    EXPECT_THROW(make_prism({square}, 0, 0), ShapeError);
    EXPECT_THROW(make_prism({square, hole_outside}, 1, 0), ShapeError);
}

// Polygons with several holes: convex parts, covering the region, area excess within the threshold.
TEST(Polygon, DecompositionCoversWithinThreshold) {
    const std::vector<std::vector<Ring2>> shapes = {
        {{{0, 0}, {6, 0}, {6, 4}, {0, 4}}, circle({1.5, 2}, 0.8, 12, true), circle({4.5, 2}, 0.8, 9, true)},
        {{{0, 0}, {8, 0}, {8, 1}, {7, 1}, {7, 3}, {8, 3}, {8, 5}, {0, 5}},
         {{1, 1}, {1, 2}, {2, 2}, {2, 1}},
         {{3, 1}, {3, 4}, {4, 2.5}, {5, 4}, {5, 1}},
         {{1, 3}, {1, 4}, {2, 4}, {2.5, 3.5}, {2, 3}}},
        {circle({0, 0}, 3, 40, false), circle({0, 0}, 2, 20, true)},
    };
    for (double tolerance : {0.0, 0.02, 0.1})
        for (std::size_t s = 0; s < shapes.size(); ++s) expect_convex_cover(shapes[s], tolerance, s);
}

// A star at the point cap (kMaxPolygonPoints), 512 notches: the decomposition's worst case of the outlines
// tried (docs/polygons.md) is still an exact convex partition.
TEST(Polygon, DecompositionOfAStarAtThePointCapIsAConvexPartition) {
    Ring2 star;
    for (std::size_t i = 0; i < kMaxPolygonPoints; ++i) {
        const double a = 2 * kPi * static_cast<double>(i) / static_cast<double>(kMaxPolygonPoints);
        star.push_back((i % 2 == 0 ? 3.0 : 2.1) * Vec2(std::cos(a), std::sin(a)));
    }
    expect_convex_cover({star}, 0.0, 0);
    star.push_back(3.0 * Vec2(std::cos(-1e-4), std::sin(-1e-4)));  // one point more: refused
    EXPECT_NE(validate_polygon({star}).find("has 1025 points in its boundaries, expected at most 1024"),
              std::string::npos)
        << validate_polygon({star});
    EXPECT_THROW(make_prism({star}, 1, 0), ShapeError);
}

// A random star-shaped (usually non-convex) polygon, sometimes with a hole around its centre.
std::vector<Ring2> random_polygon(std::mt19937& rng, bool convex) {
    std::uniform_real_distribution<double> u(0, 1);
    const int n = 5 + static_cast<int>(u(rng) * 10);
    std::vector<Ring2> rings(1);
    for (int i = 0; i < n; ++i) {
        const double a = 2 * kPi * (i + 0.8 * u(rng)) / n;
        const double r = convex ? 1.0 : 0.6 + 0.8 * u(rng);
        rings[0].push_back(r * Vec2(std::cos(a), std::sin(a)));
    }
    if (convex) {
        rings[0] = convex_hull_2d(rings[0]);
    } else if (u(rng) < 0.3) {
        rings.push_back(circle(Vec2::Zero(), 0.25, 6, true));
    }
    return rings;
}

// SAT outcome against the clipped area; for a convex whole polygon the depth is the exact translation
// distance along the normal (the seed's convex case), checked by clipping after moving B by depth -+ 1e-6.
TEST(PolygonSat, AgreesWithClippingOn10000RandomPairs) {
    std::mt19937 rng(2024);
    std::uniform_real_distribution<double> u(-1, 1);
    int overlaps = 0, separations = 0, undecided = 0, exact_checked = 0;
    constexpr double kStep = 1e-6;  // translation probe; areas are then ~1e-6 * chord, far above rounding
    for (int trial = 0; trial < 10000; ++trial) {
        const bool convex_a = trial % 3 == 0;
        const std::vector<Ring2> a_rings = random_polygon(rng, convex_a);
        if (!validate_polygon(a_rings).empty()) continue;
        const SatPolygon a = make_sat_polygon(a_rings);
        const Ring2 b = random_polygon(rng, true)[0];
        Map2 map;
        const double angle = kPi * u(rng), scale = 0.2 + 0.5 * (u(rng) + 1);
        map.rotation << std::cos(angle), -std::sin(angle), std::sin(angle), std::cos(angle);
        Ring2 b_scaled;
        for (const Vec2& p : b) b_scaled.push_back(scale * p);
        map.offset = Vec2(1.8 * u(rng), 1.8 * u(rng));
        Ring2 mapped;
        for (const Vec2& p : b_scaled) mapped.push_back(map(p));
        const double area = intersection_area(a_rings, mapped);
        Sat2Contact c;
        const Sat2Outcome o = sat_whole_vs_convex(a, b_scaled, map, 0, c);
        // Area of the overlap below this is a graze at rounding level (coordinates ~1).
        constexpr double kGraze = 1e-12;
        if (o == Sat2Outcome::separated) {
            ++separations;
            EXPECT_LE(area, kGraze) << "trial " << trial << ": SAT separated, clipped area " << area;
            continue;
        }
        if (o == Sat2Outcome::undecided) {
            ++undecided;
            EXPECT_NEAR(area, signed_area2(mapped) / 2, 1e-9)
                << "trial " << trial << ": undecided but B not inside A";
            continue;
        }
        ++overlaps;
        EXPECT_GE(area, -kGraze) << "trial " << trial;
        if (c.depth > 1e-9) {
            EXPECT_GT(area, 0) << "trial " << trial << ": depth " << c.depth << " area 0";
        }
        EXPECT_NEAR(c.normal.norm(), 1, 1e-12);
        EXPECT_GE(c.count, 1);
        if (convex_a && c.depth > 10 * kStep) {
            ++exact_checked;
            const auto moved_area = [&](double t) {
                Ring2 m;
                for (const Vec2& p : mapped) m.push_back(p + t * c.normal);
                return intersection_area(a_rings, m);
            };
            EXPECT_LE(moved_area(c.depth + kStep), kGraze) << "trial " << trial << ": depth " << c.depth;
            EXPECT_GT(moved_area(c.depth - kStep), 0) << "trial " << trial << ": depth " << c.depth;
        }
    }
    std::cout << "overlaps " << overlaps << ", separations " << separations << ", undecided " << undecided
              << ", exact depth checks " << exact_checked << "\n";
    EXPECT_GT(overlaps, 1000);
    EXPECT_GT(separations, 1000);
    EXPECT_GT(exact_checked, 300);
}

TEST(PrismPlane, RingAndBlockShareAPlane) {
    // A ring (outer radius 1, hole radius 0.6, the hole's lowest edge level) and a 0.12 x 0.12 block resting
    // on that edge (half width 0.078).
    const ShapePtr ring =
        make_prism({circle(Vec2::Zero(), 1.0, 24, false), circle(Vec2::Zero(), 0.6, 24, true, 0.5)}, 0.3, 0);
    const ShapePtr block = make_prism({{{-0.06, -0.06}, {0.06, -0.06}, {0.06, 0.06}, {-0.06, 0.06}}}, 0.2, 0);
    const Prism& r = std::get<Prism>(ring->geometry);
    const Prism& k = std::get<Prism>(block->geometry);
    const double bottom = -0.6 * std::cos(kPi / 24);  // the hole's lowest edge (apothem of the 24-gon)
    Pose pk;
    pk.position = Vec3(0, bottom + 0.06 - 0.001, 0.05);  // 1 mm deep
    std::vector<Manifold> out;
    const int n = collide_prisms_in_plane(r, Pose{}, k, pk, CollideSettings{0.002}, out);
    ASSERT_EQ(n, 1);
    const Manifold& m = out[0];
    EXPECT_NEAR(m.normal.y(), 1, 1e-9) << "normal " << m.normal.transpose();
    ASSERT_EQ(m.count, 4);
    for (int i = 0; i < m.count; ++i) EXPECT_NEAR(m.points[static_cast<std::size_t>(i)].depth, 0.001, 1e-9);
    // The points lie on the two faces of the slab overlap: z in {-0.05, 0.15} of the ring clipped to 0.15.
    double zmin = 1, zmax = -1;
    for (int i = 0; i < m.count; ++i) {
        zmin = std::min(zmin, m.points[static_cast<std::size_t>(i)].position.z());
        zmax = std::max(zmax, m.points[static_cast<std::size_t>(i)].position.z());
    }
    EXPECT_NEAR(zmin, -0.05, 1e-12);
    EXPECT_NEAR(zmax, 0.15, 1e-12);
    // Tilted out of the plane: not a shared plane.
    Pose tilted = pk;
    tilted.orientation = Quat(Eigen::AngleAxisd(0.1, Vec3::UnitX()));
    out.clear();
    EXPECT_EQ(collide_prisms_in_plane(r, Pose{}, k, tilted, CollideSettings{0.002}, out), -1);
}

}  // namespace
}  // namespace simpulse
