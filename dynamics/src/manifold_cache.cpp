// Manifold reuse between steps: pose test, rigid transport of cached manifolds, and the per-step cache swap.
#include <simpulse/dynamics/manifold_cache.h>

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

std::uint64_t pair_key(std::uint32_t sa, std::uint32_t sb) {
    return (static_cast<std::uint64_t>(sa) << 32) | sb;
}

}  // namespace

// The manifolds live in the frame of the body whose points move least under a given relative motion: a
// static body (a plane or a height field has no bounded radius), else the larger one. The other body's
// points then move by at most |dp| + |dtheta| * its bounding radius relative to the frame body.
bool ManifoldCache::a_is_frame_of(const Body& a, const Body& b) {
    if (a.is_static != b.is_static) return a.is_static;
    return a.bounding_radius >= b.bounding_radius;
}

// Pose of `other`'s centre of mass and orientation in the frame of `frame`.
ManifoldCache::RelativePose ManifoldCache::relative_pose(const Body& frame, const Body& other) {
    const Quat to_frame = frame.orientation.conjugate();
    return {to_frame * (other.com_position - frame.com_position), to_frame * other.orientation};
}

const ManifoldCache::Entry* ManifoldCache::find(std::uint64_t key) const {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                                     [](const Entry& e, std::uint64_t k) { return e.key < k; });
    return it != entries_.end() && it->key == key ? &*it : nullptr;
}

bool ManifoldCache::reuse(std::uint32_t sa, const Body& a, std::uint32_t sb, const Body& b, double margin,
                          double distance, std::vector<Manifold>& out) {
    if (!(distance > 0)) return false;
    const Entry* e = find(pair_key(sa, sb));
    if (e == nullptr || e->order_a != a.creation_order || e->order_b != b.creation_order ||
        margin > e->margin + distance)
        return false;
    const Body& frame = e->a_is_frame ? a : b;
    const Body& other = e->a_is_frame ? b : a;
    const RelativePose now = relative_pose(frame, other);
    const Quat rotation = e->relative_orientation.conjugate() * now.orientation;
    const double angle = 2 * std::asin(std::min(1.0, rotation.vec().norm()));
    if ((now.position - e->relative_position).norm() + angle * other.bounding_radius > distance) return false;
    for (std::uint32_t k = 0; k < e->count; ++k) {
        Manifold m = manifolds_[e->first + k];
        m.normal = frame.orientation * m.normal;
        for (int p = 0; p < m.count; ++p) {
            ContactPoint& c = m.points[static_cast<std::size_t>(p)];
            c.position = frame.com_position + frame.orientation * c.position;
        }
        out.push_back(m);
    }
    carry(*e);
    return true;
}

void ManifoldCache::carry(const Entry& entry) {
    Entry e = entry;
    e.first = static_cast<std::uint32_t>(next_manifolds_.size());
    next_manifolds_.insert(next_manifolds_.end(), manifolds_.begin() + entry.first,
                           manifolds_.begin() + entry.first + entry.count);
    next_entries_.push_back(e);
}

void ManifoldCache::store(std::uint32_t sa, const Body& a, std::uint32_t sb, const Body& b, double margin,
                          std::span<const Manifold> manifolds) {
    Entry e;
    e.key = pair_key(sa, sb);
    e.order_a = a.creation_order;
    e.order_b = b.creation_order;
    e.a_is_frame = a_is_frame_of(a, b);
    const Body& frame = e.a_is_frame ? a : b;
    const RelativePose pose = relative_pose(frame, e.a_is_frame ? b : a);
    e.relative_position = pose.position;
    e.relative_orientation = pose.orientation;
    const Quat to_frame = frame.orientation.conjugate();
    e.margin = margin;
    e.first = static_cast<std::uint32_t>(next_manifolds_.size());
    e.count = static_cast<std::uint32_t>(manifolds.size());
    for (Manifold m : manifolds) {
        m.normal = to_frame * m.normal;
        for (int p = 0; p < m.count; ++p) {
            ContactPoint& c = m.points[static_cast<std::size_t>(p)];
            c.position = to_frame * (c.position - frame.com_position);
        }
        next_manifolds_.push_back(m);
    }
    next_entries_.push_back(e);
}

void ManifoldCache::end_step() {
    std::sort(next_entries_.begin(), next_entries_.end(),
              [](const Entry& x, const Entry& y) { return x.key < y.key; });
    entries_.swap(next_entries_);
    manifolds_.swap(next_manifolds_);
    next_entries_.clear();
    next_manifolds_.clear();
}

void ManifoldCache::clear() {
    entries_.clear();
    next_entries_.clear();
    manifolds_.clear();
    next_manifolds_.clear();
}

}  // namespace simpulse
