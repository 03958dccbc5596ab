// How the dynamics module reports a refused call: std::invalid_argument whose message starts with the field
// ("density: expected a positive finite number, got -1"), or InvalidId for an id that names no live object.
// The public World turns both into error values (engine/src/world.cpp); nothing is changed by a refused call.
#pragma once

#include <stdexcept>

namespace simpulse {

class InvalidId : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

}  // namespace simpulse
