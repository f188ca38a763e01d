#include "reconcile/controller.h"

#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <set>
#include <stop_token>

#include "base/file_system.h"
#include "config/logging.h"
#include "reconcile/elapsed_board.h"
#include "reconcile/intake_priority.h"
#include "reconcile/journal_writer.h"
#include "reconcile/pass.h"
#include "reconcile/preflight_gate.h"
#include "reconcile/retention.h"
#include "reconcile/retry_board.h"
#include "reconcile/search_board.h"
#include "reconcile/search_round.h"
#include "reconcile/slice_board.h"
#include "reconcile/status_board.h"
#include "reconcile/status_round.h"
#include "reconcile/stop_condition.h"
#include "reconcile/sweep.h"
#include "reconcile/work_queue.h"
#include "storage/artifact_hash.h"
#include "storage/storage_root.h"

namespace tpslurm::reconcile {
namespace {

constexpr std::chrono::milliseconds kTick{200};
// How long the first journal write of a group waits for the passes' others (journal_writer.h).
constexpr std::chrono::microseconds kGather{1000};
constexpr int kMaxOnceCycles = 200;
// An attempt the ElapsedBoard was not asked about for this long has left the state it measured.
constexpr std::chrono::hours kElapsedIdle{24};
// Sliced work no pass took up again for this long belongs to an attempt an operator moved on.
constexpr std::chrono::hours kSlicedIdle{1};

using config::LogLevel;
using Steady = std::chrono::steady_clock;

}  // namespace

struct Controller::Impl {
  explicit Impl(ControllerParts p)
      : parts(std::move(p)),
        pool(static_cast<std::size_t>(std::max(1, parts.threads))),
        writer(parts.journal, io.get_executor(), parts.metrics, kGather),
        gate(parts.slurm, parts.clock),
        hasher(parts.journal.hash_cache()),
        elapsed(parts.clock),
        retries(parts.clock),
        slices(parts.clock),
        services{writer,         parts.slurm,    parts.settings, parts.catalogs, parts.clock, hasher,
                 parts.hmac_key, board,          statuses,       elapsed,        gate,        retries,
                 slices,         parts.observer, parts.metrics,  parts.budget,   &intake,     stop.get_token()},
        retention(services) {}

  ControllerParts parts;
  boost::asio::io_context io;
  boost::asio::thread_pool pool;
  JournalWriter writer;
  SearchBoard board;
  StatusBoard statuses;
  StatusRoundState status_state;
  PreflightGate gate;
  storage::ArtifactHasher hasher;
  ElapsedBoard elapsed;
  RetryBoard retries;
  SliceBoard slices;
  IntakePriority intake;
  std::stop_source stop;  // requested with the first SIGTERM: slices of long work end early
  Services services;
  Retention retention;

  StopCondition journal_condition{"the journal cannot be written"};
  StopCondition storage_condition{"the storage root cannot be written"};
  PassGates gates;
  std::atomic<bool> storage_unwritable{false};  // gates.storage_unwritable, for the pool's storage probe
  // The jobs commit_from_outside() has committed and the loop has not woken yet; a wake for
  // them is posted to the loop when the first one comes.
  std::mutex outside_mutex;
  std::vector<std::string> outside_woken;
  int round = 0;
  CycleReport report;
  std::atomic<std::int64_t> passes_run{0};

  // Daemon state, touched on the event loop's thread only.
  WorkQueue queue;
  std::set<std::string> waiting_for_search;
  std::set<std::string> waiting_for_intake;
  boost::asio::steady_timer intake_timer{io};
  bool intake_timer_armed = false;
  bool round_in_flight = false;
  bool retention_in_flight = false;
  bool stopping = false;
  std::int64_t data_version = -1;
  std::chrono::steady_clock::time_point next_cycle{};

  void read_controls() {
    journal::Journal& j = parts.journal;
    auto paused = j.control("paused");
    auto safe = j.control("safe_mode");
    gates.paused = paused.ok() && paused->has_value();
    gates.safe_mode = safe.ok() && safe->has_value();
    note_storage();
  }

  // Jobs that may need a pass: not final, or an ended attempt whose cleanup is still open.
  std::vector<std::string> live_jobs() {
    auto jobs = parts.journal.live_job_ids();
    if (!jobs.ok()) {
      if (journal::is_unwritable(jobs.error())) journal_condition.fail(jobs.error(), Steady::now(), Steady::now());
      return {};
    }
    return std::move(*jobs);
  }

  void begin_cycle() {
    ++round;
    ++report.cycles;
    if (parts.budget != nullptr) parts.budget->begin_cycle();
    gate.new_cycle();
    elapsed.forget_idle(kElapsedIdle);
    slices.forget_idle(kSlicedIdle);
    read_controls();
  }

