// reconcile_bench: what following N live attempts costs the reconciler (reconcile::Controller
// against tools/slurmrestd-sim, a real SQLite journal), each figure next to a baseline or goal
// from the same run, for N = 1,000 and 10,000 (half a minute on 2 shared cores) and 100,000
// when asked (--sizes 1000,10000,100000: about 2.5 minutes more, and 4 GB of memory).
//
//   reconcile_bench [--sim PATH] [--sizes 1000,10000] [--pending-percent P] [--changed-percent C]
//                   [--steady S] [--budget B] [--log LEVEL]
//
// The fixture, per size, on a fresh simulator (26.05.3, v0.0.45) and a fresh journal:
//   - two template jobs go the whole way through a Controller (prepare, held submit,
//     identify, release, pending; the second then running), so the journal's own API writes
//     their rows and events;
//   - N-2 more Slurm jobs are created through POST /sim/jobs/bulk (no REST) carrying the tags
//     their attempts will have (reconcile::attempt_tag: name, comment, working directory);
//     P% of all N are PENDING (default 10), the rest RUNNING;
//   - their journal rows are FIXTURE GENERATION, never the product's way: a bench-only bulk
//     writer copies a template's job, attempt and event rows in one SQLite transaction,
//     substituting the job id, submit token, Slurm job id, SLUID and the `components` column
//     (journal::components_json of the record slurmctld lists for that job, as identify and
//     the status poll write it). Columns the status poll and a live job's pass do not read
//     (hashes, times, the receipt, event details) are the template's.
// Then, per size:
//   a) baseline: journal.followed_attempts(), what the status poll reads (median of 3 warm);
//      and the restart baseline: Journal::open and that read on the new connection, which any
//      restart must at least do (median of 3);
//   b) restart to ready: what `serve` does before its first call to Slurm — the journal
//      reopened (Journal::open: the setup lock, the migration check), a new client and
//      Controller as `serve` builds them (its default pass threads, the sweep every 30 cycles, a request
//      budget), the live jobs and the followed attempts read (what the first cycle starts
//      from). Median of 3; time / the restart baseline, goal <= 2 (and / the warm read);
//   c) the first cycle after it: one run_once() on a cluster where nothing changed, which
//      pays what a first cycle pays once: the full listing (GET jobs) that the pending reasons
//      and the orphan sweep share (again every 30th cycle); one full listing alone, timed
//      while the fixture was built, is printed beside it. Memory: resident set
//      (/proc/self/statm) before the restart and after the first cycle, per tracked attempt
//      (goal <= 2 KiB); the peak during the cycle (VmHWM, reset through /proc/self/clear_refs),
//      and what stays after malloc_trim(0). Journal bytes per attempt: page_count * page_size
//      after a checkpoint, / N;
//   d) steady cycles: S more run_once() (default 3) with nothing changed; per cycle REST
//      calls (goal <= ceil(N/500)), bytes, CPU, wall time, journal commits (goal 0); beside
//      them, what the cycle's passes read (journal.job and journal.attempts of every live
//      job), timed alone;
//   e) changed: C% of N (default 1) PENDING jobs set RUNNING (/sim/jobs/advance), one more
//      run_once(), which runs the cycle that journals the changes and the quiet one after it:
//      calls (goal <= cycles * ceil(N/500) + K) and commits (goal K);
//   f) waits: C% of N (default 1) pending jobs get a new pending reason and an expected start
//      in Slurm, a minute passes, then one run_once(), whose poll reads the full listing: calls (goal
//      <= cycles * ceil(N/500) + 1: the listing, no call per job) and commits (goal K, one
//      attempt.pending event each).
// The status poll also journals when it last answered in full (last_status_poll, at most once
// a minute): the commit goals allow for it when it changed, and the output says so.
// Journal commits are SQLite's own count: the wal-index header's change counter (iChange, in
// <journal>-shm; SQLite's file format, "incremented with each transaction"), which moves once
// per committed write transaction of any connection and for nothing else: every commit the
// controller makes is counted, with or without an event. Before measuring, a check makes three
// commits through the journal's API and dies unless the counter says 3. Events appended are
// printed beside it.
// REST calls and bytes are counted by the client (bench_support's CountingTransport; bytes sent
// = request targets + bodies, received = response bodies); the calls per route come from the
// simulator's /sim/stats. CPU: this process (client, reconciler, SQLite) and the simulator
// (standing in for slurmrestd; /proc, 10 ms ticks).
// --budget: the request budget's calls per second (TUNEPLANE_SLURM_REQUEST_RATE); default: the
// daemon's default (TUNEPLANE_SLURM_REQUEST_RATE's), raised when a cycle's goal needs more, and the output says so
// (each cycle starts a new one-second window of the budget). Prints numbers only; asserts nothing.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "config/logging.h"
#include "reconcile/controller.h"
#include "reconcile/status_round.h"
#include "reconcile_bench_fixture.h"
#include "reconcile_bench_world.h"

