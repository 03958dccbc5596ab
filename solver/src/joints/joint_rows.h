// Rows of one joint at the current configuration (internal), shared by the velocity solve, the thesis mode
// and the position projection. Each row comes with the joint's position error as that row measures it: the
// velocity solve of the exact mode asks for no change (its targets come from joint_targets.cpp), the position
// projection moves the bodies by -error along each row, the thesis mode asks for -error / dt (thesis
// eq. 21-22). One file per joint type holds its rows: ball_joint.cpp, hinge_joint.cpp, fixed_joint.cpp,
// slider_joint.cpp, distance_joint.cpp, planar_joint.cpp; the parts two types share (the point rows, the
// angular lock) are here.
#pragma once

#include "../rows.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace simpulse::detail {

inline constexpr int kMaxJointRows = 8;

// The joint's anchors and frames in the world at the current configuration.
struct JointPose {
    Vec3 anchor_a = Vec3::Zero();
    Vec3 anchor_b = Vec3::Zero();
    Quat frame_a = Quat::Identity();
    Quat frame_b = Quat::Identity();
};
JointPose joint_pose(const JointConstraint& joint, std::span<const SolverBody> bodies);

struct JointRows {
    std::array<Row, kMaxJointRows> rows;
    std::array<double, kMaxJointRows> error{};  // per row, m (rows along a direction) or rad (angular rows)
    int count = 0;
    double linear_error = 0;   // length of the joint's positional error, m
    double angular_error = 0;  // angle of its rotational error, rad
    // Points of A and B its rows along a direction act at (the curvature targets of joint_targets.cpp).
    Vec3 point_a = Vec3::Zero();
    Vec3 point_b = Vec3::Zero();
};

// The rows of `joint` (kind joint, slots 0..count-1; the caller sets source, target and lambda).
void joint_rows(const JointConstraint& joint, std::span<const SolverBody> bodies, JointRows& out);

// Per type (one file each).
void ball_joint_rows(const JointConstraint& joint, const JointPose& pose, std::span<const SolverBody> bodies,
                     JointRows& out);
void hinge_joint_rows(const JointConstraint& joint, const JointPose& pose, std::span<const SolverBody> bodies,
                      JointRows& out);
void fixed_joint_rows(const JointConstraint& joint, const JointPose& pose, std::span<const SolverBody> bodies,
                      JointRows& out);
void slider_joint_rows(const JointConstraint& joint, const JointPose& pose,
                       std::span<const SolverBody> bodies, JointRows& out);
void distance_joint_rows(const JointConstraint& joint, const JointPose& pose,
                         std::span<const SolverBody> bodies, JointRows& out);
void planar_joint_rows(const JointConstraint& joint, const JointPose& pose,
                       std::span<const SolverBody> bodies, JointRows& out);

// Shared parts. Three rows along the world axes that make the anchors coincide.
void add_point_rows(const JointConstraint& joint, const JointPose& pose, std::span<const SolverBody> bodies,
                    JointRows& out);
// Three angular rows along the world axes that keep the frames of A and B aligned.
void add_angular_lock_rows(const JointConstraint& joint, const JointPose& pose,
                           std::span<const SolverBody> bodies, JointRows& out);
// Appends a row and its error.
Row& add_joint_row(JointRows& out, double error);
// The one-sided rows that keep a coordinate of the joint (hinge angle, slider travel, distance) within
// [lower, upper]: kind limit, `make(row, sign)` fills the row's Jacobian along the coordinate's increase
// times sign
// (+1 for the lower limit, -1 for the upper), error = the gap to the limit (negative: violated, so the
// projection's target -error moves it back; positive: how far the coordinate may still move). Infinite
// bounds give no row. A violation counts as the joint's angular error (an angle) or linear error.
template <class MakeRow>
void add_limit_rows(JointRows& out, double coordinate, double lower, double upper, bool angular,
                    MakeRow&& make) {
    auto add = [&](double gap, double sign) {
        Row& row = add_joint_row(out, gap);
        make(row, sign);
        row.kind = RowKind::limit;
        double& error = angular ? out.angular_error : out.linear_error;
        if (gap < 0) error = std::max(error, -gap);
    };
    if (std::isfinite(lower)) add(coordinate - lower, 1.0);
    if (std::isfinite(upper)) add(upper - coordinate, -1.0);
}

// Adds a joint row's impulse to its joint's impulse on B: a row along a direction acts at B's anchor, an
// angular row is a torque about its axis.
inline void add_row_impulse(JointImpulse& impulse, const Row& row, double lambda) {
    if (!row.dir.isZero(0))
        impulse.linear += lambda * row.dir;
    else
        impulse.angular += lambda * (row.b != kNoBody ? row.ang_b : Vec3(-row.ang_a));
}

// The hinge angle: B's frame y axis from A's, about A's x axis (rad, in (-pi, pi]).
double hinge_angle(const JointPose& pose);
// The slider travel: B's anchor along A's axis from A's anchor (m).
double slider_travel(const JointPose& pose);

// A motor row (kind motor) along the coordinate's increase when the joint has a motor: its mu is the largest
// force or torque (the caller multiplies by the step), its error 0 (nothing to project).
template <class MakeRow>
void add_motor_row(const JointConstraint& joint, JointRows& out, MakeRow&& make) {
    if (!joint.motor.enabled || !(joint.motor.max_force > 0)) return;
    Row& row = add_joint_row(out, 0.0);
    make(row);
    row.kind = RowKind::motor;
    row.mu = joint.motor.max_force;
}

// Rotation vector (axis times angle, |angle| <= pi) of a unit quaternion.
Vec3 rotation_vector(const Quat& q);

}  // namespace simpulse::detail