  // On a pool thread (or inline in once mode): the storage probe, the status poll, the
  // search; returns the jobs the poll has news for. The sweep comes after, on the same listing.
  std::vector<std::string> background_round(int this_round, CycleListing& listing) {
    probe_storage();
    StatusRoundReport polled = run_status_round(services, status_state, listing);
    if (parts.metrics != nullptr) parts.metrics->set_poll_lag(polled.worst_lag);
    run_search_round(services, gates.safe_mode, this_round);
    return polled.wake;
  }

  bool sweeps(int this_round) const {
    return parts.sweep_every > 0 && this_round % parts.sweep_every == 1 % parts.sweep_every;
  }
  CycleListing::Swept swept(int this_round) const {
    return sweeps(this_round) ? CycleListing::Swept::yes : CycleListing::Swept::no;
  }

  // The sweep, and which directories retention removes next; the removals themselves are not
  // part of the round (maybe_retain).
  void maybe_sweep(int this_round, CycleListing& listing) {
    if (sweeps(this_round)) {
      run_sweep(services, listing);
      retention.find_due();
    }
  }

  void probe_storage() {
    if (!storage_unwritable.load() || parts.settings.storage_root.empty()) return;
    const Steady::time_point since = Steady::now();
    if (storage::probe_storage_root(parts.settings.storage_root).ok()) {
      boost::asio::post(io, [this, since] {
        storage_condition.succeed(since, Steady::now());
        note_storage();
      });
    }
  }

  // The result of a pass that began at `since`.
  void apply(const PassResult& result, Steady::time_point since) {
    ++report.passes;
    ++passes_run;
    if (result.progressed) ++report.progressed;
    const Steady::time_point now = Steady::now();
    if (result.journal_condition) {
      journal_condition.fail(*result.journal_condition, since, now);
    } else if (result.progressed) {
      journal_condition.succeed(since, now);
    }
    if (result.storage_condition) storage_condition.fail(*result.storage_condition, since, now);
    note_storage();
  }

  void note_storage() {
    gates.storage_unwritable = storage_condition.active();
    storage_unwritable = gates.storage_unwritable;
  }

  // --- daemon mode ---

  void tick(boost::asio::steady_timer& timer) {
    const auto now = std::chrono::steady_clock::now();
    if (stopping) {
      if (queue.running() == 0 && !round_in_flight && !retention_in_flight) {
        io.stop();
        return;
      }
    } else {
      notice_changes();
      if (parts.metrics != nullptr && parts.budget != nullptr) parts.metrics->set_request_rate(parts.budget->rate());
      if (now >= next_cycle) start_cycle(now);
      dispatch(now);
      maybe_retain();
    }
    timer.expires_after(kTick);
    timer.async_wait([this, &timer](const boost::system::error_code& error) {
      if (!error) tick(timer);
    });
  }

  void notice_changes() {
    auto version = parts.journal.data_version();
    if (!version.ok() || *version == data_version) return;
    data_version = *version;
    read_controls();
    for (const auto& id : live_jobs()) queue.wake(id);
  }

  void start_cycle(std::chrono::steady_clock::time_point now) {
    next_cycle = now + parts.settings.poll_interval;
    begin_cycle();
    for (const auto& id : live_jobs()) queue.wake(id);
    if (round_in_flight) return;
    round_in_flight = true;
    boost::asio::post(pool, [this, r = round] {
      CycleListing listing(parts.slurm, swept(r));
      std::vector<std::string> news = background_round(r, listing);
      boost::asio::post(io, [this, news = std::move(news)] {
        // Jobs with news from the poll, and blocked attempts, read what just ran.
        for (const auto& id : news) queue.wake(id);
        for (const auto& id : waiting_for_search) queue.wake(id);
        waiting_for_search.clear();
        dispatch(std::chrono::steady_clock::now());
      });
      // After the news is handed out, so that the sweep never delays a pass.
      maybe_sweep(r, listing);
      boost::asio::post(io, [this] { round_in_flight = false; });
    });
  }

  // One slice of retention's removals on the pool, when one is due and none is running: at most
  // one pool thread, for one slice, each tick.
  void maybe_retain() {
    if (retention_in_flight || !retention.pending()) return;
    retention_in_flight = true;
    boost::asio::post(pool, [this] {
      retention.work(stop.get_token());
      boost::asio::post(io, [this] { retention_in_flight = false; });
    });
  }

  // Wakes the jobs whose new attempt waits for the API's intake once it has gone quiet.
  void watch_intake() {
    if (intake_timer_armed) return;
    const auto left = intake.holding_for(parts.clock.steady());
    if (!left) {
      for (const auto& id : waiting_for_intake) queue.wake(id);
      waiting_for_intake.clear();
      dispatch(Steady::now());
      return;
    }
    intake_timer_armed = true;
    intake_timer.expires_after(*left);
    intake_timer.async_wait([this](const boost::system::error_code& error) {
      intake_timer_armed = false;
      if (!error && !stopping) watch_intake();
    });
  }

