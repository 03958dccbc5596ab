// Which speculative manifolds the velocity solve sees. The collision stage tests a pair with a speculative
// margin of the contact margin plus each body's reach, dt (|v| + |w| r): how far either surface can move in
// the substep (continuous collision, Catto, "Continuous Collision", GDC 2013). Bodies that move together (a
// grid of boxes falling side by side) reach each other that way without approaching: their manifolds are rows
// that can never act, yet they join every such body into one island, and an island too large for the exact
// methods is left to the iterative sweeps (a falling 1,000-box grid became one island of 17,000 rows).
// How close the two surfaces can come within the substep is bounded by the relative motion instead,
// dt (|v_a - v_b| + |w_a| r_a + |w_b| r_b). A manifold of two awake bodies none of whose points is within the
// contact margin plus that bound is set aside before the solve. Its rows would be inactive at the velocities
// the step starts from, but the solve changes them (the lowest box of a falling column stops on the ground),
// so after the solve every point set aside is checked against the solved velocities, and if one could now be
// reached, its manifold goes back in its place and the velocities are solved again. An answer that keeps
// every point set aside apart is an answer of the whole problem: their rows hold with zero impulse, which is
// complementary (blcp.h). Pairs with a static, sleeping or non-ccd body keep the rule of the collision stage.
#include <simpulse/dynamics/world.h>

#include <algorithm>
#include <limits>

namespace simpulse {
namespace {

// How far apart a set-aside point may stay in the solved velocities' reach and still count as not reached:
// a tenth of the contact margin, far above the motion the sweeps' accepted residuals (1e-3 m/s) leave over a
// step (1.7e-5 m at 60 Hz).
constexpr double kReachSafety = 0.1;

bool in_motion(const Body& b) {
    return !b.is_static && !b.asleep && b.ccd;
}

// Velocity of the material point of `body` at world point p.
Vec3 point_velocity(const SolverBody& body, const Vec3& p) {
    return body.velocity + body.angular_velocity.cross(p - body.position);
}

}  // namespace

void DynamicsWorld::set_aside_unreachable_manifolds(double dt) {
    set_aside_.clear();
    kept_position_.clear();
    collision_stats_.set_aside = 0;
    collision_stats_.woken = 0;
    if (settings_.solver.mode != SolverMode::exact) return;
    const double margin = settings_.contact_margin;
    std::size_t kept = 0;
    for (std::size_t k = 0; k < body_manifolds_.size(); ++k) {
        const BodyManifold& bm = body_manifolds_[k];
        const Body& a = bodies_[bm.a.index];
        const Body& b = bodies_[bm.b.index];
        bool reachable = true;
        if (in_motion(a) && in_motion(b)) {
            const double reach =
                dt * ((a.velocity - b.velocity).norm() + a.angular_velocity.norm() * a.bounding_radius +
                      b.angular_velocity.norm() * b.bounding_radius);
            double deepest = -std::numeric_limits<double>::infinity();
            for (int p = 0; p < bm.manifold.count; ++p)
                deepest = std::max(deepest, bm.manifold.points[static_cast<std::size_t>(p)].depth);
            reachable = -deepest <= margin + reach;
        }
        if (reachable) {
            body_manifolds_[kept++] = bm;
            kept_position_.push_back(static_cast<std::uint32_t>(k));
        } else
            set_aside_.push_back({static_cast<std::uint32_t>(k), bm});
    }
    body_manifolds_.resize(kept);
    collision_stats_.set_aside = static_cast<int>(set_aside_.size());
}

bool DynamicsWorld::wake_reached_manifolds(double dt, bool wake_all) {
    const double safety = kReachSafety * settings_.contact_margin;
    auto reached = [&](const BodyManifold& bm) {
        const SolverBody& a = solver_bodies_[bm.a.index];
        const SolverBody& b = solver_bodies_[bm.b.index];
        for (int p = 0; p < bm.manifold.count; ++p) {
            const ContactPoint& c = bm.manifold.points[static_cast<std::size_t>(p)];
            // Separation speed along the normal (A to B); the point is reached if the substep closes its gap.
            const double separation =
                bm.manifold.normal.dot(point_velocity(b, c.position) - point_velocity(a, c.position));
            if (separation * dt < c.depth + safety) return true;
        }
        return false;
    };
    if (std::none_of(set_aside_.begin(), set_aside_.end(),
                     [&](const SetAsideManifold& s) { return reached(s.manifold); }))
        return false;
    woken_scratch_.clear();
    std::size_t kept = 0;
    for (const SetAsideManifold& s : set_aside_) {
        if (wake_all || reached(s.manifold))
            woken_scratch_.push_back(s);
        else
            set_aside_[kept++] = s;
    }
    set_aside_.resize(kept);
    collision_stats_.set_aside = static_cast<int>(kept);
    collision_stats_.woken += static_cast<int>(woken_scratch_.size());
    // Back in their places among the kept manifolds: the order of the collision stage, which the contacts'
    // order and so the solve follow.
    merged_scratch_.clear();
    merged_position_.clear();
    std::size_t next_kept = 0;
    for (const SetAsideManifold& w : woken_scratch_) {
        for (; next_kept < body_manifolds_.size() && kept_position_[next_kept] < w.position; ++next_kept) {
            merged_scratch_.push_back(body_manifolds_[next_kept]);
            merged_position_.push_back(kept_position_[next_kept]);
        }
        merged_scratch_.push_back(w.manifold);
        merged_position_.push_back(w.position);
    }
    for (; next_kept < body_manifolds_.size(); ++next_kept) {
        merged_scratch_.push_back(body_manifolds_[next_kept]);
        merged_position_.push_back(kept_position_[next_kept]);
    }
    std::swap(kept_position_, merged_position_);
    std::swap(body_manifolds_, merged_scratch_);
    return true;
}

}  // namespace simpulse
