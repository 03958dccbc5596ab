// Scene queries of the embedding API: ray casts and shape casts (closest and all hits), bodies in a box,
// bodies overlapping a shape and bodies containing a point. Candidates come from the broad phase's trees
// (their fat boxes) over the query's box (the segment's, the box the cast shape sweeps, the point's), then
// each candidate's exact test: raycast() (collision/raycast.h), shape_cast() (collision/shape_cast.h), the
// narrow phase's collide() with no margin, or contains_point() (collision/point_query.h). The caller's filter
// may change the world: candidates are gathered first and each is looked up again after its filter call.
#include <simpulse/collision/narrow_phase.h>
#include <simpulse/collision/number_text.h>
#include <simpulse/collision/point_query.h>
#include <simpulse/collision/raycast.h>
#include <simpulse/collision/shape_cast.h>
#include <simpulse/dynamics/world.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace simpulse {
namespace {

// The unit direction, after checking the ray's description.
Vec3 checked_ray(const Vec3& origin, const Vec3& direction, double max_distance) {
    if (!origin.allFinite()) throw std::invalid_argument("origin: expected finite numbers");
    if (!direction.allFinite() || !(direction.stableNorm() > 0))
        throw std::invalid_argument("direction: expected a non-zero vector of finite numbers");
    if (!(max_distance > 0)) throw std::invalid_argument("max_distance: expected a positive length");
    // Components beyond ~1e154 overflow the plain norm's square (the unit vector would come out zero).
    return std::isfinite(direction.squaredNorm()) ? direction.normalized() : direction.stableNormalized();
}

// The box of the segment, clipped to a finite length for the broad phase (an infinite ray's box would hold
// every proxy anyway: a length far beyond any scene keeps the arithmetic finite).
Aabb segment_box(const Vec3& origin, const Vec3& unit, double max_distance) {
    const double length = std::min(max_distance, 1e12);
    const Vec3 end = origin + length * unit;
    return {origin.cwiseMin(end), origin.cwiseMax(end)};
}

// Nearest first; equal distances in body order, so the answer does not depend on the trees' layout.
template <class Hit>
void sort_hits(std::vector<Hit>& hits) {
    std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
        return a.distance != b.distance ? a.distance < b.distance : a.body.index < b.body.index;
    });
}

void sort_bodies(std::vector<BodyId>& bodies) {
    std::sort(bodies.begin(), bodies.end(), [](BodyId a, BodyId b) { return a.index < b.index; });
}

}  // namespace

// The bodies whose fat boxes overlap `box`, taken from the trees before any filter runs: a filter is the
// caller's code and may change the world (destroy or create bodies, step), so each candidate is checked
// after its filter call, by id, and read afresh.
std::vector<BodyId> DynamicsWorld::query_candidates(const Aabb& box) const {
    std::vector<BodyId> candidates;
    broad_phase_.query(box, [&](std::int32_t proxy) {
        const std::uint32_t slot = broad_phase_.user_id(proxy);
        if (slot & kSegmentProxyBit) return;  // cable segments are not bodies
        if (bodies_[slot].alive) candidates.push_back(id_of(slot));
    });
    return candidates;
}

// The live body `id` names if the query's filter (when there is one) picks it; null otherwise.
const Body* DynamicsWorld::filtered_body(BodyId id, const BodyFilter& filter) const {
    if (filter && !filter(id)) return nullptr;
    if (id.index >= bodies_.size()) return nullptr;
    const Body& b = bodies_[id.index];
    return b.alive && b.generation == id.generation ? &b : nullptr;
}

std::vector<RayCastHit> DynamicsWorld::cast_ray_all(const Vec3& origin, const Vec3& direction,
                                                    double max_distance, const BodyFilter& filter) const {
    const Vec3 unit = checked_ray(origin, direction, max_distance);
    std::vector<RayCastHit> hits;
    for (const BodyId id : query_candidates(segment_box(origin, unit, max_distance))) {
        const Body* b = filtered_body(id, filter);
        if (b == nullptr) continue;
        if (const std::optional<RayHit> hit = raycast(*b->shape, b->pose(), origin, unit, max_distance))
            hits.push_back({id, hit->distance, hit->point, hit->normal});
    }
    sort_hits(hits);
    return hits;
}

