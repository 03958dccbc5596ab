// Capsules, cylinders and cones against boxes and convex hulls: the axis from GJK/EPA (epa.h), then, when the
// polyhedron meets it with a face, reference-face clipping of the round shape's supporting face (its core
// segment, a side line, a cone's generator or a cap) as Jolt's ManifoldBetweenTwoFaces and Box2D v3's
// capsule-polygon manifold do. The axis-rotation feature of a capsule, cylinder or cone (axis_rotation.h) is
// its whole side only within 0.02 rad of the face: a thin rod lying tilted by more got one point at its lower
// end, and turning about that point pushed its other end into the box
// (bench/stress_findings/capsule_box_embedded.json). Here each end of the supporting face is clipped to the
// reference face and kept while its own depth is within the margin.
#pragma once

#include <simpulse/collision/clip.h>
#include <simpulse/collision/contact.h>
#include <simpulse/collision/support.h>

#include <cstdint>

namespace simpulse {

// A cylinder's supporting face is its cap while the axis is within 45 degrees of the direction, else the
// side line (Jolt's CylinderShape::GetSupportingFace). A capsule's core segment is its supporting face while
// it is tilted by less than the same 45 degrees from the plane perpendicular to the direction: steeper, the
// far end is more than 0.7 of the segment above the near one, out of any speculative margin smaller than
// the capsule. A cone's supporting face is its base while its axis points away from the direction within 45
// degrees, else its generator under the direction (rim point to apex) while that lies within 45 degrees of
// the plane perpendicular to the direction, else none (the apex leads).
inline constexpr double kSupportingFaceCosine = 0.70710678118654752;

// Supporting face of a capsule's core, of a cylinder or of a cone (`shape`, core radius kept aside) in the
// world direction `dir` (unit, out of the shape towards the other one): the core segment of a capsule; the
// side line of a cylinder (its points farthest along `dir` on both rims); or the cap facing `dir` as eight
// rim points fixed in the body (stable ids) plus the rim point farthest along `dir` when the tilt singles one
// out (exact deepest point). `key` tells the kinds apart in the point ids. Returns false (and leaves `out`
// empty) for other shapes, for a capsule standing steeper than 45 degrees and for a cone whose apex leads.
bool supporting_face(const ConvexSupport& shape, const Vec3& dir, ContactFeature& out, std::uint32_t& key);

// Manifold of a capsule, cylinder or cone and a box or convex hull (either order): signed distance by GJK/EPA
// on the cores; when the polyhedron's axis-rotation feature along the normal is a face, the supporting face
// of the other shape clipped against it (clip.h), lifted, inflated by the core radius and reduced to four
// points. The axis-rotation manifold (axis_rotation.h) is kept when the polyhedron meets the normal with an
// edge or a vertex, for a steep capsule or a cone on its apex, and when clipping to the face loses the
// deepest point (a body over the face's edge). Returns 1 when a manifold was written.
int collide_round_polyhedron(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                             const CollideSettings& settings, Manifold& out);

}  // namespace simpulse
