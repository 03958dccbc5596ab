// Tests of make_triangle_mesh: convex-edge flags on meshes whose dihedral angles are known by construction
// (a flat grid: all interior edges flat; a cube: its 12 edges convex, face diagonals flat; folds of known
// angle: ridges convex, valleys concave, below 1e-3 rad flat; the flat grid also as a triangle soup with
// unshared vertices), unit normals against the analytic plane, the
// validation messages, and the mesh BVH against brute force.
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/shape.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <string>

namespace simpulse {
namespace {

using Triangles = std::vector<std::array<std::uint32_t, 3>>;

const TriangleMesh& mesh_of(const ShapePtr& s) {
    return std::get<TriangleMesh>(s->geometry);
}

// (n + 1) x (n + 1) vertex grid over [0, n]^2 at height z(x, y), diagonals alternating direction.
std::pair<std::vector<Vec3>, Triangles> grid(int n, auto z) {
    std::vector<Vec3> v;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) v.emplace_back(j, i, z(double(j), double(i)));
    Triangles t;
    auto id = [&](int i, int j) { return static_cast<std::uint32_t>(i * (n + 1) + j); };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            if ((i + j) % 2 == 0) {
                t.push_back({id(i, j), id(i, j + 1), id(i + 1, j + 1)});
                t.push_back({id(i, j), id(i + 1, j + 1), id(i + 1, j)});
            } else {
                t.push_back({id(i, j), id(i, j + 1), id(i + 1, j)});
                t.push_back({id(i, j + 1), id(i + 1, j + 1), id(i + 1, j)});
            }
        }
    return {v, t};
}

bool on_boundary(const Vec3& a, const Vec3& b, int n) {
    for (int k = 0; k < 2; ++k)
        for (double edge : {0.0, double(n)})
            if (a[k] == edge && b[k] == edge) return true;
    return false;
}

TEST(TriangleMesh, FlatGridHasOnlyBoundaryEdgesConvex) {
    for (const double noise : {0.0, 1e-9}) {
        std::mt19937_64 rng(1);
        std::uniform_real_distribution<double> u(-noise, noise);
        // Noise 1e-9 on unit cells tilts normals by ~2e-9 rad, far below the 1e-3 rad flat threshold.
        const auto [v, t] = grid(20, [&](double, double) { return noise == 0 ? 0.0 : u(rng); });
        const ShapePtr shape = make_triangle_mesh(v, t);
        const TriangleMesh& m = mesh_of(shape);
        ASSERT_EQ(m.convex_edges.size(), 800u);
        int convex = 0, wrong = 0;
        for (std::size_t k = 0; k < t.size(); ++k) {
            EXPECT_NEAR(m.normals[k].z(), 1.0, 1e-15) << "triangle " << k;
            for (int e = 0; e < 3; ++e) {
                const bool bit = (m.convex_edges[k] >> e) & 1;
                const bool boundary = on_boundary(v[t[k][static_cast<std::size_t>(e)]],
                                                  v[t[k][static_cast<std::size_t>((e + 1) % 3)]], 20);
                convex += bit;
                wrong += bit != boundary;
            }
        }
        EXPECT_EQ(convex, 80) << "noise " << noise;  // 4 sides x 20 boundary edges
        EXPECT_EQ(wrong, 0) << "noise " << noise;
    }
}

