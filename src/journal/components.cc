#include "journal/components.h"

#include <algorithm>
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

std::vector<JournaledComponent> journaled(const std::vector<model::JobSnapshot>& records) {
  std::vector<JournaledComponent> out;
  out.reserve(records.size());
  for (const auto& r : records) {
    out.push_back({static_cast<int>(r.het_job_offset.value_or(0)), r.job_id, r.sluid, r.state.to_string(),
                   r.state_reason, r.exit_code, r.exit_signal, r.nodes, time_text(r.start_time),
                   time_text(r.end_time)});
  }
  return out;
}

std::string components_json(const std::vector<model::JobSnapshot>& records) {
  boost::json::array out;
  for (const auto& c : journaled(records)) {
    boost::json::object o;
    o["offset"] = c.offset;
    o["job_id"] = c.job_id;
    o["sluid"] = c.sluid;
    o["state"] = c.state;
    o["reason"] = c.reason;
    o["exit_code"] = c.exit_code ? boost::json::value(*c.exit_code) : boost::json::value(nullptr);
    o["exit_signal"] = c.exit_signal ? boost::json::value(*c.exit_signal) : boost::json::value(nullptr);
    o["nodes"] = c.nodes;
    o["start"] = c.start;
    o["end"] = c.end;
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

std::optional<TimePoint> expected_start(const std::vector<JournaledComponent>& components) {
  std::optional<TimePoint> latest;
  for (const auto& c : components) {
    if (!c.state.starts_with("PENDING")) continue;
    const std::optional<TimePoint> start = parse_utc(c.start);
    if (!start) return std::nullopt;  // a het job starts when all of its components can
    latest = latest ? std::max(*latest, *start) : *start;
  }
  return latest;
}

}  // namespace tpslurm::journal
