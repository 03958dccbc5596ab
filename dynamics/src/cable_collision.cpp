// Cable segments in the collision stage (cable seed, docs/cables.md): their broad-phase proxies follow the
// control points, each candidate pair with a body or another cable's segment runs the three layers
// (collision/cable_contacts.h), and every contact becomes a ContactConstraint whose cable side is spread
// over the segment's four control points by the B-spline basis weights at the contact, so it enters the
// same simultaneous solve as the rigid contacts.
#include <simpulse/collision/cable_contacts.h>
#include <simpulse/dynamics/world.h>

#include <algorithm>

namespace simpulse {
namespace {

// Slots of the bodies segment k's control points are made of (P(k-1)..P(k+2), clamped at the ends where the
// phantom points are made of the end points).
std::array<std::uint32_t, 4> segment_bodies(const Cable& cable, std::size_t k) {
    const std::size_t last = cable.points.size() - 1;
    return {cable.points[k == 0 ? 0 : k - 1], cable.points[k], cable.points[k + 1],
            cable.points[std::min(k + 2, last)]};
}

// How far a segment's surface can move in the step: the fastest of its control points (the curve stays in
// their convex hull; a phantom point moves at most three times as fast as the fastest real one).
double segment_reach(const Cable& cable, std::size_t k, std::span<const Body> bodies, double dt) {
    double speed = 0;
    for (const std::uint32_t p : segment_bodies(cable, k))
        if (!bodies[p].asleep) speed = std::max(speed, bodies[p].velocity.norm());
    const bool phantom = k == 0 || k + 2 == cable.points.size();
    return dt * speed * (phantom ? 3.0 : 1.0);
}

bool segment_asleep(const Cable& cable, std::size_t k, std::span<const Body> bodies) {
    for (const std::uint32_t p : segment_bodies(cable, k))
        if (!bodies[p].asleep) return false;
    return true;
}

// A minimum at the end u = 1 of a segment that another segment follows is the next segment's u = 0: the
// same curve point. Only the next segment reports it, so that no two contacts have the same rows (the
// duplicates made a cable lying flat a singular system, 2 contacts per junction).
bool repeats_next_segment(const Cable& cable, std::size_t k, double u) {
    return u >= 1 - 1e-12 && k + 1 < cable.segment_count();
}

std::uint64_t mix(std::uint64_t key, std::uint64_t v) {
    return key ^ (v + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2));
}

}  // namespace

void DynamicsWorld::move_cable_proxies(double dt) {
    const double margin = settings_.contact_margin;
    for (const Cable& c : cables_) {
        if (!c.alive) continue;
        for (const std::uint32_t p : c.points) {
            Body& b = bodies_[p];
            b.bounds = Aabb{b.com_position, b.com_position}.inflated(c.radius + 0.5 * margin);
        }
        for (std::size_t k = 0; k < c.segment_count(); ++k) {
            if (segment_asleep(c, k, bodies_)) continue;
            Vec3 mean_velocity = Vec3::Zero();
            for (const std::uint32_t p : segment_bodies(c, k)) mean_velocity += 0.25 * bodies_[p].velocity;
            const Aabb box = cable_segment_aabb(cable_segment(c, k, bodies_))
                                 .inflated(0.5 * margin + segment_reach(c, k, bodies_, dt));
            broad_phase_.move(c.proxies[k], box, dt * mean_velocity);
        }
    }
}

