// The GPU series catalog (model/gpu_series.h): parse() either gives a catalog or at least one
// problem, and every series it lists is found by its name.
#include <cstdint>

#include "fuzz_support.h"
#include "model/gpu_series.h"

using namespace tpslurm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = model::GpuSeriesCatalog::parse(fuzz::as_text(data, size), "gpu-series.json");
  if (!parsed.ok()) {
    if (parsed.error().empty()) fuzz::fail("a refusal without a problem");
    return 0;
  }
  for (const auto& [name, series] : parsed->all()) {
    if (parsed->find(name) != &series || series.name != name) fuzz::fail("a series is not found by its name", name);
  }
  return 0;
}
