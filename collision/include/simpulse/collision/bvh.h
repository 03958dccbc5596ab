// Static bounding-volume hierarchy over item boxes (the triangles of a mesh, the children of a compound):
// build by binned surface-area heuristic (Wald, "On fast construction of SAH-based bounding volume
// hierarchies", 2007), box-overlap and ray queries by depth-first traversal with a fixed-size stack.
// One item per leaf, so a leaf's box is its item's box and queries are exact, not conservative.
#pragma once

#include <simpulse/collision/shape.h>

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace simpulse {

// Depth bound of every tree built by build_bvh (root at depth 0): the builder falls back to object-median
// splits when the SAH would exceed it, so queries need no heap-allocated stack.
inline constexpr int kBvhMaxDepth = 64;

// Builds the hierarchy over boxes[0..n): item i of the result refers to boxes[i]. Deterministic (same boxes
// -> same tree). Empty boxes are allowed and never reported by queries. Throws ShapeError for more than 2^31
// items.
Bvh build_bvh(std::span<const Aabb> boxes);

// Calls visit(item) for every item whose box overlaps `box` (closed intervals: touching boxes overlap), in a
// deterministic order. If visit returns bool, returning false stops the query early.
template <class Visit>
void bvh_query(const Bvh& bvh, const Aabb& box, Visit&& visit) {
    if (bvh.nodes.empty()) return;
    std::int32_t stack[kBvhMaxDepth];
    int top = 0;
    std::int32_t index = 0;
    for (;;) {
        const Bvh::Node& node = bvh.nodes[static_cast<std::size_t>(index)];
        if (node.box.overlaps(box)) {
            if (node.count == 0) {
                stack[top++] = node.first + 1;
                index = node.first;
                continue;
            }
            for (std::int32_t k = 0; k < node.count; ++k) {
                const std::uint32_t item = bvh.items[static_cast<std::size_t>(node.first + k)];
                if constexpr (std::is_same_v<std::invoke_result_t<Visit&, std::uint32_t>, bool>) {
                    if (!visit(item)) return;
                } else {
                    visit(item);
                }
            }
        }
        if (top == 0) return;
        index = stack[--top];
    }
}

// Appends to `out` the items whose box overlaps `box` (same order as the callback form).
void bvh_query(const Bvh& bvh, const Aabb& box, std::vector<std::uint32_t>& out);

// Entry parameter of the segment origin + t * direction, t in [0, max_t], into `box`; a value > max_t when
// the segment misses. Slab test (Kay & Kajiya 1986); zero direction components are handled without NaNs.
double ray_enter(const Aabb& box, const Vec3& origin, const Vec3& direction, double max_t);

// Segment query front to back: calls visit(item, max_t) for every item whose box the segment
// origin + t * direction, t in [0, max_t], enters. visit returns the new max_t: the same value to go on, the
// parameter of a hit to prune everything behind it (closest-hit queries), or a negative value to stop.
template <class Visit>
void bvh_raycast(const Bvh& bvh, const Vec3& origin, const Vec3& direction, double max_t, Visit&& visit) {
    if (bvh.nodes.empty() || !(max_t >= 0)) return;
    struct Entry {
        std::int32_t node;
        double t;
    };
    Entry stack[kBvhMaxDepth];
    int top = 0;
    Entry current{0, ray_enter(bvh.nodes[0].box, origin, direction, max_t)};
    for (;;) {
        if (current.t <= max_t) {
            const Bvh::Node& node = bvh.nodes[static_cast<std::size_t>(current.node)];
            if (node.count == 0) {
                const std::int32_t left = node.first, right = node.first + 1;
                const double tl =
                    ray_enter(bvh.nodes[static_cast<std::size_t>(left)].box, origin, direction, max_t);
                const double tr =
                    ray_enter(bvh.nodes[static_cast<std::size_t>(right)].box, origin, direction, max_t);
                // Nearer child first; ties go left so the order is deterministic.
                if (tr < tl) {
                    stack[top++] = {left, tl};
                    current = {right, tr};
                } else {
                    stack[top++] = {right, tr};
                    current = {left, tl};
                }
                continue;
            }
            for (std::int32_t k = 0; k < node.count && max_t >= 0; ++k)
                max_t = visit(bvh.items[static_cast<std::size_t>(node.first + k)], max_t);
            if (!(max_t >= 0)) return;
        }
        if (top == 0) return;
        current = stack[--top];
    }
}

}  // namespace simpulse
