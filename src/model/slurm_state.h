// SlurmState: a Slurm job state as the REST API reports it, decoded once for every dialect.
//
// v0.0.4x reports a list: the base state first, then flags (["COMPLETED","COMPLETING"]).
// v0.0.38 reports one string in which a flag *replaces* the base state ("COMPLETING"); then
// `base_known` is false and the final state must come from a later poll or exit.json.
// Unknown words are kept in `unknown` rather than dropped, so a newer server's state is
// visible in the journal instead of silently ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::model {

enum class SlurmBaseState {
  pending,
  running,
  suspended,
  completed,
  cancelled,
  failed,
  timeout,
  node_fail,
  preempted,
  boot_fail,
  deadline,
  out_of_memory,
};

enum class SlurmStateFlag : std::uint32_t {
  launch_failed = 1u << 0,
  requeued = 1u << 1,
  requeue_hold = 1u << 2,
  special_exit = 1u << 3,
  resizing = 1u << 4,
  configuring = 1u << 5,
  completing = 1u << 6,
  stopped = 1u << 7,
  reconfig_fail = 1u << 8,
  power_up_node = 1u << 9,
  revoked = 1u << 10,
  requeue_fed = 1u << 11,
  resv_del_hold = 1u << 12,
  signaling = 1u << 13,
  stage_out = 1u << 14,
  expediting = 1u << 15,
  // "Send job start to database again": data_parser v0.0.40/41 on 23.11 and 24.05 list it;
  // Slurm removed the bit in 24.11 (slurm.h). A bookkeeping flag that changes nothing here.
  update_db = 1u << 16,
};

std::string_view to_string(SlurmBaseState state);  // Slurm's spelling: "PENDING", "OUT_OF_MEMORY"
std::string_view to_string(SlurmStateFlag flag);   // "COMPLETING", "STAGE_OUT"
std::optional<SlurmBaseState> parse_base_state(std::string_view word);
std::optional<SlurmStateFlag> parse_state_flag(std::string_view word);

struct SlurmState {
  SlurmBaseState base = SlurmBaseState::pending;
  bool base_known = true;  // false when a v0.0.38 flag replaced the base state
  std::uint32_t flags = 0;
  std::vector<std::string> unknown;  // words neither a base state nor a flag

  bool has(SlurmStateFlag flag) const { return (flags & static_cast<std::uint32_t>(flag)) != 0; }
  // The base state is final: completed, cancelled, failed, timeout, node_fail, preempted,
  // boot_fail, deadline, out_of_memory.
  bool base_is_final() const;
  // Final and nothing pending: no COMPLETING, STAGE_OUT, REQUEUED, REQUEUE_FED, REQUEUE_HOLD,
  // SPECIAL_EXIT, RESIZING or SIGNALING. Only then may the attempt's resources be released.
  bool is_terminal() const;
  // Nodes or burst-buffer storage may still be held (COMPLETING or STAGE_OUT).
  bool holds_resources() const;

  // v0.0.4x: ["BASE", "FLAG", ...]. An empty list or one without a base is base_known=false.
  static SlurmState from_list(const std::vector<std::string>& words);
  // v0.0.38: one word that is either a base state or the flag that replaced it.
  static SlurmState from_v0038(std::string_view word);

  // "COMPLETED+COMPLETING", "?+COMPLETING" when the base is unknown: for logs and the journal.
  std::string to_string() const;
  // The inverse of to_string(): what the journal kept, read back.
  static SlurmState from_text(std::string_view text);

  bool operator==(const SlurmState&) const = default;
};

}  // namespace tpslurm::model
