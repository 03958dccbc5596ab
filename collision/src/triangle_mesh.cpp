// make_triangle_mesh: validation, per-triangle normals, convex-edge flags and the BVH of a static mesh.
// The edge flags follow the "internal edge" idea of Bullet's btInternalEdgeUtility and Jolt's active edges
// (Rouwe, Jolt Physics, MeshShape "active edges"): an edge shared with a coplanar or concave neighbour can
// never be the first feature a convex body touches from outside, so contacts there must use the face normal;
// only convex and boundary edges may produce edge normals. This removes ghost collisions on triangulated
// floors. Edges are paired by position, not by vertex index: coincident vertices are welded for the pairing
// (a triangle soup read from STL lists each triangle's own three vertices), the vertex and triangle arrays
// themselves are kept as given.
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/shape.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>

namespace simpulse {
namespace {

// Dihedral deviation below which an edge is flat. Far above the normal noise of float-exported meshes
// (~1e-7 / aspect ratio) and below any modelled crease (a 64-sided tessellated cylinder bends 0.1 rad per
// edge).
constexpr double kFlatEdgeAngle = 1e-3;

// A triangle whose height is below 1e-10 of its longest edge has no usable normal (the rounding error of the
// cross product, eps / (height / length), would exceed 1e-6 rad): it is rejected as degenerate.
constexpr double kMinRelativeHeight = 1e-10;

// Vertices closer than this, relative to the mesh's largest absolute coordinate, are one vertex for the edge
// pairing. Copies of one vertex are bitwise equal when a file lists it per triangle (STL); coordinates
// computed twice in double differ by a few rounding errors (1e-16 relative each), which this covers by seven
// orders of magnitude while merging nothing a contact could resolve (1 mm only at a coordinate of 1,000 km).
// Float-precision copies (1e-7 relative) are not welded: that tolerance would merge the vertices of small
// triangles far from the origin.
constexpr double kWeldRelative = 1e-9;

// Per vertex, the smallest index of the vertices within `tolerance` of it (max-norm; transitively). Vertices
// are sorted by cells of 64 tolerances centred on multiples of the cell size (so the many vertices at z = 0
// of a flat mesh lie mid-cell); a vertex is compared with the earlier vertices of its cell until one is
// within the tolerance (exact copies: one comparison) and, only when it lies within the tolerance of a cell
// face (about 3 / 32 of the vertices), with those of the adjacent cells on that side.
std::vector<std::uint32_t> weld_vertices(const std::vector<Vec3>& vertices, double tolerance) {
    const auto n = static_cast<std::uint32_t>(vertices.size());
    std::vector<std::uint32_t> parent(n);
    for (std::uint32_t i = 0; i < n; ++i) parent[i] = i;
    auto find = [&](std::uint32_t i) {
        while (parent[i] != i) i = parent[i] = parent[parent[i]];
        return i;
    };
    auto unite = [&](std::uint32_t a, std::uint32_t b) {
        a = find(a), b = find(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    };
    if (!(tolerance > 0)) tolerance = std::numeric_limits<double>::min();
    const double cell = 64 * tolerance;
    using Key = std::array<std::int64_t, 3>;
    std::vector<std::pair<Key, std::uint32_t>> sorted(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        Key k;
        for (int a = 0; a < 3; ++a)
            k[static_cast<std::size_t>(a)] =
                static_cast<std::int64_t>(std::floor(vertices[i][a] / cell + 0.5));
        sorted[i] = {k, i};
    }
    std::sort(sorted.begin(), sorted.end());
    auto near = [&](std::uint32_t i, std::uint32_t j) {
        return (vertices[i] - vertices[j]).cwiseAbs().maxCoeff() <= tolerance;
    };
    for (std::size_t first = 0; first < n;) {
        std::size_t end = first;
        while (end < n && sorted[end].first == sorted[first].first) ++end;
        for (std::size_t s = first; s < end; ++s) {
            const std::uint32_t i = sorted[s].second;
            for (std::size_t r = first; r < s; ++r)
                if (near(i, sorted[r].second)) {
                    unite(i, sorted[r].second);
                    break;
                }
            const Key& k = sorted[s].first;
            Key side;  // per axis, the adjacent cell within the tolerance (-1, +1) or none (0)
            for (int a = 0; a < 3; ++a) {
                const auto ua = static_cast<std::size_t>(a);
                const double p = vertices[i][a], centre = static_cast<double>(k[ua]) * cell;
                side[ua] = p - tolerance < centre - 0.5 * cell    ? -1
                           : p + tolerance >= centre + 0.5 * cell ? 1
                                                                  : 0;
            }
            for (int corner = 1; corner < 8; ++corner) {
                Key probe = k;
                bool skip = false;
                for (int a = 0; a < 3; ++a)
                    if (corner >> a & 1) {
                        skip = skip || side[static_cast<std::size_t>(a)] == 0;
                        probe[static_cast<std::size_t>(a)] += side[static_cast<std::size_t>(a)];
                    }
                if (skip) continue;
                auto it = std::lower_bound(sorted.begin(), sorted.end(), std::pair{probe, std::uint32_t{0}});
                for (; it != sorted.end() && it->first == probe; ++it)
                    if (near(i, it->second)) {
                        unite(i, it->second);
                        break;
                    }
            }
        }
        first = end;
    }
    for (std::uint32_t i = 0; i < n; ++i) parent[i] = find(i);
    return parent;
}

struct HalfEdge {
    std::uint32_t lo, hi;  // sorted vertex indices
    std::uint32_t triangle;
    std::uint8_t edge;  // 0..2: vertices edge -> edge + 1
    bool forward;       // lo -> hi in the triangle's winding
};

}  // namespace

ShapePtr make_triangle_mesh(std::vector<Vec3> vertices, std::vector<std::array<std::uint32_t, 3>> triangles) {
    if (vertices.empty() || triangles.empty()) throw ShapeError("triangle mesh needs vertices and triangles");
    if (triangles.size() > std::numeric_limits<std::uint32_t>::max() / 4)
        throw ShapeError("triangle mesh: too many triangles (" + std::to_string(triangles.size()) + ")");
    for (std::size_t i = 0; i < vertices.size(); ++i)
        if (!vertices[i].allFinite())
            throw ShapeError("triangle mesh: vertex " + std::to_string(i) + " is not finite");

    TriangleMesh mesh;
    mesh.normals.resize(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t) {
        const auto& tri = triangles[t];
        for (std::uint32_t v : tri)
            if (v >= vertices.size())
                throw ShapeError("triangle mesh: triangle " + std::to_string(t) + " has vertex index " +
                                 std::to_string(v) + " out of range (" + std::to_string(vertices.size()) +
                                 " vertices)");
        // Normal from the two edges at the corner opposite the longest edge (largest angle, best
        // conditioned).
        const std::array<Vec3, 3> p{vertices[tri[0]], vertices[tri[1]], vertices[tri[2]]};
        int longest = 0;
        double longest_sq = -1;
        for (int i = 0; i < 3; ++i) {
            const double l =
                (p[static_cast<std::size_t>((i + 1) % 3)] - p[static_cast<std::size_t>(i)]).squaredNorm();
            if (l > longest_sq) longest_sq = l, longest = i;
        }
        const auto apex = static_cast<std::size_t>((longest + 2) % 3);
        const Vec3 n = (p[(apex + 1) % 3] - p[apex]).cross(p[(apex + 2) % 3] - p[apex]);
        // |n| = height * longest edge.
        if (!(n.norm() > kMinRelativeHeight * longest_sq))
            throw ShapeError("triangle mesh: triangle " + std::to_string(t) + " is degenerate (zero area)");
        mesh.normals[t] = n.normalized();
    }

    // Pair each edge with the triangle on its other side: both windings agree when the neighbour has the edge
    // reversed. Boundary, non-manifold (three or more triangles) and inconsistently wound edges stay convex,
    // the conservative choice: they may produce edge normals.
    // Vertices are compared by position (welded), so a triangle soup pairs its edges like an indexed mesh; an
    // edge whose two ends weld into one (shorter than the tolerance) pairs with nothing and stays convex.
    double scale = 0;
    for (const Vec3& v : vertices) scale = std::max(scale, v.cwiseAbs().maxCoeff());
    const std::vector<std::uint32_t> welded = weld_vertices(vertices, kWeldRelative * scale);
    std::vector<HalfEdge> half_edges;
    half_edges.reserve(3 * triangles.size());
    for (std::uint32_t t = 0; t < triangles.size(); ++t)
        for (std::uint8_t i = 0; i < 3; ++i) {
            const std::uint32_t a = welded[triangles[t][i]], b = welded[triangles[t][(i + 1) % 3]];
            if (a != b) half_edges.push_back({std::min(a, b), std::max(a, b), t, i, a < b});
        }
    std::sort(half_edges.begin(), half_edges.end(), [](const HalfEdge& x, const HalfEdge& y) {
        return std::tie(x.lo, x.hi, x.triangle, x.edge) < std::tie(y.lo, y.hi, y.triangle, y.edge);
    });
    mesh.convex_edges.assign(triangles.size(), 0b111);
    const double cos_flat = std::cos(kFlatEdgeAngle);
    for (std::size_t k = 0; k < half_edges.size();) {
        std::size_t end = k;
        while (end < half_edges.size() && half_edges[end].lo == half_edges[k].lo &&
               half_edges[end].hi == half_edges[k].hi)
            ++end;
        if (end - k == 2 && half_edges[k].forward != half_edges[k + 1].forward) {
            const HalfEdge& e = half_edges[k];
            const HalfEdge& f = half_edges[k + 1];
            const Vec3& nt = mesh.normals[e.triangle];
            const Vec3& nn = mesh.normals[f.triangle];
            // Edge direction as wound in e's triangle; the dihedral is convex when (nt x nn) points along it
            // (the neighbour bends away below e's plane). The test is antisymmetric in the two triangles, so
            // both get the same verdict.
            const Vec3 dir =
                e.forward ? Vec3(vertices[e.hi] - vertices[e.lo]) : Vec3(vertices[e.lo] - vertices[e.hi]);
            const Vec3 c = nt.cross(nn);
            const bool flat = nt.dot(nn) >= cos_flat;
            const bool convex = !flat && c.dot(dir) > 0;
            if (!convex) {
                mesh.convex_edges[e.triangle] &= static_cast<std::uint8_t>(~(1u << e.edge));
                mesh.convex_edges[f.triangle] &= static_cast<std::uint8_t>(~(1u << f.edge));
            }
        }
        k = end;
    }

    std::vector<Aabb> boxes(triangles.size());
    for (std::size_t t = 0; t < triangles.size(); ++t)
        for (std::uint32_t v : triangles[t]) boxes[t].grow(vertices[v]);
    mesh.bvh = build_bvh(boxes);
    mesh.vertices = std::move(vertices);
    mesh.triangles = std::move(triangles);
    return std::make_shared<const Shape>(Shape{std::move(mesh)});
}

}  // namespace simpulse
