// FaultTable: the fault rules the proxy applies to the requests it forwards.
//
// A rule matches a request by method (empty: any) and by the request path, without its
// query, ending with `path_suffix` (empty: any path). The first matching rule in the order
// they were added applies; applying it counts a hit and uses up one of its `count`
// applications (-1: unlimited). A used-up rule is removed. What a rule does to the exchange
// is its FaultAction; the proxy server carries it out, this table only decides.
// Value type; not thread-safe (the proxy uses it from its one I/O thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::fault_proxy {

enum class FaultKind {
  lose_answer,   // forward, read the whole answer, close the client's connection unanswered
  resend,        // forward twice on fresh upstream connections, relay one of the answers
  delay,         // relay the answer `delay_ms` late
  error_status,  // forward, read the answer, answer the client `status` with a gateway's body
};
std::string_view to_string(FaultKind kind);
std::optional<FaultKind> parse_fault_kind(std::string_view text);

enum class Relay { first, second };  // which of a resend's two answers the client gets

struct FaultAction {
  FaultKind kind = FaultKind::lose_answer;
  std::int64_t delay_ms = 0;    // delay
  int status = 0;               // error_status
  Relay relay = Relay::second;  // resend
};

struct FaultRule {
  std::int64_t id = 0;  // assigned by FaultTable::add
  FaultAction action;
  std::string method;          // "POST"; empty: any method
  std::string path_suffix;     // "/job/submit"; empty: any path
  std::int64_t remaining = 1;  // applications left; -1: unlimited
  std::int64_t hits = 0;
};

class FaultTable {
 public:
  // Stores `rule` with a fresh id (1, 2, ...) and returns the id.
  std::int64_t add(FaultRule rule);
  // The action of the first rule matching the request, counting the hit; nothing when no
  // rule matches. `path` is the request target without its query.
  std::optional<FaultAction> take(std::string_view method, std::string_view path);
  const std::vector<FaultRule>& rules() const { return m_rules; }
  void clear() { m_rules.clear(); }

 private:
  std::vector<FaultRule> m_rules;
  std::int64_t m_next_id = 1;
};

}  // namespace tpslurm::fault_proxy
