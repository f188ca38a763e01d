// The data_parser codecs (Slurm 25.05+: v0.0.43, v0.0.44, v0.0.45), one implementation.
//
// From Slurm 23.11 one handler serves every data_parser version; only the JSON shapes differ
// (REST-API.md §1.2). For the fields this client sends and reads, v0.0.43/44/45 agree on the
// submit body (checked against their generated OpenAPI documents and the 26.05.3 transcripts)
// and differ only in where SLUIDs appear and how a ping entry reads:
//
//   | field                         | v0.0.43 | v0.0.44 | v0.0.45 |
//   | slurmctld `step_id.sluid`      | -       | yes     | yes     |
//   | slurmdbd `original_sluid`      | -       | -       | yes     |
//   | `EXPEDITING` state flag        | -       | yes     | yes     |
//   | ping entry's state            | `pinged` | `pinged` | `status` |
//
// Whether a SLUID may be used in a path depends on the server's release, not on the version
// (server_info.h). Internal to src/slurm/.
#pragma once

#include <memory>
#include <string_view>

#include "slurm/dialect.h"

namespace tpslurm::slurm {

struct DataParserTraits {
  std::string_view version;        // "v0.0.44"
  bool sluid_in_records = false;   // slurmctld job records carry step_id.sluid
  bool sluid_in_db_records = false;  // slurmdbd job records carry sluid / original_sluid
};

std::unique_ptr<Dialect> make_data_parser_dialect(const DataParserTraits& traits);

}  // namespace tpslurm::slurm
