// Collision stage of the step (thesis chapter 2, step 4): refresh the broad-phase boxes of moving bodies
// (fattened by the contact margin and extended by the displacement expected this step), collect the candidate
// pairs, skip pairs that may not collide (both static, jointed without collide_connected), and run the narrow
// phase on each, collecting manifolds with their bodies.
#include <simpulse/collision/narrow_phase.h>
#include <simpulse/dynamics/world.h>

#include <algorithm>

namespace simpulse {

void DynamicsWorld::collision_stage(double dt) {
    const double margin = settings_.contact_margin;
    // Speculative distance per pair: the base margin plus how far the two surfaces can approach in this step,
    // so a fast body is caught before it penetrates while resting bodies keep few speculative contacts.
    auto reach = [dt](const Body& body) {
        return body.is_static
                   ? 0.0
                   : dt * (body.velocity.norm() + body.angular_velocity.norm() * body.bounding_radius);
    };
    for (Body& b : bodies_) {
        if (!b.alive || b.is_static) continue;
        broad_phase_.move(b.proxy, compute_aabb(*b.shape, b.pose()).inflated(0.5 * margin + reach(b)),
                          dt * b.velocity);
    }
    broad_phase_.update_pairs();

    manifolds_.clear();
    body_manifolds_.clear();
    for (const BroadPhasePair& pair : broad_phase_.pairs()) {
        std::uint32_t ia = pair.a, ib = pair.b;
        const Body* a = &bodies_[ia];
        const Body* b = &bodies_[ib];
        if (!a->alive || !b->alive || (a->is_static && b->is_static)) continue;
        if (std::binary_search(no_collide_pairs_.begin(), no_collide_pairs_.end(),
                               std::pair{std::min(ia, ib), std::max(ia, ib)}))
            continue;
        // A is the body created first, so event pairs and normals follow scene order.
        if (a->creation_order > b->creation_order) {
            std::swap(ia, ib);
            std::swap(a, b);
        }
        const std::size_t first = manifolds_.size();
        const CollideSettings collide_settings{margin + reach(*a) + reach(*b)};
        collide(*a->shape, a->pose(), *b->shape, b->pose(), collide_settings, manifolds_);
        for (std::size_t k = first; k < manifolds_.size(); ++k)
            if (manifolds_[k].count > 0) body_manifolds_.push_back({id_of(ia), id_of(ib), manifolds_[k]});
    }
}

}  // namespace simpulse
