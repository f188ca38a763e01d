#include "slurm/dialect_v0045.h"

#include "slurm/dialect_v004x.h"

namespace tpslurm::slurm {

std::unique_ptr<Dialect> make_dialect_v0045() {
  return make_data_parser_dialect({.version = "v0.0.45", .sluid_in_records = true, .sluid_in_db_records = true});
}

}  // namespace tpslurm::slurm
