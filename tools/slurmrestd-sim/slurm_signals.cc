#include "slurm_signals.h"

#include <array>
#include <cctype>
#include <optional>

namespace tpslurm::sim {
namespace {

struct Entry {
  std::string_view name;
  int number;
  bool since_24_05;
};

// proc_args.c signals_mapping, in its order.
constexpr std::array<Entry, 18> kTable{{
    {"HUP", 1, false},
    {"INT", 2, false},
    {"QUIT", 3, false},
    {"ABRT", 6, false},
    {"KILL", 9, false},
    {"ALRM", 14, false},
    {"TERM", 15, false},
    {"CHLD", 17, true},
    {"USR1", 10, false},
    {"USR2", 12, false},
    {"PIPE", 13, true},
    {"URG", 23, false},
    {"CONT", 18, false},
    {"STOP", 19, false},
    {"TSTP", 20, false},
    {"TTIN", 21, false},
    {"TTOU", 22, false},
    {"XCPU", 24, false},
}};

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool all_space(std::string_view text) {
  for (char c : text) {
    if (!is_space(c)) return false;
  }
  return true;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// Digits after an optional sign, as strtol reads them; nothing when there are none.
std::optional<long long> leading_number(std::string_view text, std::size_t& end) {
  std::size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const std::size_t digits = i;
  long long value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (value < 1'000'000'000'000LL) value = value * 10 + (text[i] - '0');
    ++i;
  }
  if (i == digits) return std::nullopt;
  end = i;
  return negative ? -value : value;
}

}  // namespace

int sig_name2num(std::string_view text, Release release) {
  std::size_t end = 0;
  if (auto number = leading_number(text, end)) {
    return all_space(text.substr(end)) ? static_cast<int>(*number) : 0;
  }
  std::size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  std::string_view rest = text.substr(i);
  if (rest.size() >= 3 && equal_ignoring_case(rest.substr(0, 3), "SIG")) rest.remove_prefix(3);
  for (const Entry& entry : kTable) {
    if (entry.since_24_05 && release == Release::r22_05_8) continue;
    if (rest.size() < entry.name.size() || !equal_ignoring_case(rest.substr(0, entry.name.size()), entry.name)) {
      continue;
    }
    if (all_space(rest.substr(entry.name.size()))) return entry.number;
  }
  return 0;
}

QueryValue read_query_value(std::string_view text, Dialect dialect) {
  const auto digits = [](std::string_view part) {
    for (char c : part) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  const auto number = [&](std::string_view whole) {
    std::size_t end = 0;
    return QueryValue{QueryValue::Kind::number, leading_number(whole, end).value_or(0)};
  };
  if (is_v4x(dialect)) {
    if (!text.empty() && digits(text)) return number(text);
    return {};
  }
  if (text.empty()) return {QueryValue::Kind::other, 0};
  static constexpr std::array<std::string_view, 10> kBooleans{"y", "yes", "t", "true",  "on",
                                                              "n", "no",  "f", "false", "off"};
  for (std::string_view word : kBooleans) {
    if (equal_ignoring_case(text, word)) return {QueryValue::Kind::other, 0};
  }
  std::string_view unsigned_part = text;
  if (unsigned_part.front() == '+' || unsigned_part.front() == '-') unsigned_part.remove_prefix(1);
  if (!unsigned_part.empty() && digits(unsigned_part)) return number(text);
  // [0-9]*[.][0-9]*(|[eE][+-]?[0-9]+)
  const std::size_t dot = unsigned_part.find('.');
  if (dot != std::string_view::npos && digits(unsigned_part.substr(0, dot))) {
    std::string_view rest = unsigned_part.substr(dot + 1);
    std::size_t i = 0;
    while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
    std::string_view exponent = rest.substr(i);
    if (exponent.empty()) return {QueryValue::Kind::other, 0};
    if (exponent[0] == 'e' || exponent[0] == 'E') {
      exponent.remove_prefix(1);
      if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) exponent.remove_prefix(1);
      if (!exponent.empty() && digits(exponent)) return {QueryValue::Kind::other, 0};
    }
  }
  return {};
}

std::string signal_description(int signal) {
  switch (signal) {
    case 1: return "Hangup";
    case 2: return "Interrupt";
    case 3: return "Quit";
    case 6: return "Aborted";
    case 9: return "Killed";
    case 10: return "User defined signal 1";
    case 12: return "User defined signal 2";
    case 13: return "Broken pipe";
    case 14: return "Alarm clock";
    case 15: return "Terminated";
    case 17: return "Child exited";
    case 18: return "Continued";
    case 19: return "Stopped (signal)";
    case 20: return "Stopped";
    case 21: return "Stopped (tty input)";
    case 22: return "Stopped (tty output)";
    case 23: return "Urgent I/O condition";
    case 24: return "CPU time limit exceeded";
    default:
      if (signal >= 34 && signal <= 64) return "Real-time signal " + std::to_string(signal - 34);
      return "Unknown signal " + std::to_string(signal);
  }
}

}  // namespace tpslurm::sim
