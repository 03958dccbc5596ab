// Error values of the public API: every call that can fail returns Status or Result<T> instead of throwing.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace simpulse {

struct Error {
    std::string message;
};

// Either a value or an Error (a minimal std::expected).
template <class T>
class Result {
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

class Status {
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
