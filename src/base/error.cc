#include "base/error.h"

namespace tpslurm {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_argument: return "invalid_argument";
    case ErrorKind::not_found: return "not_found";
    case ErrorKind::transient: return "transient";
    case ErrorKind::permanent: return "permanent";
    case ErrorKind::corrupt: return "corrupt";
  }
  return "unknown";
}

Error Error::with_context(std::string_view context) const {
  std::string message(context);
  message += ": ";
  message += m_message;
  return {m_kind, std::move(message)};
}

}  // namespace tpslurm
