// Saved velocities of an island's bodies (solver_impl.h, BodyVelocities): the energy safeguards' velocities
// after phase 1 and the answers an island with cable contacts switches between.
#include "solver_impl.h"

#include <algorithm>

namespace simpulse::detail {

void BodyVelocities::collect(std::span<const Row> rows, std::span<const SolverBody> bodies) {
    // Each body once, marked as it is first met, so that only the distinct bodies are sorted: a pile has
    // tens of rows per body.
    if (listed.size() < bodies.size()) listed.resize(bodies.size(), 0);
    body.clear();
    for (const Row& r : rows)
        for_each_row_body(r, [&](std::uint32_t b) {
            if (listed[b]) return;
            listed[b] = 1;
            body.push_back(b);
        });
    for (const std::uint32_t b : body) listed[b] = 0;
    std::sort(body.begin(), body.end());
    velocity.resize(body.size());
    angular_velocity.resize(body.size());
    save(bodies);
}

void BodyVelocities::save(std::span<const SolverBody> bodies) {
    for (std::size_t k = 0; k < body.size(); ++k) {
        velocity[k] = bodies[body[k]].velocity;
        angular_velocity[k] = bodies[body[k]].angular_velocity;
    }
}

void BodyVelocities::restore(std::span<SolverBody> bodies) const {
    for (std::size_t k = 0; k < body.size(); ++k) {
        bodies[body[k]].velocity = velocity[k];
        bodies[body[k]].angular_velocity = angular_velocity[k];
    }
}

}  // namespace simpulse::detail
