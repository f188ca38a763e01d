// Services: what every reconciler step is given — the journal (reads anywhere, writes through
// the JournalWriter), Slurm, the settings and catalogs, the clock, the artifact hasher, the
// local HMAC key, the cycle's search and status results, how long attempts have been blocked
// or pending, the pre-flight gate, the steps' spaced retries, the long work on attempts'
// files done a slice at a time, and the metrics and the request budget and the API's intake
// priority, if any, and the daemon's stop request. Owned by the controller (or a test); steps
// only borrow it. Every member is safe to use from the pass threads.
#pragma once

#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "journal/journal.h"
#include "metrics/metrics.h"
#include "model/catalogs.h"
#include "model/settings.h"
#include "slurm/request_budget.h"
#include "slurm/slurm_client.h"
#include "storage/artifact_hash.h"

namespace tpslurm::reconcile {

class JournalWriter;
class ElapsedBoard;
class SearchBoard;
class StatusBoard;
class PreflightGate;
class RetryBoard;
class SliceBoard;
class IntakePriority;

using model::Catalogs;

// Told after each journaled step of an attempt ("prepared->submitting", "identified",
// "released", ...), on the thread that made it; for benchmarks and metrics. May be empty.
using StepObserver = std::function<void(const journal::AttemptKey& attempt, std::string_view step)>;

struct Services {
  JournalWriter& journal;
  slurm::SlurmClient& slurm;
  const model::Settings& settings;
  const Catalogs& catalogs;
  const Clock& clock;
  storage::ArtifactHasher& hasher;
  std::string hmac_key;  // the local key the job credentials' HMACs are taken under
  SearchBoard& searches;
  StatusBoard& statuses;
  ElapsedBoard& elapsed;
  PreflightGate& preflight;
  RetryBoard& retries;
  SliceBoard& slices;
  StepObserver observer;
  metrics::Metrics* metrics = nullptr;     // where steps record (submit outcomes); none: nothing recorded
  slurm::RequestBudget* budget = nullptr;  // the client's request budget; none: no limit
  const IntakePriority* intake = nullptr;  // the API's intake before new attempts; none: no hold
  // Requested on SIGTERM: a slice of long work (storage/work_slice.h) ends at its next read.
  std::stop_token stop;
};

}  // namespace tpslurm::reconcile
