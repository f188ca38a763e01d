// Scale: 100,000 jobs in the simulator, polled the ways a client polls.
//
// Prints what each call costs (wall time per call on this machine, bytes per call, the
// simulator's resident memory) and asserts only what the answers contain: timings vary
// with the machine, so they are reported, never asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

TEST(Scale, HundredThousandJobsStayFastToPollInBulk) {
  constexpr int kJobs = 100'000;
  constexpr int kBatch = 500;
  SimOptions options = test_options();
  options.no_auth = true;
  SimInstance sim(options);
  HttpClient client;
  const long rss_before = rss_kib();

  auto t0 = Clock::now();
  json::value made = control(sim, "POST", "/sim/jobs/bulk", "{\"count\": " + std::to_string(kJobs) + "}");
  const double bulk_ms = ms_since(t0);
  ASSERT_EQ(made.at("last_job_id").to_number<int>(), kJobs);
  control(sim, "POST", "/sim/jobs/advance", R"({"count": 40000, "from": "PENDING", "to": "RUNNING"})");
  const long rss_after = rss_kib();

  // jobs/state with 500 repeated job_id parameters: 200 calls cover every job.
  std::uint64_t state_bytes = 0;
  std::size_t entries = 0;
  t0 = Clock::now();
  for (int first = 1; first <= kJobs; first += kBatch) {
    std::string url = "/slurm/v0.0.45/jobs/state?";
    for (int id = first; id < first + kBatch; ++id) url += (id == first ? "job_id=" : "&job_id=") + std::to_string(id);
    HttpResult r = client.request("GET", sim.url(url));
    ASSERT_EQ(r.status, 200);
    state_bytes += r.body.size();
    entries += r.json().at("jobs").as_array().size();
  }
  const double state_ms = ms_since(t0);
  EXPECT_EQ(entries, static_cast<std::size_t>(kJobs));

  // update_time polls when nothing changed.
  const std::int64_t last = control(sim, "GET", "/sim/stats").at("last_job_update").to_number<std::int64_t>();
  t0 = Clock::now();
  constexpr int kPolls = 200;
  for (int i = 0; i < kPolls; ++i) {
    HttpResult r = client.request("GET", sim.url("/slurm/v0.0.45/jobs?update_time=" + std::to_string(last + 1)));
    ASSERT_EQ(r.status, 200);
    ASSERT_TRUE(r.json().at("jobs").as_array().empty());
  }
  const double update_ms = ms_since(t0);

  // One full record by id.
  t0 = Clock::now();
  std::uint64_t job_bytes = 0;
  for (int i = 0; i < kPolls; ++i) {
    HttpResult r = client.request("GET", sim.url("/slurm/v0.0.45/job/" + std::to_string(1 + i * 499)));
    ASSERT_EQ(r.status, 200);
    job_bytes += r.body.size();
  }
  const double get_ms = ms_since(t0);

  std::printf("\n[scale] %d jobs: bulk create %.0f ms, simulator memory +%ld MiB\n", kJobs, bulk_ms,
              (rss_after - rss_before) / 1024);
  std::printf("[scale] jobs/state x%d ids: %.2f ms/call, %.1f kB/call (%d calls)\n", kBatch,
              state_ms / (kJobs / kBatch), static_cast<double>(state_bytes) / (kJobs / kBatch) / 1000.0, kJobs / kBatch);
  std::printf("[scale] jobs?update_time unchanged: %.3f ms/call\n", update_ms / kPolls);
  std::printf("[scale] job/{id}: %.3f ms/call, %.1f kB/call\n", get_ms / kPolls,
              static_cast<double>(job_bytes) / kPolls / 1000.0);
}

TEST(Scale, FullJobListCostsWhatTheRealOneCosts) {
  constexpr int kJobs = 10'000;
  SimOptions options = test_options(Release::r26_05_3);
  options.no_auth = true;
  SimInstance sim(options);
  control(sim, "POST", "/sim/jobs/bulk", "{\"count\": " + std::to_string(kJobs) + "}");
  HttpClient client;
  for (const char* version : {"v0.0.45", "v0.0.43"}) {
    auto t0 = Clock::now();
    HttpResult r = client.request("GET", sim.url(std::string("/slurm/") + version + "/jobs"));
    const double ms = ms_since(t0);
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.json().at("jobs").as_array().size(), static_cast<std::size_t>(kJobs));
    std::printf("[scale] GET %s/jobs with %d jobs: %.0f ms, %.1f MB (%.1f kB per job)\n", version, kJobs, ms,
                static_cast<double>(r.body.size()) / 1e6, static_cast<double>(r.body.size()) / kJobs / 1000.0);
  }
}

}  // namespace
}  // namespace tpslurm::sim::test
