// Reads the numbers of a dumped solver problem (tests/solver/data/*.txt), written as hexadecimal floats so
// that a test replays the solve bit for bit: operator>> does not read them, strtod does.
#pragma once

#include <cstdlib>
#include <istream>
#include <string>

namespace simpulse::test {

class HexFloatReader {
  public:
    explicit HexFloatReader(std::istream& in) : in_(in) {}
    // The next token as a double; 0 and ok() false if it is missing or not a number.
    double next() {
        std::string token;
        in_ >> token;
        char* end = nullptr;
        const double value = std::strtod(token.c_str(), &end);
        ok_ = ok_ && !token.empty() && *end == '\0';
        return value;
    }
    bool ok() const { return ok_; }

  private:
    std::istream& in_;
    bool ok_ = true;
};

}  // namespace simpulse::test
