// Time of impact of a convex shape (or a compound of them) swept over one step against a static shape, by
// conservative advancement (Mirtich, "Impulse-based dynamic simulation of rigid body systems", PhD thesis,
// UC Berkeley 1996; in the form of Catto, "Continuous Collision", GDC 2013, the conservative advancement
// part): at the current time the separation d and its direction n are measured with GJK, and no point of the
// moving shape can approach the target along n faster than n . v + |w| r (v and w the sweep's velocities, r
// the shape's radius about its centre of mass), so the time advances by (d - target) / that bound, which
// cannot pass the surface. Every iterate is therefore separated by at least the target separation.
#pragma once

#include <simpulse/collision/shape.h>

namespace simpulse {

// The motion of a body over a step, s in [0, 1]: its centre of mass on the straight line from c0 to c1, its
// orientation turning at a constant rate about a fixed axis from q0 to q1 (spherical linear interpolation,
// the shorter way round), i.e. with the constant velocities (c1 - c0) and log(q1 q0^-1) per unit s.
struct Sweep {
    Vec3 local_center = Vec3::Zero();  // centre of mass in the body frame
    Vec3 c0 = Vec3::Zero(), c1 = Vec3::Zero();
    Quat q0 = Quat::Identity(), q1 = Quat::Identity();

    Pose pose(double s) const;  // the body frame at s
    Vec3 rotation() const;      // rotation vector of q1 q0^-1, |.| <= pi
};

struct ToiSettings {
    double target = 0;     // separation to stop at, m (> 0: the next step's speculative contact takes over)
    double tolerance = 0;  // a separation within target + tolerance is a hit (> 0, for convergence)
    int max_iterations = 64;
    // A triangle of a mesh or height field is swept only when the centre of mass approaches its plane by at
    // least this much over the sweep (Box2D v3 does so for chain segments, with a quarter of the body's
    // smallest extent): a body rolling or sliding over a tessellated floor, level with the next coplanar
    // triangle, would otherwise meet that triangle's edge at the target separation and stop at every step.
    double face_approach = 0;
};

struct ToiResult {
    // separated: no contact before s_max; hit: at s the separation is within [target, target + tolerance]
    // (or the iteration cap was reached, and it is >= target); touching: already within target + tolerance
    // at s = 0, and no other part of the target is hit later.
    enum class State { separated, hit, touching };
    State state = State::separated;
    double s = 1;                 // of the hit, in (0, s_max)
    Vec3 normal = Vec3::UnitZ();  // world, from the moving shape to the target at the hit
    int iterations = 0;           // distance queries, all parts of the target together
};

// First time in (0, s_max) at which `moving` (convex or compound), swept by `sweep`, comes within the target
// separation of `target` at `target_pose`. `radius` bounds the distance of moving's points from its centre
// of mass. Convex, plane, compound targets are solid; a triangle mesh or height field counts each triangle
// under the swept box whose front side the centre of mass starts on (one-sided, as its contacts are) and
// approaches by settings.face_approach.
ToiResult time_of_impact(const Shape& moving, const Sweep& sweep, double radius, const Shape& target,
                         const Pose& target_pose, const ToiSettings& settings, double s_max = 1);

// The thickness of the shape where it is thinnest: its smallest width along its face normals and axes (a
// box's thinnest side, a hull's smallest face-to-farthest-vertex distance, a compound's thinnest child);
// infinite for the static-only shapes.
double smallest_extent(const Shape& shape);

}  // namespace simpulse
