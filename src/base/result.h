// Result<T, E>: a value or an error, in the spirit of std::expected (C++23).
//
// Construct from a T for success or from an E (by default Error, error.h) for failure.
// Accessing value() on a failed result, or error() on a successful one, is a programming
// error and aborts. `Status` is Result<void>: success carries nothing.
#pragma once

#include <cstdlib>
#include <utility>
#include <variant>

#include "base/error.h"

namespace tpslurm {

template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_state(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(E error) : m_state(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return m_state.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return checked_value(); }
  const T& value() const& { return const_cast<Result*>(this)->checked_value(); }
  T&& value() && { return std::move(checked_value()); }
  T* operator->() { return &checked_value(); }
  const T* operator->() const { return &const_cast<Result*>(this)->checked_value(); }
  T& operator*() & { return checked_value(); }
  const T& operator*() const& { return const_cast<Result*>(this)->checked_value(); }

  const E& error() const {
    if (ok()) std::abort();
    return std::get<1>(m_state);
  }

 private:
  T& checked_value() {
    if (!ok()) std::abort();
    return std::get<0>(m_state);
  }
  std::variant<T, E> m_state;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : m_error(std::move(error)), m_failed(true) {}  // NOLINT

  bool ok() const { return !m_failed; }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    if (!m_failed) std::abort();
    return m_error;
  }

 private:
  Error m_error{ErrorKind::permanent, {}};
  bool m_failed = false;
};

using Status = Result<void>;

inline Status ok_status() { return {}; }

}  // namespace tpslurm
