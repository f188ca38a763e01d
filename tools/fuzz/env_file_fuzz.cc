// The env file reader (config/env_file.h), systemd's EnvironmentFile= syntax: either entries
// or at least one problem; entries have shell variable names and lines in order.
#include <cctype>
#include <cstdint>

#include "config/env_file.h"
#include "fuzz_support.h"

using namespace tpslurm;

namespace {

bool is_variable_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) return false;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  auto parsed = config::parse_env_file(text, "fuzz.env");
  if (!parsed.ok()) {
    if (parsed.error().empty()) fuzz::fail("a refusal without a problem", text);
    return 0;
  }
  int line = 0;
  for (const auto& entry : *parsed) {
    if (!is_variable_name(entry.key)) fuzz::fail("an entry whose key is not a variable name", entry.key);
    if (entry.line <= line) fuzz::fail("entries out of line order", text);
    line = entry.line;
  }
  return 0;
}
