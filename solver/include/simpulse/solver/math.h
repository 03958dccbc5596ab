// Math vocabulary of the solver module (Eigen aliases; the solver never includes the collision module).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace simpulse {
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;
}  // namespace simpulse