std::optional<RayCastHit> DynamicsWorld::cast_ray(const Vec3& origin, const Vec3& direction,
                                                  double max_distance, const BodyFilter& filter) const {
    const std::vector<RayCastHit> hits = cast_ray_all(origin, direction, max_distance, filter);
    if (hits.empty()) return std::nullopt;
    return hits.front();
}

std::vector<BodyId> DynamicsWorld::query_box(const Vec3& min, const Vec3& max,
                                             const BodyFilter& filter) const {
    if (!min.allFinite() || !max.allFinite())
        throw std::invalid_argument("min, max: expected finite numbers");
    if ((min.array() > max.array()).any())
        throw std::invalid_argument("min: expected min <= max in x, y and z");
    const Aabb box{min, max};
    std::vector<BodyId> found;
    for (const BodyId id : query_candidates(box)) {
        const Body* b = filtered_body(id, filter);
        if (b != nullptr && compute_aabb(*b->shape, b->pose()).overlaps(box)) found.push_back(id);
    }
    sort_bodies(found);
    return found;
}

std::vector<BodyId> DynamicsWorld::query_shape(const ShapePtr& shape, const Pose& pose,
                                               const BodyFilter& filter) const {
    if (shape == nullptr) throw std::invalid_argument("shape: expected a shape, got none");
    const Pose placed = checked_pose(pose);
    const Aabb box = compute_aabb(*shape, placed);
    std::vector<BodyId> found;
    std::vector<Manifold> manifolds;
    for (const BodyId id : query_candidates(box)) {
        const Body* b = filtered_body(id, filter);
        if (b == nullptr) continue;
        manifolds.clear();
        if (collide(*shape, placed, *b->shape, b->pose(), CollideSettings{}, manifolds) > 0)
            found.push_back(id);
    }
    sort_bodies(found);
    return found;
}

std::vector<ShapeCastHit> DynamicsWorld::cast_shape_all(const ShapePtr& shape, const Pose& pose,
                                                        const Vec3& translation,
                                                        const BodyFilter& filter) const {
    if (shape == nullptr) throw std::invalid_argument("shape: expected a shape, got none");
    if (!is_castable(*shape))
        throw std::invalid_argument("shape: expected a convex shape or compound of convex shapes");
    const Pose start = checked_pose(pose);
    if (!translation.allFinite() || !(translation.stableNorm() > 0))
        throw std::invalid_argument("translation: expected a non-zero vector of finite numbers");
    Aabb swept = compute_aabb(*shape, start);
    swept.grow(Aabb{swept.min + translation, swept.max + translation});
    const double length =
        std::isfinite(translation.squaredNorm()) ? translation.norm() : translation.stableNorm();
    std::vector<ShapeCastHit> hits;
    for (const BodyId id : query_candidates(swept)) {
        const Body* b = filtered_body(id, filter);
        if (b == nullptr) continue;
        if (const std::optional<CastHit> hit = shape_cast(*shape, start, translation, *b->shape, b->pose()))
            hits.push_back({id, hit->fraction, hit->fraction * length, hit->point, hit->normal});
    }
    sort_hits(hits);
    return hits;
}

std::optional<ShapeCastHit> DynamicsWorld::cast_shape(const ShapePtr& shape, const Pose& pose,
                                                      const Vec3& translation,
                                                      const BodyFilter& filter) const {
    const std::vector<ShapeCastHit> hits = cast_shape_all(shape, pose, translation, filter);
    if (hits.empty()) return std::nullopt;
    return hits.front();
}

std::vector<BodyId> DynamicsWorld::query_point(const Vec3& point, const BodyFilter& filter) const {
    if (!point.allFinite()) throw std::invalid_argument("point: expected finite numbers");
    std::vector<BodyId> found;
    for (const BodyId id : query_candidates(Aabb{point, point}.inflated(kPointQueryTolerance))) {
        const Body* b = filtered_body(id, filter);
        if (b != nullptr && contains_point(*b->shape, b->pose(), point, kPointQueryTolerance))
            found.push_back(id);
    }
    sort_bodies(found);
    return found;
}

}  // namespace simpulse
