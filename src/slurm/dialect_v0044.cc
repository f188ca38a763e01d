#include "slurm/dialect_v0044.h"

#include "slurm/dialect_v004x.h"

namespace tpslurm::slurm {

std::unique_ptr<Dialect> make_dialect_v0044() {
  return make_data_parser_dialect({.version = "v0.0.44", .sluid_in_records = true, .sluid_in_db_records = false});
}

}  // namespace tpslurm::slurm
