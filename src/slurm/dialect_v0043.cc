#include "slurm/dialect_v0043.h"

#include "slurm/dialect_v004x.h"

namespace tpslurm::slurm {

std::unique_ptr<Dialect> make_dialect_v0043() {
  return make_data_parser_dialect({.version = "v0.0.43", .sluid_in_records = false, .sluid_in_db_records = false});
}

}  // namespace tpslurm::slurm
