// Time of impact by conservative advancement (Mirtich 1996, PhD thesis; Catto, "Continuous Collision", GDC
// 2013): see time_of_impact.h. Everything runs in the target's frame. The separation of each convex part of
// the target from the moving shape comes from GJK on the cores (gjk.h; the mesh triangles' GJK of
// mesh_contacts.h), a plane's in closed form.
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/gjk.h>
#include <simpulse/collision/mesh_contacts.h>
#include <simpulse/collision/support.h>
#include <simpulse/collision/time_of_impact.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Separation {
    double distance = kInfinity;
    Vec3 normal = Vec3::UnitZ();  // from the moving shape to the target
};

// Separation of the convex `a` from one convex part of the target; `part` maps a convex view to its
// separation.
template <class Part>
Separation moving_separation(const Shape& moving, const Pose& pose, Part&& part) {
    if (const auto* compound = std::get_if<Compound>(&moving.geometry)) {
        Separation best;
        for (const CompoundChild& child : compound->children) {
            const Separation d = part(ConvexSupport(*child.shape, pose * child.pose));
            if (d.distance < best.distance) best = d;
        }
        return best;
    }
    return part(ConvexSupport(moving, pose));
}

// Conservative advancement of `sweep` (target frame) against one convex part of the target, from s = 0 up to
// s_max. `separation(pose)` measures the part's separation from the moving shape at a pose.
template <class Separate>
ToiResult advance(const Sweep& sweep, double radius, const ToiSettings& settings, double s_max,
                  Separate&& separation) {
    const Vec3 linear = sweep.c1 - sweep.c0;
    const double angular = sweep.rotation().norm() * radius;
    ToiResult r;
    double s = 0;
    for (int iteration = 0; iteration < settings.max_iterations; ++iteration) {
        const Separation d = separation(sweep.pose(s));
        ++r.iterations;
        if (!(d.distance > settings.target + settings.tolerance)) {
            r.state = s > 0 ? ToiResult::State::hit : ToiResult::State::touching;
            r.s = s;
            r.normal = d.normal;
            return r;
        }
        // Bound on how fast any point of the moving shape approaches the target along n, per unit s.
        const double approach = linear.dot(d.normal) + angular;
        if (!(approach > 0)) return r;
        s += (d.distance - settings.target) / approach;
        if (!(s < s_max)) return r;
        r.normal = d.normal;
    }
    // Out of iterations: the last time is still safe (separated by at least the target).
    r.state = ToiResult::State::hit;
    r.s = s;
    return r;
}

// Point of the moving shape at `pose` deepest along -n (the support point of -n; for a compound, its
// children's deepest).
Vec3 deepest_point(const Shape& moving, const Pose& pose, const Vec3& n) {
    if (const auto* compound = std::get_if<Compound>(&moving.geometry)) {
        Vec3 best = Vec3::Zero();
        double lowest = kInfinity;
        for (const CompoundChild& child : compound->children) {
            const Vec3 x = ConvexSupport(*child.shape, pose * child.pose).support(-n);
            if (n.dot(x) < lowest) lowest = n.dot(x), best = x;
        }
        return best;
    }
    return ConvexSupport(moving, pose).support(-n);
}

// A shape that already touches a face at s = 0 (a tumbling plate on one corner) is within the target of it
// from the start, so conservative advancement stops at once, while another of its corners can swing through
// the face within the step. Along the face normal n (plane n . x = offset) it may then go no deeper behind
// the plane than `stop`: the first time its deepest point reaches that level is found as in the
// separating-axis root finder of Catto (GDC 2013, "Continuous Collision"; b2TimeOfImpact): the deepest point
// at the end of the interval, the root of its separation (bisection), then again with the deepest point at
// that root, until the deepest point there is at the level. Returns s_max when the shape stays above it.
double face_sweep(const Shape& moving, const Sweep& sweep, const Vec3& n, double offset, double stop,
                  double tolerance, double s_max, int& iterations) {
    double end = s_max;
    for (int push = 0; push < 16; ++push) {
        const Pose pose = sweep.pose(end);
        const Vec3 local = pose.inverse_transform_point(deepest_point(moving, pose, n));
        ++iterations;
        auto separation = [&](double s) { return n.dot(sweep.pose(s).transform_point(local)) - offset; };
        if (separation(end) > stop - tolerance) return end;
        double lo = 0, hi = end;  // separation(lo) > stop >= separation(hi)
        if (!(separation(lo) > stop)) return 0;
        for (int i = 0; i < 60; ++i) {
            const double mid = 0.5 * (lo + hi);
            const double g = separation(mid);
            ++iterations;
            if (g > stop) {
                lo = mid;
                if (g - stop <= tolerance) break;
            } else {
                hi = mid;
            }
        }
        end = lo;
    }
    return end;
}

