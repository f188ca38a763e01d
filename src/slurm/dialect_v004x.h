// The data_parser codecs (Slurm 23.11+: v0.0.40 to v0.0.45), one implementation.
//
// From Slurm 23.11 one handler serves every data_parser version; only the JSON shapes differ.
// For the fields this client sends and reads, v0.0.40 to v0.0.45 agree on the submit body
// (checked against the OpenAPI documents real 23.11.11, 24.11.7 and 26.05.3 servers served, and
// their transcripts) and differ only in these:
//
//   | field                          | v0.0.40 | .41    | .42    | .43    | .44    | .45      |
//   | slurmctld `step_id.sluid`      | -       | -      | -      | -      | yes    | yes      |
//   | slurmdbd `original_sluid`      | -       | -      | -      | -      | -      | yes      |
//   | ping entry's state             | `pinged` | `pinged` | `pinged` | `pinged` | `pinged` | `status` |
//   | ping's `responding`, `primary` | -       | -      | yes    | yes    | yes    | yes      |
//   | submit answer's old `result`   | yes     | yes    | -      | -      | -      | -        |
//   | `*_expanded` output paths      | -       | yes    | yes    | yes    | yes    | yes      |
//   | a time in a query              | uts<s>  | uts<s> | <s>    | <s>    | <s>    | <s>      |
//
// Submit: {"job":{…}} for one component, {"jobs":[…]} for a heterogeneous job, `script` in the
// first component, `environment` as a "K=V" list, GPUs as `tres_per_node: "gres/<gres>"`,
// numbers as {"set","infinite","number"}, `requeue: false` on every component (26.05 applies it
// per component). Records: `job_state` lists, `exit_code` objects. Transcripts:
// tests/fixtures/slurm/samples-v0.0.45/ (26.05.3; 39-44 in v0.0.44 and v0.0.43).
//
// A time in a query (update_time, start_time) arrives as a string: v0.0.42 on turns a number
// into one (data_convert_type in _parse_timestamp at slurm-24-11-7-1), v0.0.40/41 hand it to
// parse_time, which refuses bare seconds (500/422, error 9202, on real 23.11.11 and 24.11.7)
// and reads "uts<seconds>". `result` repeats `job_id`, which is read; output paths fall back to `standard_output`. What
// follows the server's release rather than the version (jobs/state, DELETE's answer, a
// top-level script) comes in as ReleaseRules (server_info.h); so does whether a SLUID may be
// used in a path. Internal to src/slurm/.
#pragma once

#include <memory>
#include <string_view>

#include "slurm/dialect.h"
#include "slurm/server_info.h"

namespace tpslurm::slurm {

struct DataParserTraits {
  std::string_view version;          // "v0.0.44"; records_carry_sluid(version): step_id.sluid
  bool sluid_in_db_records = false;  // slurmdbd job records carry sluid / original_sluid
  bool query_time_uts = false;       // a time in a query goes as "uts<seconds>"
};

// nullptr when `version` is not a data_parser version this build speaks.
std::unique_ptr<Dialect> make_data_parser_dialect(std::string_view version, const ReleaseRules& rules);

}  // namespace tpslurm::slurm
