// Narrow-phase settings; its output, manifolds of up to four points sharing one normal, is in
// simpulse/types.h.
#pragma once

#include <simpulse/collision/math.h>

namespace simpulse {

struct CollideSettings {
    // Also report contacts whose separation is below this distance (speculative contacts). 0 reports only
    // touching and penetrating features.
    double margin = 0;
};

}  // namespace simpulse
