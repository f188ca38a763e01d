#include "reconcile/status_round.h"

#include <set>
#include <unordered_map>
#include <unordered_set>

#include "config/logging.h"
#include "journal/components.h"
#include "reconcile/journal_writer.h"
#include "reconcile/slurm_verdict.h"
#include "reconcile/status_board.h"
#include "reconcile/step.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

using journal::AttemptRecord;

constexpr std::chrono::minutes kMetaEvery{1};

struct Followed {
  AttemptRecord attempt;
  std::vector<journal::JournaledComponent> before;
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
    f.before = journal::parse_components(f.attempt.components);
    f.ids = journal::component_ids(f.before, f.attempt.slurm_job_id);
    out.push_back(std::move(f));
  }
  return out;
}

// One poll's answers, indexed once (a round looks up every followed attempt in them).
struct PollIndex {
  std::unordered_map<std::uint32_t, const slurm::JobStateEntry*> states;
  std::unordered_set<std::uint32_t> unanswered;
  std::unordered_map<std::uint32_t, std::vector<const model::JobSnapshot*>> records_by_leader;

  PollIndex(const slurm::BulkStateResult& bulk, const std::vector<model::JobSnapshot>& records) {
    for (const auto& entry : bulk.states) states[entry.job_id] = &entry;
    unanswered.insert(bulk.unanswered.begin(), bulk.unanswered.end());
    for (const auto& r : records) records_by_leader[r.het_job_id.value_or(r.job_id)].push_back(&r);
  }

  // The attempt's components in the bulk answer, by id; empty when none was reported.
  std::map<std::uint32_t, const slurm::JobStateEntry*> reported(const std::vector<std::uint32_t>& ids) const {
    std::map<std::uint32_t, const slurm::JobStateEntry*> out;
    for (auto id : ids) {
      if (auto it = states.find(id); it != states.end()) out[id] = it->second;
    }
    return out;
  }
  bool any_unanswered(const std::vector<std::uint32_t>& ids) const {
    return std::any_of(ids.begin(), ids.end(), [&](auto id) { return unanswered.count(id) > 0; });
  }
  // The records of the het job (or plain job) `leader`; nullopt when the poll has no records.
  std::optional<std::vector<model::JobSnapshot>> records_of(std::uint32_t leader) const {
    if (records_by_leader.empty()) return std::nullopt;
    std::vector<model::JobSnapshot> out;
    if (auto it = records_by_leader.find(leader); it != records_by_leader.end()) {
      for (const auto* r : it->second) out.push_back(*r);
    }
    return out;
  }
};

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

// The records at an attempt's id, by its tag: its job's, and those of another job that took the
// id (steps.h: another_jobs), which are never posted as the attempt's.
struct Records {
  std::vector<model::JobSnapshot> ours;
  std::vector<model::JobSnapshot> foreign;

  Records(std::vector<model::JobSnapshot> records, const model::JobTag& tag) {
    if (another_jobs(records, tag)) {
      foreign = std::move(records);
      return;
    }
    std::erase_if(records, [&](const auto& r) { return !tag.identifies(r.tag()); });
    ours = std::move(records);
  }
};

// Full records of a changed attempt: by SLUID where allowed; when that no longer resolves (a
// requeue gives a new SLUID), by the numeric id, kept only if they still carry the tag.
std::optional<Records> read_full(Services& services, const Followed& f) {
  const std::uint32_t leader = *f.attempt.slurm_job_id;
  const model::JobTag tag = tag_of(services, f.attempt);
  slurm::JobsResult read = services.slurm.get_job(slurm::JobRef{leader, f.attempt.sluid, tag, f.attempt.unix_user});
  if (read.outcome == slurm::Outcome::not_found && !f.attempt.sluid.empty()) {
    read = services.slurm.get_job(slurm::JobRef{leader, {}, std::nullopt, f.attempt.unix_user});
  }
  if (read.outcome == slurm::Outcome::not_found) return Records({}, tag);
  if (!read.ok()) return std::nullopt;
  return Records(records_of(read.jobs, leader), tag);
}

// The pending attempts, and whether Slurm has said why each waits ("None": not looked at yet).
std::vector<PendingWait> pending_waits(const std::vector<Followed>& wanted) {
  std::vector<PendingWait> out;
  for (const auto& f : wanted) {
    if (f.attempt.state != model::AttemptState::pending) continue;
    const bool explained = std::any_of(f.before.begin(), f.before.end(),
                                       [](const auto& c) { return !c.reason.empty() && c.reason != "None"; });
    out.push_back({f.attempt.submit_token, explained});
  }
  return out;
}

// Every record of slurmctld: when the reasons' plan asks for it, and whenever the cycle's sweep
// reads them anyway. A bulk state has ids and states only: the listing is where another job at
// an attempt's id shows even in the attempt's state.
const std::vector<model::JobSnapshot>& full_listing(CycleListing& listing, bool for_reasons,
                                                    StatusRoundState& state, SteadyPoint now) {
  static const std::vector<model::JobSnapshot> none;
  if (!for_reasons && !listing.read_anyway()) return none;
  const slurm::JobsResult& listed = listing.get();
  state.reasons.listed(now);  // tried, answered or not: at most one listing per kExplainedEvery
  return listed.ok() ? listed.jobs : none;
}

