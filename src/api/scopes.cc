#include "api/scopes.h"

namespace tpslurm::api {

std::string_view to_string(Scope scope) {
  switch (scope) {
    case Scope::read: return "read";
    case Scope::submit: return "submit";
    case Scope::operate: return "operate";
  }
  return "unknown";
}

std::string Scopes::text() const {
  std::string out;
  for (const Scope scope : kAllScopes) {
    if (has(scope)) out += (out.empty() ? "" : ",") + std::string(to_string(scope));
  }
  return out.empty() ? "none" : out;
}

std::optional<Scopes> parse_scopes(std::string_view text) {
  Scopes scopes;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view word = text.substr(0, comma);
    bool known = false;
    for (const Scope scope : kAllScopes) {
      if (word == to_string(scope)) {
        scopes = scopes.with(scope);
        known = true;
      }
    }
    if (!known) return std::nullopt;
    if (comma == std::string_view::npos) return scopes;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace tpslurm::api
