// The platform API's tokens file (api/token_store.h parse_tokens): every line that is not a
// comment or blank is either an entry or a problem, and no problem holds a token of the file.
// Every entry's name keeps the rules ([A-Za-z0-9._@-], 1 to 64 bytes), names and tokens are
// unique, every entry holds a scope (a line without scopes: all of them), and a line without
// its newline (a file cut short) is never an entry.
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

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// The words of a line as the file's rules split them (blanks and tabs; a trailing \r dropped).
std::vector<std::string> words_of(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> words;
  std::string word;
  for (const char c : line) {
    if (is_blank(c)) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

struct Lines {
  std::size_t with_content = 0;  // neither blank nor a comment
  std::size_t last = 0;          // the number of the last line
  bool last_ended = true;        // the text ends with a newline
  std::vector<std::string> tokens;
  std::vector<std::string> names;  // the first word of each line that counts
};

// The lines that count and the second word of each: what would be a token, unless it also
// lies within some line's name (names are what errors are for) or part of the fixed text
// around the message.
Lines lines_of(std::string_view text) {
  Lines out;
  std::vector<std::string> names, tokens;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    ++out.last;
    const auto words = words_of(line);
    if (words.empty() || words[0].front() == '#') continue;
    ++out.with_content;
    names.push_back(words[0]);
    if (words.size() > 1 && words[1].size() >= 16) tokens.push_back(words[1]);
  }
  out.last_ended = text.empty() || text.back() == '\n';
  out.names = names;
  for (const auto& token : tokens) {
    // Errors quote names, so a token that is (part of) some line's name proves nothing.
    const bool named = std::any_of(names.begin(), names.end(),
                                   [&](const std::string& name) { return name.find(token) != std::string::npos; });
    const bool fixed = std::string_view("TUNEPLANE_API_TOKENS_FILE").find(token) != std::string_view::npos ||
                       token.starts_with(kPath) || kPath.find(token) != std::string_view::npos;
    if (!named && !fixed) out.tokens.push_back(token);
  }
  return out;
}

// Whether `problem` holds `token` at a place no name it quotes explains. Tokens are words, so a
// leak shows as (part of) a word of the message; a word that is a quoted name, bare or with the
// message's own punctuation after it ("NAME's;"), holds a token only because a name looks like one.
bool holds_token(const std::string& problem, const std::string& token, const std::vector<std::string>& names) {
  static const std::vector<std::string> kAfterName{"", "'s", "'s;", ";", ":", ",", "."};
  for (auto at = problem.find(token); at != std::string::npos; at = problem.find(token, at + 1)) {
    const auto space_before = problem.rfind(' ', at);
    const auto from = space_before == std::string::npos ? 0 : space_before + 1;
    const auto to = std::min(problem.find(' ', at + token.size()), problem.size());
    const std::string word = problem.substr(from, to - from);
    const bool quoted = std::any_of(names.begin(), names.end(), [&](const std::string& name) {
      return word.starts_with(name) &&
             std::find(kAfterName.begin(), kAfterName.end(), word.substr(name.size())) != kAfterName.end();
    });
    if (!quoted) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const api::TokensFile file = api::parse_tokens(text, std::string(kPath));
  const Lines lines = lines_of(text);
  for (const auto& problem : file.problems) {
    for (const auto& token : lines.tokens) {
      if (holds_token(problem, token, lines.names)) fuzz::fail("a problem holds a token", problem);
    }
  }
  if (file.entries.size() + file.problems.size() != lines.with_content) {
    fuzz::fail("a line neither an entry nor a problem");
  }
  std::set<std::string> names;
  std::set<std::array<std::uint8_t, 32>> digests;
  std::size_t previous = 0;
  for (const auto& entry : file.entries) {
    if (!is_name(entry.name)) fuzz::fail("an entry with a bad name", entry.name);
    if (!names.insert(entry.name).second) fuzz::fail("a name twice", entry.name);
    if (!digests.insert(entry.digest).second) fuzz::fail("a token twice", entry.name);
    if (entry.scopes.empty()) fuzz::fail("an entry without a scope", entry.name);
    if (!entry.scoped && entry.scopes != api::Scopes::all()) fuzz::fail("a line without scopes lacks one");
    if (entry.line <= previous) fuzz::fail("entries out of order", entry.name);
    previous = entry.line;
    if (!lines.last_ended && entry.line == lines.last) fuzz::fail("a line without its newline taken", entry.name);
  }
  return 0;
}
