// Narrow-phase entry point: a dispatch table over (ShapeType, ShapeType) picks the algorithm for each pair.
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/collision/shape.h>

#include <vector>

namespace simpulse {

// Appends the contact manifolds between shape A at pose_a and shape B at pose_b to `out` (several for
// compounds, meshes and height fields, each with its own normal). Normals point from A to B. Returns the
// number appended.
int collide(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
            const CollideSettings& settings, std::vector<Manifold>& out);

}  // namespace simpulse
