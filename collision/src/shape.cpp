// Shape names, classification and the factories of the primitive shapes (validated sizes).
#include <simpulse/collision/number_text.h>
#include <simpulse/collision/shape.h>

#include <cmath>
#include <string>

namespace simpulse {
namespace {

double require_positive(double value, const char* what) {
    if (!(value > 0) || !std::isfinite(value))
        throw ShapeError(std::string(what) + " must be a positive finite number, got " + number_text(value));
    return value;
}

ShapePtr wrap(auto geometry) {
    return std::make_shared<const Shape>(Shape{std::move(geometry)});
}

}  // namespace

const char* shape_type_name(ShapeType type) {
    switch (type) {
        case ShapeType::sphere:
            return "sphere";
        case ShapeType::box:
            return "box";
        case ShapeType::capsule:
            return "capsule";
        case ShapeType::cylinder:
            return "cylinder";
        case ShapeType::cone:
            return "cone";
        case ShapeType::convex_hull:
            return "convex";
        case ShapeType::plane:
            return "plane";
        case ShapeType::compound:
            return "compound";
        case ShapeType::triangle_mesh:
            return "mesh";
        case ShapeType::height_field:
            return "heightfield";
        case ShapeType::prism:
            return "prism";
    }
    return "unknown";
}

bool is_convex(ShapeType type) {
    return type <= ShapeType::convex_hull;
}

bool is_static_only(ShapeType type) {
    return type == ShapeType::plane || type == ShapeType::triangle_mesh || type == ShapeType::height_field;
}

ShapePtr make_sphere(double radius) {
    return wrap(Sphere{require_positive(radius, "sphere radius")});
}

ShapePtr make_box(const Vec3& half_extents) {
    for (int i = 0; i < 3; ++i) require_positive(half_extents[i], "box half extent");
    return wrap(Box{half_extents});
}

ShapePtr make_capsule(double radius, double half_length) {
    return wrap(Capsule{require_positive(radius, "capsule radius"),
                        require_positive(half_length, "capsule half length")});
}

ShapePtr make_cylinder(double radius, double half_height) {
    return wrap(Cylinder{require_positive(radius, "cylinder radius"),
                         require_positive(half_height, "cylinder half height")});
}

ShapePtr make_cone(double radius, double half_height) {
    return wrap(
        Cone{require_positive(radius, "cone radius"), require_positive(half_height, "cone half height")});
}

ShapePtr make_plane(const Vec3& normal, double offset) {
    const double n = normal.norm();
    if (!(n > 0) || !std::isfinite(n) || !std::isfinite(offset))
        throw ShapeError("plane normal must be a finite non-zero vector and the offset finite");
    return wrap(Plane{normal / n, offset / n});
}

}  // namespace simpulse
