// After the substeps: islands of bodies (touching manifolds, joints, springs) whose every point moved slower
// than sleep_speed for sleep_time fall asleep, and what wakes them (wake_island, wake_around_static).
#include <simpulse/dynamics/world.h>

#include <algorithm>

namespace simpulse {

void DynamicsWorld::wake_around_static(std::uint32_t slot, const Aabb& bounds) {
    for (const TouchingPair& p : touching_) {
        if (p.a.index == slot) wake_island(p.b.index);
        if (p.b.index == slot) wake_island(p.a.index);
    }
    for (std::uint32_t i = 0; i < bodies_.size(); ++i)
        if (bodies_[i].alive && bodies_[i].asleep && bodies_[i].bounds.overlaps(bounds)) wake_island(i);
}

void DynamicsWorld::wake_island(std::uint32_t slot) {
    Body& body = bodies_[slot];
    if (!body.alive || body.is_static) return;
    body.sleep_time = 0;
    if (!body.asleep) return;
    const std::uint32_t island = body.sleep_island;
    for (Body& b : bodies_)
        if (b.alive && b.asleep && b.sleep_island == island) {
            b.asleep = false;
            b.sleep_time = 0;
        }
}

void DynamicsWorld::update_sleep(double dt) {
    if (!settings_.allow_sleeping) return;
    // Rest timers: a body rests while every point of it moves slower than sleep_speed.
    for (Body& b : bodies_) {
        if (!b.alive || b.is_static || b.asleep) continue;
        const double speed = b.velocity.norm() + b.angular_velocity.norm() * b.bounding_radius;
        b.sleep_time = speed < settings_.sleep_speed ? b.sleep_time + dt : 0.0;
    }
    // Islands of awake bodies joined by touching manifolds or joints (static bodies do not join islands); an
    // island sleeps when all its bodies have rested for sleep_time.
    island_parent_.resize(bodies_.size());
    for (std::uint32_t i = 0; i < bodies_.size(); ++i) island_parent_[i] = i;
    auto find = [&](std::uint32_t x) {
        while (island_parent_[x] != x) x = island_parent_[x] = island_parent_[island_parent_[x]];
        return x;
    };
    auto unite = [&](std::uint32_t a, std::uint32_t b) {
        if (frozen(a) || frozen(b)) return;
        a = find(a), b = find(b);
        if (a != b) island_parent_[std::max(a, b)] = std::min(a, b);
    };
    for (const BodyManifold& bm : body_manifolds_) unite(bm.a.index, bm.b.index);
    for (const CableTouch& t : cable_touches_) {  // a cable's points are joined by its rods or springs
        const std::uint32_t point = cables_[t.cable].points[t.segment];
        unite(point, t.body != kInvalidIndex ? t.body : cables_[t.other_cable].points[t.other_segment]);
    }
    for (const Joint& j : joints_)
        if (j.alive && j.body_b != kInvalidIndex) unite(j.body_a, j.body_b);
    for (const Spring& sp : springs_)
        if (sp.alive && sp.body_a != kInvalidIndex && sp.body_b != kInvalidIndex) unite(sp.body_a, sp.body_b);
    // An island is restless if any member is; its root (smallest index) carries the verdict.
    island_restless_.assign(bodies_.size(), 0);
    for (std::uint32_t i = 0; i < bodies_.size(); ++i) {
        const Body& b = bodies_[i];
        if (b.alive && !frozen(i) && b.sleep_time < settings_.sleep_time) island_restless_[find(i)] = 1;
    }
    for (std::uint32_t i = 0; i < bodies_.size(); ++i) {
        Body& b = bodies_[i];
        if (!b.alive || frozen(i) || island_restless_[find(i)]) continue;
        b.asleep = true;
        b.sleep_island = find(i);
        b.velocity.setZero();
        b.angular_velocity.setZero();
    }
}

}  // namespace simpulse
