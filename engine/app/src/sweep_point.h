// Private plumbing of the sweep (simpulse/app/sweep.h) shared by running points and collecting them: the
// "sweep" key of a point file and reading a point file back.
#pragma once

#include <simpulse/app/sweep.h>

#include "scene_json.h"

#include <optional>
#include <string>

namespace simpulse::sweep_detail {

// {"point": k, "points": n, "vary": {pointer: value, ...}, "set": [...]}: identifies a point of a sweep.
scene_detail::Json point_header(const Sweep& sweep, std::size_t k);

// A complete point document (a JSON object with "sweep" and "bodies"), or nullopt if the file is absent,
// unreadable or truncated.
std::optional<scene_detail::Json> read_point_file(const std::string& path);

}  // namespace simpulse::sweep_detail
