#include "slurm/tag_search.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace tpslurm::slurm {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  // slurmdbd compares names in SQL, case-insensitively (MySQL's default collation).
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string join_names(const std::vector<std::string>& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ",") + name;
  return joined;
}

// The batch's outcome is its first failed call's.
void note_failure(BatchSearchResult& batch, const CallResult& call) {
  if (!call.ok() && batch.ok()) static_cast<CallResult&>(batch) = call;
}

void note_release(CallResult& result, const CallResult& call) {
  if (call.ok() && result.release.empty()) result.release = call.release;
}

}  // namespace

bool slurmdbd_not_served(const CallResult& answer) {
  return answer.outcome == Outcome::rejected && answer.http_status == 404;
}

std::string_view to_string(SearchSource source) {
  switch (source) {
    case SearchSource::slurmctld: return "slurmctld job list";
    case SearchSource::slurmdbd: return "slurmdbd job search";
  }
  return "slurmctld job list";
}

bool SearchResult::complete() const {
  if (sources.empty()) return false;
  for (const auto& source : sources) {
    if (source.absent) continue;
    if (source.outcome != Outcome::ok || !source.exhaustive) return false;
  }
  return true;
}

bool SearchResult::without_accounting() const {
  return std::any_of(sources.begin(), sources.end(), [](const SourceReport& s) { return s.absent; });
}

std::string tag_search_problem(const model::JobTag& tag) {
  if (tag.name.empty()) return "search by tag: the tag has no job name; slurmdbd can only be searched by name";
  if (tag.name.find(',') != std::string::npos) {
    return "search by tag: the job name \"" + tag.name + "\" holds a comma, which slurmdbd's job_name list splits on";
  }
  return {};
}

std::vector<std::vector<std::string>> plan_name_batches(const Dialect& codec, std::span<const std::string> names,
                                                        std::int64_t start_unix, std::size_t max_target_bytes) {
  std::vector<std::vector<std::string>> batches;
  std::set<std::string> seen;
  const std::size_t base = codec.db_jobs_path("", start_unix).size();
  constexpr std::size_t kSeparator = 3;  // ",", escaped as %2C
  std::vector<std::string> batch;
  std::size_t length = base;
  for (const auto& name : names) {
    if (!seen.insert(name).second) continue;
    const std::size_t cost = codec.db_jobs_path(name, start_unix).size() - base;
    if (!batch.empty() && length + kSeparator + cost > max_target_bytes) {
      batches.push_back(std::move(batch));
      batch.clear();
      length = base;
    }
    length += (batch.empty() ? 0 : kSeparator) + cost;
    batch.push_back(name);
  }
  if (!batch.empty()) batches.push_back(std::move(batch));
  return batches;
}

namespace {

// The tags a search can look for; the others get their result (rejected) at once.
void screen_tags(BatchSearchResult& batch, std::span<const model::JobTag> tags, std::vector<std::size_t>& active,
                 std::vector<model::JobTag>& active_tags) {
  batch.searches.resize(tags.size());
  for (std::size_t i = 0; i < tags.size(); ++i) {
    SearchResult& result = batch.searches[i];
    result.dialect = batch.dialect;
    if (std::string problem = tag_search_problem(tags[i]); !problem.empty()) {
      result.outcome = Outcome::rejected;
      result.message = std::move(problem);
      continue;
    }
    result.outcome = Outcome::ok;
    active.push_back(i);
    active_tags.push_back(tags[i]);
  }
}

// slurmdbd's answers, one call per batch of names (plan_name_batches).
struct SlurmdbdAnswers {
  std::vector<std::vector<std::string>> plan;
  std::vector<RecordsCall> answers;
  std::map<std::string, std::size_t> batch_of;  // name -> its batch
};

SlurmdbdAnswers ask_slurmdbd(RestCaller& caller, const Dialect& codec, const std::vector<model::JobTag>& tags,
                             std::int64_t start_unix, const BulkLimits& limits, std::string_view as_user,
                             BatchSearchResult& batch) {
  SlurmdbdAnswers out;
  std::vector<std::string> names;
  for (const auto& tag : tags) names.push_back(tag.name);
  out.plan = plan_name_batches(codec, names, start_unix, limits.max_target_bytes);
  for (std::size_t b = 0; b < out.plan.size(); ++b) {
    for (const auto& name : out.plan[b]) out.batch_of[name] = b;
    out.answers.push_back(
        read_records(caller, codec, codec.db_jobs_path(join_names(out.plan[b]), start_unix), RecordSource::slurmdbd,
                     std::nullopt, as_user));
    const RecordsCall& answer = out.answers.back();
    batch.calls += answer.sent ? 1 : 0;
    batch.slurmdbd_calls += answer.sent ? 1 : 0;
    batch.bytes_read += answer.bytes;
    if (!slurmdbd_not_served(answer.call)) note_failure(batch, answer.call);
    note_release(batch, answer.call);
  }
  return out;
}

// What slurmdbd's batch said about `tag`: its report, and its matches that slurmctld did not
// have (`found` holds the job ids already matched).
SourceReport slurmdbd_report(SearchResult& result, const model::JobTag& tag, const RecordsCall& answer,
                             bool whole_batch_is_tag, std::set<std::uint32_t>& found) {
  SourceReport report;
  report.source = SearchSource::slurmdbd;
  report.outcome = answer.call.outcome;
  if (slurmdbd_not_served(answer.call)) {
    report.absent = true;
    report.message = "slurmrestd serves no slurmdbd endpoints: the cluster keeps no accounting";
  } else if (!answer.call.ok()) {
    report.message = answer.call.message;
    if (result.ok()) static_cast<CallResult&>(result) = answer.call;
  } else {
    note_release(result, answer.call);
    for (const auto& job : answer.reply->jobs) {
      if (whole_batch_is_tag || same_name(job.name, tag.name)) ++report.records;
      const int marks = tag.matches(job.tag());
      if (marks >= 2 && found.insert(job.job_id).second) result.matches.push_back({job, SearchSource::slurmdbd, marks});
    }
  }
  return report;
}

}  // namespace

