// FaultPlan: the failures a test asks the simulator to inject, and the random soak mode.
//
// A rule names a kind, a request matcher (method and path prefix; empty matches all),
// how many matching requests it hits (`count`; -1 = until cleared) and optionally a
// window on the simulated clock (`seconds`). Response kinds act after the request has
// been processed, so a submit they hit has created its job: drop_response (close without
// answering), error_response (500/502/504 with an error body and no job_id),
// close_after_response (answer as if keeping the connection, then close), delay (answer
// N ms late, real time), close_mid_body (half the body under a full Content-Length),
// garbage (200 with a body that is not JSON). Window kinds act before processing:
// outage (mode "refuse": the listener is closed; "close": every connection is closed
// without an answer; /sim/ stays reachable in "close" mode and on the control listener),
// slow_controller (every /slurm/ call delayed N ms), accounting_outage (/slurmdb/
// calls fail as when slurmdbd is down) and accounting_lag (slurmctld's DBD agent queue holds
// what changed since the window began: slurmdbd does not show it yet, diag counts it). Every rule counts a hit per request it acts on
// and, once its count is used up, is removed (a close-mode outage with a count ends after
// that many requests). The random mode picks a response kind for each
// matching request with probability p from a seeded generator, so a soak run repeats.
// Used from the server thread only; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tpslurm::sim {

enum class FaultKind {
  drop_response,
  error_response,
  close_after_response,
  delay,
  close_mid_body,
  garbage,
  outage,
  slow_controller,
  accounting_outage,
  accounting_lag,
};

std::string_view fault_kind_name(FaultKind kind);
std::optional<FaultKind> parse_fault_kind(std::string_view name);
bool is_response_fault(FaultKind kind);

struct FaultRule {
  std::uint64_t id = 0;
  FaultKind kind = FaultKind::drop_response;
  std::string method;       // "" = any
  std::string path_prefix;  // "" = any
  std::int64_t remaining = 1;  // -1 = unlimited
  std::int64_t until_ms = -1;  // simulated-clock deadline, -1 = none
  std::int64_t since_ms = 0;   // accounting_lag: when the window began (simulated clock)
  std::int64_t ms = 0;         // delay / slow_controller
  int status = 500;            // error_response / accounting_outage (0 = the release's own)
  bool refuse = false;         // outage: refuse connections instead of closing them
  std::uint64_t hits = 0;
};

struct RandomFaults {
  std::uint64_t seed = 0;
  double probability = 0;
  std::vector<FaultKind> kinds;
  std::string method;
  std::string path_prefix = "/slurm";
  std::int64_t ms = 2000;
  int status = 500;
  std::uint64_t hits = 0;
  std::uint64_t state = 0;  // generator state
};

class FaultPlan {
 public:
  std::uint64_t add(FaultRule rule);
  bool remove(std::uint64_t id);
  void clear();
  void set_random(RandomFaults random);
  void clear_random() { m_random.reset(); }

  const std::vector<FaultRule>& rules() const { return m_rules; }
  const std::optional<RandomFaults>& random() const { return m_random; }

  // Window kinds. A hit is counted on every request the window acts on, and a rule given a
  // `count` ends when that many requests were hit, like a response fault.
  // The outage in force, without counting a hit (whether the listener must stay closed).
  const FaultRule* active_outage(std::int64_t now_ms);
  // The outage that closes this request unanswered: counts the hit, consuming one count.
  std::optional<FaultRule> take_outage(std::int64_t now_ms);
  const FaultRule* accounting_outage(std::int64_t now_ms, std::string_view method, std::string_view path);
  std::int64_t controller_delay_ms(std::int64_t now_ms, std::string_view method, std::string_view path);
  // While an accounting_lag window is in force: when the earliest began (records changed since
  // then have not reached slurmdbd). Counts no hit.
  std::optional<std::int64_t> accounting_lag_since(std::int64_t now_ms);
  // The response fault for this request, consuming one count; random mode last.
  std::optional<FaultRule> take_response_fault(std::int64_t now_ms, std::string_view method, std::string_view path);

 private:
  bool live(const FaultRule& rule, std::int64_t now_ms) const;
  static bool matches(const FaultRule& rule, std::string_view method, std::string_view path);
  void consume(FaultRule& rule);
  void prune(std::int64_t now_ms);

  std::vector<FaultRule> m_rules;
  std::optional<RandomFaults> m_random;
  std::uint64_t m_next_id = 1;
};

}  // namespace tpslurm::sim
