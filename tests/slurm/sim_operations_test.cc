// bulk_state and find_jobs_by_tag, and the v0.0.44 / v0.0.43 dialects end to end, against a
// slurmrestd-sim process over HTTP.
#include <gtest/gtest.h>

#include "sim_client_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;
using testing::sim_description;

std::vector<std::uint32_t> ids_from(std::uint32_t first, std::uint32_t last) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = first; id <= last; ++id) ids.push_back(id);
  return ids;
}

class SimOperationsTest : public testing::SimClientTest {
 protected:
  // POST /sim/jobs/bulk; returns the ids created.
  std::vector<std::uint32_t> bulk_create(int count, int het_components = 1, const std::string& state = "PENDING") {
    auto answer = m_sim->control(HttpMethod::post, "/sim/jobs/bulk",
                                 "{\"count\": " + std::to_string(count) + ", \"het_components\": " +
                                     std::to_string(het_components) + ", \"state\": \"" + state + "\"}");
    EXPECT_TRUE(answer.ok()) << answer.error().message();
    if (!answer.ok()) return {};
    return ids_from(static_cast<std::uint32_t>(answer->at("first_job_id").to_number<std::int64_t>()),
                    static_cast<std::uint32_t>(answer->at("last_job_id").to_number<std::int64_t>()));
  }
  void set_state(std::uint32_t id, const std::string& body) {
    control(HttpMethod::post, "/sim/jobs/" + std::to_string(id) + "/state", body);
  }
};

TEST_F(SimOperationsTest, BulkStateCovers1200JobsInThreeCalls) {
  start();
  const auto ids = bulk_create(1200);
  ASSERT_EQ(ids.size(), 1200u);
  const BulkStateResult result = m_client->bulk_state(ids);
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(result.calls, 3);
  EXPECT_EQ(m_sim->route_count("GET /slurm/v0.0.45/jobs/state"), 3);
  ASSERT_EQ(result.states.size(), 1200u);
  EXPECT_EQ(result.states.front().state.base, SlurmBaseState::pending);
  EXPECT_TRUE(result.not_reported.empty());
}

TEST_F(SimOperationsTest, BulkStateReportsEveryHetComponentOnceAndPurgedJobsAsNotReported) {
  start({"--min-job-age", "10"});
  const auto het = bulk_create(2, 2);  // two hetjobs: leaders and components
  ASSERT_EQ(het.size(), 4u);
  const SubmitResult gone = m_client->submit(sim_description("tp-sim-ops-1"));
  ASSERT_EQ(gone.outcome, Outcome::ok) << gone.message;
  set_state(*gone.job_id, R"({"state": "COMPLETED"})");
  advance(std::chrono::seconds(11));
  std::vector<std::uint32_t> asked = het;
  asked.push_back(*gone.job_id);
  const BulkStateResult result = m_client->bulk_state(asked);
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  ASSERT_EQ(result.states.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(result.states[i].job_id, het[i]);
    EXPECT_EQ(result.states[i].het_job_offset, static_cast<std::uint32_t>(i % 2)) << het[i];
  }
  EXPECT_EQ(result.not_reported, std::vector<std::uint32_t>{*gone.job_id}) << "purged after MinJobAge";
}

TEST_F(SimOperationsTest, FindsAJobInSlurmctldWhileItLivesAndInSlurmdbdAfterThePurge) {
  start({"--min-job-age", "10"});
  const TimePoint intent = m_clock.now();
  const auto description = sim_description("tp-sim-search-1", "/shared/tp/search-1");
  const SubmitResult made = m_client->submit(description);
  ASSERT_EQ(made.outcome, Outcome::ok) << made.message;

  const SearchResult live = m_client->find_jobs_by_tag(description.tag, intent);
  EXPECT_EQ(live.outcome, Outcome::ok) << live.message;
  ASSERT_EQ(live.matches.size(), 1u);
  EXPECT_EQ(live.matches[0].source, SearchSource::slurmctld);
  EXPECT_EQ(live.matches[0].job.job_id, *made.job_id);

  set_state(*made.job_id, R"({"state": "COMPLETED"})");
  // Past midnight: slurmdbd's default window (midnight today) would no longer show the job.
  advance(std::chrono::hours(14));
  ASSERT_EQ(m_client->get_job({*made.job_id, ""}).outcome, Outcome::not_found);
  const SearchResult purged = m_client->find_jobs_by_tag(description.tag, intent);
  EXPECT_EQ(purged.outcome, Outcome::ok) << purged.message;
  EXPECT_TRUE(purged.complete());
  ASSERT_EQ(purged.matches.size(), 1u);
  EXPECT_EQ(purged.matches[0].source, SearchSource::slurmdbd);
  EXPECT_EQ(purged.matches[0].job.job_id, *made.job_id);
  EXPECT_EQ(purged.matches[0].marks, 3);
  EXPECT_EQ(purged.matches[0].job.state.base, SlurmBaseState::completed);
  EXPECT_EQ(purged.matches[0].job.sluid.empty(), false) << "v0.0.45 slurmdbd records carry the original SLUID";
  // The window is taken on the server's clock (diag's req_time), which here runs with ours.
  EXPECT_TRUE(purged.window_on_server_clock);
  EXPECT_EQ(purged.window_start, intent - std::chrono::hours(24));
}

