#include "array_spec.h"

#include <cctype>
#include <cstdlib>
#include <vector>

namespace tpslurm::sim {
namespace {

// strtol(s, &end, 10) over a view: the value and where reading stopped (`pos` itself when no
// digits were read). Values past the int64 range saturate; every limit is far below.
long long read_long(std::string_view s, std::size_t pos, std::size_t& end) {
  std::size_t i = pos;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const std::size_t digits = i;
  long long value = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (value < 1'000'000'000'000LL) value = value * 10 + (s[i] - '0');
    ++i;
  }
  end = i == digits ? pos : i;
  return negative ? -value : value;
}

char at(std::string_view s, std::size_t i) { return i < s.size() ? s[i] : '\0'; }

// One token of the spec ("3", "[0-9:2]", "5-7%2") into `tasks`; false if slurmctld refuses it.
bool parse_token(std::string_view tok, std::uint32_t max, std::set<std::uint32_t>& tasks) {
  std::size_t pos = at(tok, 0) == '[' ? 1 : 0;
  std::size_t end = 0;
  const long long first = read_long(tok, pos, end);
  auto strip_bracket = [&] {
    if (at(tok, end) == ']') ++end;
  };
  auto at_end = [&] { return at(tok, end) == '\0' || at(tok, end) == '%'; };
  strip_bracket();
  if (first < 0) return false;
  long long last = first;
  long long step = 1;
  if (at(tok, end) == '-') {
    last = read_long(tok, end + 1, end);
    strip_bracket();
    if (at(tok, end) == ':') {
      step = read_long(tok, end + 1, end);
      strip_bracket();
      if (!at_end() || step <= 0 || step >= max) return false;
    } else if (!at_end()) {
      return false;
    }
    if (last < first) return false;
  } else if (!at_end()) {
    return false;
  }
  if (last >= max) return false;
  for (long long i = first; i <= last; i += step) tasks.insert(static_cast<std::uint32_t>(i));
  return true;
}

}  // namespace

std::optional<ArraySpec> parse_array_spec(std::string_view text, const ArrayLimits& limits) {
  if (text.empty() || limits.max_array_size == 0) return std::nullopt;
  ArraySpec spec;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view tok = text.substr(start, comma - start);
    // strtok_r() skips empty tokens.
    if (!tok.empty() && !parse_token(tok, limits.max_array_size, spec.tasks)) return std::nullopt;
    start = comma + 1;
  }
  if (spec.tasks.empty()) return std::nullopt;  // _create_job_array() makes no array of nothing
  if (limits.max_array_tasks && *limits.max_array_tasks < limits.max_array_size &&
      spec.tasks.size() > *limits.max_array_tasks) {
    return std::nullopt;
  }
  if (auto percent = text.find('%'); percent != std::string_view::npos) {
    const long long p = std::atoll(std::string(text.substr(percent + 1)).c_str());
    if (p > 0) spec.max_run = static_cast<std::uint32_t>(p);
  }
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    spec.step = static_cast<std::uint32_t>(std::atoll(std::string(text.substr(colon + 1)).c_str()));
  }
  return spec;
}

std::string array_task_string(const std::set<std::uint32_t>& tasks, std::uint32_t max_run) {
  std::string out;
  if (tasks.empty()) return out;
  const std::vector<std::uint32_t> ids(tasks.begin(), tasks.end());
  const std::uint32_t first = ids.front();
  const std::uint32_t last = ids.back();
  bool stride = false;
  if (last - first > 10 && ids.size() > 5 && ids[1] != first + 1) {
    const std::uint32_t step = ids[1] - ids[0];
    stride = true;
    for (std::size_t i = 1; i < ids.size() && stride; ++i) stride = ids[i] - ids[i - 1] == step;
    if (stride) out = std::to_string(first) + "-" + std::to_string(last) + ":" + std::to_string(step);
  }
  if (!stride) {
    constexpr std::size_t kBitstrLen = 64;  // SLURM_BITSTR_LEN's default
    for (std::size_t i = 0; i < ids.size() && out.size() < kBitstrLen;) {
      std::size_t j = i;
      while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
      if (!out.empty()) out += ',';
      out += std::to_string(ids[i]);
      if (j > i) out += "-" + std::to_string(ids[j]);
      i = j + 1;
    }
    // bit_fmt() into a 64-byte buffer keeps 63 characters; past 61 the last three become dots.
    if (out.size() > kBitstrLen - 1) out.resize(kBitstrLen - 1);
    if (out.size() > kBitstrLen - 3) out.replace(kBitstrLen - 4, 3, "...");
  }
  if (max_run) out += "%" + std::to_string(max_run);
  return out;
}

std::string array_hexmask(const std::set<std::uint32_t>& tasks) {
  if (tasks.empty()) return "";
  const std::uint32_t bits = *tasks.rbegin() + 1;
  std::string digits((bits + 3) / 4, '0');
  for (std::uint32_t id : tasks) {
    char& digit = digits[digits.size() - 1 - id / 4];
    int value = (digit <= '9' ? digit - '0' : digit - 'A' + 10) | (1 << (id % 4));
    digit = static_cast<char>(value < 10 ? '0' + value : 'A' + value - 10);
  }
  return "0x" + digits;
}

}  // namespace tpslurm::sim
