// Stage 5 of the step: contact_begin / contact_end events, from the pairs that touch in this substep (a point
// at depth >= 0, or a speculative point that carried a normal impulse) against the previous substep's, in
// creation order.
#include <simpulse/dynamics/world.h>

#include <algorithm>

namespace simpulse {

void DynamicsWorld::update_contact_events() {
    std::swap(touching_, touching_prev_);
    touching_.clear();
    // Pairs that are not collided because both sides sleep (or one sleeps on a static body) keep touching.
    for (const TouchingPair& p : touching_prev_)
        if (is_valid(p.a) && is_valid(p.b) && frozen(p.a.index) && frozen(p.b.index)) touching_.push_back(p);
    // Touching: a point penetrates or touches, or a (speculative) point carried a normal impulse this step:
    // the exact mode stops approaching bodies a hair before they touch, and that is a contact all the same.
    const std::span<const double> impulses = solver_.contact_impulses();
    std::size_t point = 0;  // contacts_ holds every manifold point in order
    for (const BodyManifold& bm : body_manifolds_) {
        bool touching = false;
        for (int k = 0; k < bm.manifold.count; ++k, ++point) {
            touching |= bm.manifold.points[static_cast<std::size_t>(k)].depth >= 0;
            touching |= point < impulses.size() && impulses[point] > 0;
        }
        if (!touching) continue;
        const std::uint64_t oa = bodies_[bm.a.index].creation_order, ob = bodies_[bm.b.index].creation_order;
        touching_.push_back(oa < ob ? TouchingPair{oa, ob, bm.a, bm.b} : TouchingPair{ob, oa, bm.b, bm.a});
    }
    auto by_order = [](const TouchingPair& x, const TouchingPair& y) {
        return std::pair{x.order_a, x.order_b} < std::pair{y.order_a, y.order_b};
    };
    auto same = [](const TouchingPair& x, const TouchingPair& y) {
        return x.order_a == y.order_a && x.order_b == y.order_b;
    };
    std::sort(touching_.begin(), touching_.end(), by_order);
    touching_.erase(std::unique(touching_.begin(), touching_.end(), same), touching_.end());
    // Merge the sorted lists: pairs only in the new list begin, pairs only in the old one end.
    std::size_t i = 0, j = 0;
    while (i < touching_.size() || j < touching_prev_.size()) {
        if (j == touching_prev_.size() ||
            (i < touching_.size() && by_order(touching_[i], touching_prev_[j]))) {
            const TouchingPair& p = touching_[i++];
            events_.push_back({ContactEvent::Type::begin, time_, p.a, p.b, p.order_a, p.order_b});
        } else if (i == touching_.size() || by_order(touching_prev_[j], touching_[i])) {
            const TouchingPair& p = touching_prev_[j++];
            events_.push_back({ContactEvent::Type::end, time_, p.a, p.b, p.order_a, p.order_b});
        } else {
            ++i, ++j;
        }
    }
}

}  // namespace simpulse
