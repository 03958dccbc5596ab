// Display tessellation of every shape type for the glTF export: closed forms for the primitives (spheres,
// boxes, capsules, cylinders, cones as latitude/longitude grids and fans), face fans for convex hulls, the
// triangles of meshes and the cells of height fields with flat normals, a large quad for a plane, and the
// children of a compound placed by their poses. Display only: collision uses the shapes themselves.
#include "gltf_mesh.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <type_traits>
#include <variant>

namespace simpulse::gltf_detail {
namespace {

struct Builder {
    DisplayMesh& mesh;

    std::uint32_t vertex(const Vec3& p, const Vec3& n) {
        const auto index = static_cast<std::uint32_t>(mesh.positions.size() / 3);
        const Vec3 unit = n.norm() > 0 ? Vec3(n.normalized()) : Vec3::UnitZ();
        for (int k = 0; k < 3; ++k) {
            mesh.positions.push_back(static_cast<float>(p[k]));
            mesh.normals.push_back(static_cast<float>(unit[k]));
        }
        return index;
    }
    void triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        mesh.indices.insert(mesh.indices.end(), {a, b, c});
    }
    // A flat triangle with its own three vertices and face normal.
    void flat_triangle(const Vec3& a, const Vec3& b, const Vec3& c) {
        const Vec3 n = (b - a).cross(c - a);
        const std::uint32_t i = vertex(a, n), j = vertex(b, n), k = vertex(c, n);
        triangle(i, j, k);
    }
};

// A surface of revolution about local z given by a profile of (radius, z, normal radius, normal z) points,
// bottom to top; consecutive profile points are joined by a band of quads.
struct ProfilePoint {
    double r, z, nr, nz;
};

void revolve(Builder& b, const std::vector<ProfilePoint>& profile, int segments) {
    const auto first = static_cast<std::uint32_t>(b.mesh.positions.size() / 3);
    const auto ring = static_cast<std::uint32_t>(segments + 1);
    for (const ProfilePoint& p : profile)
        for (int s = 0; s <= segments; ++s) {
            const double a = 2 * std::numbers::pi * s / segments;
            const double c = std::cos(a), d = std::sin(a);
            b.vertex({p.r * c, p.r * d, p.z}, {p.nr * c, p.nr * d, p.nz});
        }
    for (std::uint32_t i = 0; i + 1 < profile.size(); ++i)
        for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(segments); ++s) {
            const std::uint32_t v0 = first + i * ring + s, v1 = v0 + 1, v2 = v0 + ring, v3 = v2 + 1;
            b.triangle(v0, v1, v3);
            b.triangle(v0, v3, v2);
        }
}

// A flat disc at height z facing +z (up) or -z.
void disc(Builder& b, double radius, double z, bool up, int segments) {
    const Vec3 n(0, 0, up ? 1 : -1);
    const std::uint32_t centre = b.vertex({0, 0, z}, n);
    const std::uint32_t first = centre + 1;
    for (int s = 0; s <= segments; ++s) {
        const double a = 2 * std::numbers::pi * s / segments;
        b.vertex({radius * std::cos(a), radius * std::sin(a), z}, n);
    }
    for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(segments); ++s)
        up ? b.triangle(centre, first + s, first + s + 1) : b.triangle(centre, first + s + 1, first + s);
}

// A quarter-circle profile (a hemisphere's latitudes) from the pole down (cap below: from the equator down).
void hemisphere(std::vector<ProfilePoint>& profile, double radius, double z, bool top, int rings) {
    for (int i = 0; i <= rings; ++i) {
        // Latitude from -90 to 0 degrees for the bottom cap, 0 to 90 for the top one.
        const double lat = (top ? i : i - rings) * std::numbers::pi / 2 / rings;
        const double c = std::cos(lat), s = std::sin(lat);
        profile.push_back({radius * c, z + radius * s, c, s});
    }
}

void add_shape(Builder& b, const Shape& shape, double plane_half_size, int segments);

void add_geometry(Builder& b, const Sphere& s, double, int segments) {
    std::vector<ProfilePoint> profile;
    hemisphere(profile, s.radius, 0, false, segments / 4);
    profile.pop_back();
    hemisphere(profile, s.radius, 0, true, segments / 4);
    revolve(b, profile, segments);
}

void add_geometry(Builder& b, const Box& box, double, int) {
    const Vec3& h = box.half_extents;
    for (int axis = 0; axis < 3; ++axis)
        for (int sign : {-1, 1}) {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            Vec3 n = Vec3::Zero();
            n[axis] = sign;
            std::uint32_t corner[4];
            const double us[4] = {-1, 1, 1, -1}, vs[4] = {-1, -1, 1, 1};
            for (int k = 0; k < 4; ++k) {
                Vec3 p;
                p[axis] = sign * h[axis];
                p[u] = us[k] * h[u];
                p[v] = vs[k] * h[v] * sign;  // mirrored on the negative face: counter-clockwise from outside
                corner[k] = b.vertex(p, n);
            }
            b.triangle(corner[0], corner[1], corner[2]);
            b.triangle(corner[0], corner[2], corner[3]);
        }
}

void add_geometry(Builder& b, const Capsule& c, double, int segments) {
    std::vector<ProfilePoint> profile;
    hemisphere(profile, c.radius, -c.half_length, false, segments / 4);
    hemisphere(profile, c.radius, c.half_length, true, segments / 4);
    revolve(b, profile, segments);
}

