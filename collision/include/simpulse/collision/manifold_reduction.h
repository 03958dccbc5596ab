// Reduction of a contact patch to at most four points, following Strashnov & Torgashev 2020, section V
// (cylinder-terrain-collision.ru.txt; SEEDS.md section 2): keep the deepest point, the point farthest from
// it, the point farthest from the line through those two, and the point that maximises the area of the
// quadrilateral; when the first three are collinear keep only the two extreme points of the line.
#pragma once

#include <simpulse/collision/contact.h>

#include <span>

namespace simpulse {

// Welds candidates closer than 1e-6 of the patch extent (their solver rows are identical to six digits; the
// deeper one is kept), or than 1e-10 of their largest coordinate (copies of one point, computed from
// different triangles), then writes at most four points into `out.points`/`out.count` and sets `out.normal`.
// All candidates belong to one patch with normal `normal`; distances are measured in the plane perpendicular
// to it. The first point is the deepest up to 1e-3 of the patch extent; among such near-ties, the one
// farthest from the centre of the patch's bounding box (so a resting face keeps the same four points under
// solver jitter). Sets of three or more collinear points keep their two ends, also when there are at most
// four. Remaining ties go to the earlier candidate: deterministic.
void reduce_contacts(std::span<const ContactPoint> candidates, const Vec3& normal, Manifold& out);

}  // namespace simpulse