void note_poll(Services& services, StatusRoundState& state, TimePoint now) {
  if (state.last_meta_write && now - *state.last_meta_write < kMetaEvery) return;
  Status written =
      services.journal.write([&](journal::Journal& j) { return j.set_meta("last_status_poll", format_utc(now)); });
  if (written.ok()) state.last_meta_write = now;
}

}  // namespace

StatusRoundReport run_status_round(Services& services, StatusRoundState& state, CycleListing& cycle_listing) {
  StatusRoundReport report;
  const TimePoint now = services.clock.now();
  const std::vector<Followed> wanted = followed(services);
  if (wanted.empty()) return report;
  std::vector<std::uint32_t> ids;
  for (const auto& f : wanted) ids.insert(ids.end(), f.ids.begin(), f.ids.end());
  slurm::BulkStateResult bulk = services.slurm.bulk_state(ids, state.since);
  const SteadyPoint steady = services.clock.steady();
  const std::vector<PendingWait> waits = pending_waits(wanted);
  const ReasonPlan reasons = bulk.records.empty() ? state.reasons.plan(waits, steady) : ReasonPlan{};
  const std::vector<model::JobSnapshot>& listing =
      bulk.records.empty() ? full_listing(cycle_listing, reasons.listing, state, steady) : bulk.records;
  const PollIndex index(bulk, listing);
  report.ran = true;
  report.attempts = static_cast<int>(wanted.size());
  report.calls = bulk.calls;
  if (bulk.ok() && bulk.next_since) state.since = bulk.next_since;
  std::set<std::string> wake;
  std::vector<std::string> tokens;
  for (const auto& f : wanted) {
    const std::string& token = f.attempt.submit_token;
    tokens.push_back(token);
    if (bulk.unchanged && f.attempt.state != model::AttemptState::submitted) {
      services.statuses.seen(token, now);  // v0.0.38: nothing changed anywhere since the last poll
      continue;
    }
    if (index.any_unanswered(f.ids) || (!bulk.ok() && bulk.states.empty() && bulk.not_reported.empty())) {
      ++report.unanswered;
      continue;
    }
    const model::JobTag tag = tag_of(services, f.attempt);
    // Absent: not reported, or another job holds the id (`id_reused`: which, in words).
    auto post_absent = [&](const std::string& id_reused) {
      if (!id_reused.empty()) services.statuses.note_id_reused(token, id_reused);
      ++report.absent;
      services.statuses.post(token, StatusEntry{{}, ++state.absent[token], now, id_reused});
      wake.insert(f.attempt.job_id);
    };
    const auto seen = index.reported(f.ids);
    if (seen.empty() && !bulk.unchanged) {
      post_absent("");
      continue;
    }
    if (auto reused = services.statuses.id_reused(token)) {
      post_absent(*reused);
      continue;
    }
    std::optional<Records> records;
    if (auto listed = index.records_of(*f.attempt.slurm_job_id)) records.emplace(std::move(*listed), tag);
    if (records && !records->foreign.empty()) {
      post_absent(another_jobs_words(records->foreign, tag));
      continue;
    }
    state.absent.erase(token);
    services.statuses.seen(token, now);
    if (records) state.reasons.read(token, steady);
    const bool changed =
        differs(f, seen) || (records && pending_news(f.before, journal::journaled(records->ours), now));
    const bool reason_due = !records && reasons.alone.count(token) > 0;
    if (!changed && !reason_due) continue;
    if (!records || records->ours.empty()) records = read_full(services, f);
    if (!records) {
      ++report.unanswered;
      continue;
    }
    state.reasons.read(token, steady);
    if (!changed && !records->ours.empty() && records->foreign.empty() &&
        !pending_news(f.before, journal::journaled(records->ours), now)) {
      continue;  // read for its reason: the same wait
    }
    ++report.changed;
    if (!records->foreign.empty()) {
      post_absent(another_jobs_words(records->foreign, tag));
      continue;
    }
    const int absent = records->ours.empty() ? 1 : 0;
    services.statuses.post(token, StatusEntry{std::move(records->ours), absent, now, ""});
    wake.insert(f.attempt.job_id);
  }
  report.worst_lag = services.statuses.lag(tokens, now);
  std::erase_if(state.absent, [&](const auto& entry) {
    return std::find(tokens.begin(), tokens.end(), entry.first) == tokens.end();
  });
  // Every followed attempt's last read is kept: one first read after its release (still
  // `submitted` in the journal this round) counts when it is pending in the next.
  state.reasons.keep_only(std::set<std::string>(tokens.begin(), tokens.end()));
  if (report.unanswered == 0) note_poll(services, state, now);
  report.wake.assign(wake.begin(), wake.end());
  return report;
}

}  // namespace tpslurm::reconcile
