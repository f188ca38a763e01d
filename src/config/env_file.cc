#include "config/env_file.h"

#include "model/names.h"

namespace tpslurm::config {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Reads text character by character, counting lines.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : m_text(text) {}
  bool done() const { return m_at >= m_text.size(); }
  char peek() const { return m_text[m_at]; }
  char take() {
    const char c = m_text[m_at++];
    if (c == '\n') ++m_line;
    return c;
  }
  int line() const { return m_line; }

 private:
  std::string_view m_text;
  std::size_t m_at = 0;
  int m_line = 1;
};

std::string location(std::string_view source, int line) { return std::string(source) + ":" + std::to_string(line); }

}  // namespace

Result<std::vector<EnvFileEntry>, model::Problems> parse_env_file(std::string_view text, std::string_view source) {
  std::vector<EnvFileEntry> entries;
  model::Problems problems;
  Cursor in(text);
  while (!in.done()) {
    while (!in.done() && (is_blank(in.peek()) || in.peek() == '\n')) in.take();
    if (in.done()) break;
    const int line = in.line();
    if (in.peek() == '#' || in.peek() == ';') {
      while (!in.done() && in.peek() != '\n') in.take();
      continue;
    }
    std::string key;
    while (!in.done() && in.peek() != '=' && in.peek() != '\n') key += in.take();
    while (!key.empty() && is_blank(key.back())) key.pop_back();
    if (in.done() || in.peek() == '\n') {
      problems.add(location(source, line), model::quote_value(key), "has no '='; write KEY=VALUE");
      continue;
    }
    in.take();  // '='
    while (!in.done() && is_blank(in.peek())) in.take();
    std::string value;
    bool closed = true;
    if (!in.done() && in.peek() == '\'') {
      in.take();
      closed = false;
      while (!in.done()) {
        const char c = in.take();
        if (c == '\'') {
          closed = true;
          break;
        }
        value += c;
      }
    } else if (!in.done() && in.peek() == '"') {
      in.take();
      closed = false;
      while (!in.done()) {
        const char c = in.take();
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\' && !in.done()) {
          const char next = in.take();
          if (next == '\n') continue;
          if (next != '"' && next != '\\' && next != '`' && next != '$') value += '\\';
          value += next;
          continue;
        }
        value += c;
      }
    } else {
      while (!in.done() && in.peek() != '\n') {
        const char c = in.take();
        if (c == '\\' && !in.done()) {
          const char next = in.take();
          if (next != '\n') value += next;
          continue;
        }
        value += c;
      }
      while (!value.empty() && is_blank(value.back())) value.pop_back();
    }
    if (!closed) {
      problems.add(location(source, line), model::quote_value(key), "has an opening quote that is never closed");
      break;
    }
    // Only blanks may follow a closing quote on its line.
    std::string rest;
    while (!in.done() && in.peek() != '\n') rest += in.take();
    if (rest.find_first_not_of(" \t\r") != std::string::npos) {
      problems.add(location(source, line), model::quote_value(key),
                   "has text after the closing quote: " + model::quote_value(rest));
      continue;
    }
    if (!model::is_env_name(key)) {
      problems.add(location(source, line), model::quote_value(key),
                   "is not a variable name (letters, digits and '_', not starting with a digit)");
      continue;
    }
    if (value.find('\0') != std::string::npos) {
      problems.add(location(source, line), key, "value contains a NUL byte");
      continue;
    }
    entries.push_back({std::move(key), std::move(value), line});
  }
  if (!problems.empty()) return problems;
  return entries;
}

}  // namespace tpslurm::config