void add_geometry(Builder& b, const Cylinder& c, double, int segments) {
    revolve(b, {{c.radius, -c.half_height, 1, 0}, {c.radius, c.half_height, 1, 0}}, segments);
    disc(b, c.radius, c.half_height, true, segments);
    disc(b, c.radius, -c.half_height, false, segments);
}

void add_geometry(Builder& b, const Cone& c, double, int segments) {
    // Side normal: perpendicular to the slant, (2h, r) normalised in the (radial, z) plane.
    const double h2 = 2 * c.half_height, len = std::hypot(h2, c.radius);
    const double nr = h2 / len, nz = c.radius / len;
    revolve(b, {{c.radius, -c.half_height, nr, nz}, {0, c.half_height, nr, nz}}, segments);
    disc(b, c.radius, -c.half_height, false, segments);
}

void add_geometry(Builder& b, const ConvexHull& hull, double, int) {
    for (const ConvexHull::Face& f : hull.faces) {
        const auto first = static_cast<std::uint32_t>(b.mesh.positions.size() / 3);
        for (std::uint32_t k = 0; k < f.count; ++k)
            b.vertex(hull.vertices[hull.face_vertices[f.first + k]], f.normal);
        for (std::uint32_t k = 1; k + 1 < f.count; ++k) b.triangle(first, first + k, first + k + 1);
    }
}

void add_geometry(Builder& b, const Plane& p, double half_size, int) {
    const Vec3 n = p.normal;
    const Vec3 centre = n * p.offset;
    const Vec3 u = n.unitOrthogonal(), v = n.cross(u);
    const std::uint32_t first = b.vertex(centre + half_size * (-u - v), n);
    b.vertex(centre + half_size * (u - v), n);
    b.vertex(centre + half_size * (u + v), n);
    b.vertex(centre + half_size * (-u + v), n);
    b.triangle(first, first + 1, first + 2);
    b.triangle(first, first + 2, first + 3);
}

void add_geometry(Builder& b, const Compound& c, double half_size, int segments) {
    for (const CompoundChild& child : c.children) {
        const std::size_t from = b.mesh.positions.size() / 3;
        add_shape(b, *child.shape, half_size, segments);
        for (std::size_t i = from; i < b.mesh.positions.size() / 3; ++i) {
            float* p = &b.mesh.positions[3 * i];
            float* n = &b.mesh.normals[3 * i];
            // The mesh stores floats; the pose is applied in double (an explicit, exact widening).
            const Vec3 moved = child.pose.transform_point(Eigen::Vector3f(p[0], p[1], p[2]).cast<double>());
            const Vec3 turned = child.pose.rotate(Eigen::Vector3f(n[0], n[1], n[2]).cast<double>());
            for (int k = 0; k < 3; ++k) {
                p[k] = static_cast<float>(moved[k]);
                n[k] = static_cast<float>(turned[k]);
            }
        }
    }
}

// A prism is drawn as its convex parts extruded (the compound its queries use): with the default quality
// threshold 0 they tile the polygon exactly.
void add_geometry(Builder& b, const Prism& p, double half_size, int segments) {
    add_geometry(b, std::get<Compound>(p.hulls->geometry), half_size, segments);
}

void add_geometry(Builder& b, const TriangleMesh& m, double, int) {
    for (const auto& t : m.triangles) b.flat_triangle(m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]]);
}

void add_geometry(Builder& b, const HeightField& h, double, int) {
    auto point = [&](int i, int j) {
        return Vec3(h.origin.x() + j * h.spacing.x(), h.origin.y() + i * h.spacing.y(), h.height(i, j));
    };
    // Shared vertices with averaged normals: a terrain looks smooth rather than faceted.
    const auto first = static_cast<std::uint32_t>(b.mesh.positions.size() / 3);
    for (int i = 0; i < h.rows; ++i)
        for (int j = 0; j < h.columns; ++j) {
            const Vec3 dx = point(i, std::min(j + 1, h.columns - 1)) - point(i, std::max(j - 1, 0));
            const Vec3 dy = point(std::min(i + 1, h.rows - 1), j) - point(std::max(i - 1, 0), j);
            b.vertex(point(i, j), dx.cross(dy));
        }
    const auto cols = static_cast<std::uint32_t>(h.columns);
    for (std::uint32_t i = 0; i + 1 < static_cast<std::uint32_t>(h.rows); ++i)
        for (std::uint32_t j = 0; j + 1 < cols; ++j) {
            const std::uint32_t v0 = first + i * cols + j, v1 = v0 + 1, v2 = v0 + cols, v3 = v2 + 1;
            b.triangle(v0, v1, v3);
            b.triangle(v0, v3, v2);
        }
}

void add_shape(Builder& b, const Shape& shape, double plane_half_size, int segments) {
    std::visit([&](const auto& g) { add_geometry(b, g, plane_half_size, segments); }, shape.geometry);
}

}  // namespace

DisplayMesh tessellate(const Shape& shape, double plane_half_size, int segments) {
    DisplayMesh mesh;
    Builder b{mesh};
    add_shape(b, shape, plane_half_size, std::max(segments, 8));
    return mesh;
}

}  // namespace simpulse::gltf_detail
