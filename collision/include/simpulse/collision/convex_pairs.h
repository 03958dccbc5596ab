// Exact contact manifolds of the convex pairs that have a closed form: a sphere against a sphere, box,
// capsule, cylinder or cone (one point: the closest points, or the shallowest exit when the centre is
// inside), a sphere against a convex hull (GJK on the centre, EPA inside), and capsule against capsule
// (closest points of the two segments, two points when they lie parallel). Each function writes one manifold
// with the normal from its first shape to its second and returns 1, or returns 0 when the shapes are farther
// apart than the margin.
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/collision/shape.h>

namespace simpulse {

int collide_sphere_sphere(const Sphere& a, const Pose& pose_a, const Sphere& b, const Pose& pose_b,
                          const CollideSettings& settings, Manifold& out);
int collide_sphere_box(const Sphere& a, const Pose& pose_a, const Box& b, const Pose& pose_b,
                       const CollideSettings& settings, Manifold& out);
int collide_sphere_capsule(const Sphere& a, const Pose& pose_a, const Capsule& b, const Pose& pose_b,
                           const CollideSettings& settings, Manifold& out);
// Cylinder and cone are solids of revolution: the problem reduces to a point against their half cross-section
// (a rectangle, a right triangle) in the plane through the axis and the sphere's centre.
int collide_sphere_cylinder(const Sphere& a, const Pose& pose_a, const Cylinder& b, const Pose& pose_b,
                            const CollideSettings& settings, Manifold& out);
int collide_sphere_cone(const Sphere& a, const Pose& pose_a, const Cone& b, const Pose& pose_b,
                        const CollideSettings& settings, Manifold& out);
int collide_sphere_hull(const Shape& sphere, const Pose& pose_a, const Shape& hull, const Pose& pose_b,
                        const CollideSettings& settings, Manifold& out);
int collide_capsule_capsule(const Capsule& a, const Pose& pose_a, const Capsule& b, const Pose& pose_b,
                            const CollideSettings& settings, Manifold& out);

// Closest points of the segments p0-p1 and q0-q1 (Ericson, Real-Time Collision Detection, sect. 5.1.9):
// writes the parameters s, t in [0, 1] of the closest pair p0 + s (p1 - p0), q0 + t (q1 - q0).
void closest_segment_params(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1, double& s,
                            double& t);

}  // namespace simpulse
