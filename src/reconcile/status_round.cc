#include "reconcile/status_round.h"

#include <set>
#include <unordered_map>
#include <unordered_set>

#include "config/logging.h"
#include "reconcile/components.h"
#include "reconcile/journal_writer.h"
#include "reconcile/status_board.h"
#include "reconcile/step.h"

namespace tpslurm::reconcile {
namespace {

using journal::AttemptRecord;

constexpr std::chrono::minutes kMetaEvery{1};

struct Followed {
  AttemptRecord attempt;
  std::vector<JournaledComponent> before;
  std::vector<std::uint32_t> ids;
};

std::vector<Followed> followed(Services& services) {
  std::vector<Followed> out;
  auto attempts = services.journal.read().followed_attempts();
  if (!attempts.ok()) return out;
  for (auto& a : *attempts) {
    // identify and release come first: they have their own reads.
    if (a.state == model::AttemptState::submitted && (a.identified_at.empty() || a.awaiting_release())) continue;
    Followed f{std::move(a), {}, {}};
    f.before = parse_components(f.attempt.components);
    f.ids = component_ids(f.before, f.attempt.slurm_job_id);
    out.push_back(std::move(f));
  }
  return out;
}

// The bulk answer by job id, built once per poll: looking each attempt up in the whole answer
// made a poll O(attempts x entries). An id reported twice keeps its last entry.
using StateIndex = std::unordered_map<std::uint32_t, const slurm::JobStateEntry*>;

StateIndex index_states(const slurm::BulkStateResult& bulk) {
  StateIndex index;
  index.reserve(bulk.states.size());
  for (const auto& entry : bulk.states) index[entry.job_id] = &entry;
  return index;
}

// The attempt's components in the bulk answer, by id; empty when none was reported.
std::map<std::uint32_t, const slurm::JobStateEntry*> reported(const StateIndex& index,
                                                              const std::vector<std::uint32_t>& ids) {
  std::map<std::uint32_t, const slurm::JobStateEntry*> out;
  for (const std::uint32_t id : ids) {
    if (auto it = index.find(id); it != index.end()) out[id] = it->second;
  }
  return out;
}

bool any_in(const std::vector<std::uint32_t>& ids, const std::unordered_set<std::uint32_t>& set) {
  return std::any_of(ids.begin(), ids.end(), [&](auto id) { return set.count(id) != 0; });
}

bool differs(const Followed& f, const std::map<std::uint32_t, const slurm::JobStateEntry*>& seen) {
  if (f.attempt.state == model::AttemptState::submitted) return true;  // first sight since the release
  if (seen.size() != f.before.size()) return true;
  for (const auto& c : f.before) {
    auto it = seen.find(c.job_id);
    if (it == seen.end() || it->second->state.to_string() != c.state) return true;
  }
  return false;
}

std::vector<model::JobSnapshot> records_of(const std::vector<model::JobSnapshot>& records, std::uint32_t leader) {
  std::vector<model::JobSnapshot> out;
  for (const auto& r : records) {
    if (r.job_id == leader || r.het_job_id == leader) out.push_back(r);
  }
  return out;
}

// A listing's records by the leader they belong to (their own id, and their het job's), in the
// listing's order: what records_of() finds, without a scan of the whole listing per attempt.
using ListingIndex = std::unordered_map<std::uint32_t, std::vector<const model::JobSnapshot*>>;

ListingIndex index_listing(const std::vector<model::JobSnapshot>& listing) {
  ListingIndex index;
  for (const auto& r : listing) {
    index[r.job_id].push_back(&r);
    if (r.het_job_id && *r.het_job_id != r.job_id) index[*r.het_job_id].push_back(&r);
  }
  return index;
}

std::vector<model::JobSnapshot> records_of(const ListingIndex& index, std::uint32_t leader) {
  std::vector<model::JobSnapshot> out;
  if (auto it = index.find(leader); it != index.end()) {
    for (const model::JobSnapshot* r : it->second) out.push_back(*r);
  }
  return out;
}

std::vector<model::JobSnapshot> tagged(std::vector<model::JobSnapshot> records, const model::JobTag& tag) {
  std::erase_if(records, [&](const auto& r) { return !tag.identifies(r.tag()); });
  return records;
}

// Full records of a changed attempt: by SLUID where allowed; when that no longer resolves (a
// requeue gives a new SLUID), by the numeric id, kept only if they still carry the tag.
std::optional<std::vector<model::JobSnapshot>> read_full(Services& services, const Followed& f) {
  const std::uint32_t leader = *f.attempt.slurm_job_id;
  const model::JobTag tag = tag_of(services, f.attempt);
  slurm::JobsResult read = services.slurm.get_job(slurm::JobRef{leader, f.attempt.sluid, tag});
  if (read.outcome == slurm::Outcome::not_found && !f.attempt.sluid.empty()) {
    read = services.slurm.get_job(slurm::JobRef{leader});
  }
  if (read.outcome == slurm::Outcome::not_found) return std::vector<model::JobSnapshot>{};
  if (!read.ok()) return std::nullopt;
  return tagged(records_of(read.jobs, leader), tag);
}

// A pending attempt whose reason in `records` differs from the journal's.
bool reason_changed(const Followed& f, const std::vector<model::JobSnapshot>& records) {
  for (const auto& r : records) {
    for (const auto& c : f.before) {
      if (c.job_id == r.job_id && c.reason != r.state_reason) return true;
    }
  }
  return false;
}

// Every record of slurmctld, once per kReasonEvery polls while an attempt is pending.
std::vector<model::JobSnapshot> reason_listing(Services& services, const std::vector<Followed>& wanted, int round) {
  if (round % kReasonEvery != 1 % kReasonEvery) return {};
  const bool any_pending = std::any_of(wanted.begin(), wanted.end(),
                                       [](const auto& f) { return f.attempt.state == model::AttemptState::pending; });
  if (!any_pending) return {};
  slurm::JobsResult listed = services.slurm.jobs_changed_since(std::nullopt);
  return listed.ok() ? std::move(listed.jobs) : std::vector<model::JobSnapshot>{};
}

void note_poll(Services& services, StatusRoundState& state, TimePoint now) {
  if (state.last_meta_write && now - *state.last_meta_write < kMetaEvery) return;
  Status written =
      services.journal.write([&](journal::Journal& j) { return j.set_meta("last_status_poll", format_utc(now)); });
  if (written.ok()) state.last_meta_write = now;
}

}  // namespace

StatusRoundReport run_status_round(Services& services, StatusRoundState& state) {
  StatusRoundReport report;
  const TimePoint now = services.clock.now();
  const std::vector<Followed> wanted = followed(services);
  if (wanted.empty()) return report;
  std::vector<std::uint32_t> ids;
  for (const auto& f : wanted) ids.insert(ids.end(), f.ids.begin(), f.ids.end());
  slurm::BulkStateResult bulk = services.slurm.bulk_state(ids, state.since);
  const std::vector<model::JobSnapshot> listing =
      bulk.records.empty() ? reason_listing(services, wanted, ++state.round) : bulk.records;
  report.ran = true;
  report.attempts = static_cast<int>(wanted.size());
  report.calls = bulk.calls;
  if (bulk.ok() && bulk.next_since) state.since = bulk.next_since;
  std::set<std::string> wake;
  std::vector<std::string> tokens;
  const StateIndex states = index_states(bulk);
  const ListingIndex by_leader = index_listing(listing);
  const std::unordered_set<std::uint32_t> unanswered(bulk.unanswered.begin(), bulk.unanswered.end());
  for (const auto& f : wanted) {
    const std::string& token = f.attempt.submit_token;
    tokens.push_back(token);
    if (bulk.unchanged && f.attempt.state != model::AttemptState::submitted) {
      services.statuses.seen(token, now);  // v0.0.38: nothing changed anywhere since the last poll
      continue;
    }
    if (any_in(f.ids, unanswered) || (!bulk.ok() && bulk.states.empty() && bulk.not_reported.empty())) {
      ++report.unanswered;
      continue;
    }
    const auto seen = reported(states, f.ids);
    if (seen.empty() && !bulk.unchanged) {
      const int polls = ++state.absent[token];
      ++report.absent;
      services.statuses.post(token, StatusEntry{{}, polls, now});
      wake.insert(f.attempt.job_id);
      continue;
    }
    state.absent.erase(token);
    services.statuses.seen(token, now);
    std::optional<std::vector<model::JobSnapshot>> records;
    if (!listing.empty()) records = tagged(records_of(by_leader, *f.attempt.slurm_job_id), tag_of(services, f.attempt));
    const bool changed = differs(f, seen) || (records && reason_changed(f, *records));
    if (!changed) continue;
    if (!records || records->empty()) records = read_full(services, f);
    if (!records) {
      ++report.unanswered;
      continue;
    }
    ++report.changed;
    const int absent = records->empty() ? 1 : 0;
    services.statuses.post(token, StatusEntry{std::move(*records), absent, now});
    wake.insert(f.attempt.job_id);
  }
  report.worst_lag = services.statuses.lag(tokens, now);
  if (report.unanswered == 0) note_poll(services, state, now);
  report.wake.assign(wake.begin(), wake.end());
  return report;
}

}  // namespace tpslurm::reconcile
