// poll_bench: what one status poll cycle costs with bulk polling, next to the naive
// one-GET-per-job approach measured in the same run, against tools/slurmrestd-sim holding
// 1,000, 10,000 and 100,000 live jobs.
//
//   poll_bench [--sim PATH] [--sizes 1000,10000,100000] [--changed K] [--cycles C]
//              [--naive-cap N] [--naive-seconds S]
//
// A bulk cycle is what the controller does (docs/architecture.md §5): SlurmClient::bulk_state for
// every followed job id (jobs/state, 500 ids per call), then GET job/{id} for the jobs whose
// state changed. Before each cycle the simulator moves K jobs from PENDING to RUNNING, so K
// jobs change per cycle. Goal: calls per cycle <= ceil(N/500) + K.
//
// Per cycle it prints REST calls, bytes (request target+body sent, response bodies received,
// counted by the client), the client's CPU time (this process, JSON decoding included), the
// simulator's CPU time (standing in for slurmrestd's; /proc, 10 ms ticks) and wall time. The
// naive cycle GETs every job one by one; when that would take minutes (more than
// --naive-seconds, default 60, or more than --naive-cap jobs if given) it is measured on the
// jobs it reached and scaled to N, and the output says so. Prints numbers only; asserts nothing.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.h"
#include "slurm/curl_transport.h"
#include "slurm/rest_client.h"

namespace {

using namespace tpslurm;
using namespace tpslurm::slurm;
using namespace tpslurm::bench;

void print_row(long long n, const std::string& approach, const Cost& cost, const std::string& goal,
               const std::string& note) {
  std::printf("%8lld  %-22s %9.0f %8s %10s %11s %10.1f %10.1f %10.1f  %s\n", n, approach.c_str(), cost.calls,
              goal.c_str(), human_bytes(cost.bytes_sent).c_str(), human_bytes(cost.bytes_received).c_str(),
              cost.client_cpu_ms, cost.sim_cpu_ms, cost.wall_ms, note.c_str());
}

// Tops the simulator up to `n` live (pending) jobs and learns their states, as the controller
// knew them before the measured cycles.
void top_up(Simulator& sim, RestClient& client, long long n, std::vector<std::uint32_t>& ids,
            std::map<std::uint32_t, model::SlurmState>& known) {
  // Top the simulator up to n live (pending) jobs.
  while (static_cast<long long>(ids.size()) < n) {
    const long long add = std::min<long long>(n - static_cast<long long>(ids.size()), 100000);
    const std::string answer = sim.call(HttpMethod::post, "/sim/jobs/bulk",
                                        "{\"count\": " + std::to_string(add) + ", \"state\": \"PENDING\"}");
    const auto first = static_cast<std::uint32_t>(number_after(answer, "first_job_id"));
    const auto last = static_cast<std::uint32_t>(number_after(answer, "last_job_id"));
    for (std::uint32_t id = first; id <= last; ++id) ids.push_back(id);
  }
  // What the controller knew before the measured cycles.
  const BulkStateResult initial = client.bulk_state(ids);
  if (!initial.ok()) die("bulk_state: " + initial.message);
  for (const auto& entry : initial.states) known[entry.job_id] = entry.state;
}

// `cycles` bulk cycles, each after `changed` jobs started: the bulk poll and a GET of each job
// whose state changed. Prints the mean cycle's row.
void bulk_cycles(Simulator& sim, RestClient& client, CountingTransport& transport, long long n,
                 const std::vector<std::uint32_t>& ids, std::map<std::uint32_t, model::SlurmState>& known, int changed,
                 int cycles) {
  Cost total;
  double total_changed = 0;  // jobs GET after their state changed, over all cycles
  for (int cycle = 0; cycle < cycles; ++cycle) {
    sim.call(HttpMethod::post, "/sim/jobs/advance",
             "{\"count\": " + std::to_string(changed) + ", \"from\": \"PENDING\", \"to\": \"RUNNING\"}");
    Meter meter(transport, sim.pid);
    const BulkStateResult polled = client.bulk_state(ids);
    if (!polled.ok()) die("bulk_state: " + polled.message);
    int fetched = 0;
    for (const auto& entry : polled.states) {
      auto& before = known[entry.job_id];
      if (before == entry.state) continue;
      before = entry.state;
      const JobsResult full = client.get_job({entry.job_id, ""});
      if (!full.ok()) die("get_job: " + full.message);
      ++fetched;
    }
    Cost cost = meter.stop();
    total.calls += cost.calls;
    total.bytes_sent += cost.bytes_sent;
    total.bytes_received += cost.bytes_received;
    total.client_cpu_ms += cost.client_cpu_ms;
    total.sim_cpu_ms += cost.sim_cpu_ms;
    total.wall_ms += cost.wall_ms;
    total_changed += fetched;
  }
  Cost bulk = total;
  for (double* field :
       {&bulk.calls, &bulk.bytes_sent, &bulk.bytes_received, &bulk.client_cpu_ms, &bulk.sim_cpu_ms, &bulk.wall_ms}) {
    *field /= cycles;
  }
  const double bulk_changed = total_changed / cycles;
  const long long goal = (n + 499) / 500 + static_cast<long long>(std::lround(bulk_changed));
  print_row(n, "bulk + changed GETs", bulk, std::to_string(goal),
            std::string(bulk.calls <= static_cast<double>(goal) ? "within goal" : "OVER GOAL") + ", " +
                std::to_string(std::lround(bulk_changed)) + " changed");
}

// The naive cycle: one GET per job, stopped at `naive_cap` jobs or `naive_seconds` and scaled.
void naive_cycle(Simulator& sim, RestClient& client, CountingTransport& transport, long long n,
                 const std::vector<std::uint32_t>& ids, long long naive_cap, double naive_seconds) {
  // The naive cycle: one GET per job, capped when it would take minutes.
  const long long limit = naive_cap > 0 ? std::min<long long>(n, naive_cap) : n;
  Meter meter(transport, sim.pid);
  long long asked = 0;
  const auto deadline = Steady::now() + std::chrono::duration<double>(naive_seconds);
  for (; asked < limit && Steady::now() < deadline; ++asked) {
    const JobsResult one = client.get_job({ids[static_cast<std::size_t>(asked)], ""});
    if (!one.ok()) die("get_job: " + one.message);
  }
  Cost naive = meter.stop();
  std::string note = "measured on all jobs";
  if (asked < n) {
    const double scale = static_cast<double>(n) / static_cast<double>(asked);
    for (double* field : {&naive.calls, &naive.bytes_sent, &naive.bytes_received, &naive.client_cpu_ms,
                          &naive.sim_cpu_ms, &naive.wall_ms}) {
      *field *= scale;
    }
    char text[160];
    std::snprintf(text, sizeof text,
                  "CAPPED: measured on %lld of %lld jobs, scaled x%.1f (a full run would take ~%.0f s)", asked, n,
                  scale, naive.wall_ms / 1000);
    note = text;
  }
  print_row(n, "naive GET per job", naive, "-", note);
}

}  // namespace

