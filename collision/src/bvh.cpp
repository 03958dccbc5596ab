// Binned-SAH construction of the static BVH (Wald 2007: centroid bins, sweep of the bin boundaries on each
// axis) with an object-median fallback that bounds the depth, and the non-template query entry points.
#include <simpulse/collision/bvh.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

constexpr int kBins = 16;

struct Task {
    std::int32_t node;
    std::int32_t begin, end;  // range of `items`
    int depth;
};

int ceil_log2(std::uint32_t n) {
    return n <= 1 ? 0 : std::bit_width(n - 1);
}

// Centre of a box that cannot overflow (0.5 * (min + max) is infinite for boxes near the double range). A box
// without a finite centre (empty, or reaching infinity on both sides) is parked at the origin.
Vec3 safe_center(const Aabb& box) {
    const Vec3 c = 0.5 * box.min + 0.5 * box.max;
    return box.empty() || !c.allFinite() ? Vec3::Zero() : c;
}

// SAH bin of a centroid coordinate, clamped to the bins: the scale of an extent of a few denormals is
// infinite, and (c - lo) * scale is then NaN, which must not become an index.
int bin_of(double coordinate, double lo, double scale) {
    const double t = (coordinate - lo) * scale;
    if (!(t > 0)) return 0;
    return t >= kBins - 1 ? kBins - 1 : static_cast<int>(t);
}

}  // namespace

