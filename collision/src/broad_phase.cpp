// Dynamic AABB tree (Box2D v3 dynamic_tree.c: greedy SAH sibling search after Bittner et al. 2013, local tree
// rotations after Kopta et al. 2012) and the broad phase on top of it (Box2D b2BroadPhase: fat boxes, move
// buffer, static tree, persistent pair cache).
#include <simpulse/collision/broad_phase.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

namespace simpulse {
namespace {

double area(const Aabb& b) {
    return b.surface_area();
}

bool finite(const Aabb& b) {
    return b.min.allFinite() && b.max.allFinite();
}

// A NaN box would poison the tree's cost comparisons and an empty one (min > max, the default Aabb) would
// pass for an infinite box; both are bugs of the caller.
void check_box(const Aabb& box) {
    if (box.min.hasNaN() || box.max.hasNaN())
        throw std::invalid_argument("broad phase: box has NaN coordinates");
    if (box.empty()) throw std::invalid_argument("broad phase: box is empty (min > max)");
}

bool pair_less(const BroadPhasePair& x, const BroadPhasePair& y) {
    return std::tie(x.a, x.b, x.proxy_a, x.proxy_b) < std::tie(y.a, y.b, y.proxy_a, y.proxy_b);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// DynamicAabbTree

std::int32_t DynamicAabbTree::allocate() {
    if (free_ >= 0) {
        const std::int32_t n = free_;
        free_ = nodes_[static_cast<std::size_t>(n)].parent;
        nodes_[static_cast<std::size_t>(n)] = Node{};
        return n;
    }
    nodes_.push_back(Node{});
    return static_cast<std::int32_t>(nodes_.size() - 1);
}

void DynamicAabbTree::release(std::int32_t node) {
    Node& n = nodes_[static_cast<std::size_t>(node)];
    n = Node{};
    n.height = -1;  // marks a free node for validate()
    n.parent = free_;
    free_ = node;
}

void DynamicAabbTree::clear() {
    nodes_.clear();
    root_ = free_ = -1;
    leaves_ = 0;
}

// Greedy branch and bound on the SAH cost of inserting `box` as the sibling of a node: the direct cost is the
// area of the new parent, the inherited cost the area growth of the ancestors. A subtree is entered only if
// its lower bound (inherited + direct cost of its root, minus what the new leaf's area could save) can beat
// the best.
std::int32_t DynamicAabbTree::find_best_sibling(const Aabb& box) const {
    const double area_d = area(box);
    std::int32_t index = root_;
    const Node* node = &nodes_[static_cast<std::size_t>(index)];
    double node_area = area(node->box);
    double direct = area(Aabb::merged(node->box, box));
    double inherited = 0;
    std::int32_t best = index;
    double best_cost = direct;
    while (node->child1 >= 0) {
        const double cost = direct + inherited;
        if (cost < best_cost) best = index, best_cost = cost;
        inherited += direct - node_area;

        std::array<std::int32_t, 2> child{node->child1, node->child2};
        std::array<double, 2> lower{}, child_direct{}, child_area{};
        std::array<bool, 2> leaf{};
        for (std::size_t k = 0; k < 2; ++k) {
            const Node& c = nodes_[static_cast<std::size_t>(child[k])];
            child_direct[k] = area(Aabb::merged(c.box, box));
            leaf[k] = c.child1 < 0;
            if (leaf[k]) {
                const double c_cost = child_direct[k] + inherited;
                if (c_cost < best_cost) best = child[k], best_cost = c_cost;
                lower[k] = std::numeric_limits<double>::infinity();
            } else {
                child_area[k] = area(c.box);
                lower[k] = inherited + child_direct[k] + std::min(area_d - child_area[k], 0.0);
            }
        }
        if (leaf[0] && leaf[1]) break;
        if (best_cost <= lower[0] && best_cost <= lower[1]) break;
        const std::size_t k = lower[1] < lower[0] ? 1 : 0;
        index = child[k];
        node = &nodes_[static_cast<std::size_t>(index)];
        node_area = child_area[k];
        direct = child_direct[k];
    }
    return best;
}

// At inner node a with children b and c, swapping b with a child of c (or c with a child of b) changes only
// the box of the node that receives the swapped subtree; keep the swap that shrinks it most, if any.
void DynamicAabbTree::rotate(std::int32_t a) {
    Node& na = nodes_[static_cast<std::size_t>(a)];
    if (na.child1 < 0) return;
    const std::int32_t b = na.child1, c = na.child2;
    struct Candidate {
        std::int32_t keep;  // child of a that stays (receives `moved_in`)
        std::int32_t up;    // grandchild moving up to a
        std::int32_t stay;  // the other grandchild under `keep`
        std::int32_t down;  // the child of a moving down under `keep`
        double gain;        // area(keep) - area(new keep)
        Aabb box;           // new box of `keep`
    };
    Candidate best{-1, -1, -1, -1, 0, {}};
    for (const auto& [keep, down] : {std::pair{c, b}, std::pair{b, c}}) {
        const Node& nk = nodes_[static_cast<std::size_t>(keep)];
        if (nk.child1 < 0) continue;
        const double base = area(nk.box);
        for (const auto& [up, stay] : {std::pair{nk.child1, nk.child2}, std::pair{nk.child2, nk.child1}}) {
            const Aabb box = Aabb::merged(nodes_[static_cast<std::size_t>(down)].box,
                                          nodes_[static_cast<std::size_t>(stay)].box);
            const double gain = base - area(box);
            if (gain > best.gain) best = {keep, up, stay, down, gain, box};
        }
    }
    if (best.keep < 0) return;
    Node& keep = nodes_[static_cast<std::size_t>(best.keep)];
    // a: replace `down` by `up`; keep: replace `up` by `down`.
    if (na.child1 == best.down) {
        na.child1 = best.up;
    } else {
        na.child2 = best.up;
    }
    if (keep.child1 == best.up) {
        keep.child1 = best.down;
    } else {
        keep.child2 = best.down;
    }
    nodes_[static_cast<std::size_t>(best.up)].parent = a;
    nodes_[static_cast<std::size_t>(best.down)].parent = best.keep;
    keep.box = best.box;
    keep.height = 1 + std::max(nodes_[static_cast<std::size_t>(best.down)].height,
                               nodes_[static_cast<std::size_t>(best.stay)].height);
    na.height = 1 + std::max(keep.height, nodes_[static_cast<std::size_t>(best.up)].height);
}

void DynamicAabbTree::refit_upwards(std::int32_t index, bool rotate_nodes) {
    while (index >= 0) {
        Node& n = nodes_[static_cast<std::size_t>(index)];
        const Node& c1 = nodes_[static_cast<std::size_t>(n.child1)];
        const Node& c2 = nodes_[static_cast<std::size_t>(n.child2)];
        n.box = Aabb::merged(c1.box, c2.box);
        n.height = 1 + std::max(c1.height, c2.height);
        if (rotate_nodes) rotate(index);
        index = nodes_[static_cast<std::size_t>(index)].parent;
    }
}

std::int32_t DynamicAabbTree::insert(const Aabb& box, std::int32_t payload) {
    const std::int32_t leaf = allocate();
    {
        Node& n = nodes_[static_cast<std::size_t>(leaf)];
        n.box = box;
        n.payload = payload;
    }
    ++leaves_;
    if (root_ < 0) {
        root_ = leaf;
        return leaf;
    }
    const std::int32_t sibling = find_best_sibling(box);
    const std::int32_t parent = allocate();  // may reallocate nodes_: no references held across it
    const std::int32_t old_parent = nodes_[static_cast<std::size_t>(sibling)].parent;
    Node& p = nodes_[static_cast<std::size_t>(parent)];
    p.parent = old_parent;
    p.child1 = sibling;
    p.child2 = leaf;
    if (old_parent >= 0) {
        Node& op = nodes_[static_cast<std::size_t>(old_parent)];
        (op.child1 == sibling ? op.child1 : op.child2) = parent;
    } else {
        root_ = parent;
    }
    nodes_[static_cast<std::size_t>(sibling)].parent = parent;
    nodes_[static_cast<std::size_t>(leaf)].parent = parent;
    refit_upwards(parent, true);
    return leaf;
}

void DynamicAabbTree::remove(std::int32_t leaf) {
    --leaves_;
    if (leaf == root_) {
        root_ = -1;
        release(leaf);
        return;
    }
    const std::int32_t parent = nodes_[static_cast<std::size_t>(leaf)].parent;
    const Node& p = nodes_[static_cast<std::size_t>(parent)];
    const std::int32_t grand = p.parent;
    const std::int32_t sibling = p.child1 == leaf ? p.child2 : p.child1;
    nodes_[static_cast<std::size_t>(sibling)].parent = grand;
    if (grand >= 0) {
        Node& g = nodes_[static_cast<std::size_t>(grand)];
        (g.child1 == parent ? g.child1 : g.child2) = sibling;
        refit_upwards(grand, false);
    } else {
        root_ = sibling;
    }
    release(parent);
    release(leaf);
}

double DynamicAabbTree::area_ratio() const {
    if (root_ < 0) return 0;
    double total = 0;
    for (const Node& n : nodes_)
        if (n.height > 0) total += area(n.box);
    return total / area(nodes_[static_cast<std::size_t>(root_)].box);
}

std::string DynamicAabbTree::validate() const {
    if (root_ < 0) return leaves_ == 0 ? "" : "empty tree with leaves";
    if (nodes_[static_cast<std::size_t>(root_)].parent != -1) return "root has a parent";
    int leaves = 0;
    std::vector<std::int32_t> stack{root_};
    while (!stack.empty()) {
        const std::int32_t i = stack.back();
        stack.pop_back();
        const Node& n = nodes_[static_cast<std::size_t>(i)];
        if (n.child1 < 0) {
            if (n.height != 0) return "leaf " + std::to_string(i) + " has height " + std::to_string(n.height);
            ++leaves;
            continue;
        }
        const Node& c1 = nodes_[static_cast<std::size_t>(n.child1)];
        const Node& c2 = nodes_[static_cast<std::size_t>(n.child2)];
        if (c1.parent != i || c2.parent != i) return "broken parent link below node " + std::to_string(i);
        if (n.height != 1 + std::max(c1.height, c2.height))
            return "wrong height at node " + std::to_string(i);
        const Aabb u = Aabb::merged(c1.box, c2.box);
        if (u.min != n.box.min || u.max != n.box.max)
            return "box of node " + std::to_string(i) + " is not the union";
        stack.push_back(n.child1);
        stack.push_back(n.child2);
    }
    if (leaves != leaves_) return "leaf count " + std::to_string(leaves) + " != " + std::to_string(leaves_);
    return "";
}

// ---------------------------------------------------------------------------------------------------------------
// BroadPhase

BroadPhase::BroadPhase(const BroadPhaseSettings& settings) : settings_(settings) {}

void BroadPhase::set_margin(double margin) {
    if (!(margin >= 0) || !std::isfinite(margin))
        throw std::invalid_argument("broad phase margin must be >= 0 and finite");
    settings_.margin = margin;
}

Aabb BroadPhase::fatten(const Aabb& box, const Vec3& displacement, bool is_static) const {
    // Static proxies do not move (a moved static proxy is simply re-inserted), so a margin would only add
    // pairs.
    if (is_static || !finite(box)) return box;
    Aabb fat = box.inflated(settings_.margin + settings_.relative_margin * box.half_extents().maxCoeff());
    const Vec3 ext = settings_.displacement_multiplier * displacement;
    for (int k = 0; k < 3; ++k) (ext[k] > 0 ? fat.max[k] : fat.min[k]) += ext[k];
    return fat;
}

void BroadPhase::place(std::int32_t proxy) {
    Proxy& p = proxies_[static_cast<std::size_t>(proxy)];
    if (finite(p.fat)) {
        p.leaf = (p.is_static ? static_tree_ : dynamic_tree_).insert(p.fat, proxy);
    } else {
        p.leaf = -1;
        unbounded_.insert(std::lower_bound(unbounded_.begin(), unbounded_.end(), proxy), proxy);
    }
}

void BroadPhase::unplace(std::int32_t proxy) {
    Proxy& p = proxies_[static_cast<std::size_t>(proxy)];
    if (p.leaf >= 0) {
        (p.is_static ? static_tree_ : dynamic_tree_).remove(p.leaf);
        p.leaf = -1;
    } else {
        unbounded_.erase(std::lower_bound(unbounded_.begin(), unbounded_.end(), proxy));
    }
}

void BroadPhase::mark_moved(std::int32_t proxy) {
    Proxy& p = proxies_[static_cast<std::size_t>(proxy)];
    if (p.moved) return;
    p.moved = true;
    moved_.push_back(proxy);
}

int BroadPhase::add(const Aabb& box, std::uint32_t user_id, bool is_static) {
    check_box(box);
    std::int32_t id;
    if (!free_ids_.empty()) {
        id = free_ids_.back();
        free_ids_.pop_back();
    } else {
        id = static_cast<std::int32_t>(proxies_.size());
        proxies_.emplace_back();
    }
    Proxy& p = proxies_[static_cast<std::size_t>(id)];
    p = Proxy{};
    p.fat = fatten(box, Vec3::Zero(), is_static);
    p.user_id = user_id;
    p.is_static = is_static;
    p.alive = true;
    place(id);
    mark_moved(id);
    ++live_;
    return id;
}

void BroadPhase::remove(int proxy) {
    Proxy& p = proxies_[static_cast<std::size_t>(proxy)];
    if (!p.alive)
        throw std::invalid_argument("broad phase: proxy " + std::to_string(proxy) + " is not alive");
    unplace(proxy);
    p.alive = false;
    --live_;
    // Its pairs leave the cache at the next update_pairs; until then the id must not name another proxy.
    removed_ids_.push_back(proxy);
}

bool BroadPhase::move(int proxy, const Aabb& box, const Vec3& displacement) {
    check_box(box);
    Proxy& p = proxies_[static_cast<std::size_t>(proxy)];
    if (!p.alive)
        throw std::invalid_argument("broad phase: proxy " + std::to_string(proxy) + " is not alive");
    const Aabb fresh = fatten(box, displacement, p.is_static);
    if (p.fat.contains(box)) {
        // Still inside. Re-insert anyway when the fat box is much larger than a fresh one, i.e. a fast body
        // that slowed down still drags a long predictive extension (Box2D's "huge AABB" test, but on the
        // extents: a containment test would also fire for a steady mover, whose old box trails behind it).
        const double margin =
            p.is_static || !finite(box)
                ? 0.0
                : settings_.margin + settings_.relative_margin * box.half_extents().maxCoeff();
        const Vec3 excess = (p.fat.max - p.fat.min) - (fresh.max - fresh.min);
        if (!(excess.maxCoeff() > 4 * margin)) return false;
    }
    unplace(proxy);
    p.fat = fresh;
    place(proxy);
    mark_moved(proxy);
    return true;
}

void BroadPhase::add_pair(std::int32_t p, std::int32_t q) {
    const Proxy& x = proxies_[static_cast<std::size_t>(p)];
    const Proxy& y = proxies_[static_cast<std::size_t>(q)];
    if (std::tie(x.user_id, p) < std::tie(y.user_id, q)) {
        found_.push_back({x.user_id, y.user_id, p, q});
    } else {
        found_.push_back({y.user_id, x.user_id, q, p});
    }
}

// All pairs of moved proxy m. When both proxies moved, the pair is reported by the lower id only.
void BroadPhase::pair_with_moved(std::int32_t m) {
    const Proxy& pm = proxies_[static_cast<std::size_t>(m)];
    auto consider = [&](std::int32_t q) {
        if (q == m) return;
        const Proxy& pq = proxies_[static_cast<std::size_t>(q)];
        if (pq.moved && q < m) return;
        if (pm.is_static && pq.is_static) return;
        add_pair(m, q);
    };
    if (pm.leaf >= 0) {
        dynamic_tree_.query(pm.fat, consider);
        if (!pm.is_static) static_tree_.query(pm.fat, consider);
        for (std::int32_t u : unbounded_) consider(u);
    } else {
        // Unbounded: overlaps every live proxy.
        for (std::int32_t q = 0; q < static_cast<std::int32_t>(proxies_.size()); ++q)
            if (proxies_[static_cast<std::size_t>(q)].alive) consider(q);
    }
}

void BroadPhase::update_pairs() {
    found_.clear();
    for (std::int32_t m : moved_)
        if (proxies_[static_cast<std::size_t>(m)].alive) pair_with_moved(m);
    std::sort(found_.begin(), found_.end(), pair_less);

    // Cached pairs of proxies that neither moved nor died keep their overlap status (their fat boxes did not
    // change); pairs touching a moved proxy were all just re-found. Both lists are sorted and disjoint.
    auto keep = [&](const BroadPhasePair& pr) {
        const Proxy& x = proxies_[static_cast<std::size_t>(pr.proxy_a)];
        const Proxy& y = proxies_[static_cast<std::size_t>(pr.proxy_b)];
        return x.alive && y.alive && !x.moved && !y.moved;
    };
    merged_.clear();
    auto f = found_.begin();
    for (const BroadPhasePair& pr : pairs_) {
        if (!keep(pr)) continue;
        while (f != found_.end() && pair_less(*f, pr)) merged_.push_back(*f++);
        merged_.push_back(pr);
    }
    merged_.insert(merged_.end(), f, found_.end());
    pairs_.swap(merged_);

    for (std::int32_t m : moved_) proxies_[static_cast<std::size_t>(m)].moved = false;
    moved_.clear();
    free_ids_.insert(free_ids_.end(), removed_ids_.begin(), removed_ids_.end());
    removed_ids_.clear();
}

}  // namespace simpulse
