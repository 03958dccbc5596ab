// The rule for the two ends of a spring or joint, shared by the API (ends are BodyIds, the world frame is
// BodyId{}) and the scene reader (ends are body names, the world frame is "world"), so both refuse the same
// links: a link needs at least one body besides the world frame, two different ends, and one end that moves
// (a link between two static ends, the world frame counting as static, would constrain nothing).
#pragma once

#include <string>
#include <string_view>

namespace simpulse {

enum class LinkEndsProblem { none, both_world, same_body, both_static };

template <class End>
LinkEndsProblem link_ends_problem(const End& a, const End& b, const End& world) {
    if (a == world && b == world) return LinkEndsProblem::both_world;
    if (a == b) return LinkEndsProblem::same_body;
    return LinkEndsProblem::none;
}

// The third rule, once the ends are known to exist: whether each end is static (the world frame is).
inline LinkEndsProblem link_statics_problem(bool static_a, bool static_b) {
    return static_a && static_b ? LinkEndsProblem::both_static : LinkEndsProblem::none;
}

// "a spring needs at least one body besides the world frame" / "a spring needs two different bodies, got
// body 3 twice" / "a joint needs a dynamic body, but body 0 and the world frame are both static": `what` is
// "a spring" or "a joint", `world`, `body` (end A) and `other` (end B) name the ends in the caller's terms.
std::string link_ends_message(LinkEndsProblem problem, std::string_view what, std::string_view world,
                              std::string_view body, std::string_view other = {});

}  // namespace simpulse
