// Metrics: what a scraper reads back from render() after known calls — names, types, labels
// and values, parsed from the text (support/exposition.h), not compared with a hand-written copy.
#include "metrics/metrics.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/exposition.h"
#include "support/temp_dir.h"

namespace tpslurm::metrics {
namespace {

using tpslurm::testing::Exposition;
using tpslurm::testing::parse_exposition;

Exposition scrape(const Metrics& metrics, const ScrapeGauges& gauges = {}) {
  auto text = metrics.render(gauges);
  EXPECT_TRUE(text.ok());
  if (!text.ok()) return {};
  Exposition parsed = parse_exposition(*text);
  EXPECT_TRUE(parsed.bad_lines.empty()) << parsed.bad_lines.front();
  return parsed;
}

RestCall call(std::string_view endpoint, std::string_view method, std::size_t sent, std::size_t received,
              std::string_view error = {}, std::chrono::microseconds elapsed = std::chrono::milliseconds(20)) {
  return RestCall{endpoint, method, sent, received, error, elapsed};
}

TEST(MetricsTest, RestCallsAreCountedByEndpointAndMethodWithTheirBytesErrorsAndTimes) {
  ManualClock clock{from_unix_seconds(1'796'040'000)};
  Metrics metrics(clock);
  metrics.count_rest_call(call("job/submit", "POST", 900, 120));
  metrics.count_rest_call(call("job/submit", "POST", 900, 0, "uncertain", std::chrono::seconds(3)));
  metrics.count_rest_call(call("job/{id}", "GET", 0, 4000));
  metrics.count_rest_call(call("job/{id}", "DELETE", 0, 60, "http_5xx"));
  metrics.count_rest_call(call("ping", "GET", 0, 0, "not_sent", std::chrono::microseconds(300)));

  const Exposition e = scrape(metrics);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/submit"}, {"method", "POST"}}), 2);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/{id}"}, {"method", "GET"}}), 1);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/{id}"}, {"method", "DELETE"}}), 1);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_errors_total",
                    {{"endpoint", "job/submit"}, {"method", "POST"}, {"error", "uncertain"}}),
            1);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_errors_total",
                    {{"endpoint", "job/{id}"}, {"method", "DELETE"}, {"error", "http_5xx"}}),
            1);
  EXPECT_EQ(
      e.value("tuneplane_slurm_rest_errors_total", {{"endpoint", "ping"}, {"method", "GET"}, {"error", "not_sent"}}),
      1);
  EXPECT_EQ(e.all("tuneplane_slurm_rest_errors_total").size(), 3u) << "an answered call below 400 is no error";
  EXPECT_EQ(e.value("tuneplane_slurm_rest_sent_bytes_total", {{"endpoint", "job/submit"}}), 1800);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_received_bytes_total", {{"endpoint", "job/{id}"}}), 4060);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_call_duration_seconds_count", {{"endpoint", "job/submit"}}), 2);
  EXPECT_NEAR(*e.value("tuneplane_slurm_rest_call_duration_seconds_sum", {{"endpoint", "job/submit"}}), 3.02, 1e-9);
  // 20 ms falls in the 0.025 bucket, 3 s only from 5 on.
  EXPECT_EQ(e.value("tuneplane_slurm_rest_call_duration_seconds_bucket", {{"endpoint", "job/submit"}, {"le", "0.025"}}),
            1);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_call_duration_seconds_bucket", {{"endpoint", "job/submit"}, {"le", "5"}}), 2);
  EXPECT_EQ(e.types.at("tuneplane_slurm_rest_calls_total"), "counter");
  EXPECT_EQ(e.types.at("tuneplane_slurm_rest_call_duration_seconds"), "histogram");
}

