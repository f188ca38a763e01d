#include "render/shell_quote.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace tpslurm::render {
namespace {

// Characters that mean nothing special to bash anywhere in a word (no globbing, expansion,
// tilde or operator), so a word made only of them needs no quotes. Keeps goldens readable.
bool is_shell_plain(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '/' || c == ':' || c == '=' ||
         c == '@' || c == '%' || c == '+' || c == ',' || c == '-';
}

// Characters sbatch's argument scanner treats specially, besides whitespace.
bool is_sbatch_special(char c) {
  return c == '"' || c == '\'' || c == '\\' || c == '#' || std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool contains_case_insensitive(std::string_view haystack, std::string_view needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         }) != haystack.end();
}

}  // namespace

std::string shell_quote(std::string_view value) {
  if (!value.empty() && std::all_of(value.begin(), value.end(), is_shell_plain)) return std::string(value);
  // Inside single quotes every byte is literal; a quote itself closes, escapes and reopens.
  std::string out = "'";
  for (const char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::optional<std::string> sbatch_unsafe_reason(std::string_view value) {
  if (value.find_first_of("\n\r") != std::string_view::npos) return "contains a line break";
  if (value.find('\0') != std::string_view::npos) return "contains a NUL byte";
  return std::nullopt;
}

Result<std::string> sbatch_quote(std::string_view value) {
  if (auto why = sbatch_unsafe_reason(value)) return invalid_argument(*why);
  // sbatch takes any #SBATCH line that contains "hetjob" or "packjob" for a component
  // separator (older releases blank "packjob" out, in any case). An empty pair of quotes
  // inside the word ("het""job") keeps the value and breaks the match.
  std::vector<bool> split_before(value.size() + 1, false);
  for (const std::string_view word : {std::string_view("hetjob"), std::string_view("packjob")}) {
    for (std::size_t at = 0; at + word.size() <= value.size(); ++at) {
      if (contains_case_insensitive(value.substr(at, word.size()), word)) split_before[at + word.size() - 3] = true;
    }
  }
  const bool plain = !value.empty() && std::none_of(value.begin(), value.end(), is_sbatch_special);
  std::string out = plain ? "" : "\"";
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (split_before[i]) out += "\"\"";
    const char c = value[i];
    if (!plain && (c == '"' || c == '\\')) out += '\\';
    out += c;
  }
  if (!plain) out += '"';
  return out;
}

}  // namespace tpslurm::render
