// Stage 3 of the step: the solver's input from the collision stage and the joints: one ContactConstraint per
// manifold point (combined material, warm-start key, patch id), one JointConstraint per joint (then the
// planar world's, which have no slot in joints_), and the
// solver's copy of the bodies' motion state (sync_solver_bodies, both ways).
#include <simpulse/dynamics/world.h>

namespace simpulse {

void DynamicsWorld::build_constraints() {
    contacts_.clear();
    for (const BodyManifold& bm : body_manifolds_) {
        const Body& a = bodies_[bm.a.index];
        const Body& b = bodies_[bm.b.index];
        const CombinedMaterial m = materials_.combine(a.material, b.material);
        const Manifold& mf = bm.manifold;
        for (int k = 0; k < mf.count; ++k) {
            const ContactPoint& p = mf.points[static_cast<std::size_t>(k)];
            ContactConstraint c;
            c.body_a = bm.a.index;
            c.body_b = bm.b.index;
            c.point = p.position;
            c.normal = mf.normal;
            c.depth = p.depth;
            c.friction = m.friction;
            c.restitution = m.restitution;
            // Warm-start key: both bodies, the sub-shapes and the feature id; a 64-bit mix of the fields.
            std::uint64_t key = (static_cast<std::uint64_t>(a.creation_order) << 32) ^ b.creation_order;
            for (std::uint64_t v : {std::uint64_t{mf.sub_a}, std::uint64_t{mf.sub_b}, std::uint64_t{p.id}}) {
                key ^= v + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2);
            }
            c.key = key;
            c.patch = static_cast<std::uint32_t>(&bm - body_manifolds_.data());
            contacts_.push_back(c);
        }
    }
    add_cable_contacts();  // after the manifolds' points: contact_events reads those by position
    joint_rows_.clear();
    joint_row_slot_.clear();
    for (const Joint& j : joints_) {
        if (!j.alive) continue;
        const JointConstraint c = joint_constraint(j);
        joint_rows_.push_back(c);
        joint_row_slot_.push_back(static_cast<std::uint32_t>(&j - joints_.data()));
    }
    hold_in_plane();
}

JointConstraint DynamicsWorld::joint_constraint(const Joint& j) const {
    JointConstraint c;
    c.type = j.type;
    c.body_a = j.body_a;
    c.local_anchor_a = j.local_a - bodies_[j.body_a].local_center_of_mass;
    c.local_frame_a = j.frame_a;
    c.local_frame_b = j.frame_b;
    if (j.body_b == kInvalidIndex) {
        c.body_b = kFixedFrame;
        c.local_anchor_b = j.local_b;
    } else {
        c.body_b = j.body_b;
        c.local_anchor_b = j.local_b - bodies_[j.body_b].local_center_of_mass;
    }
    c.min_length = j.min_length;
    c.max_length = j.max_length;
    c.limit = j.limit;
    c.motor = j.motor;
    return c;
}

void DynamicsWorld::sync_solver_bodies(bool to_solver) {
    if (to_solver) {
        solver_bodies_.resize(bodies_.size());
        for (std::size_t i = 0; i < bodies_.size(); ++i) {
            const Body& b = bodies_[i];
            SolverBody& s = solver_bodies_[i];
            s.position = b.com_position;
            s.orientation = b.orientation;
            s.velocity = b.velocity;
            s.angular_velocity = b.angular_velocity;
            const bool moving = b.alive && !b.is_static && !b.asleep;
            s.inverse_mass = moving ? b.inverse_mass : 0.0;
            s.inverse_inertia_local = moving ? b.inverse_inertia_local : Mat3::Zero();
            s.inverse_inertia = moving ? b.inverse_inertia_world : Mat3::Zero();
            s.kick = moving && i < kicks_.size() ? kicks_[i] : Vec3::Zero();
            s.newton_budget_cut = i < newton_capped_.size() && newton_capped_[i] != 0;
            s.newton_capped = false;
        }
    } else {
        for (std::size_t i = 0; i < bodies_.size(); ++i) {
            Body& b = bodies_[i];
            if (!b.alive || b.is_static || b.asleep) continue;  // sleepers were static to the solver
            const SolverBody& s = solver_bodies_[i];
            b.com_position = s.position;
            b.orientation = s.orientation;
            b.velocity = s.velocity;
            b.angular_velocity = s.angular_velocity;
            b.inverse_inertia_world = s.inverse_inertia;
        }
    }
}

}  // namespace simpulse
