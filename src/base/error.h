// Error: an expected failure as a value.
//
// Every seam returns failures as `Error` inside a `Result<T>` (result.h) instead of
// throwing. The kind tells the caller what it may do next; the message is for humans
// and already carries the context added on the way up ("POST /job/submit: ...").
//
// `uncertain` is its own kind on purpose: "the request may or may not have taken
// effect" is the central fact of this product and is never folded into `transient`.
#pragma once

#include <string>
#include <string_view>

namespace tpslurm {

enum class ErrorKind {
  invalid_argument,  // bad input: fix the input, retrying the same thing fails again
  not_found,         // the thing asked for does not exist (or no longer exists)
  transient,         // nothing happened; the same call may succeed later
  permanent,         // refused for good (e.g. Slurm rejected the job)
  corrupt,           // stored data is damaged or inconsistent
};

std::string_view to_string(ErrorKind kind);

class Error {
 public:
  Error(ErrorKind kind, std::string message) : m_kind(kind), m_message(std::move(message)) {}

  ErrorKind kind() const { return m_kind; }
  const std::string& message() const { return m_message; }

  // The same error with "context: " in front of its message.
  Error with_context(std::string_view context) const;

 private:
  ErrorKind m_kind;
  std::string m_message;
};

inline Error invalid_argument(std::string message) {
  return {ErrorKind::invalid_argument, std::move(message)};
}
inline Error not_found(std::string message) { return {ErrorKind::not_found, std::move(message)}; }
inline Error transient(std::string message) { return {ErrorKind::transient, std::move(message)}; }
inline Error permanent(std::string message) { return {ErrorKind::permanent, std::move(message)}; }
inline Error corrupt(std::string message) { return {ErrorKind::corrupt, std::move(message)}; }

}  // namespace tpslurm
