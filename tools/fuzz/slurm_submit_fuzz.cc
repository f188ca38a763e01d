// Slurm's submit answers (POST job/submit): the job id, its problem, the user message, decoded by every dialect
// (Dialect::decode_submit).
#include <cstdint>

#include "slurm_decoders.h"

using namespace tpslurm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  for (const auto& dialect : fuzz::all_dialects()) fuzz::check_decoded(dialect->decode_submit(body), "decode_submit");
  return 0;
}