  // Hands passes to the pool, one per pool thread at most, oldest woken first; called on each
  // tick and whenever a pass finishes.
  void dispatch(std::chrono::steady_clock::time_point now) {
    if (stopping) return;
    const std::size_t limit = static_cast<std::size_t>(std::max(1, parts.threads));
    while (queue.running() < limit) {
      std::optional<std::string> next = queue.next(now);
      if (!next) return;
      const PassGates snapshot = gates;
      boost::asio::post(pool, [this, id = *next, snapshot] {
        const Steady::time_point began = Steady::now();
        PassResult result = run_pass(services, id, snapshot);
        boost::asio::post(io, [this, id, result, began] {
          queue.done(id);
          apply(result, began);
          const auto at = std::chrono::steady_clock::now();
          if (result.look_again) queue.wake_at(id, at + *result.look_again);
          if (result.wants_search) waiting_for_search.insert(id);
          if (result.waits_for_intake) {
            waiting_for_intake.insert(id);
            watch_intake();
          }
          dispatch(at);
        });
      });
    }
  }
};

Controller::Controller(ControllerParts parts) : m_impl(std::make_unique<Impl>(std::move(parts))) {}
Controller::~Controller() {
  m_impl->pool.join();
  m_impl->writer.close();
}

int Controller::run(const std::function<void()>& serving) {
  Impl& s = *m_impl;
  s.writer.set_writer_thread(std::this_thread::get_id());
  boost::asio::signal_set signals(s.io, SIGINT, SIGTERM);
  std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& error,
                                                                             int number) {
    if (error) return;
    if (s.stopping) {
      config::log(LogLevel::warn, config::LogFields{}, "second signal: exiting now");
      std::_Exit(1);
    }
    config::log(LogLevel::info, {},
                "signal " + std::to_string(number) + ": finishing the passes in flight, then exiting");
    s.stopping = true;
    s.stop.request_stop();
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);
  boost::asio::steady_timer timer(s.io);
  s.tick(timer);
  config::log(LogLevel::info, config::LogFields{},
              "serving: poll interval " + std::to_string(s.parts.settings.poll_interval.count()) + " s");
  if (serving) serving();
  s.io.run();
  s.pool.join();
  s.writer.close();  // the API's submissions may still come, until its queue stops
  config::log(LogLevel::info, config::LogFields{}, "stopped");
  return 0;
}

void Controller::request_stop() {
  m_impl->stop.request_stop();
  boost::asio::post(m_impl->io, [this] { m_impl->stopping = true; });
}

Status Controller::commit_from_outside(const std::function<Status(journal::Journal&)>& change,
                                       std::vector<std::string> woken) {
  Impl& s = *m_impl;
  Status done = s.writer.write(change, JournalWriter::Urgency::now);
  // Once the loop has stopped, nothing would wake them: the next start passes every live job.
  if (!done.ok() || woken.empty() || s.io.stopped()) return done;
  s.intake.noted(s.parts.clock.steady());
  bool post = false;
  {
    std::lock_guard lock(s.outside_mutex);
    post = s.outside_woken.empty();
    s.outside_woken.insert(s.outside_woken.end(), std::make_move_iterator(woken.begin()),
                           std::make_move_iterator(woken.end()));
  }
  if (post) {
    boost::asio::post(s.io, [&s] {
      std::vector<std::string> ids;
      {
        std::lock_guard lock(s.outside_mutex);
        ids.swap(s.outside_woken);
      }
      if (s.stopping) return;
      for (const auto& id : ids) s.queue.wake(id);
      s.dispatch(Steady::now());
    });
  }
  return done;
}

std::int64_t Controller::passes() const { return m_impl->passes_run; }

Controller::JournalCounts Controller::journal_counts() const {
  return {m_impl->writer.writes(), m_impl->writer.commits()};
}

CycleReport Controller::run_once() {
  Impl& s = *m_impl;
  s.writer.set_writer_thread(std::this_thread::get_id());
  s.report = {};
  for (int i = 0; i < kMaxOnceCycles; ++i) {
    s.begin_cycle();
    CycleListing listing(s.parts.slurm, s.swept(s.round));
    (void)s.background_round(s.round, listing);
    s.io.poll();  // what the probe posted (a cleared condition)
    s.io.restart();
    const int before = s.report.progressed;
    bool sliced = false;
    for (const auto& id : s.live_jobs()) {
      const Steady::time_point began = Steady::now();
      const PassResult result = run_pass(s.services, id, s.gates);
      sliced = sliced || result.sliced;
      s.apply(result, began);
    }
    // After the passes, so that a sick listing's back-off never delays this cycle's submits.
    s.maybe_sweep(s.round, listing);
    while (s.retention.work()) {
    }
    if (s.report.progressed == before && !sliced) break;
  }
  return s.report;
}

}  // namespace tpslurm::reconcile
