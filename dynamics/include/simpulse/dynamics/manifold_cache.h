// Manifold reuse between steps (internal to the dynamics world): the narrow phase of a pair is skipped while
// the two bodies keep their relative pose, and the manifolds computed at that pose are carried along rigidly
// with the bodies. The idea is Jolt's body-pair cache (PhysicsSettings::mBodyPairCacheMaxDeltaPositionSq),
// with a tolerance on the contact geometry itself instead of a game-scale one: a reused point is never
// further than `distance` from where the narrow phase would put it (see docs/architecture.md, "Collision
// stage"). Resting and slowly sliding pairs are most pairs of a settled scene; they then cost a pose
// comparison instead of SAT and clipping.
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/dynamics/body.h>

#include <cstdint>
#include <span>
#include <vector>

namespace simpulse {

class ManifoldCache {
  public:
    // Appends to `out` the manifolds cached for the pair (a, b) (slots sa, sb; a first in creation order)
    // and returns true if they may be reused: same two bodies, a relative pose within `distance` (the
    // largest displacement of any point of the smaller body relative to the larger one since the manifolds
    // were computed) and a speculative margin at most `distance` larger than theirs. A reused entry is
    // carried into the next step's cache unchanged (its reference pose stays the pose the manifolds were
    // computed at, so drift does not accumulate); a pair that is not reused must be given to `store`.
    bool reuse(std::uint32_t sa, const Body& a, std::uint32_t sb, const Body& b, double margin,
               double distance, std::vector<Manifold>& out);
    // Records freshly computed manifolds of the pair at the bodies' current poses.
    void store(std::uint32_t sa, const Body& a, std::uint32_t sb, const Body& b, double margin,
               std::span<const Manifold> manifolds);
    // Ends the step: the pairs recorded since the last call become the cache.
    void end_step();
    void clear();

  private:
    struct Entry {
        std::uint64_t key = 0;  // (slot a << 32) | slot b
        std::uint64_t order_a = 0, order_b = 0;
        bool a_is_frame = false;             // the manifolds are stored in the frame of a (else of b)
        Vec3 relative_position;              // centre of mass of the other body in the frame body
        Quat relative_orientation;           // orientation of the other body in the frame body
        double margin = 0;                   // speculative margin the manifolds were computed with
        std::uint32_t first = 0, count = 0;  // manifolds[first, first + count), in the frame body
    };
    struct RelativePose {
        Vec3 position;
        Quat orientation;
    };
    static bool a_is_frame_of(const Body& a, const Body& b);
    static RelativePose relative_pose(const Body& frame, const Body& other);
    const Entry* find(std::uint64_t key) const;
    void carry(const Entry& entry);  // into the next step's cache, with its manifolds

    std::vector<Entry> entries_, next_entries_;  // sorted by key
    std::vector<Manifold> manifolds_, next_manifolds_;
};

}  // namespace simpulse