Bvh build_bvh(std::span<const Aabb> boxes) {
    Bvh bvh;
    if (boxes.empty()) return bvh;
    if (boxes.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max() / 2))
        throw ShapeError("bvh: too many items (" + std::to_string(boxes.size()) + ")");
    const auto n = static_cast<std::int32_t>(boxes.size());
    bvh.items.resize(boxes.size());
    std::vector<Vec3> centers(boxes.size());
    for (std::int32_t i = 0; i < n; ++i) {
        bvh.items[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i);
        const Aabb& b = boxes[static_cast<std::size_t>(i)];
        // An empty box overlaps nothing, wherever its centre is parked.
        centers[static_cast<std::size_t>(i)] = safe_center(b);
    }
    bvh.nodes.reserve(2 * boxes.size() - 1);
    bvh.nodes.push_back({});
    std::vector<Task> tasks{{0, 0, n, 0}};
    // Past this depth only median splits are made, each halving the range: leaves stay within kBvhMaxDepth.
    const int sah_depth_limit = kBvhMaxDepth - 1 - ceil_log2(static_cast<std::uint32_t>(n));

    auto item_center = [&](std::int32_t k) -> const Vec3& {
        return centers[bvh.items[static_cast<std::size_t>(k)]];
    };

    while (!tasks.empty()) {
        const Task task = tasks.back();
        tasks.pop_back();
        Aabb box, centroid_box;
        for (std::int32_t k = task.begin; k < task.end; ++k) {
            box.grow(boxes[bvh.items[static_cast<std::size_t>(k)]]);
            centroid_box.grow(item_center(k));
        }
        Bvh::Node& node = bvh.nodes[static_cast<std::size_t>(task.node)];
        node.box = box;
        const std::int32_t count = task.end - task.begin;
        if (count == 1) {
            node.first = task.begin;
            node.count = 1;
            continue;
        }

        // Best binned SAH split: cost = area(left) * n_left + area(right) * n_right.
        int best_axis = -1, best_bin = 0;
        double best_cost = std::numeric_limits<double>::infinity();
        const Vec3 extent = centroid_box.max - centroid_box.min;
        if (task.depth < sah_depth_limit) {
            for (int axis = 0; axis < 3; ++axis) {
                if (!(extent[axis] > 0) || !std::isfinite(extent[axis])) continue;
                const double scale = kBins / extent[axis];
                std::array<Aabb, kBins> bin_box;
                std::array<std::int32_t, kBins> bin_count{};
                for (std::int32_t k = task.begin; k < task.end; ++k) {
                    const int b = bin_of(item_center(k)[axis], centroid_box.min[axis], scale);
                    bin_box[static_cast<std::size_t>(b)].grow(boxes[bvh.items[static_cast<std::size_t>(k)]]);
                    ++bin_count[static_cast<std::size_t>(b)];
                }
                std::array<double, kBins> right_cost{};
                Aabb acc;
                std::int32_t acc_count = 0;
                for (int b = kBins - 1; b > 0; --b) {
                    acc.grow(bin_box[static_cast<std::size_t>(b)]);
                    acc_count += bin_count[static_cast<std::size_t>(b)];
                    right_cost[static_cast<std::size_t>(b)] =
                        acc_count == 0 || acc.empty() ? 0.0 : acc.surface_area() * acc_count;
                }
                acc = Aabb{};
                acc_count = 0;
                for (int b = 0; b + 1 < kBins; ++b) {
                    acc.grow(bin_box[static_cast<std::size_t>(b)]);
                    acc_count += bin_count[static_cast<std::size_t>(b)];
                    if (acc_count == 0 || acc_count == count) continue;
                    const double left_cost = acc.empty() ? 0.0 : acc.surface_area() * acc_count;
                    const double cost = left_cost + right_cost[static_cast<std::size_t>(b + 1)];
                    if (cost < best_cost) {
                        best_cost = cost;
                        best_axis = axis;
                        best_bin = b;
                    }
                }
            }
        }

        std::int32_t mid;
        auto* first = bvh.items.data() + task.begin;
        auto* last = bvh.items.data() + task.end;
        if (best_axis >= 0) {
            const double scale = kBins / extent[best_axis];
            const double lo = centroid_box.min[best_axis];
            // Same bin formula as above, so the partition matches the evaluated split exactly.
            const auto goes_left = [&](std::uint32_t item) {
                return bin_of(centers[item][best_axis], lo, scale) <= best_bin;
            };
            mid = static_cast<std::int32_t>(std::stable_partition(first, last, goes_left) - bvh.items.data());
        } else {
            // Coincident centroids or the depth guard: object median along the widest centroid axis.
            int axis = 0;
            extent.maxCoeff(&axis);
            mid = task.begin + count / 2;
            std::nth_element(first, bvh.items.data() + mid, last, [&](std::uint32_t a, std::uint32_t b) {
                return centers[a][axis] < centers[b][axis] || (centers[a][axis] == centers[b][axis] && a < b);
            });
        }

        const auto left = static_cast<std::int32_t>(bvh.nodes.size());
        node.first = left;
        node.count = 0;
        bvh.nodes.push_back({});
        bvh.nodes.push_back({});
        // Right first on the stack so the left subtree is built (and laid out) first.
        tasks.push_back({left + 1, mid, task.end, task.depth + 1});
        tasks.push_back({left, task.begin, mid, task.depth + 1});
    }
    return bvh;
}

void bvh_query(const Bvh& bvh, const Aabb& box, std::vector<std::uint32_t>& out) {
    bvh_query(bvh, box, [&](std::uint32_t item) { out.push_back(item); });
}

double ray_enter(const Aabb& box, const Vec3& origin, const Vec3& direction, double max_t) {
    double t0 = 0, t1 = max_t;
    for (int axis = 0; axis < 3; ++axis) {
        const double d = direction[axis], o = origin[axis];
        if (d == 0) {
            if (o < box.min[axis] || o > box.max[axis]) return std::numeric_limits<double>::infinity();
            continue;
        }
        const double inv = 1.0 / d;
        double ta = (box.min[axis] - o) * inv, tb = (box.max[axis] - o) * inv;
        if (ta > tb) std::swap(ta, tb);
        t0 = std::max(t0, ta);
        t1 = std::min(t1, tb);
        if (t0 > t1) return std::numeric_limits<double>::infinity();
    }
    return t0;
}

}  // namespace simpulse
