// Library version string, from the CMake project version.
#include <simpulse/version.h>

namespace simpulse {
const char* version() {
    return "0.1.0";
}
}  // namespace simpulse
