// The one place where exceptions of the lower modules become the error values of the public API (result.h):
// InvalidId -> invalid_id, std::invalid_argument (ShapeError included) -> invalid_argument, allocation
// failures -> out_of_memory, anything else -> internal. The lower modules check every argument before they
// change anything, so a refused call leaves the world as it was.
#pragma once

#include <simpulse/dynamics/errors.h>
#include <simpulse/result.h>

#include <new>
#include <stdexcept>
#include <string>

namespace simpulse {

template <class T, class F>
Result<T> guarded_value(F&& f) noexcept {
    try {
        return f();
    } catch (const InvalidId& e) {
        return Error{ErrorCode::invalid_id, e.what()};
    } catch (const std::invalid_argument& e) {
        return Error{ErrorCode::invalid_argument, e.what()};
    } catch (const std::bad_alloc&) {
        return Error{ErrorCode::out_of_memory, "out of memory"};
    } catch (const std::length_error& e) {
        return Error{ErrorCode::out_of_memory, std::string("out of memory: ") + e.what()};
    } catch (const std::exception& e) {
        return Error{ErrorCode::internal, e.what()};
    } catch (...) {
        return Error{ErrorCode::internal, "unknown exception"};
    }
}

template <class F>
Status guarded(F&& f) noexcept {
    const Result<bool> r = guarded_value<bool>([&] {
        f();
        return true;
    });
    if (!r) return r.error();
    return {};
}

}  // namespace simpulse
