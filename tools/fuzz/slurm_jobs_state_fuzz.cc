// Slurm's bulk state answers (GET jobs/state; v0.0.38 has none), decoded by every dialect (Dialect::decode_jobs_state).
#include <cstdint>

#include "slurm_decoders.h"

using namespace tpslurm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  for (const auto& dialect : fuzz::all_dialects()) {
    if (dialect->has_jobs_state()) fuzz::check_decoded(dialect->decode_jobs_state(body), "decode_jobs_state");
  }
  return 0;
}
