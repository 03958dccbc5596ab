// Argument checks shared by the world's API calls (world.cpp, cable.cpp): each throws std::invalid_argument
// (InvalidId for ids) with a message naming the field, before anything changes.
#pragma once

#include <simpulse/collision/number_text.h>
#include <simpulse/dynamics/errors.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace simpulse::detail {

inline void require(bool condition, const char* message) {
    if (!condition) throw std::invalid_argument(message);
}
inline void require(bool condition, const std::string& message) {
    if (!condition) throw std::invalid_argument(message);
}

inline void require_id(bool valid, const char* what) {
    if (!valid) throw InvalidId(std::string(what) + ": not a live id of this world");
}

// "FIELD: expected a positive finite number, got X" unless value is one.
inline void require_positive(double value, const char* field) {
    if (!(value > 0 && std::isfinite(value)))
        throw std::invalid_argument(std::string(field) + ": expected a positive finite number, got " +
                                    number_text(value));
}

inline void require_non_negative(double value, const char* field) {
    if (!(value >= 0 && std::isfinite(value)))
        throw std::invalid_argument(std::string(field) + ": expected a finite number >= 0, got " +
                                    number_text(value));
}

// A free slot of `slots` (reused from the free list, else appended).
template <class Slot>
std::uint32_t allocate(std::vector<Slot>& slots, std::vector<std::uint32_t>& free_list) {
    if (!free_list.empty()) {
        const std::uint32_t index = free_list.back();
        free_list.pop_back();
        return index;
    }
    slots.emplace_back();
    return static_cast<std::uint32_t>(slots.size() - 1);
}

}  // namespace simpulse::detail
