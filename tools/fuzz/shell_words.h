// Reads back what the renderer writes for bash (render/shell_quote.h), independently of the
// quoting code: shell words (unquoted text, backslash escapes, '…' and "…") and the
// `NAME=WORD` assignments of an env file or script. Used by the rendering target to check that
// every value arrives byte for byte. Pure; header-only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpslurm::fuzz {

// One word from the front of `text`, which is left after it; nullopt when the word does not
// end (an open quote) or there is none.
inline std::optional<std::string> take_word(std::string_view& text) {
  std::string word;
  bool any = false;
  while (!text.empty()) {
    const char c = text.front();
    if (c == ' ' || c == '\t' || c == '\n' || c == ')' || c == ';') break;
    any = true;
    text.remove_prefix(1);
    if (c == '\\') {
      if (text.empty()) return std::nullopt;
      if (text.front() != '\n') word += text.front();
      text.remove_prefix(1);
    } else if (c == '\'') {
      const auto end = text.find('\'');
      if (end == std::string_view::npos) return std::nullopt;
      word += text.substr(0, end);
      text.remove_prefix(end + 1);
    } else if (c == '"') {
      for (;;) {
        if (text.empty()) return std::nullopt;
        const char d = text.front();
        text.remove_prefix(1);
        if (d == '"') break;
        if (d == '\\' && !text.empty() && std::string_view("$`\"\\\n").find(text.front()) != std::string_view::npos) {
          if (text.front() != '\n') word += text.front();
          text.remove_prefix(1);
        } else if (d == '$' || d == '`') {
          return std::nullopt;  // an expansion: the value would not arrive as written
        } else {
          word += d;
        }
      }
    } else if (c == '$' || c == '`' || c == '*' || c == '?' || c == '[' || c == '(' || c == '<' || c == '>' ||
               c == '|' || c == '&' || c == '~' || c == '{') {
      return std::nullopt;  // expansion, globbing or an operator outside quotes
    } else {
      word += c;
    }
  }
  if (!any) return std::nullopt;
  return word;
}

// The words of `text` (blank-separated) up to a ')' or the end; nullopt on a broken word.
inline std::optional<std::vector<std::string>> take_words(std::string_view& text) {
  std::vector<std::string> words;
  for (;;) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    if (text.empty() || text.front() == ')' || text.front() == '\n') return words;
    auto word = take_word(text);
    if (!word) return std::nullopt;
    words.push_back(std::move(*word));
  }
}

// The value assigned by the first line that starts with `NAME=` (the whole word after '='),
// or nullopt when there is none or its word is broken. `text` holds only comment lines and
// assignments (an env file, the script's block of tp_* assignments).
inline std::optional<std::string> assigned_value(std::string_view text, std::string_view name) {
  const std::string prefix = std::string(name) + "=";
  for (std::size_t at = 0; at < text.size();) {
    const std::string_view line = text.substr(at);
    if (line.starts_with(prefix)) {
      std::string_view rest = line.substr(prefix.size());
      if (rest.empty() || rest.front() == '\n') return std::string();
      auto word = take_word(rest);
      if (!word || !(rest.empty() || rest.front() == '\n')) return std::nullopt;
      return word;
    }
    // Skip to the next line outside quotes, so a value's own line breaks are not lines.
    std::string_view rest = line;
    const bool comment = rest.starts_with("#");
    while (!rest.empty() && rest.front() != '\n') {
      if (rest.front() == '\'' && !comment) {
        const auto end = rest.find('\'', 1);
        if (end == std::string_view::npos) return std::nullopt;
        rest.remove_prefix(end + 1);
      } else if (rest.front() == '\\' && !comment && rest.size() > 1) {
        rest.remove_prefix(2);
      } else {
        rest.remove_prefix(1);
      }
    }
    at = text.size() - rest.size() + 1;
  }
  return std::nullopt;
}

}  // namespace tpslurm::fuzz
