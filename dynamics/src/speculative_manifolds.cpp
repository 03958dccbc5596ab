// Which speculative manifolds the velocity solve sees. The collision stage tests a pair with a speculative
// margin of the contact margin plus each body's reach, dt (|v| + |w| r): how far either surface can move in
// the substep (continuous collision, Catto, "Continuous Collision", GDC 2013). Bodies that move together (a
// grid of boxes falling side by side) reach each other that way without approaching: their manifolds are rows
// that cannot act, yet they join every such body into one island, and an island too large for the exact
// methods is left to the iterative sweeps (a falling 1,000-box grid became one island of 17,000 rows).
// A speculative row of point p asks the bodies' normal separation speed there, w = n . (v_B(p) - v_A(p)), to
// stay at least -gap / dt (blcp.h). A manifold of two awake bodies each of whose points is more than the
// contact margin apart and keeps more than the margin of that gap at the velocities the step starts from is
// set aside before the solve. The solve changes those velocities (the lowest box of a falling column stops on
// the ground), so after it every point set aside is checked against the solved velocities; if one would now
// close its gap, its manifold goes back in its place and the velocities are solved again. An answer that
// keeps every point set aside apart is an answer of the whole problem: those rows hold with zero impulse,
// which is complementary. Pairs with a static, sleeping or non-ccd body keep every manifold.
#include <simpulse/dynamics/world.h>

#include <algorithm>
#include <limits>

namespace simpulse {
namespace {

// How much of its gap a set-aside point must keep at the solved velocities to stay set aside, as a fraction
// of the contact margin: far above what the sweeps' accepted residuals (1e-3 m/s) move a point in a step
// (1.7e-5 m at 60 Hz), so an answer short of the tolerance does not hide a point it reaches.
constexpr double kWakeSlack = 0.1;

bool in_motion(const Body& b) {
    return !b.is_static && !b.asleep && b.ccd;
}

// The smallest of the manifold's points' gaps left at the end of a step of length dt at the given motion of
// its two bodies (centre of mass x, velocity v, angular velocity w): gap + dt n . (v_B(p) - v_A(p)).
double least_gap_left(const Manifold& m, const Vec3& xa, const Vec3& va, const Vec3& wa, const Vec3& xb,
                      const Vec3& vb, const Vec3& wb, double dt) {
    double least = std::numeric_limits<double>::infinity();
    for (int k = 0; k < m.count; ++k) {
        const ContactPoint& p = m.points[static_cast<std::size_t>(k)];
        const Vec3 relative = (vb + wb.cross(p.position - xb)) - (va + wa.cross(p.position - xa));
        least = std::min(least, -p.depth + dt * m.normal.dot(relative));
    }
    return least;
}

}  // namespace

void DynamicsWorld::set_aside_unreachable_manifolds(double dt) {
    set_aside_.clear();
    kept_position_.clear();
    collision_stats_.set_aside = 0;
    collision_stats_.woken = 0;
    if (settings_.solver.mode != SolverMode::exact) return;
    const double margin = settings_.contact_margin;
    // What the solve may add to a point's closing speed without the manifold being missed: the solve turns
    // gravity's kick of the step, |g| dt, around at most twice over (the restitution threshold's bound on a
    // resting contact's approach, solve_velocities.cpp), so a point that keeps that much more gap is not
    // reached by an answer of a resting pile.
    const double allowance = dt * 2.0 * settings_.gravity.norm() * dt;
    std::size_t kept = 0;
    for (std::size_t k = 0; k < body_manifolds_.size(); ++k) {
        const BodyManifold& bm = body_manifolds_[k];
        const Body& a = bodies_[bm.a.index];
        const Body& b = bodies_[bm.b.index];
        const bool apart =
            std::all_of(bm.manifold.points.begin(), bm.manifold.points.begin() + bm.manifold.count,
                        [&](const ContactPoint& p) { return -p.depth > margin; });
        if (in_motion(a) && in_motion(b) && apart &&
            least_gap_left(bm.manifold, a.com_position, a.velocity, a.angular_velocity, b.com_position,
                           b.velocity, b.angular_velocity, dt) > margin + allowance) {
            set_aside_.push_back({static_cast<std::uint32_t>(k), bm});
            continue;
        }
        body_manifolds_[kept++] = bm;
        kept_position_.push_back(static_cast<std::uint32_t>(k));
    }
    body_manifolds_.resize(kept);
    collision_stats_.set_aside = static_cast<int>(set_aside_.size());
}

bool DynamicsWorld::wake_reached_manifolds(double dt, bool wake_all) {
    const double slack = kWakeSlack * settings_.contact_margin;
    auto reached = [&](const SetAsideManifold& s) {
        const SolverBody& a = solver_bodies_[s.manifold.a.index];
        const SolverBody& b = solver_bodies_[s.manifold.b.index];
        return least_gap_left(s.manifold.manifold, a.position, a.velocity, a.angular_velocity, b.position,
                              b.velocity, b.angular_velocity, dt) < slack;
    };
    if (std::none_of(set_aside_.begin(), set_aside_.end(), reached)) return false;
    woken_scratch_.clear();
    std::size_t kept = 0;
    for (const SetAsideManifold& s : set_aside_) {
        if (wake_all || reached(s))
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
    auto keep_next = [&] {
        merged_scratch_.push_back(body_manifolds_[next_kept]);
        merged_position_.push_back(kept_position_[next_kept++]);
    };
    for (const SetAsideManifold& w : woken_scratch_) {
        while (next_kept < body_manifolds_.size() && kept_position_[next_kept] < w.position) keep_next();
        merged_scratch_.push_back(w.manifold);
        merged_position_.push_back(w.position);
    }
    while (next_kept < body_manifolds_.size()) keep_next();
    std::swap(kept_position_, merged_position_);
    std::swap(body_manifolds_, merged_scratch_);
    return true;
}

}  // namespace simpulse
