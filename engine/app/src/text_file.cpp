// Whole-file reads for the scene reader and the sweep (text_file.h).
#include "text_file.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

namespace simpulse::scene_detail {

Result<std::string> read_text_file(const std::string& path, const std::string& what) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return Error{path + ": cannot read: it is a directory"};
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{path + ": cannot read: " + std::strerror(errno)};
    // Read in chunks into a string, whose growth throws std::bad_alloc: `text << in.rdbuf()` stops silently
    // when its buffer cannot grow, and leaves a truncated text.
    std::string text;
    try {
        std::array<char, 1 << 16> chunk;
        while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0)
            text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    } catch (const std::bad_alloc&) {
        return Error{ErrorCode::out_of_memory, path + ": out of memory while reading " + what};
    }
    if (in.bad()) {
        if (errno == ENOMEM)
            return Error{ErrorCode::out_of_memory, path + ": out of memory while reading " + what};
        return Error{path + ": cannot read: " + std::strerror(errno)};
    }
    return text;
}

}  // namespace simpulse::scene_detail
