// Layer 3 of the cable seed (cable-rigid-collision.zh.txt; SEEDS.md section 4), the exact test, and cable
// against cable. The seed projects triangles to coordinate planes; here the centreline over each layer-2
// interval is cut into chords whose distance from the curve is bounded (h^2/8 max |c''|), each chord is a
// capsule of the cable radius tested with the engine's own distance queries (GJK/EPA for convex shapes,
// GJK per triangle for meshes and height fields, the closed form for planes, the children for compounds),
// and the parameter of each local minimum is refined by Brent's method (golden section with parabolic steps)
// on the distance of the ball at c(u). docs/cables.md gives the test per shape and
// the tolerances.
#pragma once

#include <simpulse/collision/cable_segment.h>
#include <simpulse/collision/shape.h>

#include <array>
#include <cstdint>

namespace simpulse {

struct CableCollideSettings {
    // Report contacts whose ball-to-shape separation is below this (speculative); 0: touching and
    // overlapping.
    double margin = 0;
    // Chords are cut so that their distance from the curve (h^2/8 max |c''|) is at most this fraction of r.
    double chord_deviation = 0.25;
    // The refinement of u stops when its bracket is below this.
    double parameter_tolerance = 1e-9;
};

struct CableContact {
    double u = 0;                     // parameter on the segment
    Vec3 point = Vec3::Zero();        // centreline point c(u) (world)
    Vec3 on_shape = Vec3::Zero();     // closest point on the rigid shape's surface (world)
    Vec3 normal = Vec3::UnitZ();      // unit, from the rigid shape to the cable (B to A in contact.h terms)
    double depth = 0;                 // r - distance(c(u), shape): > 0 overlap, < 0 within the margin
    std::array<double, 4> weights{};  // cable_basis(u): the impulse share of each control point
    std::uint32_t sub = 0;            // child, triangle or 2 * cell + half that produced it (0 for convex)
};

// At most four contacts per segment-shape pair, the deepest, one per local minimum of the distance.
struct CableContacts {
    static constexpr int kCapacity = 4;
    std::array<CableContact, kCapacity> items{};
    int count = 0;
    // Keeps the deepest kCapacity; a contact within `same_u` of a kept one replaces it only when deeper.
    void offer(const CableContact& contact, double same_u);
};

// Contacts of the segment with `shape` at `pose`, through the three layers. Returns out.count.
int collide_cable_shape(const CableSegment& segment, const Shape& shape, const Pose& pose,
                        const CableCollideSettings& settings, CableContacts& out);

// Signed distance of the ball of radius r at `centre` to the shape (> 0 apart, < 0 overlap), with the
// closest point on the shape and the unit normal from the shape to the ball: the distance the refinement
// minimises, and the brute-force oracle of the tests and the benchmark.
struct BallDistance {
    double distance = 0;
    Vec3 on_shape = Vec3::Zero();
    Vec3 normal = Vec3::UnitZ();
    std::uint32_t sub = 0;
};
BallDistance ball_shape_distance(const Shape& shape, const Pose& pose, const Vec3& centre, double radius);

struct CableCableContact {
    double u_a = 0, u_b = 0;
    Vec3 point_a = Vec3::Zero(), point_b = Vec3::Zero();  // centreline points
    Vec3 normal = Vec3::UnitZ();                          // unit, from B to A
    double depth = 0;                                     // r_a + r_b - |point_a - point_b|
    std::array<double, 4> weights_a{}, weights_b{};
};

struct CableCableContacts {
    static constexpr int kCapacity = 4;
    std::array<CableCableContact, kCapacity> items{};
    int count = 0;
};

// Closest points of two segments (subdivision into chords, segment-segment distance per chord pair,
// alternating refinement by Brent's method of the local minima). Returns out.count.
int collide_cable_cable(const CableSegment& a, const CableSegment& b, const CableCollideSettings& settings,
                        CableCableContacts& out);

}  // namespace simpulse
