// LaunchRequest parsing and validation (model/launch_request.h), under both runtime
// profiles. Besides "no crash, leak or hang": a request that passes has a canonical form that,
// with its credentials put back, is itself a valid request with the same canonical form (the
// idempotency hash is taken over it, so it must be stable).
#include <boost/json.hpp>
#include <cstdint>

#include "fuzz_support.h"
#include "model/launch_request.h"
#include "render_fixtures.h"

using namespace tpslurm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json = fuzz::as_text(data, size);
  for (const auto profile : {model::RuntimeProfile::enroot_pyxis, model::RuntimeProfile::apptainer}) {
    const model::ValidationContext context{render::testing::gpu_series(), render::testing::runtimes(), profile};
    auto parsed = model::parse_launch_request(json, context);
    if (!parsed.ok()) {
      if (parsed.error().empty()) fuzz::fail("a refusal without a problem", json);
      continue;
    }
    boost::json::value canonical = boost::json::parse(parsed->canonical_json);
    if (!canonical.is_object()) fuzz::fail("the canonical form is not an object", parsed->canonical_json);
    if (parsed->ingest_token) canonical.as_object()["credentials"] = {{"ingest_token", *parsed->ingest_token}};
    auto again = model::parse_launch_request(boost::json::serialize(canonical), context);
    if (!again.ok()) fuzz::fail("the canonical form of a valid request is refused", again.error().to_text());
    if (again->canonical_json != parsed->canonical_json) fuzz::fail("the canonical form is not stable", json);
  }
  return 0;
}
