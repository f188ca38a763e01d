#include "model/pending_reason.h"

#include <algorithm>
#include <array>
#include <utility>

namespace tpslurm::model {
namespace {

struct Known {
  std::string_view code;
  PendingExplanation explanation;
};

const std::array kKnown = {
    Known{"None", {"Slurm has not looked at it yet; the next scheduling pass will", "", false}},
    Known{"Priority", {"other jobs come first: they have a higher priority or were queued earlier", "", false}},
    Known{"Resources",
          {"the nodes, GPUs or memory it asks for are in use by other jobs; it starts when they are freed",
           "ask for fewer nodes or GPUs per node, or a GPU series with free nodes", false}},
    Known{"ReqNodeNotAvail",
          {"a node it needs is not available: down, drained or reserved",
           "ask for a GPU series or partition whose nodes are up, or wait for the site to bring them back", false}},
    Known{"NodeDown", {"a node it needs is down", "wait for the site to bring it back, or ask for other nodes", false}},
    Known{"Constraints", {"the nodes with the features it asks for are busy or unavailable", "", false}},
    Known{"BadConstraints",
          {"no node has the features it asks for", "choose a GPU series whose constraint some node has", true}},
    Known{"PartitionDown",
          {"its partition is down: nothing starts there until the site brings it up", "choose another spec.partition",
           false}},
    Known{"PartitionInactive",
          {"its partition is inactive: nothing starts there until the site activates it",
           "choose another spec.partition", false}},
    Known{"PartitionNodeLimit",
          {"it asks for more nodes than its partition allows", "ask for fewer nodes, or choose another spec.partition",
           false}},
    Known{"PartitionTimeLimit",
          {"its time limit is longer than its partition allows",
           "lower spec.time_limit_minutes, or choose another spec.partition", false}},
    Known{"PartitionConfig",
          {"it does not fit its partition's configuration", "fix spec.partition or what the pools ask for", true}},
    Known{"InvalidAccount", {"its Slurm account is not valid", "fix spec.slurm.account", true}},
    Known{"InvalidQOS", {"its QoS is not valid", "fix spec.slurm.qos", true}},
    Known{"AccountNotAllowed",
          {"its partition does not allow its account", "fix spec.slurm.account or spec.partition", true}},
    Known{"QOSNotAllowed", {"its partition does not allow its QoS", "fix spec.slurm.qos or spec.partition", true}},
    Known{"JobHeldUser", {"it is held until the daemon has journaled it; the release follows", "", false}},
    Known{"JobHeldAdmin",
          {"an administrator holds it; it starts only when they release it", "ask the site's administrators", false}},
    Known{"JobHoldMaxRequeue", {"Slurm held it after too many requeues", "ask the site's administrators", false}},
    Known{"BeginTime", {"it may not start before its begin time", "", false}},
    Known{"Dependency", {"it waits for another job to end", "", false}},
    Known{"Prolog", {"its nodes are running the site's prolog; it starts in a moment", "", false}},
    Known{"Cleaning", {"its nodes are still being cleaned up after an earlier job", "", false}},
    Known{"Reservation", {"it waits for its reservation to begin", "", false}},
    Known{"ReservationDeleted", {"its reservation was deleted", "fix spec.slurm.reservation", false}},
    Known{"ReservationInvalid", {"its reservation is not valid", "fix spec.slurm.reservation", false}},
    Known{"Licenses", {"the licenses it asks for are in use", "", false}},
    Known{"SchedDefer", {"the scheduler defers new jobs to its next backfill pass", "", false}},
    Known{"AccountingPolicy", {"a limit of its account or QoS is reached", "ask the site which limit", false}},
    Known{"MaxPoweredUpNodes", {"the cluster may not power up more nodes now", "", false}},
};

// The resources a limit code can name; a longer name before its prefix.
constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kResources = {{
    {"SubmitJob", "queued jobs"},
    {"Jobs", "running jobs"},
    {"Job", "running jobs"},
    {"WallDuration", "run time"},
    {"Wall", "run time"},
    {"GRES", "GPUs (GRES)"},
    {"Cpu", "CPUs"},
    {"CPU", "CPUs"},
    {"Memory", "memory"},
    {"Mem", "memory"},
    {"Node", "nodes"},
    {"Billing", "billing units"},
    {"License", "licenses"},
    {"Energy", "energy"},
    {"BB", "burst buffer"},
    {"Unknown", "a resource"},
    {"Time", "run time"},
}};

bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// The resource named first in the code ("MaxGRESPerJob": GRES, not Job); at one place, the
// longer name (listed first).
std::string resource_of(std::string_view code) {
  std::size_t best = std::string_view::npos;
  std::string_view words = "resources";
  for (const auto& [name, text] : kResources) {
    const std::size_t at = code.find(name);
    if (at < best) {
      best = at;
      words = text;
    }
  }
  if (best == std::string_view::npos || (!has(code, "Minutes") && !has(code, "RunMins"))) return std::string(words);
  std::string unit(words.substr(0, words.find(' ')));  // "GPUs (GRES)" -> "GPUs"
  if (unit.ends_with('s')) unit.pop_back();
  return unit + (has(code, "RunMin") ? "-minutes of running jobs" : "-minutes");
}

// Assoc…, Association…, QOS…, Max…PerAccount, Max…PerUser: a limit of the account or the QoS.
std::optional<PendingExplanation> limit_of(std::string_view code) {
  std::string_view rest = code;
  std::string owner;
  if (rest.starts_with("Association")) {
    owner = "its account";
    rest.remove_prefix(11);
  } else if (rest.starts_with("Assoc")) {
    owner = "its account";
    rest.remove_prefix(5);
  } else if (rest.starts_with("QOS")) {
    owner = "its QoS";
    rest.remove_prefix(3);
  } else if (rest.starts_with("Max") && (rest.ends_with("PerAccount") || rest.ends_with("PerUser"))) {
    owner = "its QoS";
  } else {
    return std::nullopt;
  }
  const std::string what = resource_of(rest);
  const std::string raise = "ask the site to raise the limit";
  if (rest.starts_with("Grp") || rest.starts_with("Job") || rest.starts_with("Resource") ||
      rest.starts_with("UsageThreshold")) {
    return PendingExplanation{owner + "'s limit on " + what +
                                  " is reached, shared by all its jobs; it starts when "
                                  "some of them end",
                              raise, false};
  }
  if (rest.starts_with("Min")) {
    return PendingExplanation{"it asks for fewer " + what + " than " + owner + " requires",
                              "ask for more, or use another spec.slurm.qos", false};
  }
  for (std::string_view per : {"PerJob", "PerNode", "TimeLimit"}) {
    if (has(rest, per)) {
      return PendingExplanation{"it asks for more " + what + " than " + owner + " allows for one job",
                                "ask for less, or " + raise, false};
    }
  }
  const std::string whose = has(rest, "PerAccount") ? "the account" : "the user";
  return PendingExplanation{
      owner + "'s limit on " + what + " for " + whose + " is reached; it starts when other jobs of " + whose + " end",
      raise, false};
}

}  // namespace

PendingExplanation explain_pending(std::string_view reason) {
  for (const auto& known : kKnown) {
    if (known.code == reason) return known.explanation;
  }
  if (auto limit = limit_of(reason)) return *limit;
  if (has(reason, "launch failed requeued held")) {
    return {"Slurm could not launch it and holds it", "", true};
  }
  if (reason.empty()) return {"Slurm has given no reason yet", "", false};
  return {"Slurm's reason: " + std::string(reason), "", false};
}

bool pending_forever(std::string_view reason) { return explain_pending(reason).never_clears; }

bool estimate_moved(const std::optional<TimePoint>& before, const std::optional<TimePoint>& after, TimePoint now) {
  if (!before || !after) return before.has_value() != after.has_value();
  const auto moved = *after > *before ? *after - *before : *before - *after;
  const auto left = *before > now ? *before - now : TimePoint::duration::zero();
  return moved >= std::max<TimePoint::duration>(kLeastEstimateMove, left / 4);
}

}  // namespace tpslurm::model