Separation convex_separation(const ConvexSupport& a, const ConvexSupport& b) {
    const GjkResult g = gjk(a.core(), b.core());
    if (g.intersecting) return {-a.radius - b.radius, g.normal};
    return {g.distance - a.radius - b.radius, g.normal};
}

Separation triangle_separation(const ConvexSupport& a, const MeshTriangle& t) {
    const CoreDistance d = core_triangle_distance(a.core(), t);
    if (d.intersecting || !(d.distance > 0)) return {-a.radius, -t.normal};
    return {d.distance - a.radius, (d.on_triangle - d.on_convex) / d.distance};
}

// Keeps the earlier of two results for the parts of one target: a hit before the best so far wins; touching
// is kept only while nothing is hit.
void merge(ToiResult& best, const ToiResult& r) {
    best.iterations += r.iterations;
    if (r.state == ToiResult::State::hit && (best.state != ToiResult::State::hit || r.s < best.s)) {
        best.state = r.state;
        best.s = r.s;
        best.normal = r.normal;
    } else if (r.state == ToiResult::State::touching && best.state == ToiResult::State::separated) {
        best.state = r.state;
        best.normal = r.normal;
    }
}

}  // namespace

Pose Sweep::pose(double s) const {
    const Vec3 phi = rotation();
    const double angle = phi.norm();
    const Quat q = angle > 0 ? (Eigen::AngleAxisd(s * angle, phi / angle) * q0).normalized() : q0;
    return {c0 + s * (c1 - c0) - q * local_center, q};
}

Vec3 Sweep::rotation() const {
    Quat d = q1 * q0.conjugate();
    if (d.w() < 0) d.coeffs() = -d.coeffs();
    const double sine = d.vec().norm();
    if (!(sine > 0)) return Vec3::Zero();
    return d.vec() * (2 * std::atan2(sine, d.w()) / sine);
}

