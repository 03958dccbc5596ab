// The warm-start cache's lookup (solver_impl.h, WarmStartCache): contact keys are 64-bit mixes of the bodies,
// sub-shapes and feature ids (dynamics/src/build_constraints.cpp), so a table indexed by their bits finds an
// entry in one or two probes. A binary search over entries sorted by key would need a sort every step and
// mispredict half of its comparisons, since hashed keys give no pattern to predict.
#include "solver_impl.h"

#include <bit>

namespace simpulse::detail {
namespace {

// Fibonacci hashing: the key's bits are already mixed, the multiplication spreads any that are not (cable
// contacts' keys, keys of few bodies) over the slot's bits.
std::size_t home_slot(std::uint64_t key, std::size_t mask) {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

}  // namespace

void WarmStartCache::index() {
    // At most half full: linear probing then averages under 1.5 probes for a hit and 2.5 for a miss.
    const std::size_t size = std::bit_ceil(std::max<std::size_t>(16, 2 * entries.size()));
    slots.assign(size, 0);
    const std::size_t mask = size - 1;
    for (std::size_t e = 0; e < entries.size(); ++e) {
        std::size_t s = home_slot(entries[e].key, mask);
        while (slots[s] != 0 && entries[slots[s] - 1].key != entries[e].key) s = (s + 1) & mask;
        slots[s] = static_cast<std::uint32_t>(e + 1);
    }
}

const WarmStart* WarmStartCache::find(std::uint64_t key) const {
    if (slots.empty()) return nullptr;
    const std::size_t mask = slots.size() - 1;
    for (std::size_t s = home_slot(key, mask);; s = (s + 1) & mask) {
        const std::uint32_t e = slots[s];
        if (e == 0) return nullptr;
        if (entries[e - 1].key == key) return &entries[e - 1];
    }
}

}  // namespace simpulse::detail