TEST(MetricsTest, SubmitOutcomesPollLagAndJournalCommitsShowWhatWasRecorded) {
  ManualClock clock{from_unix_seconds(1'796'040'000)};
  Metrics metrics(clock);
  metrics.count_submit_outcome("ok");
  metrics.count_submit_outcome("ok");
  metrics.count_submit_outcome("uncertain");
  metrics.set_poll_lag(std::chrono::seconds(95));
  metrics.set_poll_lag(std::chrono::seconds(12));
  metrics.set_request_rate(200);
  metrics.set_request_rate(50);
  metrics.observe_journal_commit(std::chrono::microseconds(800));
  metrics.observe_journal_commit(std::chrono::milliseconds(40));

  const Exposition e = scrape(metrics);
  EXPECT_EQ(e.value("tuneplane_submit_outcomes_total", {{"class", "ok"}}), 2);
  EXPECT_EQ(e.value("tuneplane_submit_outcomes_total", {{"class", "uncertain"}}), 1);
  EXPECT_FALSE(e.value("tuneplane_submit_outcomes_total", {{"class", "rejected"}}));
  EXPECT_EQ(e.value("tuneplane_status_poll_lag_seconds"), 12) << "a gauge shows the last round";
  EXPECT_EQ(e.types.at("tuneplane_status_poll_lag_seconds"), "gauge");
  EXPECT_EQ(e.value("tuneplane_slurm_request_rate"), 50) << "the rate of now";
  EXPECT_EQ(e.types.at("tuneplane_slurm_request_rate"), "gauge");
  EXPECT_EQ(e.value("tuneplane_journal_commit_duration_seconds_count"), 2);
  EXPECT_NEAR(*e.value("tuneplane_journal_commit_duration_seconds_sum"), 0.0408, 1e-9);
  EXPECT_EQ(e.value("tuneplane_journal_commit_duration_seconds_bucket", {{"le", "0.001"}}), 1);
  EXPECT_EQ(e.value("tuneplane_journal_commit_duration_seconds_bucket", {{"le", "0.05"}}), 2);
  EXPECT_EQ(e.value("tuneplane_journal_commit_duration_seconds_bucket", {{"le", "+Inf"}}), 2);
}

TEST(MetricsTest, TheTokenExpiryIsAbsentUntilKnownAndAfterItIsForgotten) {
  ManualClock clock{from_unix_seconds(1'796'040'000)};
  Metrics metrics(clock);
  const char* name = "tuneplane_slurm_token_expiry_timestamp_seconds";
  EXPECT_FALSE(scrape(metrics).value(name));
  metrics.set_token_expiry(from_unix_seconds(1'900'000'123));
  EXPECT_EQ(scrape(metrics).value(name), 1'900'000'123);
  metrics.set_token_expiry(std::nullopt);
  EXPECT_TRUE(scrape(metrics).all(name).empty());
}

TEST(MetricsTest, TheSlurmServerIsShownOnceServeHasChosenItsVersion) {
  ManualClock clock{from_unix_seconds(1'796'040'000)};
  Metrics metrics(clock);
  const char* name = "tuneplane_slurm_server_info";
  EXPECT_TRUE(scrape(metrics).all(name).empty());
  metrics.set_slurm_server("24.11.7", "v0.0.42");
  EXPECT_EQ(scrape(metrics).value(name, {{"release", "24.11.7"}, {"rest_version", "v0.0.42"}}), 1);
}

TEST(MetricsTest, ScrapeGaugesAreRenderedWithTheirLabels) {
  ManualClock clock{from_unix_seconds(1'796'040'000)};
  Metrics metrics(clock);
  ScrapeGauges gauges;
  gauges.attempts_by_state = {{"running", 3}, {"submit_unknown", 2}, {"succeeded", 0}};
  gauges.cleanup_backlog = {{"epilog_pending", 1}, {"sealing", 0}};
  gauges.blocked_submissions = 2;
  gauges.oldest_blocked_intent = clock.now() - std::chrono::milliseconds(4'321'500);
  gauges.journal_bytes = 123456;

  const Exposition e = scrape(metrics, gauges);
  EXPECT_EQ(e.value("tuneplane_attempts", {{"state", "running"}}), 3);
  EXPECT_EQ(e.value("tuneplane_attempts", {{"state", "submit_unknown"}}), 2);
  EXPECT_EQ(e.value("tuneplane_attempts", {{"state", "succeeded"}}), 0);
  EXPECT_EQ(e.value("tuneplane_cleanup_backlog", {{"step", "epilog_pending"}}), 1);
  EXPECT_EQ(e.value("tuneplane_cleanup_backlog", {{"step", "sealing"}}), 0);
  EXPECT_EQ(e.value("tuneplane_blocked_submissions"), 2);
  EXPECT_EQ(e.value("tuneplane_oldest_blocked_submission_age_seconds"), 4321.5);
  EXPECT_EQ(e.value("tuneplane_journal_size_bytes"), 123456);
  clock.advance(std::chrono::seconds(10));
  EXPECT_EQ(scrape(metrics, gauges).value("tuneplane_oldest_blocked_submission_age_seconds"), 4331.5)
      << "the age is taken at the scrape";
  gauges.oldest_blocked_intent = clock.now() + std::chrono::seconds(5);
  EXPECT_EQ(scrape(metrics, gauges).value("tuneplane_oldest_blocked_submission_age_seconds"), 0)
      << "an intent stamped ahead of this clock is no negative age";

  gauges.blocked_submissions = 0;
  gauges.oldest_blocked_intent.reset();
  const Exposition none = scrape(metrics, gauges);
  EXPECT_EQ(none.value("tuneplane_blocked_submissions"), 0);
  EXPECT_TRUE(none.all("tuneplane_oldest_blocked_submission_age_seconds").empty()) << "no age without a blocked one";
}

TEST(MetricsTest, EveryFamilyIsNamedForTheProjectWithItsUnit) {
  ManualClock clock{from_unix_seconds(1'796'040'000)};
  Metrics metrics(clock);
  metrics.count_rest_call(call("jobs", "GET", 0, 10, "http_4xx"));
  metrics.count_submit_outcome("ok");
  metrics.set_token_expiry(from_unix_seconds(1'900'000'000));
  ScrapeGauges gauges;
  gauges.attempts_by_state = {{"running", 1}};
  gauges.oldest_blocked_intent = clock.now();
  const Exposition e = scrape(metrics, gauges);
  ASSERT_GE(e.types.size(), 13u);
  for (const auto& [name, type] : e.types) {
    EXPECT_EQ(name.rfind("tuneplane_", 0), 0u) << name;
    const bool total = name.ends_with("_total");
    EXPECT_EQ(type == "counter", total) << name << " is a " << type;
    if (type == "histogram") {
      EXPECT_TRUE(name.ends_with("_seconds")) << name;
    }
  }
}

// docs/api.md's *Metrics* table names exactly the families the daemon renders (each one made
// to appear here), and every name src/metrics gives a family is among them.
TEST(MetricsTest, TheDocsListEveryMetricAndNoOther) {
  ManualClock clock{from_unix_seconds(1'796'040'000)};
  Metrics metrics(clock);
  metrics.count_rest_call(call("jobs", "GET", 0, 10, "http_4xx"));
  metrics.count_submit_outcome("ok");
  metrics.count_usage("gpu", "h100-80g", 1.0, 2.0);
  metrics.set_poll_lag(std::chrono::seconds(1));
  metrics.set_request_rate(10);
  metrics.observe_journal_commit(std::chrono::milliseconds(1));
  metrics.set_token_expiry(from_unix_seconds(1'900'000'000));
  metrics.set_slurm_server("24.11.7", "v0.0.42");
  metrics.count_api_connection_refused("peer");
  metrics.count_api_connection_timeout("idle");
  metrics.set_api_connections(1, 1);
  ScrapeGauges gauges;
  gauges.attempts_by_state = {{"running", 1}};
  gauges.cleanup_backlog = {{"none", 0}};
  gauges.live_jobs_by_user = {{"alice", 1}};
  gauges.oldest_blocked_intent = clock.now();
  std::set<std::string> rendered;
  for (const auto& [name, type] : scrape(metrics, gauges).types) rendered.insert(name);

  const std::string source = tpslurm::testing::read_test_file(std::string(TP_SOURCE_DIR) + "/src/metrics/metrics.cc");
  const std::regex named("\"(tuneplane_[a-z_]+)\"");
  std::set<std::string> in_source;
  for (std::sregex_iterator it(source.begin(), source.end(), named), end; it != end; ++it) in_source.insert((*it)[1]);
  ASSERT_GE(in_source.size(), 20u);
  EXPECT_EQ(rendered, in_source) << "every family src/metrics names is rendered here";

  const std::string doc = tpslurm::testing::read_test_file(std::string(TP_SOURCE_DIR) + "/docs/api.md");
  const std::size_t from = doc.find("### Metrics");
  ASSERT_NE(from, std::string::npos);
  // The table's first column: one or more `name`s.
  std::set<std::string> documented;
  std::istringstream lines(doc.substr(from));
  const std::regex in_first_cell("`(tuneplane_[a-z_]+)`");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `tuneplane_", 0) != 0) continue;
    const std::string first = line.substr(0, line.find(" |", 2));
    for (std::sregex_iterator it(first.begin(), first.end(), in_first_cell), end; it != end; ++it) {
      documented.insert((*it)[1]);
    }
  }
  for (const auto& name : rendered) EXPECT_TRUE(documented.contains(name)) << name << " is not in docs/api.md";
  for (const auto& name : documented) EXPECT_TRUE(rendered.contains(name)) << name << " is in docs/api.md only";
}

TEST(MetricsTest, CallsFromManyThreadsAreAllCounted) {
  ManualClock clock{from_unix_seconds(1'796'040'000)};
  Metrics metrics(clock);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics, t] {
      const std::string endpoint = t % 2 == 0 ? "jobs/state" : "job/{id}";
      for (int i = 0; i < 500; ++i) {
        metrics.count_rest_call(call(endpoint, "GET", 1, 2));
        metrics.observe_journal_commit(std::chrono::microseconds(100));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const Exposition e = scrape(metrics);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "jobs/state"}, {"method", "GET"}}), 1000);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/{id}"}, {"method", "GET"}}), 1000);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_received_bytes_total", {{"endpoint", "job/{id}"}}), 2000);
  EXPECT_EQ(e.value("tuneplane_journal_commit_duration_seconds_count"), 2000);
}

}  // namespace
}  // namespace tpslurm::metrics
