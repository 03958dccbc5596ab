// Stage 5 of the step: contact_begin / contact_end (and, when asked for, contact_persist) events with each
// pair's normal impulse, from the pairs that touch in this substep (a point at depth >= 0, or a speculative
// point that carried a normal impulse) against the previous substep's, in creation order.
#include <simpulse/dynamics/world.h>

#include <algorithm>

namespace simpulse {

void DynamicsWorld::update_contact_events() {
    std::swap(touching_, touching_prev_);
    touching_.clear();
    // Pairs that are not collided because both sides sleep (or one sleeps on a static body) keep touching.
    for (const TouchingPair& p : touching_prev_)
        if (is_valid(p.a) && is_valid(p.b) && frozen(p.a.index) && frozen(p.b.index))
            touching_.push_back({p.order_a, p.order_b, p.a, p.b, 0.0});
    // Touching: a point penetrates or touches, or a (speculative) point carried a normal impulse this step:
    // the exact mode stops approaching bodies a hair before they touch, and that is a contact all the same.
    const std::span<const double> impulses = solver_.contact_impulses();
    std::size_t point = 0;  // contacts_ holds every manifold point in order
    for (const BodyManifold& bm : body_manifolds_) {
        bool touching = false;
        double impulse = 0;
        for (int k = 0; k < bm.manifold.count; ++k, ++point) {
            const double carried = point < impulses.size() ? impulses[point] : 0.0;
            touching |= bm.manifold.points[static_cast<std::size_t>(k)].depth >= 0 || carried > 0;
            impulse += std::max(0.0, carried);
        }
        if (!touching) continue;
        const std::uint64_t oa = bodies_[bm.a.index].creation_order, ob = bodies_[bm.b.index].creation_order;
        touching_.push_back(oa < ob ? TouchingPair{oa, ob, bm.a, bm.b, impulse}
                                    : TouchingPair{ob, oa, bm.b, bm.a, impulse});
    }
    auto by_order = [](const TouchingPair& x, const TouchingPair& y) {
        return std::pair{x.order_a, x.order_b} < std::pair{y.order_a, y.order_b};
    };
    std::sort(touching_.begin(), touching_.end(), by_order);
    // One entry per pair (a compound or a mesh gives a pair several manifolds), their impulses summed.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < touching_.size(); ++i) {
        if (kept > 0 && touching_[kept - 1].order_a == touching_[i].order_a &&
            touching_[kept - 1].order_b == touching_[i].order_b)
            touching_[kept - 1].impulse += touching_[i].impulse;
        else
            touching_[kept++] = touching_[i];
    }
    touching_.resize(kept);
    // Merge the sorted lists: pairs only in the new list begin, pairs only in the old one end, pairs in both
    // persist.
    auto event = [&](ContactEvent::Type type, const TouchingPair& p) {
        events_.push_back(
            {type, time_, p.a, p.b, p.order_a, p.order_b, type == ContactEvent::Type::end ? 0.0 : p.impulse});
    };
    std::size_t i = 0, j = 0;
    while (i < touching_.size() || j < touching_prev_.size()) {
        if (j == touching_prev_.size() ||
            (i < touching_.size() && by_order(touching_[i], touching_prev_[j]))) {
            event(ContactEvent::Type::begin, touching_[i++]);
        } else if (i == touching_.size() || by_order(touching_prev_[j], touching_[i])) {
            event(ContactEvent::Type::end, touching_prev_[j++]);
        } else {
            if (settings_.persist_events) event(ContactEvent::Type::persist, touching_[i]);
            ++i, ++j;
        }
    }
}

}  // namespace simpulse
