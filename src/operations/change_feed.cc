#include "operations/change_feed.h"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include "operations/record_json.h"

namespace tpslurm::operations {
namespace {

namespace json = boost::json;

// How many events one journal read takes.
constexpr std::size_t kScanPerPage = 1000;

json::value text_or_null(const std::string& text) { return text.empty() ? json::value(nullptr) : json::value(text); }

json::value expected_start_of(const journal::TimelineEntry& e) {
  json::error_code ec;
  const json::value detail = json::parse(e.detail, ec);
  const json::value* start = !ec && detail.is_object() ? detail.as_object().if_contains("expected_start") : nullptr;
  return start != nullptr ? *start : json::value(nullptr);
}

// A wait's words and the expected start its event was journaled with.
void add_wait(json::object& out, const journal::TimelineEntry& e) {
  for (auto& [key, value] : wait_json(e.reason)) {
    if (key != "reason") out[key] = value;
  }
  out["expected_start"] = expected_start_of(e);
}

json::object item(const journal::TimelineEntry& e, const std::string& change) {
  json::object out{{"seq", e.seq},
                   {"at", e.at},
                   {"job_id", e.job_id},
                   {"user", text_or_null(e.user)},
                   {"attempt", e.attempt ? json::value(*e.attempt) : json::value(nullptr)},
                   {"change", change},
                   {"from", text_or_null(e.from_state)},
                   {"to", text_or_null(e.to_state)},
                   {"reason", text_or_null(e.reason)},
                   {"slurm_job_id", e.slurm_job_id ? json::value(*e.slurm_job_id) : json::value(nullptr)},
                   {"sluid", text_or_null(e.sluid)}};
  if (change == "resources_held") out["resources_held"] = e.kind != "cleanup";
  if (change == "pending") add_wait(out, e);
  return out;
}

}  // namespace

std::optional<std::string> feed_change(const journal::TimelineEntry& e) {
  if (e.kind == "job.created" || e.kind == "job.phase") return "phase";
  if (e.kind == "anomaly" || e.kind == "duplicate") return "anomaly";
  if (e.kind == "attempt.pending") return "pending";
  if (e.kind == "cleanup" && e.to_state == "closed") return "resources_held";
  if (e.kind != "attempt.state") return std::nullopt;
  if (e.to_state == "submit_unknown") return "blocked";
  if (e.from_state == "submit_unknown") return "unblocked";
  if (e.to_state == "submitting") return "resources_held";
  // First seen pending: an item when Slurm has said something (it looked at the job, or plans it).
  if (e.to_state == "pending" && ((!e.reason.empty() && e.reason != "None") || !expected_start_of(e).is_null())) {
    return "pending";
  }
  return std::nullopt;
}

Result<json::object> feed_page(journal::Journal& journal, std::int64_t after, std::size_t limit) {
  json::array items;
  std::int64_t next = after;
  while (true) {
    auto events = journal.events_after(next, kScanPerPage);
    if (!events.ok()) return events.error();
    for (const auto& e : *events) {
      if (items.size() >= limit) break;
      next = e.seq;
      if (auto change = feed_change(e)) items.push_back(item(e, *change));
    }
    // Until an item is found, read on past events the feed leaves out, to the journal's end.
    if (!items.empty() || events->size() < kScanPerPage) break;
  }
  return json::object{{"events", std::move(items)}, {"next", next}};
}

}  // namespace tpslurm::operations
