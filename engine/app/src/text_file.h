// Reads a whole file into a string (internal): scene files and the sweep's point files.
#pragma once

#include <simpulse/result.h>

#include <string>

namespace simpulse::scene_detail {

// The file's bytes, or an error naming the path: "PATH: cannot read: REASON" (a directory, a missing file, a
// read error), or ErrorCode::out_of_memory "PATH: out of memory while reading WHAT" when the text cannot grow
// or the stream reports ENOMEM, never a silently truncated text.
Result<std::string> read_text_file(const std::string& path, const std::string& what);

}  // namespace simpulse::scene_detail
