// The attempt's `components` column: what was last journaled of each heterogeneous component
// (a plain job is one component, offset 0) — its ids, state, reason, exit status, nodes and
// times. Written by the reconciler at identify and whenever a poll sees a change; read by the
// status poll to tell changed jobs from unchanged ones, and by `status`. The column's one codec.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "model/job_snapshot.h"

namespace tpslurm::journal {

struct JournaledComponent {
  int offset = 0;
  std::uint32_t job_id = 0;
  std::string sluid;
  std::string state;  // SlurmState::to_string(): "RUNNING", "COMPLETED+COMPLETING"
  std::string reason;
  std::optional<int> exit_code;
  std::optional<int> exit_signal;
  std::string nodes;
  std::string start;  // UTC, empty when not known
  std::string end;
};

// What the column keeps of each record, in the records' order (offset order as Slurm reports
// them).
std::vector<JournaledComponent> journaled(const std::vector<model::JobSnapshot>& records);
// [{offset, job_id, sluid, state, reason, exit_code, exit_signal, nodes, start, end}]: journaled()
// as JSON.
std::string components_json(const std::vector<model::JobSnapshot>& records);
// What components_json wrote; an empty or unreadable column is no components.
std::vector<JournaledComponent> parse_components(const std::string& json);
// When Slurm expects a pending attempt to start: a pending component's `start` is Slurm's
// estimate (set by its backfill scheduler). The latest of the pending components' (a het job
// starts when all of its components can); empty when none is pending or one has no estimate.
std::optional<TimePoint> expected_start(const std::vector<JournaledComponent>& components);
// Every component's own job id, or the receipt's id when none was journaled yet.
std::vector<std::uint32_t> component_ids(const std::vector<JournaledComponent>& components,
                                         std::optional<std::uint32_t> receipt_id);

}  // namespace tpslurm::journal
