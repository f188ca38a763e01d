// The platform API's tokens file (api/token_store.h parse_tokens): either entries or an
// error, and the error never holds a token of the file. Every entry's name keeps the rules
// ([A-Za-z0-9._@-], 1 to 64 bytes) and names are unique.
#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>

#include "api/token_store.h"
#include "fuzz_support.h"

using namespace tpslurm;

namespace {

bool is_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

constexpr std::string_view kPath = "/etc/tuneplane/api-tokens";

// The second word of each line: what would be a token, unless it also lies within some line's
// name (names are what errors are for) or part of the fixed text around the message.
std::vector<std::string> candidate_tokens(std::string_view text) {
  std::vector<std::string> names, tokens;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name, token;
    if (words >> name) names.push_back(name);
    if (words >> token && token.size() >= 16) tokens.push_back(token);
  }
  std::vector<std::string> out;
  for (const auto& token : tokens) {
    // Errors quote names, so a token that is (part of) some line's name proves nothing.
    const bool named = std::any_of(names.begin(), names.end(),
                                   [&](const std::string& name) { return name.find(token) != std::string::npos; });
    const bool fixed = std::string_view("TUNEPLANE_API_TOKENS_FILE").find(token) != std::string_view::npos ||
                       token.starts_with(kPath) || kPath.find(token) != std::string_view::npos;
    if (!named && !fixed) out.push_back(token);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  auto parsed = api::parse_tokens(text, std::string(kPath));
  if (!parsed.ok()) {
    for (const auto& token : candidate_tokens(text)) {
      if (parsed.error().message().find(token) != std::string::npos) fuzz::fail("an error holds a token");
    }
    return 0;
  }
  std::set<std::string> names;
  for (const auto& entry : *parsed) {
    if (!is_name(entry.name)) fuzz::fail("an entry with a bad name", entry.name);
    if (!names.insert(entry.name).second) fuzz::fail("a name twice", entry.name);
  }
  return 0;
}
