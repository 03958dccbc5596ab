// Broad phase: a dynamic AABB tree of fat boxes and a persistent pair cache.
//
// The tree follows Box2D v3 (Catto, src/dynamic_tree.c): a leaf is inserted next to the sibling found by a
// greedy branch-and-bound search on the surface-area heuristic (Bittner et al., "Fast insertion-based
// optimization of bounding volume hierarchies", 2013), and every ancestor is then improved by the best local
// tree rotation (Kopta et al., "Fast, effective BVH updates for animated scenes", 2012). The broad phase
// follows Box2D's b2BroadPhase: proxies carry fat boxes (tight box + margin, extended along the last
// displacement), are re-inserted only when the tight box leaves the fat box, and only re-inserted proxies
// query for new pairs; static proxies live in their own tree, so static-static pairs are never tested.
#pragma once

#include <simpulse/collision/math.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace simpulse {

// Fat-box sizing. The margin absorbs jitter (a settling pile moves by a fraction of its bodies' size), the
// displacement extension absorbs steady motion for `displacement_multiplier` more steps.
struct BroadPhaseSettings {
    double margin = 0;                   // absolute, in length units
    double relative_margin = 0.1;        // times the tight box's largest half extent
    double displacement_multiplier = 2;  // extension along the displacement given to move()
};

// A potentially colliding pair: the fat boxes of proxies proxy_a and proxy_b overlap. a <= b (user ids).
struct BroadPhasePair {
    std::uint32_t a = 0, b = 0;               // user ids
    std::int32_t proxy_a = -1, proxy_b = -1;  // the proxies carrying a and b
    friend bool operator==(const BroadPhasePair&, const BroadPhasePair&) = default;
};

// Dynamic bounding-volume tree over boxes, each leaf holding an integer payload. Node storage and the query
// stack are reused, so steady-state insert/remove/query allocate nothing.
class DynamicAabbTree {
  public:
    // Returns the leaf's node index (stable until the leaf is removed).
    std::int32_t insert(const Aabb& box, std::int32_t payload);
    void remove(std::int32_t leaf);
    void clear();

    // visit(payload) for every leaf whose box overlaps `box` (closed intervals).
    template <class Visit>
    void query(const Aabb& box, Visit&& visit) const {
        if (root_ < 0) return;
        Stack stack;
        stack.push(root_);
        while (!stack.empty()) {
            const Node& n = nodes_[static_cast<std::size_t>(stack.pop())];
            if (!n.box.overlaps(box)) continue;
            if (n.child1 < 0) {
                visit(n.payload);
            } else {
                stack.push(n.child1);
                stack.push(n.child2);
            }
        }
    }

    const Aabb& box(std::int32_t leaf) const { return nodes_[static_cast<std::size_t>(leaf)].box; }
    int height() const { return root_ < 0 ? 0 : nodes_[static_cast<std::size_t>(root_)].height; }
    int leaf_count() const { return leaves_; }
    // Sum of the surface areas of the inner nodes divided by the root's (the SAH cost of the tree).
    double area_ratio() const;
    // Structural check for tests: parent links, heights, inner boxes equal to the union of their children,
    // leaf count. Returns an empty string when valid, else what is wrong.
    std::string validate() const;

  private:
    struct Node {
        Aabb box;
        std::int32_t parent = -1;               // next free node when on the free list
        std::int32_t child1 = -1, child2 = -1;  // -1: leaf
        std::int32_t height = 0;                // leaf 0
        std::int32_t payload = -1;
    };

    // Small-buffer stack: no allocation unless the tree is deeper than 128.
    class Stack {
      public:
        void push(std::int32_t v) {
            if (size_ < small_.size()) {
                small_[size_] = v;
            } else {
                big_.push_back(v);
            }
            ++size_;
        }
        std::int32_t pop() {
            --size_;
            if (size_ < small_.size()) return small_[size_];
            const std::int32_t v = big_.back();
            big_.pop_back();
            return v;
        }
        bool empty() const { return size_ == 0; }

