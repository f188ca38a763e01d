#include "journal/components.h"

#include <boost/json.hpp>

#include "base/clock.h"

namespace tpslurm::journal {
namespace {

std::string time_text(const std::optional<TimePoint>& t) { return t ? format_utc(*t) : std::string(); }

std::string text_of(const boost::json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<std::int64_t> number_of(const boost::json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_int64()) return std::nullopt;
  return v->as_int64();
}

}  // namespace

std::string components_json(const std::vector<model::JobSnapshot>& components) {
  boost::json::array out;
  for (const auto& c : components) {
    boost::json::object o;
    o["offset"] = c.het_job_offset.value_or(0);
    o["job_id"] = c.job_id;
    o["sluid"] = c.sluid;
    o["state"] = c.state.to_string();
    o["reason"] = c.state_reason;
    o["exit_code"] = c.exit_code ? boost::json::value(*c.exit_code) : boost::json::value(nullptr);
    o["exit_signal"] = c.exit_signal ? boost::json::value(*c.exit_signal) : boost::json::value(nullptr);
    o["nodes"] = c.nodes;
    o["start"] = time_text(c.start_time);
    o["end"] = time_text(c.end_time);
    out.push_back(std::move(o));
  }
  return boost::json::serialize(out);
}

std::vector<JournaledComponent> parse_components(const std::string& json) {
  std::vector<JournaledComponent> out;
  if (json.empty()) return out;
  boost::system::error_code error;
  const boost::json::value value = boost::json::parse(json, error);
  if (error || !value.is_array()) return out;
  for (const auto& item : value.as_array()) {
    if (!item.is_object()) continue;
    const auto& o = item.as_object();
    JournaledComponent c;
    c.offset = static_cast<int>(number_of(o, "offset").value_or(0));
    c.job_id = static_cast<std::uint32_t>(number_of(o, "job_id").value_or(0));
    c.sluid = text_of(o, "sluid");
    c.state = text_of(o, "state");
    c.reason = text_of(o, "reason");
    if (auto v = number_of(o, "exit_code")) c.exit_code = static_cast<int>(*v);
    if (auto v = number_of(o, "exit_signal")) c.exit_signal = static_cast<int>(*v);
    c.nodes = text_of(o, "nodes");
    c.start = text_of(o, "start");
    c.end = text_of(o, "end");
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::uint32_t> component_ids(const std::vector<JournaledComponent>& components,
                                         std::optional<std::uint32_t> receipt_id) {
  std::vector<std::uint32_t> ids;
  for (const auto& c : components) {
    if (c.job_id != 0) ids.push_back(c.job_id);
  }
  if (ids.empty() && receipt_id) ids.push_back(*receipt_id);
  return ids;
}

}  // namespace tpslurm::journal
