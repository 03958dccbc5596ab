// Contact output of the narrow phase: manifolds of up to four points sharing one normal.
#pragma once

#include <simpulse/collision/math.h>

#include <array>
#include <cstdint>

namespace simpulse {

struct ContactPoint {
    Vec3 position = Vec3::Zero();  // world, midway between the two surfaces
    double depth = 0;      // > 0 penetration, 0 touching, < 0 separation (speculative, within the margin)
    std::uint32_t id = 0;  // feature id: stable while the same pair of features touches
};

// One contact patch between shape A and shape B. The normal points from A to B (outward of A).
struct Manifold {
    Vec3 normal = Vec3::UnitZ();
    std::uint32_t sub_a =
        0;  // child / triangle / cell index of A that produced the patch (0 for plain convex)
    std::uint32_t sub_b = 0;
    int count = 0;
    std::array<ContactPoint, 4> points{};
};

struct CollideSettings {
    // Also report contacts whose separation is below this distance (speculative contacts). 0 reports only
    // touching and penetrating features.
    double margin = 0;
};

}  // namespace simpulse
