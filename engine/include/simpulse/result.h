// Error values of the public API. The contract, for every call of World and of the shape factories: a call
// that can fail returns Status or Result<T>; on failure the Error's code says which kind of problem it was
// and its message names the field or argument and what was expected ("density: expected a positive finite
// number, got -1"). No exception escapes those calls (std::bad_alloc included: it becomes
// ErrorCode::out_of_memory), and a failed call leaves the world as it was. Misusing an error value (value()
// of a failed Result, error() of a successful one) is a contract violation, asserted in debug builds.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace simpulse {

enum class ErrorCode {
    invalid_argument,  // a value outside its range, a non-finite number, degenerate geometry, a bad setting
    invalid_id,        // a body, spring, joint or material id that names no live object of this world
    non_finite_state,  // a step made a body's state non-finite (the message names the body)
    out_of_memory,     // an allocation failed; the world is as it was before the call
    internal,          // an unexpected failure inside simpulse: a bug, please report it
};

// "invalid_argument", "invalid_id", ...
const char* to_string(ErrorCode code);

struct Error {
    ErrorCode code = ErrorCode::invalid_argument;
    std::string message;

    Error() = default;
    explicit Error(std::string message_text) : message(std::move(message_text)) {}
    Error(ErrorCode error_code, std::string message_text)
        : code(error_code), message(std::move(message_text)) {}
};

// Either a value or an Error (a minimal std::expected).
template <class T>
class [[nodiscard]] Result {
  public:
    Result(T value)
        : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor): return a value directly
    Result(Error error) : error_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const T& value() const& {
        assert(ok());
        return *value_;
    }
    T& value() & {
        assert(ok());
        return *value_;
    }
    T&& value() && {
        assert(ok());
        return std::move(*value_);
    }
    const T& operator*() const& { return value(); }
    const T* operator->() const { return &value(); }
    const Error& error() const {
        assert(!ok());
        return error_;
    }

  private:
    std::optional<T> value_;
    Error error_;
};

class [[nodiscard]] Status {
  public:
    Status() = default;
    Status(Error error) : error_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
    bool ok() const { return !error_.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error& error() const {
        assert(!ok());
        return *error_;
    }

  private:
    std::optional<Error> error_;
};

}  // namespace simpulse