ToiResult time_of_impact(const Shape& moving, const Sweep& sweep, double radius, const Shape& target,
                         const Pose& target_pose, const ToiSettings& settings, double s_max) {
    if (std::holds_alternative<Prism>(moving.geometry) || std::holds_alternative<Prism>(target.geometry))
        return time_of_impact(query_geometry(moving), sweep, radius, query_geometry(target), target_pose,
                              settings, s_max);
    const Quat to_local = target_pose.orientation.conjugate();
    Sweep local = sweep;
    local.c0 = target_pose.inverse_transform_point(sweep.c0);
    local.c1 = target_pose.inverse_transform_point(sweep.c1);
    local.q0 = to_local * sweep.q0;
    local.q1 = to_local * sweep.q1;
    // Every point of the moving shape stays within `radius` of the centre's path.
    Aabb swept;
    swept.grow(local.c0);
    swept.grow(local.c1);
    swept = swept.inflated(radius + settings.target + settings.tolerance);

    ToiResult best;
    auto run_convex = [&](const Shape& part, const Pose& part_pose) {
        const ConvexSupport b(part, part_pose);
        merge(best, advance(local, radius, settings, std::min(s_max, best.s), [&](const Pose& pose) {
                  return moving_separation(moving, pose,
                                           [&](const ConvexSupport& a) { return convex_separation(a, b); });
              }));
    };
    // A face the shape touches at s = 0: it may not sink behind the face's plane deeper than it is (by more
    // than the target), at a point over the face (`over`).
    auto run_face = [&](ToiResult& r, const Vec3& n, double offset, auto&& over) {
        const double start = n.dot(deepest_point(moving, local.pose(0), n)) - offset;
        const double stop = std::min(start, settings.target) - settings.target;
        const double limit = std::min(s_max, best.s);
        const double s = face_sweep(moving, local, n, offset, stop, settings.tolerance, limit, r.iterations);
        if (s > 0 && s < limit && over(deepest_point(moving, local.pose(s), n))) {
            r.state = ToiResult::State::hit;
            r.s = s;
            r.normal = -n;
        }
    };
    auto run_triangle = [&](const MeshTriangle& t) {
        if (t.normal.dot(local.c0 - t.v[0]) < 0) return;  // starts behind it: one-sided, as its contacts
        if (t.normal.dot(local.c0 - local.c1) < settings.face_approach) return;
        ToiResult r = advance(local, radius, settings, std::min(s_max, best.s), [&](const Pose& pose) {
            return moving_separation(moving, pose,
                                     [&](const ConvexSupport& a) { return triangle_separation(a, t); });
        });
        if (r.state == ToiResult::State::touching)
            run_face(r, t.normal, t.normal.dot(t.v[0]),
                     [&](const Vec3& x) { return inside_triangle_prism(t, x); });
        merge(best, r);
    };
    switch (target.type()) {
        case ShapeType::plane: {
            const Plane& plane = std::get<Plane>(target.geometry);
            ToiResult r = advance(local, radius, settings, s_max, [&](const Pose& pose) {
                return moving_separation(moving, pose, [&](const ConvexSupport& a) {
                    return Separation{plane.normal.dot(a.support(-plane.normal)) - plane.offset,
                                      -plane.normal};
                });
            });
            if (r.state == ToiResult::State::touching)
                run_face(r, plane.normal, plane.offset, [](const Vec3&) { return true; });
            merge(best, r);
            break;
        }
        case ShapeType::compound: {
            const Compound& compound = std::get<Compound>(target.geometry);
            bvh_query(compound.bvh, swept, [&](std::uint32_t i) {
                run_convex(*compound.children[i].shape, compound.children[i].pose);
            });
            break;
        }
        case ShapeType::triangle_mesh: {
            const TriangleMesh& mesh = std::get<TriangleMesh>(target.geometry);
            bvh_query(mesh.bvh, swept, [&](std::uint32_t i) { run_triangle(mesh_triangle(mesh, i)); });
            break;
        }
        case ShapeType::height_field:
            for_each_height_field_triangle(std::get<HeightField>(target.geometry), swept, run_triangle);
            break;
        default:
            run_convex(target, Pose{});
    }
    best.normal = target_pose.rotate(best.normal);
    return best;
}

double smallest_extent(const Shape& shape) {
    return std::visit(
        [](const auto& g) -> double {
            using T = std::decay_t<decltype(g)>;
            if constexpr (std::is_same_v<T, Sphere>) {
                return 2 * g.radius;
            } else if constexpr (std::is_same_v<T, Box>) {
                return 2 * g.half_extents.minCoeff();
            } else if constexpr (std::is_same_v<T, Capsule>) {
                return 2 * g.radius;
            } else if constexpr (std::is_same_v<T, Cylinder> || std::is_same_v<T, Cone>) {
                return 2 * std::min(g.radius, g.half_height);
            } else if constexpr (std::is_same_v<T, ConvexHull>) {
                double width = kInfinity;
                for (const ConvexHull::Face& f : g.faces) {
                    double lowest = kInfinity;
                    for (const Vec3& v : g.vertices) lowest = std::min(lowest, f.normal.dot(v));
                    width = std::min(width, f.offset - lowest);
                }
                return width;
            } else if constexpr (std::is_same_v<T, Prism>) {
                return smallest_extent(*g.hulls);
            } else if constexpr (std::is_same_v<T, Compound>) {
                double width = kInfinity;
                for (const CompoundChild& c : g.children) width = std::min(width, smallest_extent(*c.shape));
                return width;
            } else {
                return kInfinity;
            }
        },
        shape.geometry);
}

}  // namespace simpulse