void DynamicsWorld::collide_cables(double dt) {
    cable_touches_.clear();
    const double margin = settings_.contact_margin;
    auto body_reach = [dt](const Body& body) {
        return body.is_static || body.asleep || !body.ccd
                   ? 0.0
                   : dt * (body.velocity.norm() + body.angular_velocity.norm() * body.bounding_radius);
    };
    for (const BroadPhasePair& pair : broad_phase_.pairs()) {
        if (!(pair.b & kSegmentProxyBit)) continue;
        const SegmentRef ref = segments_[pair.b & ~kSegmentProxyBit];
        const Cable& cable = cables_[ref.cable];
        const CableSegment segment = cable_segment(cable, ref.segment, bodies_);
        const bool asleep = segment_asleep(cable, ref.segment, bodies_);
        const double reach = segment_reach(cable, ref.segment, bodies_, dt);
        if (pair.a & kSegmentProxyBit) {  // cable against another cable
            const SegmentRef other_ref = segments_[pair.a & ~kSegmentProxyBit];
            if (other_ref.cable == ref.cable) continue;  // a cable does not collide with itself
            const Cable& other = cables_[other_ref.cable];
            if ((cable.collision_group & other.collision_mask) == 0 ||
                (other.collision_group & cable.collision_mask) == 0)
                continue;
            if (asleep && segment_asleep(other, other_ref.segment, bodies_)) continue;
            CableCableContacts found;
            const CableCollideSettings settings{
                .margin = margin + reach + segment_reach(other, other_ref.segment, bodies_, dt)};
            collide_cable_cable(segment, cable_segment(other, other_ref.segment, bodies_), settings, found);
            for (int i = 0; i < found.count; ++i) {
                const CableCableContact& f = found.items[static_cast<std::size_t>(i)];
                if (repeats_next_segment(cable, ref.segment, f.u_a) ||
                    repeats_next_segment(other, other_ref.segment, f.u_b))
                    continue;
                CableTouch t;
                t.cable = ref.cable;
                t.segment = ref.segment;
                t.other_cable = other_ref.cable;
                t.other_segment = other_ref.segment;
                t.slot = static_cast<std::uint32_t>(i);
                // Midway between the two surfaces; the normal points from the other cable to this one.
                t.point =
                    0.5 * ((f.point_a - cable.radius * f.normal) + (f.point_b + other.radius * f.normal));
                t.normal = f.normal;
                t.depth = f.depth;
                t.weights = f.weights_a;
                t.other_weights = f.weights_b;
                cable_touches_.push_back(t);
            }
            continue;
        }
        const std::uint32_t slot = pair.a;
        const Body& body = bodies_[slot];
        if (!body.alive || std::binary_search(cable.pinned_to.begin(), cable.pinned_to.end(), slot)) continue;
        if ((cable.collision_group & body.collision_mask) == 0 ||
            (body.collision_group & cable.collision_mask) == 0)
            continue;
        if (asleep && frozen(slot)) continue;
        const double body_margin = margin + reach + body_reach(body);
        if (!cable_segment_aabb(segment).inflated(0.5 * margin + reach).overlaps(body.bounds)) continue;
        CableContacts found;
        collide_cable_shape(segment, *body.shape, body.pose(), CableCollideSettings{.margin = body_margin},
                            found);
        for (int i = 0; i < found.count; ++i) {
            const CableContact& f = found.items[static_cast<std::size_t>(i)];
            if (repeats_next_segment(cable, ref.segment, f.u)) continue;
            CableTouch t;
            t.cable = ref.cable;
            t.segment = ref.segment;
            t.body = slot;
            t.slot = static_cast<std::uint32_t>(i);
            t.point = 0.5 * (f.on_shape + (f.point - cable.radius * f.normal));
            t.normal = f.normal;
            t.depth = f.depth;
            t.weights = f.weights;
            cable_touches_.push_back(t);
        }
        // A moving cable touching a sleeping body wakes it for the next step, and a moving body touching a
        // sleeping cable wakes the cable (as for bodies, collision_stage.cpp).
        if (found.count > 0 && asleep != body.asleep) {
            if (body.asleep)
                wake_next_step_.push_back(slot);
            else if (!body.is_static)
                wake_next_step_.push_back(cable.points[ref.segment]);
        }
    }
}

void DynamicsWorld::add_cable_contacts() {
    // The contacts of one segment with one body (or one other segment) form a patch: their friction rows
    // act at the patch centre (solver.h, ContactConstraint::spread_a). Patch ids follow the manifolds'.
    auto patch = static_cast<std::uint32_t>(body_manifolds_.size());
    const CableTouch* previous = nullptr;
    for (const CableTouch& t : cable_touches_) {
        if (previous != nullptr &&
            (t.cable != previous->cable || t.segment != previous->segment || t.body != previous->body ||
             t.other_cable != previous->other_cable || t.other_segment != previous->other_segment))
            ++patch;
        previous = &t;
        const Cable& cable = cables_[t.cable];
        ContactConstraint c;
        c.body_b = kSpreadBody;
        c.spread_b = cable_spread(cable, t.segment, t.weights);
        c.point = t.point;
        c.normal = t.normal;
        c.depth = t.depth;
        std::uint64_t key = mix(cable.creation_order << 32, t.segment);
        MaterialId other_material = 0;
        if (t.body != kInvalidIndex) {
            c.body_a = t.body;
            other_material = bodies_[t.body].material;
            key = mix(key, bodies_[t.body].creation_order);
        } else {
            const Cable& other = cables_[t.other_cable];
            c.body_a = kSpreadBody;
            c.spread_a = cable_spread(other, t.other_segment, t.other_weights);
            other_material = other.material;
            key = mix(mix(key, other.creation_order), t.other_segment);
        }
        c.key = mix(key, t.slot);
        c.patch = patch;
        const CombinedMaterial m = materials_.combine(other_material, cable.material);
        c.friction = m.friction;
        c.restitution = m.restitution;
        contacts_.push_back(c);
    }
}

}  // namespace simpulse
