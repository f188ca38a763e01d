// Scopes: what a token of the platform API may do. Each line of the tokens file names its
// token's scopes (token_store.h); each route needs one (routes.h), and a token without it is
// answered 403 naming the scope.
//
//   read     every GET but /healthz: jobs, their audit and logs, the change feed, /readyz, /metrics
//   submit   new jobs (POST /v1/jobs) and their cancel (POST /v1/jobs/{id}/cancel)
//   operate  what an operator does: pause, resume, resolve an attempt
//
// They are independent: `operate` does not include `read`. Written as a comma-separated list
// without blanks ("read,submit"), in any order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::api {

enum class Scope : std::uint8_t { read = 1, submit = 2, operate = 4 };

inline constexpr Scope kAllScopes[] = {Scope::read, Scope::submit, Scope::operate};

std::string_view to_string(Scope scope);

// A set of scopes.
class Scopes {
 public:
  constexpr Scopes() = default;
  static constexpr Scopes all() { return Scopes(7); }

  constexpr bool has(Scope scope) const { return (m_bits & static_cast<std::uint8_t>(scope)) != 0; }
  constexpr bool empty() const { return m_bits == 0; }
  constexpr Scopes with(Scope scope) const { return Scopes(m_bits | static_cast<std::uint8_t>(scope)); }
  // The scopes both hold.
  constexpr Scopes common(Scopes other) const { return Scopes(m_bits & other.m_bits); }
  constexpr bool operator==(const Scopes&) const = default;

  // "read,submit" in the order of kAllScopes; "none" when empty.
  std::string text() const;

 private:
  explicit constexpr Scopes(unsigned bits) : m_bits(static_cast<std::uint8_t>(bits)) {}
  std::uint8_t m_bits = 0;
};

// "read,submit" -> the set; nullopt for an empty list, an empty item or an unknown word.
std::optional<Scopes> parse_scopes(std::string_view text);

}  // namespace tpslurm::api
