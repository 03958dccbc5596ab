// Contact manifold of any two convex shapes given by support mappings: the axis-rotation method of the
// GameDev.ru article "Physics on the fingers: collision detection for convex geometries" (2012; SEEDS.md
// section 3, convex-contact-manifold.ru.txt). Phase 1, the axis, comes from GJK/EPA on the cores (epa.h);
// phase 2 takes the support points of each core along k auxiliary axes on a cone of half-angle eps around the
// axis and merges near-duplicates into a vertex, edge or face feature; phases 3-4 clip the two features in
// the plane perpendicular to the axis and lift the points back (clip.h); the radii of spheres and capsules
// are added afterwards.
#pragma once

#include <simpulse/collision/clip.h>
#include <simpulse/collision/contact.h>
#include <simpulse/collision/support.h>

namespace simpulse {

// Number of auxiliary axes. Eight resolve a box face (four quadrants) and give a cap polygon whose largest
// inscribed quadrilateral is the square of the disc (what the four-point reduction keeps anyway).
inline constexpr int kAxisRotationAxes = 8;
// Cone half-angle eps (radians): a face tilted against the axis by less than this is reported as a face (the
// article: the larger eps, the wider the patches of smooth shapes; it must exceed the tilt a resting contact
// shows under solver jitter, about 1 degree).
inline constexpr double kAxisRotationAngle = 0.02;

// Contact feature of the core of `shape` in the world direction `dir` (unit, pointing out of the shape
// towards the other one): the support along `dir` itself (the deepest point) first, then the distinct
// supports along the auxiliary axes in cone order. On the curved surfaces of cylinders and cones, where the
// article merges nearby supports with a threshold, the merged feature is computed in closed form (a side line
// when the cone of axes contains a normal of that line, else one rim point or the apex), so it is exact;
// their caps and bases are reported as the rim points the auxiliary axes hit.
void axis_rotation_feature(const ConvexSupport& shape, const Vec3& dir, ContactFeature& out);

// Phases 2-4 for a known axis `normal` (unit, from A to B): features of both cores, clipping, lifting, radii,
// reduction to four points. Returns false when no point is within the margin.
bool axis_rotation_manifold(const ConvexSupport& a, const ConvexSupport& b, const Vec3& normal, double margin,
                            Manifold& out);

// Clips two core features along `normal` and inflates the points by the core radii ra (of A) and rb (of B),
// appending those with depth >= -margin to `out`; returns how many. The shared tail of all core + radius
// pairs.
int core_feature_candidates(const ContactFeature& a, const ContactFeature& b, const Vec3& normal, double ra,
                            double rb, double margin, std::uint32_t key, ContactCandidates& out);
// Reduces candidate points to a manifold of at most four (manifold_reduction.h) on the whole shapes
// (sub-shape 0); false when there are none.
bool manifold_from_candidates(const ContactCandidates& candidates, const Vec3& normal, Manifold& out);
// core_feature_candidates followed by manifold_from_candidates.
bool core_feature_manifold(const ContactFeature& a, const ContactFeature& b, const Vec3& normal, double ra,
                           double rb, double margin, std::uint32_t key, Manifold& out);

// Whole pipeline for any two convex shapes: signed distance (GJK on the cores, EPA when they overlap), then
// axis_rotation_manifold. Returns 1 when a manifold was written.
int collide_convex(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                   const CollideSettings& settings, Manifold& out);

}  // namespace simpulse
