// Numbers in messages. std::to_string prints doubles in fixed notation with 6 decimals, so 5e-324 reads
// "0.000000" and 1e300 takes 300 digits; a message must show the value it rejects. number_text gives the
// shortest text that reads back to the same double ("5e-324", "0.1", "1e+300", "inf", "nan").
#pragma once

#include <charconv>
#include <string>

namespace simpulse {

inline std::string number_text(double x) {
    char buffer[32];  // the shortest round-trip form of a double has at most 24 characters
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, x);
    return error == std::errc{} ? std::string(buffer, end) : std::string("?");
}

}  // namespace simpulse
