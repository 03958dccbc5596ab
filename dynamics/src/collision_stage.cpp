// Collision stage of the step (thesis chapter 2, step 4): refresh the broad-phase boxes of moving bodies
// (fattened by the contact margin and extended by the displacement expected this step), collect the candidate
// pairs, wake sleeping islands that an awake body reaches, skip pairs that need no test (both static or
// asleep, jointed without collide_connected, tight boxes apart), and run the narrow phase on the rest, or
// reuse a pair's manifolds while its bodies keep their relative pose (manifold_cache.h).
#include <simpulse/collision/narrow_phase.h>
#include <simpulse/dynamics/world.h>

#include <algorithm>

namespace simpulse {

bool DynamicsWorld::filters_pass(std::uint32_t ia, std::uint32_t ib) const {
    const Body& a = bodies_[ia];
    const Body& b = bodies_[ib];
    if ((a.collision_group & b.collision_mask) == 0 || (b.collision_group & a.collision_mask) == 0)
        return false;
    return !std::binary_search(no_collide_pairs_.begin(), no_collide_pairs_.end(),
                               std::pair{std::min(ia, ib), std::max(ia, ib)});
}

void DynamicsWorld::collision_stage(double dt) {
    const double margin = settings_.contact_margin;
    // Speculative distance per body: how far its surface can move in this step, so a fast body is caught
    // before it penetrates while resting bodies keep few speculative contacts (continuous collision; none
    // for a body with ccd off).
    auto reach = [dt](const Body& body) {
        return body.is_static || body.asleep || !body.ccd
                   ? 0.0
                   : dt * (body.velocity.norm() + body.angular_velocity.norm() * body.bounding_radius);
    };
    for (Body& b : bodies_) {
        if (!b.alive || b.is_static || b.asleep || b.proxy < 0) continue;  // cable points: move_cable_proxies
        b.bounds = compute_aabb(*b.shape, b.pose()).inflated(0.5 * margin + reach(b));
        broad_phase_.move(b.proxy, b.bounds, dt * b.velocity);
    }
    move_cable_proxies(dt);
    broad_phase_.update_pairs();

    auto wanted = [&](std::uint32_t ia, std::uint32_t ib) {
        const Body& a = bodies_[ia];
        const Body& b = bodies_[ib];
        if (!a.alive || !b.alive || (frozen(ia) && frozen(ib))) return false;
        if (!a.bounds.overlaps(b.bounds)) return false;  // fat boxes overlap, the tight ones do not
        return filters_pass(ia, ib);
    };
    for (const std::uint32_t sleeper : wake_next_step_)
        if (bodies_[sleeper].alive && bodies_[sleeper].asleep) wake_island(sleeper);
    wake_next_step_.clear();
    // A moving body reaching a sleeping one wakes the sleeper's island before any pair is tested, so the
    // whole island takes part in this step. Moving: it was faster than the sleep speed at the end of its last
    // step (or was just woken or created), i.e. it has not started resting. A resting body does not wake its
    // neighbours: two resting islands whose boxes overlap but which do not touch would otherwise wake each
    // other in turn and never both sleep. If a resting body does touch a sleeper, the narrow phase below
    // wakes it for the next step.
    for (const BroadPhasePair& pair : broad_phase_.pairs()) {
        if (pair.b & kSegmentProxyBit) continue;  // cable segments: collide_cables
        const Body& a = bodies_[pair.a];
        const Body& b = bodies_[pair.b];
        if (a.asleep == b.asleep || !wanted(pair.a, pair.b)) continue;
        const Body& visitor = a.asleep ? b : a;
        if (!visitor.is_static && visitor.sleep_time <= 0) wake_island(a.asleep ? pair.a : pair.b);
    }

    auto touching = [&](std::size_t first) {  // a point of the manifolds from `first` on is at depth >= 0
        for (std::size_t k = first; k < manifolds_.size(); ++k)
            for (int p = 0; p < manifolds_[k].count; ++p)
                if (manifolds_[k].points[static_cast<std::size_t>(p)].depth >= 0) return true;
        return false;
    };
    manifolds_.clear();
    body_manifolds_.clear();
    collision_stats_ = {};
    const double reuse_distance = std::min(settings_.manifold_reuse_distance, 0.25 * margin);
    for (const BroadPhasePair& pair : broad_phase_.pairs()) {
        if (pair.b & kSegmentProxyBit) continue;
        std::uint32_t ia = pair.a, ib = pair.b;
        if (!wanted(ia, ib)) continue;
        // A is the body created first, so event pairs and normals follow scene order.
        if (bodies_[ia].creation_order > bodies_[ib].creation_order) std::swap(ia, ib);
        const Body& a = bodies_[ia];
        const Body& b = bodies_[ib];
        const std::size_t first = manifolds_.size();
        const CollideSettings collide_settings{margin + reach(a) + reach(b)};
        ++collision_stats_.pairs;
        if (manifold_cache_.reuse(ia, a, ib, b, collide_settings.margin, reuse_distance, manifolds_)) {
            ++collision_stats_.reused;
        } else {
            collide(*a.shape, a.pose(), *b.shape, b.pose(), collide_settings, manifolds_);
            if (reuse_distance > 0)
                manifold_cache_.store(ia, a, ib, b, collide_settings.margin,
                                      std::span(manifolds_).subspan(first));
        }
        for (std::size_t k = first; k < manifolds_.size(); ++k)
            if (manifolds_[k].count > 0) body_manifolds_.push_back({id_of(ia), id_of(ib), manifolds_[k]});
        // A resting body that touches a sleeper wakes it for the next step (waking it now would leave the
        // sleeper's contacts with other sleepers untested in this step).
        if (a.asleep != b.asleep && !(a.asleep ? b : a).is_static && touching(first))
            wake_next_step_.push_back(a.asleep ? ia : ib);
    }
    manifold_cache_.end_step();
    set_aside_unreachable_manifolds(dt);  // speculative_manifolds.cpp
    collide_cables(dt);
}

}  // namespace simpulse
