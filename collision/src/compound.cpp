// make_compound: validation of a compound's children (convex shapes at finite poses with unit quaternions),
// their bounds in the compound frame and a BVH over those bounds for the narrow phase's child selection.
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/number_text.h>
#include <simpulse/collision/shape.h>

#include <cmath>
#include <string>

namespace simpulse {
namespace {

// Quaternions read from files or composed in float may be off unit length by ~1e-7; anything further is a bug
// in the caller (a non-unit quaternion scales the child), so it is rejected rather than silently normalised.
constexpr double kUnitQuaternionTolerance = 1e-6;

}  // namespace

ShapePtr make_compound(std::vector<CompoundChild> children) {
    if (children.empty()) throw ShapeError("compound needs at least one child");
    Compound compound;
    compound.child_bounds.reserve(children.size());
    for (std::size_t i = 0; i < children.size(); ++i) {
        CompoundChild& child = children[i];
        const std::string which = "compound child " + std::to_string(i);
        if (!child.shape) throw ShapeError(which + " has no shape");
        const ShapeType type = child.shape->type();
        if (!is_convex(type))
            throw ShapeError(
                which + " is a " + shape_type_name(type) +
                ": children must be convex (sphere, box, capsule, cylinder, cone or convex hull)");
        if (!child.pose.position.allFinite() || !child.pose.orientation.coeffs().allFinite())
            throw ShapeError(which + " has a non-finite pose");
        const double norm = child.pose.orientation.norm();
        if (!(std::abs(norm - 1) <= kUnitQuaternionTolerance))
            throw ShapeError(which + " orientation is not a unit quaternion (norm " + number_text(norm) +
                             ")");
        child.pose.orientation.normalize();
        compound.child_bounds.push_back(compute_aabb(*child.shape, child.pose));
    }
    compound.bvh = build_bvh(compound.child_bounds);
    compound.children = std::move(children);
    return std::make_shared<const Shape>(Shape{std::move(compound)});
}

}  // namespace simpulse