// The same grid as a triangle soup (each triangle lists its own three vertices, as read from STL) pairs its
// edges by position: the same flags as the indexed grid, also with copies a few rounding errors apart (the
// weld tolerance is 1e-9 of the largest coordinate, 2e-8 here), while copies 1e-6 apart stay separate (every
// edge a boundary). The vertex and triangle arrays are kept as given.
TEST(TriangleMesh, TriangleSoupPairsItsEdgesByPosition) {
    const auto [v, t] = grid(20, [](double, double) { return 0.0; });
    const std::vector<std::uint8_t> indexed = mesh_of(make_triangle_mesh(v, t)).convex_edges;
    for (const double offset : {0.0, 1e-14, 1e-6}) {
        std::vector<Vec3> soup_v;
        Triangles soup_t;
        for (const auto& tri : t) {
            std::array<std::uint32_t, 3> s;
            for (std::size_t k = 0; k < 3; ++k) {
                s[k] = static_cast<std::uint32_t>(soup_v.size());
                // Copies displaced by a different amount per copy (0 for the first).
                soup_v.push_back(v[tri[k]] +
                                 Vec3(1, -1, 0.5) * offset * static_cast<double>(soup_v.size() % 3));
            }
            soup_t.push_back(s);
        }
        const ShapePtr shape = make_triangle_mesh(soup_v, soup_t);
        const TriangleMesh& m = mesh_of(shape);
        EXPECT_EQ(m.vertices, soup_v);
        EXPECT_EQ(m.triangles, soup_t);
        int differing = 0, convex = 0;
        for (std::size_t k = 0; k < t.size(); ++k) {
            differing += m.convex_edges[k] != indexed[k];
            convex += std::popcount(m.convex_edges[k]);
        }
        if (offset < 1e-9) {
            EXPECT_EQ(differing, 0) << "offset " << offset << ": triangles whose edge flags differ from the "
                                    << "indexed grid";
            EXPECT_EQ(convex, 80) << "offset " << offset;
        } else {
            EXPECT_EQ(convex, 3 * 800) << "copies 1e-6 apart are not one vertex: every edge is a boundary";
        }
    }
}

