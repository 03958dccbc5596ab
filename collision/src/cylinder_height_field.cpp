// Cylinder against height field by the generic convex-vs-height-field path (cell triangles, internal-edge
// care). The narrow phase uses the analytic algorithm of Strashnov & Torgashev 2020 (cylinder_terrain.h);
// this path is kept as the yardstick bench_cylinder_terrain compares it against.
#include <simpulse/collision/mesh_contacts.h>

namespace simpulse {

int collide_cylinder_height_field(const Shape& cylinder, const Pose& pose_a, const HeightField& field,
                                  const Pose& pose_b, const CollideSettings& settings,
                                  std::vector<Manifold>& out) {
    return collide_convex_height_field(cylinder, pose_a, field, pose_b, settings, out);
}

}  // namespace simpulse
