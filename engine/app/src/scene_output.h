// Private plumbing of the result document (docs/scene-format.md, "Result"): the document as JSON, for writers
// that add keys of their own (the sweep's point files), and the line layout result_json prints it in.
#pragma once

#include <simpulse/app/run.h>

#include "scene_json.h"

#include <string>

namespace simpulse::scene_detail {

// The result document of a run, keys in the order result_json writes them.
Json result_document(const SceneDesc& scene, const SceneWorld& world, const RunReport& report);

// The document with one top-level key per line and each event and body on a line of its own: readable, and
// still line-oriented for diff and grep (nlohmann's indented form puts every number on its own line).
std::string layout(const Json& document);

}  // namespace simpulse::scene_detail
