// The uniform cubic B-spline segment of a cable (SEEDS.md section 4, cable-rigid-collision.zh.txt): basis
// weights, position and derivatives from the power basis, and the seed's layer 1 box.
#include <simpulse/collision/cable_segment.h>

#include <algorithm>

namespace simpulse {

std::array<double, 4> cable_basis(double u) {
    const double v = 1 - u, u2 = u * u, u3 = u2 * u;
    return {v * v * v / 6, (3 * u3 - 6 * u2 + 4) / 6, (-3 * u3 + 3 * u2 + 3 * u + 1) / 6, u3 / 6};
}

std::array<Vec3, 4> cable_power_basis(const CableSegment& s) {
    const auto& p = s.control;
    return {(p[0] + 4 * p[1] + p[2]) / 6, (p[2] - p[0]) / 2, (p[0] - 2 * p[1] + p[2]) / 2,
            (-p[0] + 3 * p[1] - 3 * p[2] + p[3]) / 6};
}

Vec3 cable_point(const CableSegment& s, double u) {
    const std::array<double, 4> w = cable_basis(u);
    return w[0] * s.control[0] + w[1] * s.control[1] + w[2] * s.control[2] + w[3] * s.control[3];
}

Vec3 cable_derivative(const CableSegment& s, double u) {
    const std::array<Vec3, 4> c = cable_power_basis(s);
    return c[1] + u * (2 * c[2] + 3 * u * c[3]);
}

Vec3 cable_second_derivative(const CableSegment& s, double u) {
    const std::array<Vec3, 4> c = cable_power_basis(s);
    return 2 * c[2] + 6 * u * c[3];
}

double cable_second_derivative_bound(const CableSegment& s, double u0, double u1) {
    return std::max(cable_second_derivative(s, u0).norm(), cable_second_derivative(s, u1).norm());
}

double cable_speed_bound(const CableSegment& s) {
    const std::array<Vec3, 4> c = cable_power_basis(s);
    return c[1].norm() + 2 * c[2].norm() + 3 * c[3].norm();
}

Aabb cable_segment_aabb(const CableSegment& s) {
    Aabb box;
    for (const Vec3& p : s.control) box.grow(p);
    return box.inflated(s.radius);
}

CableSegment cable_chain_segment(const Vec3* before, const Vec3& from, const Vec3& to, const Vec3* after,
                                 double radius) {
    CableSegment s;
    s.control[0] = before ? *before : Vec3(2 * from - to);
    s.control[1] = from;
    s.control[2] = to;
    s.control[3] = after ? *after : Vec3(2 * to - from);
    s.radius = radius;
    return s;
}

}  // namespace simpulse
