// Point containment for every shape type: whether a world point lies in a shape or on its surface within a
// tolerance. Spheres, boxes, capsules, cylinders and cones in closed form (the distance to the shape; a
// cone's in its half cross-section through the axis); convex hulls by the GJK distance between the point and
// the shape (gjk.h); a plane's half-space below it; a height field's solid below its surface over the field's
// xy extent (heights interpolated on each cell's two triangles as the terrain collision splits them; the
// tolerance is vertical there); compounds through their children. Triangle meshes are surfaces, as for ray
// and shape casts: they contain the points within the tolerance of a triangle (Ericson, "Real-Time Collision
// Detection", 2005, sect. 5.1.5), and no interior even when closed.
#pragma once

#include <simpulse/collision/shape.h>

namespace simpulse {

bool contains_point(const Shape& shape, const Pose& pose, const Vec3& point, double tolerance);

}  // namespace simpulse
