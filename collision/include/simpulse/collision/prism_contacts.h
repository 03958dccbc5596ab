// Contacts of two prisms in a shared plane by the seed's SAT with one polygon whole (SEEDS.md section 5).
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/collision/shape.h>

#include <vector>

namespace simpulse {

// Two prisms whose local z axes are parallel or opposite (within kPrismPlaneCos) and whose slabs overlap in z
// by more than every 2-D depth: the polygon with fewer convex parts stays whole, each part of the other near
// it is tested by sat_whole_vs_convex, and each 2-D contact point is lifted to the two faces of the slabs'
// overlap (two 3-D points per 2-D point, one manifold per part). Returns the number of manifolds appended, or
// -1 (nothing appended) when the pair is not in a shared plane or a part lies wholly inside the whole
// polygon: the caller then collides the extruded convex parts.
int collide_prisms_in_plane(const Prism& a, const Pose& pose_a, const Prism& b, const Pose& pose_b,
                            const CollideSettings& settings, std::vector<Manifold>& out);

// cos of the largest angle between the two z axes for which the prisms share a plane (1 mrad).
inline constexpr double kPrismPlaneCos = 0.9999995;

}  // namespace simpulse
