// Mass properties of every shape type: closed forms for primitives, signed tetrahedra (covariance of the
// canonical tetrahedron, Blow & Binstock 2004) for meshes and hulls, parallel-axis sums for compounds,
// exact polygon moments for prisms.
#include <simpulse/collision/number_text.h>
#include <simpulse/dynamics/mass_properties.h>

#include <cmath>
#include <numbers>
#include <string>

namespace simpulse {
namespace {

constexpr double kPi = std::numbers::pi;

MassProperties diagonal(double mass, double volume, const Vec3& com, double ixx, double iyy, double izz) {
    MassProperties p;
    p.mass = mass;
    p.volume = volume;
    p.center_of_mass = com;
    p.inertia = Vec3(ixx, iyy, izz).asDiagonal();
    return p;
}

MassProperties sphere(const Sphere& s, double rho) {
    const double v = 4.0 / 3.0 * kPi * s.radius * s.radius * s.radius;
    const double m = rho * v, i = 0.4 * m * s.radius * s.radius;
    return diagonal(m, v, Vec3::Zero(), i, i, i);
}

MassProperties box(const Box& b, double rho) {
    const Vec3 h = b.half_extents;
    const double v = 8.0 * h.x() * h.y() * h.z(), m = rho * v;
    const Vec3 h2 = h.cwiseProduct(h);
    return diagonal(m, v, Vec3::Zero(), m * (h2.y() + h2.z()) / 3.0, m * (h2.x() + h2.z()) / 3.0,
                    m * (h2.x() + h2.y()) / 3.0);
}

MassProperties cylinder(const Cylinder& c, double rho) {
    const double r2 = c.radius * c.radius, h = 2.0 * c.half_height;
    const double v = kPi * r2 * h, m = rho * v;
    const double ixx = m * (3.0 * r2 + h * h) / 12.0;
    return diagonal(m, v, Vec3::Zero(), ixx, ixx, 0.5 * m * r2);
}

MassProperties cone(const Cone& c, double rho) {
    const double r2 = c.radius * c.radius, h = 2.0 * c.half_height;
    const double v = kPi * r2 * h / 3.0, m = rho * v;
    // The centre of mass lies a quarter of the height above the base; the base is at -h/2.
    const double ixx = m * (3.0 / 20.0 * r2 + 3.0 / 80.0 * h * h);
    return diagonal(m, v, Vec3(0, 0, -0.25 * h), ixx, ixx, 0.3 * m * r2);
}

MassProperties capsule(const Capsule& c, double rho) {
    const double r = c.radius, r2 = r * r, len = 2.0 * c.half_length;
    const double v_cyl = kPi * r2 * len, v_hemi = 2.0 / 3.0 * kPi * r2 * r;
    const double m_cyl = rho * v_cyl, m_hemi = rho * v_hemi;
    const double izz = 0.5 * m_cyl * r2 + 2.0 * 0.4 * m_hemi * r2;
    // Each hemisphere about the capsule centre: 2/5 m r^2 about its flat face, shifted by the centre distance
    // L/2 + 3r/8 of its centroid; the cross terms simplify to 2 m_h (2r^2/5 + L^2/4 + 3Lr/8).
    const double ixx = m_cyl * (3.0 * r2 + len * len) / 12.0 +
                       2.0 * m_hemi * (0.4 * r2 + 0.25 * len * len + 0.375 * len * r);
    return diagonal(m_cyl + 2.0 * m_hemi, v_cyl + 2.0 * v_hemi, Vec3::Zero(), ixx, ixx, izz);
}

MassProperties hull(const ConvexHull& h, double rho) {
    // Fan-triangulate every face loop; the loops are counter-clockwise seen from outside.
    std::vector<std::array<std::uint32_t, 3>> triangles;
    for (const auto& f : h.faces)
        for (std::uint32_t k = 1; k + 1 < f.count; ++k)
            triangles.push_back(
                {h.face_vertices[f.first], h.face_vertices[f.first + k], h.face_vertices[f.first + k + 1]});
    return mesh_mass_properties(h.vertices, triangles, rho);
}

MassProperties compound(const Compound& c, double rho) {
    MassProperties total;
    Vec3 first_moment = Vec3::Zero();
    std::vector<MassProperties> parts;
    parts.reserve(c.children.size());
    for (const auto& child : c.children) {
        MassProperties p = compute_mass_properties(*child.shape, rho);
        const Mat3 r = child.pose.orientation.toRotationMatrix();
        p.center_of_mass = child.pose.transform_point(p.center_of_mass);
        p.inertia = r * p.inertia * r.transpose();
        total.mass += p.mass;
        total.volume += p.volume;
        first_moment += p.mass * p.center_of_mass;
        parts.push_back(p);
    }
    total.center_of_mass = first_moment / total.mass;
    for (const auto& p : parts) {
        const Vec3 d = p.center_of_mass - total.center_of_mass;
        total.inertia += p.inertia + p.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    return total;
}

// Extruded polygon with holes (SEEDS.md section 5): exact area moments of the region (polygon_moments), so
// with thickness t = 2h: m = rho A t, I_xx = rho t S_yy + m t^2 / 12, I_yy = rho t S_xx + m t^2 / 12,
// I_zz = rho t (S_xx + S_yy), I_xy = -rho t S_xy, centre of mass at the area centroid (z = 0).
MassProperties prism(const Prism& p, double rho) {
    const PolygonMoments& mo = p.moments;
    const double t = 2 * p.half_thickness, v = mo.area * t, m = rho * v;
    MassProperties r;
    r.mass = m;
    r.volume = v;
    r.center_of_mass = Vec3(mo.centroid.x(), mo.centroid.y(), 0);
    const double slab = m * t * t / 12;
    r.inertia << rho * t * mo.syy + slab, -rho * t * mo.sxy, 0, -rho * t * mo.sxy, rho * t * mo.sxx + slab, 0,
        0, 0, rho * t * (mo.sxx + mo.syy);
    return r;
}

}  // namespace

MassProperties mesh_mass_properties(std::span<const Vec3> vertices,
                                    std::span<const std::array<std::uint32_t, 3>> triangles, double density) {
    if (!(density > 0)) throw ShapeError("density must be positive");
    if (vertices.empty() || triangles.empty()) throw ShapeError("mesh has no triangles");
    Vec3 ref = Vec3::Zero();
    for (const Vec3& v : vertices) ref += v;
    ref /= static_cast<double>(vertices.size());

    // Covariance of the canonical tetrahedron (0, e1, e2, e3), integral of x x^T over it.
    Mat3 canonical;
    canonical << 2, 1, 1, 1, 2, 1, 1, 1, 2;
    canonical /= 120.0;
    double volume = 0;
    Vec3 first_moment = Vec3::Zero();
    Mat3 covariance = Mat3::Zero();
    for (const auto& t : triangles) {
        Mat3 a;  // columns: the tetrahedron's edge vectors from the reference point
        a.col(0) = vertices[t[0]] - ref;
        a.col(1) = vertices[t[1]] - ref;
        a.col(2) = vertices[t[2]] - ref;
        const double det = a.determinant();  // 6 x signed volume
        volume += det / 6.0;
        first_moment += det / 24.0 * (a.col(0) + a.col(1) + a.col(2));
        covariance += det * a * canonical * a.transpose();
    }
    if (!(volume > 0))
        throw ShapeError("mesh encloses no positive volume (open, inverted or degenerate): volume " +
                         number_text(volume));
    const Vec3 c = first_moment / volume;  // centroid relative to ref
    // Move the covariance (about ref) to the centroid, then I = tr(C) E - C.
    const Mat3 cov_c = density * (covariance - volume * c * c.transpose());
    MassProperties p;
    p.volume = volume;
    p.mass = density * volume;
    p.center_of_mass = ref + c;
    p.inertia = cov_c.trace() * Mat3::Identity() - cov_c;
    return p;
}

MassProperties compute_mass_properties(const Shape& shape, double density) {
    if (!(density > 0) || !std::isfinite(density))
        throw ShapeError("density must be a positive finite number");
    switch (shape.type()) {
        case ShapeType::sphere:
            return sphere(std::get<Sphere>(shape.geometry), density);
        case ShapeType::box:
            return box(std::get<Box>(shape.geometry), density);
        case ShapeType::capsule:
            return capsule(std::get<Capsule>(shape.geometry), density);
        case ShapeType::cylinder:
            return cylinder(std::get<Cylinder>(shape.geometry), density);
        case ShapeType::cone:
            return cone(std::get<Cone>(shape.geometry), density);
        case ShapeType::convex_hull:
            return hull(std::get<ConvexHull>(shape.geometry), density);
        case ShapeType::compound:
            return compound(std::get<Compound>(shape.geometry), density);
        case ShapeType::prism:
            return prism(std::get<Prism>(shape.geometry), density);
        case ShapeType::triangle_mesh: {
            const auto& m = std::get<TriangleMesh>(shape.geometry);
            return mesh_mass_properties(m.vertices, m.triangles, density);
        }
        case ShapeType::plane:
        case ShapeType::height_field:
            break;
    }
    throw ShapeError(std::string(shape_type_name(shape.type())) + " has no volume: it can only be static");
}

MassProperties with_mass(const MassProperties& properties, double mass) {
    MassProperties p = properties;
    const double s = mass / properties.mass;
    p.mass = mass;
    p.inertia *= s;
    return p;
}

Mat3 inertia_about(const MassProperties& properties, const Vec3& p) {
    const Vec3 d = p - properties.center_of_mass;
    return properties.inertia + properties.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
}

}  // namespace simpulse
