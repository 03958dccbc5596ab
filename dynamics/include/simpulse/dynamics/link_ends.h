// The rule for the two ends of a spring or joint, shared by the API (ends are BodyIds, the world frame is
// BodyId{}) and the scene reader (ends are body names, the world frame is "world"), so both refuse the same
// links: a link needs at least one body besides the world frame, and two different ends.
#pragma once

#include <string>
#include <string_view>

namespace simpulse {

enum class LinkEndsProblem { none, both_world, same_body };

template <class End>
LinkEndsProblem link_ends_problem(const End& a, const End& b, const End& world) {
    if (a == world && b == world) return LinkEndsProblem::both_world;
    if (a == b) return LinkEndsProblem::same_body;
    return LinkEndsProblem::none;
}

// "a spring needs at least one body besides the world frame" / "a spring needs two different bodies, got
// body 3 twice": `what` is "a spring" or "a joint", `world` and `body` name the ends in the caller's terms.
std::string link_ends_message(LinkEndsProblem problem, std::string_view what, std::string_view world,
                              std::string_view body);

}  // namespace simpulse