TEST_F(SimOperationsTest, FindsEveryComponentAfterTheControllerForgotItsJobs) {
  start();
  const TimePoint intent = m_clock.now();
  auto description = sim_description("tp-sim-search-2", "/shared/tp/search-2");
  description.components.push_back(description.components[0]);
  const SubmitResult made = m_client->submit(description);
  ASSERT_EQ(made.outcome, Outcome::ok) << made.message;
  control(HttpMethod::post, "/sim/ids/reset", R"({"next_id": 1, "forget_jobs": true})");
  const SearchResult result = m_client->find_jobs_by_tag(description.tag, intent);
  EXPECT_TRUE(result.complete()) << result.message;
  ASSERT_EQ(result.matches.size(), 2u);
  EXPECT_EQ(result.matches[0].source, SearchSource::slurmdbd);
  EXPECT_EQ(result.matches[0].job.het_job_id, *made.job_id);
  EXPECT_EQ(result.matches[1].job.het_job_offset, 1u);
}

// A cluster without accounting: slurmdbd is an absent source, slurmctld's listing completes the
// search, and the probe says so.
TEST_F(SimOperationsTest, AServerWithoutAccountingIsSearchedBySlurmctldAlone) {
  start({"--no-accounting"});
  const SearchResult result = m_client->find_jobs_by_tag(sim_description("tp-sim-search-3").tag, m_clock.now());
  EXPECT_TRUE(result.matches.empty());
  EXPECT_TRUE(result.complete());
  EXPECT_TRUE(result.without_accounting());
  EXPECT_EQ(result.sources.at(0).outcome, Outcome::ok);
  EXPECT_TRUE(result.sources.at(1).absent);
  const AccountingResult accounting = m_client->accounting();
  EXPECT_TRUE(accounting.ok()) << accounting.message;
  EXPECT_FALSE(accounting.present);
}

TEST_F(SimOperationsTest, TheAccountingProbeFindsSlurmdbdOrSaysItDoesNotAnswer) {
  start();
  const AccountingResult present = m_client->accounting();
  EXPECT_TRUE(present.ok()) << present.message;
  EXPECT_TRUE(present.present);
  ASSERT_TRUE(m_sim->add_fault(R"({"kind": "accounting_outage"})").ok());
  const AccountingResult down = m_client->accounting();
  EXPECT_FALSE(down.ok()) << "a slurmdbd that is down is not a cluster without accounting";
  EXPECT_FALSE(down.present);
}

