// Contact features and their clipping: phases 3 and 4 of the axis-rotation article (SEEDS.md section 3,
// convex-contact-manifold.ru.txt). Two features (a vertex, an edge or a convex face of each shape) are
// projected onto the plane perpendicular to the contact normal, intersected there as convex polygons
// (Sutherland-Hodgman, the reference-face clipping of Box2D/Jolt done in 2-D), and every point of the
// intersection is lifted back onto both features along the normal. The lift gives the two surface points,
// hence the depth and the mid-surface position. Fixed-capacity arrays only: nothing here allocates.
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/collision/math.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>

namespace simpulse {

// Largest feature the clipper accepts. Larger hull faces are decimated by the caller (see
// contact_feature_from).
inline constexpr int kMaxFeatureVertices = 64;
// The intersection of two convex polygons has at most the sum of their vertex counts.
inline constexpr int kMaxClipVertices = 2 * kMaxFeatureVertices;

// A contact feature of one shape in world space: 1 point (vertex), 2 (edge) or 3+ (convex face, either
// winding). Points may repeat or be collinear; the clipper removes such degeneracies at rounding level.
struct ContactFeature {
    std::array<Vec3, kMaxFeatureVertices> points;
    int count = 0;
    // The points are already a convex loop without repeats (a polyhedron face, a triangle): the clipper then
    // skips building their 2-D hull.
    bool convex_loop = false;

    void clear() {
        count = 0;
        convex_loop = false;
    }
    void add(const Vec3& p) {
        if (count < kMaxFeatureVertices) points[static_cast<std::size_t>(count++)] = p;
    }
    std::span<const Vec3> view() const { return {points.data(), static_cast<std::size_t>(count)}; }
};

// Fixed-capacity list of contact points in uninitialised storage: a ContactPoint initialises its members, and
// zeroing a 128-point buffer for every pair cost more than the clipping itself. Points beyond the capacity
// are dropped (callers size it from the clipper's bound).
template <int N>
class ContactPointBuffer {
  public:
    int count = 0;

    void clear() { count = 0; }
    void add(const ContactPoint& p) {
        if (count < N) {
            ::new (static_cast<void*>(storage_ + static_cast<std::size_t>(count) * sizeof(ContactPoint)))
                ContactPoint(p);
            ++count;
        }
    }
    ContactPoint& operator[](int i) { return data()[i]; }
    const ContactPoint& operator[](int i) const { return data()[i]; }
    std::span<const ContactPoint> view() const {
        return count > 0 ? std::span<const ContactPoint>(data(), static_cast<std::size_t>(count))
                         : std::span<const ContactPoint>();
    }

  private:
    ContactPoint* data() { return std::launder(reinterpret_cast<ContactPoint*>(storage_)); }
    const ContactPoint* data() const { return std::launder(reinterpret_cast<const ContactPoint*>(storage_)); }
    alignas(ContactPoint) std::byte storage_[static_cast<std::size_t>(N) * sizeof(ContactPoint)];
};

// Candidate contact points of one patch before reduction to four.
using ContactCandidates = ContactPointBuffer<kMaxClipVertices>;

// Convex polygon in 2-D with one label per vertex. Vertex labels describe the two polygon edges meeting at
// the vertex (see clip_polygon), which makes them feature ids independent of the numerical positions.
struct Polygon2 {
    std::array<Vec2, kMaxClipVertices> points;
    std::array<std::uint32_t, kMaxClipVertices> labels;  // uninitialised: written with each point
    int count = 0;

    void clear() { count = 0; }
    void add(const Vec2& p, std::uint32_t label) {
        if (count < kMaxClipVertices) {
            points[static_cast<std::size_t>(count)] = p;
            labels[static_cast<std::size_t>(count)] = label;
            ++count;
        }
    }
    double signed_area() const;
};

// Unit vectors u, v with (u, v, n) right-handed and orthonormal; n must be unit. Deterministic and continuous
// except across n.z = 0 (Duff et al. 2017, "Building an orthonormal basis, revisited").
void orthonormal_basis(const Vec3& n, Vec3& u, Vec3& v);

// Intersection of two convex counter-clockwise polygons: `subject` clipped by every edge of `clip`
// (Sutherland-Hodgman). Vertices exactly on a clip line are kept once, never duplicated. Edge j of the
// subject (from vertex j to j+1) has label j, edge i of the clip polygon has label 0x8000 | i; each output
// vertex gets (incoming edge label << 16) | outgoing edge label.
void clip_polygon(const Polygon2& subject, const Polygon2& clip, Polygon2& out);

// Clips two contact features against each other in the plane perpendicular to `normal` (unit, from A to B)
// and appends the lifted points whose depth is >= -margin to `out`. Depth is the distance along the normal
// between the two lifted surface points (positive when they overlap), the position is their midpoint. `key`
// identifies the pair of features (e.g. face indices) and is mixed into each point id. Returns the number of
// points appended.
int clip_features(const ContactFeature& a, const ContactFeature& b, const Vec3& normal, double margin,
                  std::uint32_t key, ContactCandidates& out);

// Deterministic 32-bit mix of two ids (contact ids only; not a cryptographic hash).
std::uint32_t mix_id(std::uint32_t a, std::uint32_t b);

}  // namespace simpulse
