// Messages of the link-ends rule (see link_ends.h).
#include <simpulse/dynamics/link_ends.h>

namespace simpulse {

std::string link_ends_message(LinkEndsProblem problem, std::string_view what, std::string_view world,
                              std::string_view body, std::string_view other) {
    std::string message(what);
    switch (problem) {
        case LinkEndsProblem::both_world:
            return message.append(" needs at least one body besides ").append(world);
        case LinkEndsProblem::same_body:
            return message.append(" needs two different bodies, got ").append(body).append(" twice");
        case LinkEndsProblem::both_static:
            return message.append(" needs a dynamic body, but ")
                .append(body)
                .append(" and ")
                .append(other)
                .append(" are both static");
        case LinkEndsProblem::none:
            break;
    }
    return {};
}

}  // namespace simpulse
