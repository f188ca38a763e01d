#include "explore_schedule.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>

namespace tpslurm::soak {
namespace {

constexpr const char* kNames[kFaultKinds] = {
    "no_accounting", "forget_jobs", "accounting_lag", "auth_fails",    "copies",           "restore_backup", "rename",
    "plant_links",   "sigkill",     "sigterm",        "node_fail",     "reused_ids",       "hostile_files",
    "idle_connections", "clock_step"};

// The second stream's seed: any fixed value other than the seed itself.
constexpr std::uint64_t kLaterStream = 0x9e3779b97f4a7c15ULL;

double uniform(std::mt19937_64& random, double low, double high) {
  return std::uniform_real_distribution<double>(low, std::max(low, high))(random);
}

int integer(std::mt19937_64& random, int low, int high) {
  return std::uniform_int_distribution<int>(low, std::max(low, high))(random);
}

// The kinds in [first, last) a timeline fault may be drawn from, given what was drawn before.
std::vector<FaultKind> candidates(const Schedule& s, const ScheduleOptions& options, bool restore_drawn,
                                  bool rename_drawn, int first, int last) {
  std::vector<FaultKind> out;
  for (int k = first; k < last; ++k) {
    const auto kind = static_cast<FaultKind>(k);
    if (options.without.count(kind)) continue;
    if (kind == FaultKind::accounting_lag && !s.accounting) continue;
    // A restore and a rename in one schedule would restore a journal of the old deployment.
    if ((kind == FaultKind::restore_backup || kind == FaultKind::rename) && (restore_drawn || rename_drawn)) continue;
    out.push_back(kind);
  }
  return out;
}

void add_fault(Schedule& s, std::mt19937_64& random, FaultKind kind) {
  const double last = s.seconds - 4.0;
  Action a;
  a.kind = kind;
  a.at_s = uniform(random, 3.0, last);
  a.pick = random();
  switch (kind) {
    case FaultKind::forget_jobs:
      a.variant = integer(random, 0, 3);  // bit 0: ids reused; bit 1: releases slowed first
      break;
    case FaultKind::accounting_lag:
      a.seconds = integer(random, 5, 15);
      break;
    case FaultKind::auth_fails:
      a.seconds = integer(random, 3, 8);
      break;
    case FaultKind::copies:
      a.variant = integer(random, 0, 2);  // 0: a held copy; 1: a held job cancelled; 2: a copy, cancelled 2 s later
      break;
    case FaultKind::restore_backup:
      a.at_s = uniform(random, 2.0, s.seconds * 0.5);
      break;
    case FaultKind::idle_connections:
      a.seconds = integer(random, 4, 10);
      break;
    case FaultKind::clock_step:
      a.variant = integer(random, 0, 1);  // 0: an hour back first; 1: an hour forward first
      a.seconds = integer(random, 2, 5);  // the cancel's grace
      break;
    default:
      break;
  }
  s.actions.push_back(a);
  Action follow = a;
  follow.follow_up = true;
  if (kind == FaultKind::forget_jobs && (a.variant & 2)) follow.at_s = a.at_s + 3;
  else if (kind == FaultKind::auth_fails) follow.at_s = a.at_s + a.seconds;
  else if (kind == FaultKind::copies && a.variant == 2) follow.at_s = a.at_s + 2;
  else if (kind == FaultKind::restore_backup) follow.at_s = uniform(random, a.at_s + 4, s.seconds - 3.0);
  else if (kind == FaultKind::idle_connections) follow.at_s = a.at_s + a.seconds;
  else return;
  s.actions.push_back(follow);
}

}  // namespace

const char* fault_name(FaultKind kind) { return kNames[static_cast<int>(kind)]; }

bool auth_burst(const Action& a) { return a.kind == FaultKind::auth_fails && a.pick % 2 == 1; }
int auth_burst_ms(const Action& a) { return 200 + static_cast<int>((a.pick >> 1) % 1300); }

bool fault_kind(const std::string& name, FaultKind& kind) {
  for (int k = 0; k < kFaultKinds; ++k) {
    if (name == kNames[k]) {
      kind = static_cast<FaultKind>(k);
      return true;
    }
  }
  return false;
}

bool parse_kinds(const std::string& list, std::set<FaultKind>& kinds, std::string& error) {
  for (std::size_t at = 0; !list.empty() && at <= list.size();) {
    const auto comma = std::min(list.find(',', at), list.size());
    FaultKind kind;
    if (!fault_kind(list.substr(at, comma - at), kind)) {
      error = "no fault kind \"" + list.substr(at, comma - at) + "\"";
      return false;
    }
    kinds.insert(kind);
    at = comma + 1;
  }
  return true;
}

std::set<FaultKind> all_but(const std::set<FaultKind>& only) {
  std::set<FaultKind> out;
  for (int k = 0; k < kFaultKinds; ++k) {
    if (only.count(static_cast<FaultKind>(k)) == 0) out.insert(static_cast<FaultKind>(k));
  }
  return out;
}

Schedule draw_schedule(std::uint64_t seed, const ScheduleOptions& options) {
  std::mt19937_64 random(seed);
  Schedule s;
  s.seed = seed;
  s.seconds = options.seconds;
  s.accounting = uniform(random, 0, 1) >= 0.25 || options.without.count(FaultKind::no_accounting) > 0;
  s.job_seconds = integer(random, 4, 15);
  s.pending_s = integer(random, 1, 8);
  s.min_job_age_s = uniform(random, 0, 1) < 0.5 ? 10 : 300;
  for (int i = 0; i < options.jobs; ++i) s.feed_at.push_back(uniform(random, 0.0, options.seconds * 0.7));
  std::sort(s.feed_at.begin(), s.feed_at.end());
  if (!s.accounting) ++s.faults;
  const int count = integer(random, options.min_faults, options.max_faults);
  std::mt19937_64 later(seed ^ kLaterStream);
  bool restore_drawn = false, rename_drawn = false;
  for (int i = 0; i < count; ++i) {
    const auto first = candidates(s, options, restore_drawn, rename_drawn, 1, kFirstLaterKind);
    const auto added = candidates(s, options, restore_drawn, rename_drawn, kFirstLaterKind, kFaultKinds);
    if (first.empty() && added.empty()) break;
    std::optional<FaultKind> drawn;
    if (!first.empty()) drawn = first[static_cast<std::size_t>(integer(random, 0, static_cast<int>(first.size()) - 1))];
    // Each allowed kind equally likely; the later stream is not touched when no later kind is allowed.
    const double share = static_cast<double>(added.size()) / static_cast<double>(first.size() + added.size());
    if (!added.empty() && (!drawn || uniform(later, 0, 1) < share)) {
      if (drawn) {
        Schedule discarded;  // the first stream moves on as if its kind had been drawn
        discarded.seconds = s.seconds;
        add_fault(discarded, random, *drawn);
      }
      add_fault(s, later, added[static_cast<std::size_t>(integer(later, 0, static_cast<int>(added.size()) - 1))]);
      ++s.faults;
      continue;
    }
    const FaultKind kind = *drawn;
    restore_drawn = restore_drawn || kind == FaultKind::restore_backup;
    rename_drawn = rename_drawn || kind == FaultKind::rename;
    if (kind == FaultKind::accounting_lag) s.min_job_age_s = 5;  // jobs end and are purged while it lags
    add_fault(s, random, kind);
    ++s.faults;
  }
  std::stable_sort(s.actions.begin(), s.actions.end(),
                   [](const Action& a, const Action& b) { return a.at_s < b.at_s; });
  return s;
}

std::string describe(const Action& a) {
  std::string what = fault_name(a.kind);
  switch (a.kind) {
    case FaultKind::forget_jobs:
      if ((a.variant & 2) && !a.follow_up) return what + ": releases slowed (2.5 s each), slurmctld forgets in 3 s";
      return what + ": every job forgotten, ids " + ((a.variant & 1) ? "given out again" : "continue past a gap");
    case FaultKind::accounting_lag:
      return what + ": slurmdbd behind for " + std::to_string(a.seconds) + " s";
    case FaultKind::auth_fails:
      if (a.follow_up) return what + ": the good token back";
      return what + (auth_burst(a) ? ": 4 jobs at once, " + std::to_string(auth_burst_ms(a)) + " ms later" : "") +
             ": a token signed by another key for " + std::to_string(a.seconds) + " s";
    case FaultKind::copies:
      if (a.follow_up) return what + ": the copy cancelled while held";
      return what + (a.variant == 1 ? ": a held job of an attempt cancelled" : ": a held copy of a live attempt");
    case FaultKind::restore_backup:
      return what + (a.follow_up ? ": serve stopped, the backup restored, serve started (safe mode)"
                                 : ": journal backup");
    case FaultKind::rename:
      return what + ": serve stopped, instance renamed, refused, move-deployment, started";
    case FaultKind::plant_links:
      return what + ": FIFO exit.json, a link to a file and one to a directory outside the tree";
    case FaultKind::reused_ids:
      return what + ": a submit answered late, slurmctld forgets every job meanwhile, a foreign job takes its id";
    case FaultKind::hostile_files:
      return what + ": a 100 GiB sparse file, 20,000 files, names of any bytes and a tree 300 deep in logs/";
    case FaultKind::idle_connections:
      if (a.follow_up) return what + ": closed";
      return what + ": 300 idle connections to the API for " + std::to_string(a.seconds) + " s";
    case FaultKind::clock_step:
      return what + ": cancel --grace " + std::to_string(a.seconds) + ", serve's clock an hour " +
             (a.variant == 0 ? "back" : "forward") + " while it runs, then " + (a.variant == 0 ? "forward" : "back");
    default:
      return what;
  }
}

std::vector<std::string> describe(const Schedule& s) {
  std::vector<std::string> lines;
  lines.push_back("seed " + std::to_string(s.seed) + ": " + (s.accounting ? "slurmdbd present" : "no_accounting") +
                  ", MinJobAge " + std::to_string(s.min_job_age_s) + " s, jobs pend " + std::to_string(s.pending_s) +
                  " s and run " + std::to_string(s.job_seconds) + " s, " + std::to_string(s.feed_at.size()) +
                  " jobs fed over " + std::to_string(static_cast<int>(s.seconds * 0.7)) + " s, " +
                  std::to_string(s.faults) + " faults");
  for (const auto& a : s.actions) {
    char at[32];
    std::snprintf(at, sizeof at, "  t=%5.1f s  ", a.at_s);
    lines.push_back(at + describe(a));
  }
  return lines;
}

}  // namespace tpslurm::soak
