// The runtime registry (model/runtime_registry.h): parse() either gives a registry or at
// least one problem, and every runtime it lists is found by its name.
#include <cstdint>

#include "fuzz_support.h"
#include "model/runtime_registry.h"

using namespace tpslurm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto parsed = model::RuntimeRegistry::parse(fuzz::as_text(data, size), "runtime-registry.json");
  if (!parsed.ok()) {
    if (parsed.error().empty()) fuzz::fail("a refusal without a problem");
    return 0;
  }
  for (const auto& [id, runtime] : parsed->all()) {
    if (parsed->find(id) != &runtime || runtime.id != id) fuzz::fail("a runtime is not found by its id", id);
  }
  return 0;
}
