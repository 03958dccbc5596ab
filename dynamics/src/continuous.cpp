// Continuous phase of the step: time of impact for fast bodies, after the positions advanced (the idea of
// Box2D v3's continuous solve, Catto, "Continuous Collision", GDC 2013). A body with ccd on is fast when its
// surface can move more than half its thinnest width in the substep, |v| dt + |w| r dt > smallest_extent / 2;
// speculative contacts alone may then let part of it pass a thin static shape (a thin plate turned about its
// first contact swings its far corners through an open mesh sheet within the step). Its sweep from the pose
// before the positions advanced to the pose after them (time_of_impact.h: centre on a line, orientation by
// slerp) is tested against the static shapes under it, and at the first impact the body is put back to the
// pose of that time, a quarter of the contact margin from the surface, with its velocities kept: the next
// step's speculative contacts stop it there. Only in the exact mode: the thesis mode has no speculative
// contacts to take over.
#include <simpulse/collision/time_of_impact.h>
#include <simpulse/dynamics/world.h>

namespace simpulse {

void DynamicsWorld::begin_sweeps(double dt) {
    sweeps_.clear();
    if (settings_.solver.mode != SolverMode::exact) return;
    for (std::uint32_t i = 0; i < bodies_.size(); ++i) {
        const Body& b = bodies_[i];
        if (!b.alive || b.is_static || b.asleep || !b.ccd) continue;
        const double travel = dt * (b.velocity.norm() + b.angular_velocity.norm() * b.bounding_radius);
        if (travel > 0.5 * b.smallest_extent) sweeps_.push_back({i, b.com_position, b.orientation});
    }
}

void DynamicsWorld::stop_at_impacts() {
    ToiSettings toi;
    toi.target = 0.25 * settings_.contact_margin;
    toi.tolerance = 0.25 * toi.target;
    for (const SweepStart& start : sweeps_) {
        Body& b = bodies_[start.slot];
        const Sweep sweep{b.local_center_of_mass, start.com_position, b.com_position, start.orientation,
                          b.orientation};
        toi.face_approach = 0.25 * b.smallest_extent;
        Aabb swept;
        swept.grow(sweep.c0);
        swept.grow(sweep.c1);
        swept = swept.inflated(b.bounding_radius + toi.target + toi.tolerance);
        double first = 1;
        broad_phase_.query(swept, [&](std::int32_t proxy) {
            const std::uint32_t other = broad_phase_.user_id(proxy);
            if (other & kSegmentProxyBit) return;
            const Body& s = bodies_[other];
            if (!s.is_static || !filters_pass(start.slot, other)) return;
            const ToiResult hit =
                time_of_impact(*b.shape, sweep, b.bounding_radius, *s.shape, s.pose(), toi, first);
            if (hit.state == ToiResult::State::hit && hit.s < first) first = hit.s;
        });
        if (first < 1) {
            const Pose pose = sweep.pose(first);
            b.orientation = pose.orientation;
            b.com_position = pose.transform_point(b.local_center_of_mass);
            b.inverse_inertia_world = world_inverse_inertia(b.orientation, b.inverse_inertia_local);
        }
    }
}

}  // namespace simpulse