int main(int argc, char** argv) {
  std::string sim_binary = default_simulator_path();
  std::string sizes_text = "1000,10000,100000";
  int changed = 10;
  int cycles = 5;
  long long naive_cap = 0;  // 0: no cap by count, only by time
  double naive_seconds = 60;
  CLI::App app{"poll_bench: a bulk status cycle against a full listing, at several job counts", "poll_bench"};
  app.add_option("--sim", sim_binary, "the slurmrestd-sim binary");
  app.add_option("--sizes", sizes_text, "job counts, comma-separated");
  app.add_option("--changed", changed, "jobs changed per cycle")->check(CLI::Range(0, 1 << 30));
  app.add_option("--cycles", cycles, "cycles per size")->check(CLI::Range(1, 1 << 30));
  app.add_option("--naive-cap", naive_cap, "most jobs the per-job baseline reads (0: only --naive-seconds)")
      ->check(CLI::Range(0LL, 1LL << 40));
  app.add_option("--naive-seconds", naive_seconds, "longest the per-job baseline may take")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  if (!std::filesystem::exists(sim_binary)) {
    die(sim_binary +
        " does not exist; build it (cmake --build <build dir> --target slurmrestd-sim) or pass --sim PATH");
  }
  const std::vector<long long> sizes = parse_sizes("--sizes", sizes_text);

  Simulator sim;
  start_simulator(sim, sim_binary, "26.05.3");
  CurlTransportOptions options;
  options.url = sim.url;
  options.total_timeout = std::chrono::minutes(5);
  auto curl = CurlTransport::create(options);
  if (!curl.ok()) die(curl.error().message());
  CountingTransport transport(**curl);
  AnyToken tokens;
  auto made = RestClient::create(transport, tokens, "v0.0.45");
  if (!made.ok()) die(made.error().message());
  RestClient& client = **made;

  std::printf(
      "poll_bench: slurmrestd-sim 26.05.3 (v0.0.45) on %s; %d changed jobs per cycle; bulk: mean of %d cycles\n",
      sim.url.c_str(), changed, cycles);
  std::printf("  bytes sent = request targets + bodies, received = response bodies (client side); CPU in ms\n");
  std::printf("  (client: this process; sim: the simulator standing in for slurmrestd, 10 ms ticks)\n");
  std::printf("  goal: calls per cycle <= ceil(N/500) + changed jobs\n\n");
  std::printf("%8s  %-22s %9s %8s %10s %11s %10s %10s %10s\n", "jobs", "approach", "calls", "goal", "sent", "received",
              "client CPU", "sim CPU", "wall ms");

  std::vector<std::uint32_t> ids;
  std::map<std::uint32_t, model::SlurmState> known;
  for (const long long n : sizes) {
    top_up(sim, client, n, ids, known);
    bulk_cycles(sim, client, transport, n, ids, known, changed, cycles);
    naive_cycle(sim, client, transport, n, ids, naive_cap, naive_seconds);
    const std::string stats = sim.call(HttpMethod::get, "/sim/stats");
    std::printf("%8s  %-22s simulator holds %lld jobs in slurmctld\n", "", "",
                number_after(stats, "jobs_in_controller"));
  }
  return 0;
}
