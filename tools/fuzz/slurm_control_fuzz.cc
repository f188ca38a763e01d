// Slurm's smaller answers, decoded by every dialect: the envelope alone (decode_base), cancel
// (DELETE job/{id}), ping and partitions. A cancel reply's status must agree with its
// refusals (json_dialect.h cancel_status).
#include <cstdint>

#include "slurm_decoders.h"

using namespace tpslurm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  for (const auto& dialect : fuzz::all_dialects()) {
    fuzz::check_decoded(dialect->decode_base(body), "decode_base");
    auto cancel = dialect->decode_cancel(body);
    fuzz::check_decoded(cancel, "decode_cancel");
    if (cancel.ok() && cancel->refusals.empty() && cancel->status != slurm::CancelStatus::signalled) {
      fuzz::fail("a cancel without refusals that is not signalled", body);
    }
    fuzz::check_decoded(dialect->decode_ping(body), "decode_ping");
    fuzz::check_decoded(dialect->decode_partitions(body), "decode_partitions");
  }
  return 0;
}
