#include "model/job_array.h"

#include <algorithm>
#include <charconv>

namespace tpslurm::model {
namespace {

// The most task ids one string may expand to: MaxArraySize is at most 4,000,001.
constexpr std::uint64_t kMostTasks = 4000001;

std::optional<std::uint32_t> number(std::string_view text) {
  std::uint32_t value = 0;
  if (text.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// One item: "N", "A-B" or "A-B:S"; appended to `out`.
Status read_item(std::string_view item, std::vector<std::uint32_t>& out) {
  const auto bad = [&] { return invalid_argument("array task string: \"" + std::string(item) + "\" is not N, A-B or A-B:S"); };
  std::uint32_t step = 1;
  if (const auto colon = item.find(':'); colon != std::string_view::npos) {
    const auto parsed = number(item.substr(colon + 1));
    if (!parsed || *parsed == 0) return bad();
    step = *parsed;
    item = item.substr(0, colon);
    if (item.find('-') == std::string_view::npos) return bad();
  }
  const auto dash = item.find('-');
  const auto first = number(item.substr(0, dash));
  const auto last = dash == std::string_view::npos ? first : number(item.substr(dash + 1));
  if (!first || !last || *last < *first) return bad();
  if ((static_cast<std::uint64_t>(*last) - *first) / step + 1 + out.size() > kMostTasks) {
    return invalid_argument("array task string: more task ids than any array may have");
  }
  for (std::uint64_t task = *first; task <= *last; task += step) out.push_back(static_cast<std::uint32_t>(task));
  return ok_status();
}

}  // namespace

std::string ArraySpec::text() const {
  std::string out = std::to_string(first);
  if (last != first) out += "-" + std::to_string(last);
  if (max_running) out += "%" + std::to_string(*max_running);
  return out;
}

Result<ArrayTasks> parse_array_task_string(std::string_view text) {
  ArrayTasks result;
  if (const auto percent = text.find('%'); percent != std::string_view::npos) {
    if (!number(text.substr(percent + 1))) {
      return invalid_argument("array task string \"" + std::string(text) + "\": \"%\" is not followed by a number");
    }
    text = text.substr(0, percent);
  }
  if (const auto dots = text.find("..."); dots != std::string_view::npos) {
    if (dots + 3 != text.size()) return invalid_argument("array task string \"" + std::string(text) + "\": \"...\" before its end");
    result.complete = false;
    // The item the dots cut into may have lost digits: keep only the items before it.
    const auto comma = text.substr(0, dots).rfind(',');
    text = comma == std::string_view::npos ? std::string_view() : text.substr(0, comma);
  }
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    if (auto read = read_item(text.substr(start, end - start), result.tasks); !read.ok()) return read.error();
    start = end + 1;
    if (end + 1 == text.size()) return invalid_argument("array task string: it ends in a comma");
  }
  std::sort(result.tasks.begin(), result.tasks.end());
  result.tasks.erase(std::unique(result.tasks.begin(), result.tasks.end()), result.tasks.end());
  return result;
}

}  // namespace tpslurm::model