namespace tpslurm::bench::reconcile_bench {
namespace {

using tpslurm::slurm::HttpMethod;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

std::string kib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f KiB", bytes / 1024);
  return text;
}

// The simulator's count of requests by route (/sim/stats).
std::map<std::string, long long> routes(Simulator& sim) {
  std::map<std::string, long long> out;
  boost::system::error_code error;
  const boost::json::value stats = boost::json::parse(sim.call(HttpMethod::get, "/sim/stats"), error);
  if (error || !stats.is_object()) die("/sim/stats: not JSON");
  const auto* by_route = stats.as_object().if_contains("requests_by_route");
  if (by_route == nullptr || !by_route->is_object()) return out;
  for (const auto& [route, count] : by_route->as_object()) {
    if (count.is_int64()) out[std::string(route)] = count.as_int64();
  }
  return out;
}

// "20 jobs/state, 2 jobs, 100 job/{id}": the Slurm calls between two /sim/stats answers.
std::string route_delta(const std::map<std::string, long long>& before, const std::map<std::string, long long>& after) {
  std::string out;
  for (const auto& [route, count] : after) {
    auto it = before.find(route);
    const long long delta = count - (it == before.end() ? 0 : it->second);
    if (delta <= 0 || route.find("/slurm") == std::string::npos) continue;
    std::string shown = route;
    const auto version = shown.find("/v0.0.");
    if (version != std::string::npos) shown = shown.substr(0, shown.find(' ') + 1) + shown.substr(version + 9);
    if (!out.empty()) out += ", ";
    out += std::to_string(delta) + " " + shown;
  }
  return out.empty() ? "none" : out;
}

// What one measured stretch (a run_once) cost.
struct Figures {
  Cost cost;
  reconcile::CycleReport report;
  long long commits = 0;
  long long events = 0;
  // Commits that may be the status poll's last_status_poll (at most once a cycle and once a
  // minute), when it changed; 0 when it did not.
  long long meta_writes = 0;
  std::string routes;
};

// Runs `body` and measures it: cost, commits, events, the routes the simulator served.
Figures measure(World& world, const std::function<reconcile::CycleReport()>& body) {
  const auto routes_before = routes(world.sim);
  const long long events_before = event_count(world.settings.journal_path);
  auto meta = world.journal->meta("last_status_poll");
  const std::string meta_before = meta.ok() ? meta->value_or("") : "";
  const long long commits_before = journal_commits(world.settings.journal_path);
  Figures f;
  {
    Meter meter(*world.transport, world.sim.pid);
    f.report = body();
    f.cost = meter.stop();
  }
  f.commits = journal_commits(world.settings.journal_path) - commits_before;
  f.events = event_count(world.settings.journal_path) - events_before;
  meta = world.journal->meta("last_status_poll");
  if ((meta.ok() ? meta->value_or("") : "") != meta_before) {
    f.meta_writes = std::min<long long>(f.report.cycles, static_cast<long long>(f.cost.wall_ms / 60000) + 1);
  }
  f.routes = route_delta(routes_before, routes(world.sim));
  return f;
}

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

void print_cost(const char* indent, const Figures& f) {
  std::printf("%ssent %s, received %s; CPU: client %.1f ms, sim %.1f ms; wall %.1f ms\n", indent,
              human_bytes(f.cost.bytes_sent).c_str(), human_bytes(f.cost.bytes_received).c_str(), f.cost.client_cpu_ms,
              f.cost.sim_cpu_ms, f.cost.wall_ms);
  std::printf("%sSlurm calls by route: %s\n", indent, f.routes.c_str());
}

std::string commits_text(const Figures& f) {
  std::string text = std::to_string(f.commits) + " (" + std::to_string(f.events) + " events";
  if (f.meta_writes > 0) {
    text += "; " + std::string(f.meta_writes == 1 ? "1 is" : "up to " + std::to_string(f.meta_writes) + " are") +
            " the once-a-minute last_status_poll";
  }
  return text + ")";
}

// Three commits through the journal's API; dies unless the counter saw exactly those.
void check_commit_counter(World& world) {
  const long long before = journal_commits(world.settings.journal_path);
  for (int i = 0; i < 3; ++i) {
    if (!world.journal->set_meta("reconcile_bench_check", std::to_string(i)).ok()) die("set_meta failed");
  }
  const long long counted = journal_commits(world.settings.journal_path) - before;
  if (counted != 3) die("the commit counter saw " + std::to_string(counted) + " of 3 commits; it cannot be trusted");
}

// One size's run: its world and fixture, the goals, and what each phase leaves for the next.
struct SizeRun {
  World& world;
  const Built& built;
  long long n = 0;
  long long bulk_calls = 0;                             // ceil(N/500): a quiet cycle's goal
  long long changed = 0;                                // the jobs e) sets RUNNING
  int budget = 0;                                       // the request budget's calls per second
  int budget_flag = 0;                                  // --budget, 0 when not given
  double baseline = 0;                                  // a) the warm read, ms
  double cold_baseline = 0;                             // a) the restart baseline, ms
  double resident_before = 0;                           // b) resident bytes before the restart
  std::unique_ptr<slurm::RestClient> client{};          // b) the restarted daemon's client
  std::unique_ptr<reconcile::Controller> controller{};  // b) and its Controller
};

// The size, the fixture and the request budget.
void print_size(const SizeRun& run) {
  const long long n = run.n;
  std::printf("\nN = %lld live attempts: %lld pending, %lld running (2 through the Controller, the rest generated)\n",
              n, run.built.pending, n - run.built.pending);
  std::printf("  fixture built in %.1f s; journal %s = %s per attempt (page_count * page_size after a checkpoint)\n",
              run.built.seconds, human_bytes(run.built.journal_bytes).c_str(),
              human_bytes(run.built.journal_bytes / static_cast<double>(n)).c_str());
  const std::string raised =
      " (raised from the daemon's default " + std::to_string(run.world.settings.request_rate) + ": a cycle needs more)";
  std::printf("  request budget %d calls per second%s\n", run.budget,
              run.budget_flag > 0                             ? " (--budget)"
              : run.budget == run.world.settings.request_rate ? " (the daemon's default)"
                                                              : raised.c_str());
}

// a) the baseline: journal.followed_attempts() warm (median of 3 after one that warms the
// cache), and the restart baseline: Journal::open and that read on the new connection.
void phase_a_baseline(SizeRun& run) {
  World& world = run.world;
  std::vector<double> reads;
  std::size_t followed = 0;
  for (int i = 0; i < 4; ++i) {
    const auto start = Steady::now();
    auto rows = world.journal->followed_attempts();
    const double ms = ms_between(start, Steady::now());
    if (!rows.ok()) die(rows.error().message());
    followed = rows->size();
    if (i > 0) reads.push_back(ms);  // the first one warms the cache
  }
  run.baseline = median(reads);
  std::printf("  a) baseline: journal.followed_attempts(), %zu rows: %.1f ms (median of 3 warm reads)\n", followed,
              run.baseline);
  // What any restart must at least do: open the journal and read the rows on that new connection.
  std::vector<double> cold_reads;
  for (int i = 0; i < 3; ++i) {
    world.journal.reset();
    const auto start = Steady::now();
    world.reopen_journal();
    if (!world.journal->followed_attempts().ok()) die("cannot read the followed attempts");
    cold_reads.push_back(ms_between(start, Steady::now()));
  }
  run.cold_baseline = median(cold_reads);
  std::printf(
      "     restart baseline: Journal::open + followed_attempts() on that new connection: %.1f ms (median of 3)\n",
      run.cold_baseline);
  std::printf("     one full listing of slurmctld (GET jobs, %lld records, %s), timed while building: %.1f ms\n", run.n,
              human_bytes(run.built.listing_bytes).c_str(), run.built.listing_ms);
}

// b) restart to ready: what `serve` does before its first call to Slurm (median of 3); leaves
// the restarted client and Controller in `run`.
void phase_b_restart(SizeRun& run) {
  World& world = run.world;
  malloc_trim(0);
  run.resident_before = resident_bytes();
  std::vector<double> readies;
  for (int i = 0; i < 3; ++i) {
    run.controller.reset();
    world.journal.reset();
    const auto start = Steady::now();
    world.reopen_journal();
    run.client = world.client(run.budget);
    run.controller = world.controller(*run.client);
    auto live = world.journal->live_job_ids();
    auto rows = world.journal->followed_attempts();
    if (!live.ok() || !rows.ok()) die("cannot read the live jobs");
    readies.push_back(ms_between(start, Steady::now()));
  }
  const double ready = median(readies);
  const double ratio = run.cold_baseline > 0 ? ready / run.cold_baseline : 0;
  std::printf(
      "  b) restart to ready (reopen the journal, a new client and Controller, read the live jobs and the\n"
      "     followed attempts: everything before the first call to Slurm): %.1f ms = %.1fx the restart baseline"
      "  goal <= 2x  %s\n",
      ready, ratio, verdict(ratio <= 2));
  std::printf("     (= %.1fx the warm read)\n", run.baseline > 0 ? ready / run.baseline : 0);
}

// c) the first cycle after the restart, and memory: resident before the restart and after the
// cycle, the peak during it, what stays after malloc_trim(0).
void phase_c_first_cycle(SizeRun& run) {
  const double n = static_cast<double>(run.n);
  const double before = run.resident_before;
  reset_peak();
  const Figures restart = measure(run.world, [&] { return run.controller->run_once(); });
  const double resident_after = resident_bytes();
  const double peak = peak_resident_bytes();
  malloc_trim(0);
  const double resident_trimmed = resident_bytes();
  std::printf("  c) the first cycle (run_once, nothing changed): %.1f ms = %.1fx baseline; %d cycle(s), %d passes\n",
              restart.cost.wall_ms, run.baseline > 0 ? restart.cost.wall_ms / run.baseline : 0, restart.report.cycles,
              restart.report.passes);
  std::printf("     %.0f REST calls; journal commits %s\n", restart.cost.calls, commits_text(restart).c_str());
  std::printf(
      "     it pays the full listing (GET jobs) that the pending reasons and the sweep share, once (again every\n"
      "     30th cycle); one such listing alone took %.1f ms above\n",
      run.built.listing_ms);
  print_cost("     ", restart);
  const double per_attempt = (resident_after - before) / n;
  std::printf(
      "     memory: resident %s before the restart, %s after the first cycle: +%s = %s per attempt"
      "  goal <= 2 KiB  %s\n",
      human_bytes(before).c_str(), human_bytes(resident_after).c_str(), human_bytes(resident_after - before).c_str(),
      kib(per_attempt).c_str(), verdict(per_attempt <= 2048));
  std::printf(
      "     peak during the cycle %s (+%s = %s per attempt: the listing); after malloc_trim(0) +%s = %s "
      "per attempt\n",
      human_bytes(peak).c_str(), human_bytes(peak - before).c_str(), kib((peak - before) / n).c_str(),
      human_bytes(resident_trimmed - before).c_str(), kib((resident_trimmed - before) / n).c_str());
  std::printf("     journal: %s per attempt\n", human_bytes(run.built.journal_bytes / n).c_str());
}

// The steady cycles together: per-cycle means of the cost, sums of the rest.
struct SteadySummary {
  Figures total;  // cost: the mean of a run_once; commits, events, meta_writes: the sum
  double calls_max = 0;
  int cycles = 0;
};

SteadySummary summarize(const std::vector<Figures>& steady, int steady_cycles) {
  SteadySummary s;
  Cost mean;
  for (const auto& f : steady) {
    mean.calls += f.cost.calls / steady_cycles;
    mean.bytes_sent += f.cost.bytes_sent / steady_cycles;
    mean.bytes_received += f.cost.bytes_received / steady_cycles;
    mean.client_cpu_ms += f.cost.client_cpu_ms / steady_cycles;
    mean.sim_cpu_ms += f.cost.sim_cpu_ms / steady_cycles;
    mean.wall_ms += f.cost.wall_ms / steady_cycles;
    s.calls_max = std::max(s.calls_max, f.cost.calls);
    s.total.commits += f.commits;
    s.total.events += f.events;
    s.cycles += f.report.cycles;
    s.total.meta_writes += f.meta_writes;
  }
  s.total.cost = mean;
  s.total.routes = steady.empty() ? "none" : steady.back().routes;
  return s;
}

// What every cycle's passes read, timed alone: each live job's row and its attempts; ms.
double time_pass_reads(World& world, long long n) {
  const auto reads_start = Steady::now();
  for (long long i = 0; i < n; ++i) {
    const std::string id = job_id_of(i);
    if (!world.journal->job(id).ok() || !world.journal->attempts(id).ok()) die("cannot read job " + id);
  }
  return ms_between(reads_start, Steady::now());
}

// d) steady cycles: `steady_cycles` run_once with nothing changed.
void phase_d_steady(SizeRun& run, int steady_cycles) {
  std::vector<Figures> steady;
  for (int i = 0; i < steady_cycles; ++i) {
    steady.push_back(measure(run.world, [&] { return run.controller->run_once(); }));
  }
  const SteadySummary s = summarize(steady, steady_cycles);
  const Cost& mean = s.total.cost;
  std::printf(
      "  d) steady cycle, nothing changed (mean of %d run_once, %d cycles): %.1f REST calls (max %.0f)"
      "  goal <= %lld  %s\n",
      steady_cycles, s.cycles, mean.calls, s.calls_max, run.bulk_calls,
      verdict(s.calls_max <= static_cast<double>(run.bulk_calls)));
  std::printf("     journal commits over the %d: %s  goal 0 for unchanged jobs  %s\n", steady_cycles,
              commits_text(s.total).c_str(), verdict(s.total.commits <= s.total.meta_writes));
  std::printf("     wall %.1f ms = %.1fx baseline; %d passes a cycle\n", mean.wall_ms,
              run.baseline > 0 ? mean.wall_ms / run.baseline : 0, steady.empty() ? 0 : steady.back().report.passes);
  print_cost("     ", s.total);
  const double pass_reads_ms = time_pass_reads(run.world, run.n);
  std::printf(
      "     each cycle gives every live job a pass; their %lld journal.job() + journal.attempts() alone: "
      "%.1f ms = %.1fx baseline\n",
      run.n, pass_reads_ms, run.baseline > 0 ? pass_reads_ms / run.baseline : 0);
}

// e) K jobs change: PENDING -> RUNNING, then one run_once.
void phase_e_changed(SizeRun& run) {
  const long long changed = run.changed;
  run.world.sim.call(HttpMethod::post, "/sim/jobs/advance",
                     R"({"count": )" + std::to_string(changed) + R"(, "from": "PENDING", "to": "RUNNING"})");
  const Figures moved = measure(run.world, [&] { return run.controller->run_once(); });
  const long long goal = moved.report.cycles * run.bulk_calls + changed;
  const long long commit_goal = changed + moved.meta_writes;
  std::printf(
      "  e) %lld jobs PENDING -> RUNNING, one run_once (%d cycles: the changes, then a quiet one): %.0f REST "
      "calls  goal <= %d x %lld + %lld = %lld  %s\n",
      changed, moved.report.cycles, moved.cost.calls, moved.report.cycles, run.bulk_calls, changed, goal,
      verdict(moved.cost.calls <= static_cast<double>(goal)));
  std::printf("     journal commits %s  goal %lld  %s\n", commits_text(moved).c_str(), commit_goal,
              verdict(moved.commits <= commit_goal));
  print_cost("     ", moved);
}

// f) K pending jobs' waits change in Slurm (a new reason and an expected start), a minute
// passes (reconcile::kExplainedEvery: every pending job's reason is due again; more are due
// than a poll reads alone, so the poll reads the full listing), then one run_once (the
// changes, then a quiet cycle): what the waits cost beyond quiet cycles.
void phase_f_waits(SizeRun& run) {
  auto pending = run.world.journal->attempts_in(model::AttemptState::pending);
  if (!pending.ok()) die("f) the pending attempts: " + pending.error().message());
  const long long waits = std::min<long long>(run.changed, static_cast<long long>(pending->size()));
  const std::int64_t in_two_hours = unix_seconds(std::chrono::system_clock::now() + std::chrono::hours(2));
  for (long long i = 0; i < waits; ++i) {
    run.world.sim.call(HttpMethod::post, "/sim/jobs/" + std::to_string(*(*pending)[i].slurm_job_id) + "/state",
                       R"({"reason": "Resources", "expected_start": )" + std::to_string(in_two_hours) + "}");
  }
  run.world.pass(reconcile::kExplainedEvery);
  const Figures f = measure(run.world, [&] { return run.controller->run_once(); });
  const long long goal = f.report.cycles * run.bulk_calls + 1;
  std::printf(
      "  f) %lld pending jobs' waits change (reason Resources, an expected start), a minute passes, one run_once "
      "(%d cycles, one full listing): %.0f REST calls  goal <= %d x %lld + 1 listing = %lld (no call per job)  %s\n",
      waits, f.report.cycles, f.cost.calls, f.report.cycles, run.bulk_calls, goal,
      verdict(f.cost.calls <= static_cast<double>(goal)));
  std::printf("     journal commits %s  goal %lld (one attempt.pending event each)  %s\n", commits_text(f).c_str(),
              waits + f.meta_writes, verdict(f.events == waits && f.commits <= waits + f.meta_writes));
  print_cost("     ", f);
}

void bench_size(const std::string& sim_binary, long long n, double pending_percent, double changed_percent,
                int steady_cycles, int budget_flag) {
  World world(sim_binary, n);
  const Built built = build_fixture(world, pending_percent);
  check_commit_counter(world);
  const long long bulk_calls = (n + 499) / 500;
  const long long changed =
      std::clamp<long long>(std::llround(static_cast<double>(n) * changed_percent / 100), 1, built.pending);
  const int needed = static_cast<int>(bulk_calls + changed + 10);
  const int budget = budget_flag > 0 ? budget_flag : std::max(world.settings.request_rate, needed);
  SizeRun run{.world = world,
              .built = built,
              .n = n,
              .bulk_calls = bulk_calls,
              .changed = changed,
              .budget = budget,
              .budget_flag = budget_flag};
  print_size(run);
  phase_a_baseline(run);
  phase_b_restart(run);
  phase_c_first_cycle(run);
  phase_d_steady(run, steady_cycles);
  phase_e_changed(run);
  phase_f_waits(run);
  std::fflush(stdout);
}

}  // namespace
}  // namespace tpslurm::bench::reconcile_bench

