// find_jobs_by_tags against a slurmrestd-sim process holding bulk jobs: one listing and one
// slurmdbd call for every tag; the cheap way reads only the ids nobody holds or has read, the
// next cycle only the new ones; too many of them and it lists every job once; a purged id
// leaves the cache; 22.05 always lists every job. Counted by the simulator's route counters.
#include <gtest/gtest.h>

#include "sim_client_support.h"

namespace tpslurm::slurm {
namespace {

using testing::sim_description;

constexpr char kListing[] = "GET /slurm/v0.0.45/jobs";
constexpr char kState[] = "GET /slurm/v0.0.45/jobs/state";
constexpr char kRecord[] = "GET /slurm/v0.0.45/job/{job_id}";
constexpr char kDbd[] = "GET /slurmdb/v0.0.45/jobs";

class SimSearchTest : public testing::SimClientTest {
 protected:
  std::vector<std::uint32_t> bulk(int count) {
    auto answer = m_sim->control(HttpMethod::post, "/sim/jobs/bulk",
                                 "{\"count\": " + std::to_string(count) + ", \"state\": \"PENDING\"}");
    EXPECT_TRUE(answer.ok()) << answer.error().message();
    std::vector<std::uint32_t> ids;
    if (!answer.ok()) return ids;
    const auto first = static_cast<std::uint32_t>(answer->at("first_job_id").to_number<std::int64_t>());
    const auto last = static_cast<std::uint32_t>(answer->at("last_job_id").to_number<std::int64_t>());
    for (std::uint32_t id = first; id <= last; ++id) ids.push_back(id);
    return ids;
  }
  // Submits a job for each name (answers treated as lost: the test keeps only the tags).
  std::vector<model::JobTag> submit_tagged(const std::vector<std::string>& names) {
    std::vector<model::JobTag> tags;
    for (const auto& name : names) {
      const auto description = sim_description(name, "/shared/tp/" + name);
      const SubmitResult submitted = m_client->submit(description);
      EXPECT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
      tags.push_back(description.tag);
    }
    return tags;
  }
  std::int64_t routes(const std::string& route) { return m_sim->route_count(route); }
};

TEST_F(SimSearchTest, OneListingAndOneSlurmdbdCallServeEveryBlockedAttempt) {
  start();
  bulk(200);
  auto tags = submit_tagged({"tp-sim-s-1", "tp-sim-s-2", "tp-sim-s-3"});
  tags.push_back({"tp-sim-s-never", "tuneplane:never", "/shared/tp/never"});
  SearchOptions options;
  options.full = true;
  const BatchSearchResult batch = m_client->find_jobs_by_tags(tags, m_clock.now(), options);
  ASSERT_EQ(batch.outcome, Outcome::ok) << batch.message;
  ASSERT_EQ(batch.searches.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(batch.searches[i].matches.size(), 1u) << tags[i].name;
    EXPECT_EQ(batch.searches[i].matches[0].job.name, tags[i].name);
    EXPECT_EQ(batch.searches[i].matches[0].marks, 3);
    EXPECT_TRUE(batch.searches[i].complete());
  }
  EXPECT_TRUE(batch.searches[3].matches.empty());
  EXPECT_TRUE(batch.searches[3].complete()) << "a full search proves absence";
  EXPECT_EQ(routes(kListing), 1);
  EXPECT_EQ(routes(kDbd), 1);
  EXPECT_EQ(routes(kState), 0);
  EXPECT_EQ(batch.searches[0].sources[0].records, 203);
}

TEST_F(SimSearchTest, TheCheapWayReadsOnlyUnknownJobsAndTheNextCycleOnlyTheNewOnes) {
  start();
  SearchOptions options;
  options.known_ids = bulk(500);  // the journal's own jobs
  const auto tags = submit_tagged({"tp-sim-c-1", "tp-sim-c-2"});
  const BatchSearchResult first = m_client->find_jobs_by_tags(tags, m_clock.now(), options);
  ASSERT_EQ(first.outcome, Outcome::ok) << first.message;
  EXPECT_EQ(first.searches[0].matches.size(), 1u);
  EXPECT_EQ(first.searches[1].matches.size(), 1u);
  EXPECT_FALSE(first.searches[0].complete()) << "the cheap way is no proof of absence";
  EXPECT_EQ(first.searches[0].sources[0].skipped, 500);
  EXPECT_EQ(first.record_gets, 2);
  EXPECT_EQ(routes(kState), 1);
  EXPECT_EQ(routes(kRecord), 2);
  EXPECT_EQ(routes(kListing), 0);
  EXPECT_EQ(routes(kDbd), 1);

  bulk(5);  // K new jobs nobody holds
  const BatchSearchResult second = m_client->find_jobs_by_tags(tags, m_clock.now(), options);
  ASSERT_EQ(second.outcome, Outcome::ok) << second.message;
  EXPECT_EQ(second.searches[0].matches.size(), 1u);
  // The five new ones, and the two that carry the asked marks (read again: they may match).
  EXPECT_EQ(second.record_gets, 7);
  EXPECT_EQ(routes(kRecord), 2 + 7);
  EXPECT_EQ(routes(kListing), 0);
}

TEST_F(SimSearchTest, TooManyJobsToReadOneByOneMeansOneFullListing) {
  start();
  bulk(150);
  const auto tags = submit_tagged({"tp-sim-f-1"});
  const BatchSearchResult batch = m_client->find_jobs_by_tags(tags, m_clock.now());
  ASSERT_EQ(batch.outcome, Outcome::ok) << batch.message;
  EXPECT_TRUE(batch.full_listing);
  EXPECT_EQ(batch.record_gets, 0);
  EXPECT_EQ(routes(kState), 1);
  EXPECT_EQ(routes(kListing), 1);
  EXPECT_EQ(routes(kRecord), 0);
  ASSERT_EQ(batch.searches[0].matches.size(), 1u);
  EXPECT_FALSE(batch.searches[0].complete()) << "not asked as a full search";
  // What the listing read is known the next cycle: nothing left to read.
  const BatchSearchResult next = m_client->find_jobs_by_tags(tags, m_clock.now());
  EXPECT_FALSE(next.full_listing);
  EXPECT_EQ(next.record_gets, 1) << "only the job that carries the tag";
}

TEST_F(SimSearchTest, APurgedJobLeavesTheCacheAndIsFoundInSlurmdbd) {
  start({"--min-job-age", "10"});
  const auto tags = submit_tagged({"tp-sim-p-1"});
  ASSERT_EQ(m_client->find_jobs_by_tags(tags, m_clock.now()).record_gets, 1);
  EXPECT_EQ(m_client->slurmctld_listing().examined().size(), 1u);
  control(HttpMethod::post, "/sim/jobs/1/state", R"({"state": "COMPLETED"})");
  advance(std::chrono::seconds(11));
  const BatchSearchResult after = m_client->find_jobs_by_tags(tags, m_clock.now() - std::chrono::seconds(11));
  ASSERT_EQ(after.outcome, Outcome::ok) << after.message;
  EXPECT_EQ(m_client->slurmctld_listing().examined().size(), 0u);
  ASSERT_EQ(after.searches[0].matches.size(), 1u);
  EXPECT_EQ(after.searches[0].matches[0].source, SearchSource::slurmdbd);
}

TEST_F(SimSearchTest, V0038AlwaysListsEveryJobAndIsComplete) {
  start({"--release", "22.05.8"}, "v0.0.38");
  bulk(50);
  const auto tags = submit_tagged({"tp-sim-38-1", "tp-sim-38-2"});
  const BatchSearchResult batch = m_client->find_jobs_by_tags(tags, m_clock.now());
  ASSERT_EQ(batch.outcome, Outcome::ok) << batch.message;
  EXPECT_TRUE(batch.full_listing);
  EXPECT_EQ(routes("GET /slurm/v0.0.38/jobs"), 1);
  EXPECT_EQ(routes("GET /slurmdb/v0.0.38/jobs"), 1);
  EXPECT_TRUE(batch.searches[0].complete());
  EXPECT_EQ(batch.searches[1].matches.size(), 1u);
}

}  // namespace
}  // namespace tpslurm::slurm
