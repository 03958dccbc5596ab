// Contacts of a convex shape against a plane (the half-space normal . x <= offset of a static body), from the
// shape's own candidate points: sphere and capsule ends, box corners, hull vertices, and for cylinders and
// cones the rim of each base (four fixed rim points when the base lies flat within the axis-rotation angle,
// plus the deepest rim point) and the apex. Candidates deeper than -margin are kept and reduced to four
// (Strashnov & Torgashev 2020, sect. V). A cylinder standing on the plane thus gives rim points, a tilted one
// its lowest rim point, one lying on its side the two ends of its lowest line.
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/collision/shape.h>

namespace simpulse {

// `convex` at pose_a against `plane` at pose_b; the normal of the manifold points from the convex shape into
// the plane (minus the plane's world normal). Returns 1 when a manifold was written.
int collide_convex_plane(const Shape& convex, const Pose& pose_a, const Plane& plane, const Pose& pose_b,
                         const CollideSettings& settings, Manifold& out);

}  // namespace simpulse
