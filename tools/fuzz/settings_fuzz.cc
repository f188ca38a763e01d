// The settings loader (config/settings_loader.h) on an environment built from the input, read
// as an env file: every TUNEPLANE_* and FORGE_* value, valid or not, goes through the
// loader's checks. No env file is read; secret-file paths from the input are only stat(2)ed.
// Either settings or at least one problem.
#include <unistd.h>

#include <cstdint>

#include "config/env_file.h"
#include "config/settings_loader.h"
#include "fuzz_support.h"

using namespace tpslurm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto entries = config::parse_env_file(fuzz::as_text(data, size), "fuzz.env");
  if (!entries.ok()) return 0;
  config::Environment environment;
  for (auto& entry : *entries) environment.insert_or_assign(std::move(entry.key), std::move(entry.value));
  const config::LoadOptions options{::geteuid(), "Login01.cluster", "/home/fuzz"};
  auto loaded = config::load_settings(environment, std::nullopt, options);
  if (!loaded.ok() && loaded.error().empty()) fuzz::fail("a refusal without a problem");
  return 0;
}