      private:
        std::array<std::int32_t, 128> small_;
        std::vector<std::int32_t> big_;
        std::size_t size_ = 0;
    };

    std::int32_t allocate();
    void release(std::int32_t node);
    std::int32_t find_best_sibling(const Aabb& box) const;
    void rotate(std::int32_t node);
    void refit_upwards(std::int32_t node, bool rotate_nodes);

    std::vector<Node> nodes_;
    std::int32_t root_ = -1;
    std::int32_t free_ = -1;
    int leaves_ = 0;
};

class BroadPhase {
  public:
    explicit BroadPhase(const BroadPhaseSettings& settings = {});

    // Adds a proxy for a body with tight box `box`; returns the proxy id (ids of removed proxies are reused
    // after the next update_pairs). A box with infinite coordinates (a plane) overlaps everything. A NaN or
    // empty box throws std::invalid_argument, as do move() and remove() of a proxy that is not alive.
    int add(const Aabb& box, std::uint32_t user_id, bool is_static);
    void remove(int proxy);
    // New tight box and the body's displacement over the last step. Re-inserts the proxy (and returns true)
    // only when the box left the fat box, or when the fat box has become much larger than a fresh one would
    // be.
    bool move(int proxy, const Aabb& box, const Vec3& displacement);
    // Brings pairs() up to date with every add/remove/move since the last call: pairs of re-inserted proxies
    // are found by querying the trees, the others are kept from the cache.
    void update_pairs();
    // Every pair of live proxies whose fat boxes overlap, except static-static, sorted ascending by
    // (a, b, proxy_a, proxy_b). Valid after update_pairs.
    const std::vector<BroadPhasePair>& pairs() const { return pairs_; }

    const Aabb& fat_box(int proxy) const { return proxies_[static_cast<std::size_t>(proxy)].fat; }
    std::uint32_t user_id(int proxy) const { return proxies_[static_cast<std::size_t>(proxy)].user_id; }
    bool is_static(int proxy) const { return proxies_[static_cast<std::size_t>(proxy)].is_static; }
    int proxy_count() const { return live_; }
    const DynamicAabbTree& tree(bool is_static) const { return is_static ? static_tree_ : dynamic_tree_; }
    const BroadPhaseSettings& settings() const { return settings_; }
    // A new absolute margin (>= 0 and finite, else std::invalid_argument) for the boxes fattened from now on;
    // fat boxes already in the trees stay as they are until their proxies re-insert (they still contain
    // their tight boxes, so no pair is missed).
    void set_margin(double margin);

    // visit(proxy) for every live proxy whose fat box overlaps `box` (for scene queries).
    template <class Visit>
    void query(const Aabb& box, Visit&& visit) const {
        dynamic_tree_.query(box, visit);
        static_tree_.query(box, visit);
        for (std::int32_t p : unbounded_) visit(p);
    }

  private:
    struct Proxy {
        Aabb fat;
        std::uint32_t user_id = 0;
        std::int32_t leaf = -1;  // node in its tree; -1 when unbounded or dead
        bool is_static = false;
        bool alive = false;
        bool moved = false;  // in moved_ (queries at the next update_pairs)
    };

    Aabb fatten(const Aabb& box, const Vec3& displacement, bool is_static) const;
    void place(std::int32_t proxy);    // into its tree or the unbounded list
    void unplace(std::int32_t proxy);  // out of it
    void mark_moved(std::int32_t proxy);
    void add_pair(std::int32_t p, std::int32_t q);
    void pair_with_moved(std::int32_t m);

    BroadPhaseSettings settings_;
    std::vector<Proxy> proxies_;
    std::vector<std::int32_t> free_ids_;     // reusable now
    std::vector<std::int32_t> removed_ids_;  // reusable after the next update_pairs
    std::vector<std::int32_t> unbounded_;    // proxies with infinite boxes, sorted
    DynamicAabbTree dynamic_tree_, static_tree_;
    std::vector<std::int32_t> moved_;
    std::vector<BroadPhasePair> pairs_, found_, merged_;
    int live_ = 0;
};

}  // namespace simpulse
