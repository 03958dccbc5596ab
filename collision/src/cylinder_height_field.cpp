// Cylinder against height field: the dispatch entry reserved for the analytic cylinder-terrain algorithm of
// Strashnov & Torgashev 2020 (SEEDS.md section 2), which replaces the body of this function. Until it lands
// the cylinder goes through the generic convex-vs-height-field path (cell triangles, internal-edge care).
#include <simpulse/collision/mesh_contacts.h>

namespace simpulse {

int collide_cylinder_height_field(const Shape& cylinder, const Pose& pose_a, const HeightField& field,
                                  const Pose& pose_b, const CollideSettings& settings,
                                  std::vector<Manifold>& out) {
    return collide_convex_height_field(cylinder, pose_a, field, pose_b, settings, out);
}

}  // namespace simpulse
