// make_prism: validation of a prism's boundaries (SEEDS.md section 5; scene key "prism"), its exact area
// moments, the approximate convex decomposition done once at creation (thesis ch. 5) and the compound of the
// extruded convex parts the narrow phase uses for every pair but two prisms in a shared plane.
#include <simpulse/collision/number_text.h>
#include <simpulse/collision/shape.h>

#include <cmath>

namespace simpulse {

ShapePtr make_prism(std::vector<Ring2> boundaries, double thickness, double tolerance) {
    if (!(thickness > 0) || !std::isfinite(thickness))
        throw ShapeError("prism thickness must be a positive finite number, got " + number_text(thickness));
    if (!(tolerance >= 0 && tolerance < 1))
        throw ShapeError("prism decomposition tolerance must be in [0, 1), got " + number_text(tolerance));
    if (const std::string error = validate_polygon(boundaries); !error.empty())
        throw ShapeError("prism " + error);
    Prism prism;
    prism.half_thickness = thickness / 2;
    prism.tolerance = tolerance;
    prism.moments = polygon_moments(boundaries);
    // Convex parts larger than the SAT's part buffer are fanned from their first vertex into smaller ones.
    for (Ring2& part : decompose_polygon(boundaries, tolerance)) {
        if (part.size() <= kSatMaxPartVertices) {
            prism.parts.push_back(std::move(part));
            continue;
        }
        for (std::size_t first = 1; first + 1 < part.size(); first += kSatMaxPartVertices - 2) {
            Ring2 piece{part[0]};
            for (std::size_t k = first; k < part.size() && piece.size() < kSatMaxPartVertices; ++k)
                piece.push_back(part[k]);
            prism.parts.push_back(std::move(piece));
        }
    }
    prism.whole = make_sat_polygon(boundaries);
    std::vector<CompoundChild> children;
    for (const Ring2& part : prism.parts) {
        Vec2 centre = Vec2::Zero();
        for (const Vec2& p : part) centre += p;
        centre /= static_cast<double>(part.size());
        double radius = 0;
        for (const Vec2& p : part) radius = std::max(radius, (p - centre).norm());
        prism.part_centres.push_back(centre);
        prism.part_radii.push_back(radius);
        std::vector<Vec3> points;
        for (const Vec2& p : part) {
            points.emplace_back(p.x(), p.y(), -prism.half_thickness);
            points.emplace_back(p.x(), p.y(), prism.half_thickness);
        }
        children.push_back({make_convex_hull(points), Pose{}});
    }
    prism.hulls = make_compound(std::move(children));
    prism.boundaries = std::move(boundaries);
    return std::make_shared<const Shape>(Shape{std::move(prism)});
}

}  // namespace simpulse
