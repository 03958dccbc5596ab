// Building blocks shared by the cylinder-terrain sources (Strashnov & Torgashev 2020; see
// cylinder_terrain.h): the cylinder in the field's frame, the candidate contact points of one element (sect.
// IV), and the patch accumulator that groups candidates by element normal and reduces them to manifolds
// (sect. V). Private to collision/src; everything is fixed-capacity.
#pragma once

#include <simpulse/collision/cylinder_terrain.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace simpulse::cylinder_terrain {

// The cylinder in the field frame. body_x and body_y are the cylinder's local x and y axes: they are
// perpendicular to the axis and turn with the body, which makes the base-rim sample points body-fixed.
struct CylinderInField {
    Vec3 center = Vec3::Zero();
    Vec3 axis = Vec3::UnitZ();
    Vec3 body_x = Vec3::UnitX();
    Vec3 body_y = Vec3::UnitY();
    double radius = 0.5;
    double half_height = 0.5;
    double margin = 0;
};

// Feature kinds of a candidate (the low bits of its id).
enum class Feature : std::uint8_t {
    rim = 0,          // body-fixed point of the lower base rim (index 0-7)
    deepest_rim = 1,  // A1, the rim point deepest below the element's plane
    side_end = 2,     // end of the projected lowest generator A1'A2' clipped by the element (10)
    crossing = 3,     // element edge crossing the projected base ellipse, mapped back to the rim (8)
    vertex = 4,       // element vertex inside the projected base (second stage)
    deepest = 5,      // the element's deepest point when it lies on the element's boundary (second stage)
};

// Candidate contact point, in the field frame. The cylinder's point is terrain_point - depth * normal.
// Members have no initialisers: the buffers below hold hundreds of candidates per query and are written
// before they are read, so they are left uninitialised rather than cleared every query.
struct Candidate {
    Vec3 terrain_point;  // on the element
    double depth;        // along the element normal, > 0 penetrating
    double offset;       // plane offset of the element
    std::uint32_t id;
    std::uint32_t cell;
    // Reduction tie-break among equally deep points: 0 body-fixed rim, 1 A1 / line ends, 2 the rest.
    // Body-fixed points first keep a resting base on the same four points frame after frame.
    std::uint8_t priority;
    // Found by the first stage (the element meets the projected base, generator or deepest point).
    // Second-stage points are dropped when a first-stage point of their patch is at least as deep (IV-D).
    bool primary;
};

// One element's candidates: at most 9 rim points, 2 crossings per edge, 4 vertices, 2 line ends, 1 deepest.
inline constexpr int kMaxElementCandidates = 28;
struct ElementCandidates {
    std::array<Candidate, kMaxElementCandidates> points;  // the first `count` are valid
    int count = 0;
    void add(const Candidate& c) {
        if (count < kMaxElementCandidates) points[static_cast<std::size_t>(count++)] = c;
    }
};

// Per-element stage (sect. IV-A/B/C and the element part of IV-D). `field` (may be null for a flat patch) is
// used to tell interior vertices of a coplanar neighbourhood from patch-boundary vertices.
void element_candidates(const CylinderInField& cylinder, const TerrainElement& element,
                        const HeightField* field, ElementCandidates& out);

// Id of a candidate: the cell (22 bits; a 2048 x 2048 field has 2047^2 < 2^22 cells), the element kind
// (2 bits) and the feature (3 bits of kind, 5 bits of index). Flat-patch points carry cell 0, so that their
// ids do not change while the cylinder rolls across the patch.
inline std::uint32_t candidate_id(std::uint32_t cell, ElementKind kind, Feature feature, unsigned index) {
    return ((cell & 0x3FFFFFu) << 10) | (static_cast<std::uint32_t>(kind) << 8) |
           (static_cast<std::uint32_t>(feature) << 5) | (index & 31u);
}

// Patches: candidates grouped by element normal (sect. V: one patch per plane orientation).
inline constexpr int kMaxPatches = 8;
inline constexpr int kPatchCapacity = 48;
struct Patch {
    Vec3 normal;                                   // field frame, up
    std::array<Candidate, kPatchCapacity> points;  // the first `count` are valid
    int count;
};
struct PatchSet {
    std::array<Patch, kMaxPatches> patches;
    int count = 0;
};

// Where the patches go: the field's pose, the caller's vector and the index of the first manifold of this
// query (a patch flushed twice merges into its earlier manifold).
struct PatchOutput {
    Pose pose_field;
    std::vector<Manifold>* out = nullptr;
    std::size_t first = 0;
    double tie_depth = 0;  // depth window within which the reduction prefers the lower priority
};

// Adds one element's candidates to the patch of its normal.
void add_to_patches(PatchSet& set, const Vec3& normal, const ElementCandidates& candidates,
                    const PatchOutput& output);
// Reduces every patch to a manifold in the output and empties the set.
void flush_patches(PatchSet& set, const PatchOutput& output);

// Reduction of one patch to at most four points (sect. V), in place: second-stage points no deeper than a
// first-stage point of the patch are dropped, coincident points welded, then the deepest (ties within
// tie_depth to the lower priority, then the earlier point), the farthest from it, the farthest from their
// line and the point adding the largest area; collinear points keep the two extremes. Returns the new count;
// the first point is the deepest.
int reduce_patch(Candidate* points, int count, const Vec3& normal, double tie_depth);

}  // namespace simpulse::cylinder_terrain
