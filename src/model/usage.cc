#include "model/usage.h"

#include <boost/json.hpp>
#include <cstdio>

namespace tpslurm::model {
namespace {

namespace json = boost::json;

std::int64_t number_in(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_int64() ? v->as_int64() : 0;
}

std::string text_in(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

double hours(std::int64_t count, std::int64_t seconds) {
  return static_cast<double>(count) * static_cast<double>(seconds) / 3600.0;
}

std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// "2h3m", "45s": the longest component's elapsed time.
std::string duration_text(std::int64_t seconds) {
  const std::int64_t h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60;
  std::string out;
  if (h > 0) out += std::to_string(h) + "h";
  if (m > 0) out += std::to_string(m) + "m";
  if (s > 0 || out.empty()) out += std::to_string(s) + "s";
  return out;
}

}  // namespace

double AttemptUsage::gpu_hours() const {
  double sum = 0;
  for (const auto& c : components) sum += hours(c.allocation.gpus, c.allocation.elapsed_seconds);
  return sum;
}

double AttemptUsage::cpu_hours() const {
  double sum = 0;
  for (const auto& c : components) sum += hours(c.allocation.cpus, c.allocation.elapsed_seconds);
  return sum;
}

std::string usage_json(const AttemptUsage& usage) {
  if (!usage.none.empty()) return json::serialize(json::object{{"none", usage.none}});
  json::array components;
  for (const auto& c : usage.components) {
    components.push_back(json::object{{"offset", c.offset},
                                      {"partition", c.partition},
                                      {"gpu_series", c.gpu_series},
                                      {"elapsed_seconds", c.allocation.elapsed_seconds},
                                      {"cpus", c.allocation.cpus},
                                      {"memory_mb", c.allocation.memory_mb},
                                      {"nodes", c.allocation.nodes},
                                      {"gpus", c.allocation.gpus}});
  }
  return json::serialize(json::object{
      {"components", std::move(components)}, {"gpu_hours", usage.gpu_hours()}, {"cpu_hours", usage.cpu_hours()}});
}

std::optional<AttemptUsage> parse_usage(std::string_view text) {
  if (text.empty()) return std::nullopt;
  json::error_code ec;
  const json::value value = json::parse(text, ec);
  if (ec || !value.is_object()) return std::nullopt;
  const json::object& o = value.as_object();
  AttemptUsage usage;
  usage.none = text_in(o, "none");
  const json::value* list = o.if_contains("components");
  if (list != nullptr && list->is_array()) {
    for (const auto& item : list->as_array()) {
      if (!item.is_object()) continue;
      const json::object& c = item.as_object();
      usage.components.push_back({static_cast<int>(number_in(c, "offset")), text_in(c, "partition"),
                                  text_in(c, "gpu_series"),
                                  Allocation{number_in(c, "elapsed_seconds"), number_in(c, "cpus"),
                                             number_in(c, "memory_mb"), number_in(c, "nodes"), number_in(c, "gpus")}});
    }
  }
  return usage;
}

std::string usage_words(const AttemptUsage& usage) {
  if (!usage.none.empty()) return "no usage: " + usage.none;
  std::int64_t longest = 0, gpus = 0, cpus = 0, memory_mb = 0;
  for (const auto& c : usage.components) {
    longest = std::max(longest, c.allocation.elapsed_seconds);
    gpus += c.allocation.gpus;
    cpus += c.allocation.cpus;
    memory_mb += c.allocation.memory_mb;
  }
  return "ran " + duration_text(longest) + ": " + fixed(usage.gpu_hours()) + " GPU-hours (" + std::to_string(gpus) +
         " GPUs), " + fixed(usage.cpu_hours()) + " CPU-hours (" + std::to_string(cpus) + " CPUs), " +
         (memory_mb < 1024 ? std::to_string(memory_mb) + " MB" : fixed(static_cast<double>(memory_mb) / 1024) + " GB") +
         " of memory";
}

}  // namespace tpslurm::model
