// Cables as the dynamics module stores them (docs/cables.md): the control points are bodies of the world
// (a ball of the cable's radius gives them their mass; no proxy, no shape contacts of their own), held by
// rods or springs between neighbours and pins (joints), bent back by the springs below; each B-spline segment
// has its own broad-phase proxy.
#pragma once

#include <simpulse/collision/cable_segment.h>
#include <simpulse/dynamics/body.h>
#include <simpulse/solver/solver.h>

#include <cstdint>
#include <span>
#include <vector>

namespace simpulse {

struct Cable {
    std::vector<std::uint32_t> points;   // body slots of the control points, in order
    std::vector<JointId> joints;         // rods between neighbours, then the pins
    std::vector<SpringId> springs;       // stretch springs (finite stretch_stiffness)
    std::vector<double> bend_stiffness;  // per interior point i (index i - 1): 4 EI / L^3, N/m
    std::vector<std::int32_t> proxies;   // per segment k (points k-1..k+2)
    std::vector<std::uint32_t>
        pinned_to;  // body slots the cable is pinned to, sorted (no contacts with them)
    double radius = 0;
    MaterialId material = 0;
    std::uint32_t collision_group = 1;
    std::uint32_t collision_mask = 0xffffffffu;
    std::uint64_t creation_order = 0;  // shares the bodies' counter: orders contact keys
    std::uint32_t generation = 0;
    bool alive = false;

    // The curve runs from the first control point to the last (cable_chain_segment: mirrored phantom points
    // at the ends). Without the phantoms the end points lie off the curve and a contact barely reaches them:
    // on the ground they sank and lifted the curve's ends (a free mode of the control polygon).
    std::size_t segment_count() const { return points.size() - 1; }
};

// Segment k of the cable at the bodies' current positions.
CableSegment cable_segment(const Cable& cable, std::size_t k, std::span<const Body> bodies);

// The bodies and weights that carry a point of segment k with basis weights `weights` (cable_basis): the
// phantom points' weights go to the points they are made of.
PointSpread cable_spread(const Cable& cable, std::size_t k, const std::array<double, 4>& weights);

// Adds the bending springs' forces (CableDesc::bend_stiffness) to the control points' force accumulators.
void accumulate_cable_bending(std::span<const Cable> cables, std::span<Body> bodies);

// Elastic energy of the bending springs, summed over the cables.
double cable_bending_energy(std::span<const Cable> cables, std::span<const Body> bodies);

// Broad-phase user ids of cable segments carry this bit; the rest indexes DynamicsWorld's segment table.
inline constexpr std::uint32_t kSegmentProxyBit = 0x80000000u;

}  // namespace simpulse