// v0.0.44 on a 25.11 server: records carry SLUIDs, paths take none — cancel goes by job id
// after the caller checked the SLUID (a SLUID in the path would be a 422 there).
TEST_F(SimOperationsTest, V0044OnA2511ServerRecordsSluidsAndCancelsByJobId) {
  start({"--release", "25.11.7"}, "v0.0.44");
  const SubmitResult made = m_client->submit(sim_description("tp-sim-44"));
  ASSERT_EQ(made.outcome, Outcome::ok) << made.message;
  const JobsResult got = m_client->get_job({*made.job_id, ""});
  ASSERT_EQ(got.outcome, Outcome::ok) << got.message;
  ASSERT_EQ(got.jobs.size(), 1u);
  EXPECT_EQ(got.release, "25.11.7");
  const std::string sluid = got.jobs[0].sluid;
  EXPECT_EQ(sluid.size(), 14u);
  const std::vector<std::uint32_t> ids{*made.job_id};
  EXPECT_EQ(m_client->bulk_state(ids).states.size(), 1u);
  const CancelResult wrong = m_client->cancel({*made.job_id, "s0ZZZZZZZZZZZZ"});
  EXPECT_EQ(wrong.outcome, Outcome::rejected);
  EXPECT_EQ(wrong.message, "DELETE /slurm/v0.0.44/job/" + std::to_string(*made.job_id) + ": not sent: job " +
                               std::to_string(*made.job_id) + " is not the job asked for: it now carries SLUID " +
                               sluid + ", not s0ZZZZZZZZZZZZ (a reused id or a requeued job)");
  EXPECT_EQ(m_sim->route_count("DELETE /slurm/v0.0.44/job/{job_id}"), 0);
  const CancelResult cancelled = m_client->cancel({*made.job_id, sluid});
  EXPECT_EQ(cancelled.outcome, Outcome::ok) << cancelled.message;
  EXPECT_EQ(m_sim->route_count("DELETE /slurm/v0.0.44/job/{job_id}"), 1);
  const SearchResult found = m_client->find_jobs_by_tag(sim_description("tp-sim-44").tag, m_clock.now());
  EXPECT_TRUE(found.complete()) << found.message;
  EXPECT_EQ(found.matches.size(), 1u);
}

// v0.0.43 on a 25.05 server: no SLUID anywhere; the job is its id plus its tag.
TEST_F(SimOperationsTest, V0043OnA2505ServerHasNoSluidAndWorksByJobIdAndTag) {
  start({"--release", "25.05.0"}, "v0.0.43");
  const auto description = sim_description("tp-sim-43");
  const SubmitResult made = m_client->submit(description);
  ASSERT_EQ(made.outcome, Outcome::ok) << made.message;
  const JobsResult got = m_client->get_job({*made.job_id, ""});
  ASSERT_EQ(got.outcome, Outcome::ok) << got.message;
  EXPECT_EQ(got.jobs.at(0).sluid, "");
  EXPECT_TRUE(description.tag.identifies(got.jobs.at(0).tag()));
  EXPECT_FALSE(got.jobs.at(0).requeue);
  const std::vector<std::uint32_t> ids{*made.job_id, 999};
  const BulkStateResult polled = m_client->bulk_state(ids);
  EXPECT_EQ(polled.states.size(), 1u);
  EXPECT_EQ(polled.not_reported, std::vector<std::uint32_t>{999});
  EXPECT_EQ(m_client->cancel({*made.job_id, ""}).outcome, Outcome::ok);
}

// 22.05's fallback: the first poll lists every job; with a baseline nothing has changed since,
// the answer is 304.
TEST_F(SimOperationsTest, V0038PollsWithUpdateTimeAndSees304WhenNothingChanged) {
  start({"--release", "22.05.8"}, "v0.0.38");
  const SubmitResult made = m_client->submit(sim_description("tp-sim-38"));
  ASSERT_EQ(made.outcome, Outcome::ok) << made.message;
  const std::vector<std::uint32_t> ids{*made.job_id};
  const BulkStateResult first = m_client->bulk_state(ids);
  EXPECT_EQ(first.outcome, Outcome::ok) << first.message;
  ASSERT_EQ(first.records.size(), 1u);
  EXPECT_EQ(first.records[0].name, "tp-sim-38");
  ASSERT_TRUE(first.next_since) << "diag gives the server's clock, hence a safe baseline";
  EXPECT_EQ(*first.next_since, m_clock.now() - std::chrono::seconds(1));
  advance(std::chrono::seconds(5));
  const BulkStateResult unchanged = m_client->bulk_state(ids, m_clock.now());
  EXPECT_EQ(unchanged.outcome, Outcome::ok) << unchanged.message;
  EXPECT_TRUE(unchanged.unchanged);
  set_state(*made.job_id, R"({"state": "RUNNING"})");
  const BulkStateResult changed = m_client->bulk_state(ids, m_clock.now() - std::chrono::seconds(1));
  EXPECT_FALSE(changed.unchanged);
  ASSERT_EQ(changed.states.size(), 1u);
  EXPECT_EQ(changed.states[0].state.base, SlurmBaseState::running);
}

}  // namespace
}  // namespace tpslurm::slurm
