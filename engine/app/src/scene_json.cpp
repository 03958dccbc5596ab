// Strict JSON text parsing, RFC 6901 pointers and "--set" overrides for the scene reader (see scene_json.h).
#include "scene_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace simpulse::scene_detail {
namespace {

// Bounded so that the recursive readers (nested compounds) and writers cannot exhaust the stack: for the text
// and for the document the "--set" overrides build from it.
constexpr std::size_t kMaxDepth = 100;

// Levels of containers in a value (a scalar 0, an empty array 1). Recursive: the values measured were parsed
// with the kMaxDepth limit.
std::size_t nesting_depth(const Json& value) {
    if (!value.is_structured()) return 0;
    std::size_t deepest = 0;
    for (const Json& child : value) deepest = std::max(deepest, nesting_depth(child));
    return 1 + deepest;
}

// "line L, column C" of a byte offset (1-based line; column = bytes of the line up to and including the
// offending one), as nlohmann/json counts them in its syntax errors.
std::string text_location(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    const std::string_view before = text.substr(0, offset);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t last_newline = before.rfind('\n');
    const std::size_t column = last_newline == std::string_view::npos ? offset : offset - last_newline - 1;
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// "line L, column C (byte offset N)" of the byte at `offset`, for problems a reader looks for with a hex
// viewer as much as an editor (a NUL byte, what follows the document).
std::string byte_location(std::string_view text, std::size_t offset) {
    return text_location(text, offset + 1) + " (byte offset " + std::to_string(offset) + ")";
}

// The reason in a nlohmann exception message, without "[json.exception.x.n] " and "parse error at ...: ".
std::string exception_reason(const std::string& what) {
    std::string reason = what;
    if (const std::size_t close = reason.find("] ");
        reason.starts_with("[json.exception.") && close != std::string::npos)
        reason.erase(0, close + 2);
    if (reason.starts_with("parse error")) {
        if (const std::size_t colon = reason.find(": "); colon != std::string::npos)
            reason.erase(0, colon + 2);
    }
    return reason;
}

std::size_t trailing_text_offset(std::string_view text);

// SAX pass that only checks: it tracks the pointer of the current value so that a repeated key can be named,
// and records where the text stops being JSON. (nlohmann keeps the last of two equal keys silently, which
// would hide a typo such as two "mass" entries.)
class CheckingSax {
  public:
    explicit CheckingSax(std::string_view text) : text_(text) {}

    bool null() { return scalar(); }
    bool boolean(bool) { return scalar(); }
    bool number_integer(Json::number_integer_t) { return scalar(); }
    bool number_unsigned(Json::number_unsigned_t) { return scalar(); }
    bool number_float(Json::number_float_t, const Json::string_t&) { return scalar(); }
    bool string(Json::string_t&) { return scalar(); }
    bool binary(Json::binary_t&) { return scalar(); }
    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(Json::string_t& key) {
        Frame& frame = frames_.back();
        if (std::find(frame.keys.begin(), frame.keys.end(), key) != frame.keys.end()) {
            error_ = InputError{child_pointer(frame.pointer, key), "duplicate key in one object", true};
            return false;
        }
        frame.keys.push_back(key);
        frame.key = key;
        return true;
    }

    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
        // Syntax errors carry nlohmann's own "line L, column C"; others (number overflow) only the offset.
        const std::string what = ex.what();
        // (Not "unexpected end of input", which ends an empty or truncated text.)
        if (what.ends_with("; expected end of input") && position > 0) {
            error_ = InputError{
                byte_location(text_, trailing_text_offset(text_)),
                "invalid JSON: text after the end of the document (only whitespace may follow it)", false};
            return false;
        }
        std::string where = text_location(text_, position);
        if (const std::size_t at = what.find(" at line "), colon = what.find(": ", at);
            what.find("parse error") != std::string::npos && at != std::string::npos &&
            colon != std::string::npos)
            where = what.substr(at + 4, colon - at - 4);
        error_ = InputError{where, "invalid JSON: " + exception_reason(what), false};
        return false;
    }

    const std::optional<InputError>& error() const { return error_; }

  private:
    struct Frame {
        std::string pointer;  // of this container
        bool is_array = false;
        std::size_t index = 0;          // arrays: index of the next element
        std::string key;                // objects: key of the current member
        std::vector<std::string> keys;  // objects: keys seen so far (objects in scenes are small)
    };

    std::string current_pointer() const {
        if (frames_.empty()) return "";
        const Frame& f = frames_.back();
        return f.is_array ? child_pointer(f.pointer, f.index) : child_pointer(f.pointer, f.key);
    }
    bool scalar() {
        if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
        return true;
    }
    bool open(bool is_array) {
        if (frames_.size() >= kMaxDepth) {
            error_ = InputError{current_pointer(),
                                "nested deeper than " + std::to_string(kMaxDepth) + " levels", true};
            return false;
        }
        Frame frame;
        frame.pointer = current_pointer();
        frame.is_array = is_array;
        frames_.push_back(std::move(frame));
        return true;
    }
    bool close() {
        frames_.pop_back();
        return scalar();
    }

    std::string_view text_;
    std::vector<Frame> frames_;
    std::optional<InputError> error_;
};

// The first byte after the document that starts `text` that is not whitespace. nlohmann reports the end of
// the token that follows the document ("12345" after the closing brace), so the document's end is found
// again: reading a stream, and not asked for the end of input, nlohmann stops right after the document's
// last character (scenes are objects; only a top-level number would need one character more).
std::size_t trailing_text_offset(std::string_view text) {
    std::istringstream in{std::string(text)};
    CheckingSax sax(text);
    Json::sax_parse(in, &sax, nlohmann::json::input_format_t::json, /*strict=*/false);
    in.clear();
    const std::streamoff end = in.tellg();
    const std::size_t from = end < 0 ? 0 : static_cast<std::size_t>(end);
    return std::min(text.find_first_not_of(" \t\n\r", from), text.size() - 1);
}

// Reference tokens of a pointer, unescaped. Throws for a pointer that is neither empty nor starts with '/'.
std::vector<std::string> pointer_tokens(std::string_view pointer) {
    std::vector<std::string> tokens;
    if (pointer.empty()) return tokens;
    if (pointer.front() != '/')
        throw InputError{std::string(pointer), "cannot --set: a JSON pointer is empty or starts with \"/\""};
    std::size_t start = 1;
    while (true) {
        const std::size_t end = std::min(pointer.find('/', start), pointer.size());
        std::string token;
        for (std::size_t i = start; i < end; ++i) {
            if (pointer[i] != '~') {
                token += pointer[i];
                continue;
            }
            const char next = i + 1 < end ? pointer[i + 1] : '\0';
            if (next != '0' && next != '1')
                throw InputError{std::string(pointer),
                                 "cannot --set: \"~\" must be followed by 0 or 1 (RFC 6901)"};
            token += next == '0' ? '~' : '/';
            ++i;
        }
        tokens.push_back(std::move(token));
        if (end == pointer.size()) break;
        start = end + 1;
    }
    return tokens;
}

// Array index of a reference token: digits without a leading zero (RFC 6901); nullopt otherwise.
std::optional<std::size_t> array_index(const std::string& token) {
    if (token.empty() || token.size() > 18 || (token.size() > 1 && token[0] == '0')) return std::nullopt;
    if (!std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return static_cast<std::size_t>(std::stoull(token));
}

}  // namespace

std::string format_error(std::string_view file, const InputError& error) {
    const std::string where = error.is_pointer && error.where.empty() ? "(root)" : error.where;
    return std::string(file) + ": " + where + ": " + error.message;
}

namespace {

// Builds a document into a value the caller owns (nlohmann's own parse builds into a local of its own, which
// an out-of-memory exception destroys while it unwinds: see release_without_allocating). The text has passed
// CheckingSax, so nothing but std::bad_alloc can go wrong here.
class DocumentSax {
  public:
    explicit DocumentSax(Json& root) : root_(root) {}