SlurmdbdWindow slurmdbd_window(TimePoint intent, const ServerClock& clock) {
  SlurmdbdWindow window{intent - kSearchWindowMargin, false};
  if (auto offset = clock.offset()) {
    window.start += *offset;
    window.on_server_clock = true;
  }
  return window;
}

BatchSearchResult search_by_tags(RestCaller& caller, const Dialect& codec, SlurmctldListing& listing,
                                 std::span<const model::JobTag> tags, TimePoint earliest_intent,
                                 const SearchOptions& options, const BulkLimits& limits, const ServerClock& clock,
                                 const std::string& clock_note) {
  BatchSearchResult batch;
  batch.outcome = Outcome::ok;
  batch.dialect = std::string(codec.version());
  std::vector<std::size_t> active;
  std::vector<model::JobTag> active_tags;
  screen_tags(batch, tags, active, active_tags);
  if (active.empty()) {
    if (!tags.empty()) static_cast<CallResult&>(batch) = batch.searches.front();
    return batch;
  }

  const CtldRecords ctld = listing.list(caller, codec, active_tags, options);
  batch.calls += ctld.calls;
  batch.bytes_read += ctld.bytes;
  batch.record_gets = ctld.record_gets;
  batch.full_listing = ctld.full_listing;
  note_failure(batch, ctld.call);
  note_release(batch, ctld.call);

  const auto [start, on_server_clock] = slurmdbd_window(earliest_intent, clock);
  const SlurmdbdAnswers dbd =
      ask_slurmdbd(caller, codec, active_tags, unix_seconds(start), limits, options.as_user, batch);

  for (std::size_t k = 0; k < active.size(); ++k) {
    SearchResult& result = batch.searches[active[k]];
    const model::JobTag& tag = active_tags[k];
    result.window_start = start;
    result.window_on_server_clock = on_server_clock;

    // slurmctld's record is the live one; slurmdbd adds what slurmctld no longer holds.
    result.sources.push_back(ctld.report);
    if (ctld.report.outcome != Outcome::ok) static_cast<CallResult&>(result) = ctld.call;
    note_release(result, ctld.call);
    std::set<std::uint32_t> found;
    for (const auto& job : ctld.records) {
      if (const int marks = tag.matches(job.tag()); marks >= 2) {
        result.matches.push_back({job, SearchSource::slurmctld, marks});
        found.insert(job.job_id);
      }
    }

    const std::size_t b = dbd.batch_of.at(tag.name);
    SourceReport report = slurmdbd_report(result, tag, dbd.answers[b], dbd.plan[b].size() == 1, found);
    if (!on_server_clock) {
      const std::string note = "window on the local clock (" + clock_note + ")";
      report.message = report.message.empty() ? note : report.message + "; " + note;
    }
    result.sources.push_back(std::move(report));
    if (result.ok()) {
      result.message.clear();
      result.errors.clear();
    }
  }
  if (batch.ok()) {
    batch.message.clear();
    batch.errors.clear();
  }
  return batch;
}

}  // namespace tpslurm::slurm
