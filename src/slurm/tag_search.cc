#include "slurm/tag_search.h"

#include <set>

namespace tpslurm::slurm {
namespace {

// Runs one source: its report goes into result.sources, its matching records into `found`.
void consult(RestCaller& caller, const Dialect& codec, SearchSource source, const std::string& target,
             Result<JobsReply> (Dialect::*decode)(std::string_view) const, const model::JobTag& tag,
             SearchResult& result, std::vector<SearchMatch>& found) {
  SourceReport report;
  report.source = source;
  RestCaller::Sent sent = caller.send(HttpMethod::get, target);
  CallResult call;
  std::optional<JobsReply> reply;
  if (!caller.refused(call, sent, codec.version())) reply = caller.read(call, sent, codec, decode);
  if (call.ok() && !reply) {
    call.outcome = Outcome::uncertain;
    call.message = sent.label + ": HTTP " + std::to_string(call.http_status) + " without a \"jobs\" list";
  }
  report.outcome = call.outcome;
  if (!call.ok()) {
    report.message = call.message;
    if (result.ok()) static_cast<CallResult&>(result) = call;
  } else {
    if (result.release.empty()) result.release = call.release;
    report.records = static_cast<int>(reply->jobs.size());
    for (auto& job : reply->jobs) {
      const int marks = tag.matches(job.tag());
      if (marks >= 2) found.push_back({std::move(job), source, marks});
    }
  }
  result.sources.push_back(std::move(report));
}

}  // namespace

std::string_view to_string(SearchSource source) {
  switch (source) {
    case SearchSource::slurmctld:
      return "slurmctld job list";
    case SearchSource::slurmdbd:
      return "slurmdbd job search";
  }
  return "slurmctld job list";
}

bool SearchResult::complete() const {
  if (sources.empty()) return false;
  for (const auto& source : sources) {
    if (source.outcome != Outcome::ok) return false;
  }
  return true;
}

SearchResult search_by_tag(RestCaller& caller, const Dialect& codec, const model::JobTag& tag, TimePoint intent_time,
                           const ServerClock& clock, const std::string& clock_note) {
  SearchResult result;
  result.outcome = Outcome::ok;
  result.dialect = std::string(codec.version());

  std::vector<SearchMatch> from_ctld;
  consult(caller, codec, SearchSource::slurmctld, codec.jobs_path(std::nullopt), &Dialect::decode_jobs, tag, result,
          from_ctld);

  // The intent time on the server's clock: the local time plus the lowest offset observed.
  TimePoint start = intent_time - kSearchWindowMargin;
  if (auto offset = clock.offset()) {
    start += *offset;
    result.window_on_server_clock = true;
  }
  result.window_start = start;
  std::vector<SearchMatch> from_dbd;
  consult(caller, codec, SearchSource::slurmdbd, codec.db_jobs_path(tag.name, unix_seconds(start)),
          &Dialect::decode_db_jobs, tag, result, from_dbd);
  if (!result.window_on_server_clock) {
    auto& report = result.sources.back();
    const std::string note = "window on the local clock (" + clock_note + ")";
    report.message = report.message.empty() ? note : report.message + "; " + note;
  }

  // slurmctld's record is the live one; slurmdbd adds what slurmctld no longer holds.
  std::set<std::uint32_t> known;
  for (auto& match : from_ctld) {
    known.insert(match.job.job_id);
    result.matches.push_back(std::move(match));
  }
  for (auto& match : from_dbd) {
    if (known.insert(match.job.job_id).second) result.matches.push_back(std::move(match));
  }
  if (result.ok()) {
    result.message.clear();
    result.errors.clear();
  }
  return result;
}

}  // namespace tpslurm::slurm