    bool null() { return add(nullptr); }
    bool boolean(bool value) { return add(value); }
    bool number_integer(Json::number_integer_t value) { return add(value); }
    bool number_unsigned(Json::number_unsigned_t value) { return add(value); }
    bool number_float(Json::number_float_t value, const Json::string_t&) { return add(value); }
    bool string(Json::string_t& value) { return add(std::move(value)); }
    bool binary(Json::binary_t& value) { return add(Json::binary(std::move(value))); }
    bool start_object(std::size_t) { return open(Json::value_t::object); }
    bool start_array(std::size_t) { return open(Json::value_t::array); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(Json::string_t& key) {
        key_ = std::move(key);
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  private:
    // Where the next value goes: the root, a new last element of the innermost open array, or the member of
    // the innermost open object named by the last key. The open containers' addresses stay valid: a
    // container's parent does not change while the container is open.
    Json& slot() {
        if (open_.empty()) return root_;
        Json& parent = *open_.back();
        if (parent.is_array()) {
            parent.push_back(nullptr);
            return parent.back();
        }
        return parent[key_];
    }
    template <class Value>
    bool add(Value&& value) {
        slot() = Json(std::forward<Value>(value));
        return true;
    }
    bool open(Json::value_t type) {
        Json& container = slot();
        container = type;
        open_.push_back(&container);
        return true;
    }
    bool close() {
        open_.pop_back();
        return true;
    }

    Json& root_;
    std::vector<Json*> open_;
    Json::string_t key_;
};

}  // namespace

void release_without_allocating(Json& value) noexcept {
    if (value.is_array()) {
        auto& array = value.get_ref<Json::array_t&>();
        for (Json& child : array) release_without_allocating(child);
        array.clear();
    } else if (value.is_object()) {
        auto& object = value.get_ref<Json::object_t&>();
        for (auto& member : object) release_without_allocating(member.second);
        object.clear();
    }
}

void parse_json_text(std::string_view text, Json& document) {
    // nlohmann's lexer takes a NUL byte for the end of the input, so "{...}\0anything" read as the part
    // before it. JSON text has no NUL byte (in strings it must be escaped), so one anywhere is refused.
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        throw InputError{byte_location(text, nul), "invalid JSON: a NUL byte (JSON text cannot contain one)",
                         false};
    CheckingSax checker(text);
    const bool ok = Json::sax_parse(text.begin(), text.end(), &checker);
    if (checker.error()) throw *checker.error();
    if (!ok) throw InputError{"line 1, column 0", "invalid JSON", false};
    document = nullptr;
    DocumentSax builder(document);
    Json::sax_parse(text.begin(), text.end(), &builder);
}

std::string child_pointer(const std::string& parent, std::string_view key) {
    std::string out = parent + "/";
    for (const char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            // RFC 6901 has no escape for control characters; JSON's keeps an error message on one line.
            char escaped[7];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
            out += escaped;
        } else {
            out += c;
        }
    }
    return out;
}

std::string json_quoted(std::string_view s) {
    return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string child_pointer(const std::string& parent, std::size_t index) {
    return parent + "/" + std::to_string(index);
}

Json override_value(std::string_view text) {
    if (!Json::accept(text.begin(), text.end())) return std::string(text);
    Json value;
    parse_json_text(text, value);
    return value;
}

void apply_override(Json& document, std::string_view argument) {
    const std::size_t equals = argument.find('=');
    if (equals == std::string_view::npos)
        throw InputError{std::string(argument), "cannot --set: expected /json/pointer=VALUE"};
    const std::string pointer(argument.substr(0, equals));
    const std::string_view text = argument.substr(equals + 1);

    Json value;
    try {
        value = override_value(text);
    } catch (const InputError& e) {
        throw InputError{pointer, "cannot --set: in the value, " + e.where + ": " + e.message};
    }

    const std::vector<std::string> tokens = pointer_tokens(pointer);
    if (tokens.empty()) {
        document = std::move(value);
        return;
    }
    // The value sits inside one container per token (checked first: the loop below creates the missing ones).
    if (tokens.size() + nesting_depth(value) > kMaxDepth)
        throw InputError{pointer,
                         "cannot --set: the value at this pointer would nest the document deeper than " +
                             std::to_string(kMaxDepth) + " levels"};
    Json* parent = &document;
    std::string parent_pointer;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        const std::string& token = tokens[i];
        const std::string next_pointer = child_pointer(parent_pointer, token);
        Json* next = nullptr;
        if (parent->is_object()) {
            // A member the scene leaves to its default is created, so that an override reaches every value
            // the format defines (e.g. /materials/default/restitution in a scene without "materials").
            next = &(*parent)[token];
            if (next->is_null()) *next = Json::object();
        } else if (parent->is_array()) {
            const std::optional<std::size_t> index = array_index(token);
            if (index && *index < parent->size()) next = &(*parent)[*index];
        } else {
            throw InputError{pointer,
                             "cannot --set: " + (parent_pointer.empty() ? "the document" : parent_pointer) +
                                 " is " + describe(*parent) + ", not an object or array"};
        }
        if (next == nullptr) throw InputError{pointer, "cannot --set: " + next_pointer + " does not exist"};
        parent = next;
        parent_pointer = next_pointer;
    }
    const std::string& last = tokens.back();
    const std::string shown_parent = parent_pointer.empty() ? "the document" : parent_pointer;
    if (parent->is_object()) {
        (*parent)[last] = std::move(value);
    } else if (parent->is_array()) {
        const std::optional<std::size_t> index = array_index(last);
        if (last == "-" || (index && *index == parent->size())) {
            parent->push_back(std::move(value));
        } else if (index && *index < parent->size()) {
            (*parent)[*index] = std::move(value);
        } else {
            throw InputError{pointer, "cannot --set: \"" + last + "\" is not an index of " + shown_parent +
                                          " (" + std::to_string(parent->size()) +
                                          " elements; \"-\" appends)"};
        }
    } else {
        throw InputError{pointer, "cannot --set: " + shown_parent + " is " + describe(*parent) +
                                      ", not an object or array"};
    }
}

std::string describe(const Json& value) {
    if (value.is_number_float()) {
        const double x = value.get<double>();
        if (std::isnan(x)) return "nan";
        if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    }
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

}  // namespace simpulse::scene_detail
