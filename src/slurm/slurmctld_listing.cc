#include "slurm/slurmctld_listing.h"

#include <algorithm>
#include <set>

namespace tpslurm::slurm {
namespace {

void sort_unique(std::vector<std::uint32_t>& ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

void fail(CtldRecords& out, const CallResult& call) {
  out.report.outcome = call.outcome;
  out.report.message = call.message;
  out.call = call;
}

}  // namespace

RecordsCall read_records(RestCaller& caller, const Dialect& codec, const std::string& target, RecordSource source,
                         std::optional<std::chrono::milliseconds> timeout, std::string_view as_user) {
  RecordsCall out;
  std::unique_ptr<JobsDecoder> decoder = codec.jobs_decoder(source);
  RestCaller::Sent sent = caller.send_listing(target, *decoder, timeout, as_user);
  if (caller.refused(out.call, sent, codec.version())) return out;
  out.sent = true;
  out.bytes = static_cast<std::int64_t>(sent.exchange.response.body_size());
  std::optional<JobsReply> reply = caller.read(out.call, sent, codec, *decoder);
  if (out.call.ok() && !reply) {
    out.call.outcome = Outcome::uncertain;
    out.call.message = sent.label + ": HTTP " + std::to_string(out.call.http_status) + " without a \"jobs\" list";
  }
  if (out.call.ok()) out.reply = std::move(reply);
  return out;
}

std::chrono::milliseconds SlurmctldListing::full_listing_timeout() const {
  const std::int64_t expected = std::max(m_last_listing_count.load(), m_last_state_count.load());
  return m_request_timeout + m_per_job * expected;
}

CtldRecords SlurmctldListing::list(RestCaller& caller, const Dialect& codec, std::span<const model::JobTag> tags,
                                   const SearchOptions& options) {
  if (options.full || !codec.has_jobs_state()) return full(caller, codec, true, {}, options.as_user);
  return cheap(caller, codec, tags, options);
}

CtldRecords SlurmctldListing::full(RestCaller& caller, const Dialect& codec, bool exhaustive, const std::string& why,
                                   std::string_view as_user) {
  CtldRecords out;
  out.report.source = SearchSource::slurmctld;
  out.full_listing = true;
  RecordsCall listed =
      read_records(caller, codec, codec.jobs_path(std::nullopt), RecordSource::slurmctld, full_listing_timeout(),
                   as_user);
  out.calls += listed.sent ? 1 : 0;
  out.bytes += listed.bytes;
  if (!listed.call.ok()) {
    fail(out, listed.call);
    return out;
  }
  out.call = listed.call;
  out.records = std::move(listed.reply->jobs);
  m_last_listing_count = static_cast<std::int64_t>(out.records.size());
  // Only servers with jobs/state have cheap searches that could use what was read.
  if (codec.has_jobs_state()) {
    std::vector<std::uint32_t> ids;
    ids.reserve(out.records.size());
    for (const auto& job : out.records) ids.push_back(job.job_id);
    sort_unique(ids);
    m_examined.retain(ids);
    for (const auto& job : out.records) m_examined.remember(job);
  }
  out.report.outcome = Outcome::ok;
  out.report.records = static_cast<int>(out.records.size());
  out.report.exhaustive = exhaustive;
  out.report.message = why;
  return out;
}

CtldRecords SlurmctldListing::cheap(RestCaller& caller, const Dialect& codec, std::span<const model::JobTag> tags,
                                    const SearchOptions& options) {
  CtldRecords out;
  out.report.source = SearchSource::slurmctld;
  out.report.exhaustive = false;
  RestCaller::Sent sent = caller.send(HttpMethod::get, codec.jobs_state_all_path(), {}, Reuse::allowed, std::nullopt,
                                      {}, options.as_user);
  CallResult call;
  if (caller.refused(call, sent, codec.version())) {
    fail(out, call);
    return out;
  }
  ++out.calls;
  out.bytes += static_cast<std::int64_t>(sent.exchange.response.body_size());
  std::optional<JobsStateReply> reply = caller.read(call, sent, codec, &Dialect::decode_jobs_state);
  if (call.ok() && !reply) {
    call.outcome = Outcome::uncertain;
    call.message = sent.label + ": HTTP " + std::to_string(call.http_status) + " without a \"jobs\" list";
  }
  if (!call.ok()) {
    fail(out, call);
    return out;
  }
  out.call = call;
  std::vector<std::uint32_t> listed;
  listed.reserve(reply->entries.size());
  for (const auto& entry : reply->entries) listed.push_back(entry.job_id);
  sort_unique(listed);
  m_last_state_count = static_cast<std::int64_t>(listed.size());
  m_examined.retain(listed);

  std::vector<std::uint32_t> known = options.known_ids;
  sort_unique(known);
  std::vector<ExaminedJobs::Marks> marks;
  for (const auto& tag : tags) marks.push_back(ExaminedJobs::marks_of(tag));
  std::vector<std::uint32_t> to_read;
  int skipped_known = 0;
  int skipped_examined = 0;
  for (std::uint32_t id : listed) {
    if (std::binary_search(known.begin(), known.end(), id)) {
      ++skipped_known;
    } else if (m_examined.check(id, marks) == ExaminedJobs::Verdict::cannot_match) {
      ++skipped_examined;
    } else {
      to_read.push_back(id);
    }
  }
  const std::string counted = "jobs/state listed " + std::to_string(listed.size()) + " jobs";
  if (to_read.size() > options.max_record_gets) {
    CtldRecords fallback = full(caller, codec, false,
                                counted + ", " + std::to_string(to_read.size()) + " of them to read (more than " +
                                    std::to_string(options.max_record_gets) +
                                    "): listed every job in full instead; not a full search, so no proof of absence",
                                options.as_user);
    fallback.calls += out.calls;
    fallback.bytes += out.bytes;
    return fallback;
  }
  std::set<std::uint32_t> read;
  for (std::uint32_t id : to_read) {
    if (read.contains(id)) continue;  // came with its het leader
    RecordsCall got = read_records(caller, codec, codec.job_path(std::to_string(id)), RecordSource::slurmctld,
                                   std::nullopt, options.as_user);
    if (got.sent) {
      ++out.calls;
      ++out.record_gets;
    }
    out.bytes += got.bytes;
    if (got.call.outcome == Outcome::not_found) {
      read.insert(id);  // gone since the listing: slurmdbd's search covers it
      continue;
    }
    if (!got.call.ok()) {
      fail(out, got.call);
      out.report.records = static_cast<int>(out.records.size());
      return out;
    }
    out.call = got.call;
    for (auto& job : got.reply->jobs) {
      if (!read.insert(job.job_id).second) continue;
      m_examined.remember(job);
      out.records.push_back(std::move(job));
    }
  }
  out.report.outcome = Outcome::ok;
  out.report.records = static_cast<int>(out.records.size());
  out.report.skipped = skipped_known + skipped_examined;
  out.report.message = counted + ", " + std::to_string(out.report.records) + " read in full, " +
                       std::to_string(skipped_known) + " held by the caller and " + std::to_string(skipped_examined) +
                       " read before without two marks of any tag skipped: not a full search, so no proof of absence";
  return out;
}

}  // namespace tpslurm::slurm
