// Private JSON plumbing of the scene reader: strict text parsing (line/column on syntax errors, duplicate
// keys rejected), RFC 6901 pointers and "--set" overrides, and the error value that carries a location.
// nlohmann/json stays out of the public headers (the engine links it privately).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace simpulse::scene_detail {

// Ordered: objects iterate in document order, so "the first error" and written results follow the file.
using Json = nlohmann::ordered_json;

// A problem with the input. `where` is a JSON pointer ("" is the whole document) or, for text that is not
// JSON, "line L, column C". Thrown inside the reader and turned into "FILE: where: message" at its boundary.
struct InputError {
    std::string where;
    std::string message;
    bool is_pointer = true;
};

// "FILE: where: message", the root pointer shown as "(root)".
std::string format_error(std::string_view file, const InputError& error);

// Parses JSON text into `document`. Throws InputError at "line L, column C" for invalid JSON (including
// numbers that overflow a double) and at the pointer of the key for a key that appears twice in one object.
// Out of memory it throws std::bad_alloc and leaves `document` partly built: the caller, which owns it
// outside its try block, releases it with release_without_allocating before building the error.
void parse_json_text(std::string_view text, Json& document);

// Frees a value's children bottom-up. nlohmann's destructor of a non-empty array or object allocates a stack
// of its children (to avoid recursion); out of memory that throws from a destructor, which terminates the
// process. After this the value holds only empty containers and scalars, whose destruction allocates nothing.
void release_without_allocating(Json& value) noexcept;

// Appends one reference token to a pointer, escaping '~' and '/' (RFC 6901).
std::string child_pointer(const std::string& parent, std::string_view key);
std::string child_pointer(const std::string& parent, std::size_t index);

// The VALUE of a "--set" argument: parsed as JSON, else the text as a string. Throws InputError for JSON that
// nests too deep or has duplicate keys.
Json override_value(std::string_view text);

// Applies one "--set" argument "/json/pointer=VALUE": VALUE is parsed as JSON, else used as a string. The
// members of objects on the way that the document lacks (or holds null) are created as empty objects; array
// elements on the way must exist. The last token replaces a member or adds one to an object, replaces an
// array element, or appends to an array when it is "-" or the array's size. Throws InputError naming the
// pointer.
void apply_override(Json& document, std::string_view argument);

// S as a JSON string literal, quotes included: names in messages stay on one line whatever they hold (bytes
// that are not UTF-8, possible in a SceneDesc built in code, become U+FFFD).
std::string json_quoted(std::string_view s);

// Short description of a value for "got ..." in messages: numbers and literals as written, strings quoted,
// arrays and objects as compact JSON cut to 40 characters.
std::string describe(const Json& value);

}  // namespace simpulse::scene_detail
