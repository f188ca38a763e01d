#include "operations/record_json.h"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include "base/printable.h"
#include "journal/components.h"
#include "model/pending_reason.h"

namespace tpslurm::operations {
namespace json = boost::json;
namespace {

json::value text(const std::string& value) { return value.empty() ? json::value(nullptr) : json::value(value); }

template <class T>
json::value number(const std::optional<T>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

// Columns that hold JSON are embedded as JSON, not as strings of JSON. One that does not parse
// (a seal journaled before file names were escaped, holding one that is not UTF-8) is shown as
// a string, escaped: the answer stays valid JSON.
json::value embedded(const std::string& value) {
  if (value.empty()) return nullptr;
  json::error_code ec;
  json::value parsed = json::parse(value, ec);
  return ec ? json::value(printable(value)) : parsed;
}

}  // namespace

bool resources_held(const std::vector<journal::AttemptRecord>& attempts) {
  for (const auto& attempt : attempts) {
    const bool never_sent =
        attempt.state == model::AttemptState::preparing || attempt.state == model::AttemptState::prepared;
    if (!never_sent && attempt.cleanup != model::CleanupStep::closed) return true;
  }
  return false;
}

json::object wait_json(std::string_view reason) {
  const model::PendingExplanation words = model::explain_pending(reason);
  return {{"reason", reason.empty() ? json::value(nullptr) : json::value(reason)},
          {"explanation", words.explanation},
          {"what_to_change", text(words.what_to_change)}};
}

json::value pending_json(const journal::AttemptRecord& a) {
  if (a.state != model::AttemptState::pending) return nullptr;
  const auto components = journal::parse_components(a.components);
  json::array waits;
  for (const auto& c : components) {
    json::object wait = wait_json(c.reason);
    wait.emplace("offset", c.offset);
    waits.push_back(std::move(wait));
  }
  const auto start = journal::expected_start(components);
  return json::object{{"expected_start", start ? json::value(format_utc(*start)) : json::value(nullptr)},
                      {"components", std::move(waits)}};
}

json::object to_json(const journal::JobRecord& job, bool held) {
  return {{"job_id", job.job_id},
          {"user", text(job.platform_user)},
          {"unix_user", text(job.unix_user)},
          {"phase", model::to_string(job.phase)},
          {"desire", model::to_string(job.desire)},
          {"desire_reason", text(job.desire_reason)},
          {"resources_held", held},
          {"current_attempt", number(job.current_attempt)},
          {"max_attempts", job.max_attempts},
          {"request_sha256", job.request_sha256},
          {"credential_path", text(job.credential_path)},
          {"version", job.version},
          {"created_at", job.created_at},
          {"updated_at", job.updated_at}};
}

json::object to_json(const journal::AttemptRecord& a) {
  return {{"number", a.number},
          {"state", model::to_string(a.state)},
          {"submit_token", a.submit_token},
          {"attempt_dir", text(a.attempt_dir)},
          {"slurm_job_id", number(a.slurm_job_id)},
          {"sluid", text(a.sluid)},
          {"het_job_id", number(a.het_job_id)},
          {"components", embedded(a.components)},
          {"server_release", text(a.server_release)},
          {"dialect", text(a.dialect)},
          {"slurm_state", text(a.slurm_state)},
          {"slurm_reason", text(a.slurm_reason)},
          {"exit_code", number(a.exit_code)},
          {"exit_signal", number(a.exit_signal)},
          {"failure_phase", text(a.failure_phase)},
          {"pending", pending_json(a)},
          {"usage", embedded(a.usage)},
          {"outcome_reason", text(a.outcome_reason)},
          {"found_by", text(a.found_by)},
          {"cleanup", model::to_string(a.cleanup)},
          {"cleanup_at", text(a.cleanup_at)},
          {"logs_sha256", embedded(a.logs_sha256)},
          {"submit_mode", text(a.submit_mode)},
          {"intent_at", text(a.intent_at)},
          {"identified_at", text(a.identified_at)},
          {"released_at", text(a.released_at)},
          {"observed_at", text(a.observed_at)},
          {"signalled_at", text(a.signalled_at)},
          {"created_at", a.created_at},
          {"updated_at", a.updated_at}};
}

json::object to_json(const journal::TimelineEntry& e) {
  return {{"seq", e.seq},
          {"at", e.at},
          {"attempt", number(e.attempt)},
          {"kind", e.kind},
          {"from", text(e.from_state)},
          {"to", text(e.to_state)},
          {"reason", text(e.reason)},
          {"slurm_job_id", number(e.slurm_job_id)},
          {"sluid", text(e.sluid)},
          {"submit_token", text(e.submit_token)},
          {"request_sha256", e.request_sha256},
          {"detail", embedded(e.detail)}};
}

json::object to_json(const journal::BlockedEntry& e) {
  return {{"job_id", e.job_id},
          {"attempt", e.attempt},
          {"submit_token", e.submit_token},
          {"intent_at", text(e.intent_at)},
          {"blocked_since", e.blocked_since},
          {"attempt_dir", text(e.attempt_dir)},
          {"last_search_at", text(e.last_search_at)},
          {"last_complete_search_at", text(e.last_complete_search_at)},
          {"search_report", embedded(e.search_report)},
          {"last_search_elapsed_s", number(e.last_search_elapsed_s)},
          {"last_complete_search_elapsed_s", number(e.last_complete_search_elapsed_s)},
          {"reason", text(e.reason)}};
}

json::object to_json(const journal::MintRecord& m) {
  return {{"at", m.at}, {"user", m.user}, {"expires_at", m.expires_at}, {"purpose", m.purpose}};
}

json::object to_json(const journal::OrphanEntry& e) {
  return {{"slurm_job_id", e.slurm_job_id},
          {"sluid", text(e.sluid)},
          {"name", e.name},
          {"comment", text(e.comment)},
          {"working_dir", text(e.working_dir)},
          {"slurm_state", text(e.slurm_state)},
          {"first_seen", e.first_seen},
          {"last_seen", e.last_seen}};
}

json::object to_json(const journal::CleanupEntry& e) {
  return {{"job_id", e.job_id},
          {"attempt", e.attempt},
          {"state", e.state},
          {"cleanup", e.cleanup},
          {"slurm_job_id", number(e.slurm_job_id)},
          {"slurm_state", text(e.slurm_state)},
          {"since", e.since}};
}

}  // namespace tpslurm::operations