TEST(TriangleMesh, CubeEdgesAreConvexAndFaceDiagonalsFlat) {
    std::vector<Vec3> v;
    for (int k = 0; k < 8; ++k) v.emplace_back(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
    // Quads counter-clockwise seen from outside, split along their first diagonal.
    const std::array<std::array<std::uint32_t, 4>, 6> quads{
        {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}};
    Triangles t;
    for (const auto& q : quads) {
        t.push_back({q[0], q[1], q[2]});
        t.push_back({q[0], q[2], q[3]});
    }
    const ShapePtr shape = make_triangle_mesh(v, t);
    const TriangleMesh& m = mesh_of(shape);
    int convex = 0, wrong = 0;
    for (std::size_t k = 0; k < t.size(); ++k) {
        // Outward: the normal points away from the centre.
        EXPECT_GT(m.normals[k].dot(v[t[k][0]]), 0.99) << "triangle " << k;
        for (int e = 0; e < 3; ++e) {
            const Vec3 d =
                v[t[k][static_cast<std::size_t>(e)]] - v[t[k][static_cast<std::size_t>((e + 1) % 3)]];
            const bool diagonal = (d.array() != 0).count() == 2;
            const bool bit = (m.convex_edges[k] >> e) & 1;
            convex += bit;
            wrong += bit == diagonal;
        }
    }
    EXPECT_EQ(convex, 24);  // 12 edges, each seen from both sides
    EXPECT_EQ(wrong, 0);
}

// Two triangles sharing the edge (0,0,0)-(0,1,0): one flat in z = 0 for x <= 0, the other rising (ridge if
// `up` is false: it falls away; valley if true) by `angle` for x >= 0. Returns the flags of the shared edge
// as seen from each triangle.
std::pair<bool, bool> fold(double angle, bool valley) {
    const double s = valley ? 1 : -1;
    const std::vector<Vec3> v{
        {0, 0, 0}, {0, 1, 0}, {-1, 0.5, 0}, {std::cos(angle), 0.5, s * std::sin(angle)}};
    const Triangles t{{0, 1, 2}, {1, 0, 3}};  // both counter-clockwise seen from +z
    const ShapePtr shape = make_triangle_mesh(v, t);
    const TriangleMesh& m = mesh_of(shape);
    return {m.convex_edges[0] & 1, m.convex_edges[1] & 1};
}

TEST(TriangleMesh, FoldsAreConvexOrConcaveByTheirDihedralAngle) {
    for (const double angle : {2e-3, 0.1, 0.5, 1.2, 2.5}) {
        const auto [ridge_a, ridge_b] = fold(angle, false);
        EXPECT_TRUE(ridge_a && ridge_b) << "ridge of " << angle << " rad not convex";
        const auto [valley_a, valley_b] = fold(angle, true);
        EXPECT_FALSE(valley_a || valley_b) << "valley of " << angle << " rad not internal";
    }
    // Below the 1e-3 rad flat threshold both ways are flat, hence internal.
    for (const bool valley : {false, true}) {
        const auto [a, b] = fold(5e-4, valley);
        EXPECT_FALSE(a || b) << "5e-4 rad fold not flat";
    }
}

TEST(TriangleMesh, InconsistentAndNonManifoldEdgesStayConvex) {
    // Second triangle wound the same way along the shared edge: orientation unknown, edge kept convex.
    const std::vector<Vec3> v{{0, 0, 0}, {0, 1, 0}, {-1, 0.5, 0}, {1, 0.5, 0}, {0.5, 0.5, 1}};
    const ShapePtr a = make_triangle_mesh(v, {{0, 1, 2}, {0, 1, 3}});
    EXPECT_EQ(mesh_of(a).convex_edges[0] & 1, 1);
    EXPECT_EQ(mesh_of(a).convex_edges[1] & 1, 1);
    // Three triangles on one edge.
    const ShapePtr b = make_triangle_mesh(v, {{0, 1, 2}, {1, 0, 3}, {1, 0, 4}});
    for (int k = 0; k < 3; ++k) EXPECT_EQ(mesh_of(b).convex_edges[static_cast<std::size_t>(k)] & 1, 1);
}

void expect_rejected(std::vector<Vec3> v, Triangles t, const std::string& reason) {
    try {
        make_triangle_mesh(std::move(v), std::move(t));
        ADD_FAILURE() << "accepted: " << reason;
    } catch (const ShapeError& e) {
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
}

TEST(TriangleMesh, InvalidMeshesAreRejectedNamingTheTriangle) {
    const std::vector<Vec3> v{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2, 0, 0}};
    expect_rejected({}, {}, "needs vertices and triangles");
    expect_rejected(v, {}, "needs vertices and triangles");
    expect_rejected(v, {{0, 1, 2}, {0, 1, 7}}, "triangle 1 has vertex index 7 out of range");
    expect_rejected(v, {{0, 1, 2}, {1, 1, 2}}, "triangle 1 is degenerate");
    expect_rejected(v, {{0, 1, 2}, {0, 2, 1}, {0, 1, 3}}, "triangle 2 is degenerate");  // collinear
    expect_rejected({{0, 0, 0}, {1, 0, 0}, {0, std::nan(""), 0}}, {{0, 1, 2}}, "vertex 2 is not finite");
}

TEST(TriangleMesh, BvhQueriesMatchBruteForce) {
    const auto [v, t] = grid(40, [](double x, double y) { return std::sin(0.3 * x) * std::cos(0.2 * y); });
    const ShapePtr shape = make_triangle_mesh(v, t);
    const TriangleMesh& m = mesh_of(shape);
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> pos(-2, 42), size(0, 3);
    std::size_t mismatches = 0;
    for (int k = 0; k < 200; ++k) {
        const Vec3 c(pos(rng), pos(rng), pos(rng) / 20), h(size(rng), size(rng), size(rng) / 4);
        const Aabb q = Aabb::from_center_half(c, h);
        std::vector<std::uint32_t> got, expected;
        bvh_query(m.bvh, q, got);
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            Aabb b;
            for (std::uint32_t vi : t[i]) b.grow(v[vi]);
            if (b.overlaps(q)) expected.push_back(i);
        }
        std::sort(got.begin(), got.end());
        mismatches += got != expected;
    }
    EXPECT_EQ(mismatches, 0u);
}

}  // namespace
}  // namespace simpulse
