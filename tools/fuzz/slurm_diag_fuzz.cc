// Slurm's diag answers (GET diag): the server's request time, decoded by every dialect (Dialect::decode_diag).
#include <cstdint>

#include "slurm_decoders.h"

using namespace tpslurm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  for (const auto& dialect : fuzz::all_dialects()) fuzz::check_decoded(dialect->decode_diag(body), "decode_diag");
  return 0;
}