int main(int argc, char** argv) {
  using namespace tpslurm;
  using namespace tpslurm::bench;
  std::string sim_binary = default_simulator_path();
  std::string sizes_text = "1000,10000";
  double pending_percent = 10;
  double changed_percent = 1;
  int steady_cycles = 3;
  int budget = 0;
  std::string log_level = "error";
  CLI::App app{"reconcile_bench: the controller following N live attempts", "reconcile_bench"};
  app.add_option("--sim", sim_binary, "the slurmrestd-sim binary");
  app.add_option("--sizes", sizes_text, "attempt counts, comma-separated");
  app.add_option("--pending-percent", pending_percent, "share of the jobs pending")->check(CLI::Range(0.0, 100.0));
  app.add_option("--changed-percent", changed_percent, "share of the jobs changed per cycle")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--steady", steady_cycles, "steady cycles measured")->check(CLI::Range(1, 1 << 30));
  app.add_option("--budget", budget, "request budget, calls per second (0: the default)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--log", log_level, "the daemon's log level");
  CLI11_PARSE(app, argc, argv);
  if (!std::filesystem::exists(sim_binary)) {
    die(sim_binary +
        " does not exist; build it (cmake --build <build dir> --target slurmrestd-sim) or pass --sim PATH");
  }
  if (Status logging = config::configure_logging(log_level, model::LogFormat::text); !logging.ok()) {
    die("--log " + log_level + ": " + logging.error().message());
  }
  const std::vector<long long> sizes = parse_sizes("--sizes", sizes_text, 3);
  if (sizes.empty()) die("--sizes: give at least one size, e.g. 1000,10000");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a size takes minutes: show each figure when it is known

  std::printf("reconcile_bench: reconcile::Controller following N live attempts, slurmrestd-sim 26.05.3 (v0.0.45),\n");
  std::printf("  SQLite journal (WAL, synchronous=FULL); each size on a fresh simulator and journal\n");
  std::printf("  %.0f%% of the attempts pending, %.0f%% of N changed in e); CPU in ms (client: this process with the\n",
              pending_percent, changed_percent);
  std::printf("  reconciler and SQLite; sim: the simulator standing in for slurmrestd, 10 ms ticks)\n");
  std::printf("  journal commits: SQLite's wal-index change counter (every committed write transaction)\n");
  if (sizes.back() < 100000) {
    std::printf("  100,000 attempts is opt-in (--sizes 1000,10000,100000): about 2.5 minutes and 4 GB resident on\n");
    std::printf("  2 shared cores, most of it in building the fixture and the first cycle's full listing\n");
  }
  for (const long long n : sizes)
    reconcile_bench::bench_size(sim_binary, n, pending_percent, changed_percent, steady_cycles, budget);
  return 0;
}
