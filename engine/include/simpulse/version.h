// Library version of simpulse.
#pragma once

namespace simpulse {
const char* version();
}
