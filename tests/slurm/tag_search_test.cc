// find_jobs_by_tag: both sources consulted in order, two of three marks, slurmctld's record
// preferred, the window on the server's clock, and every failed source reported so that an
// empty answer is never mistaken for proof of absence.
#include <gtest/gtest.h>

#include "fake_transport.h"
#include "slurm/rest_client.h"
#include "slurm/tag_search.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using testing::recorded;

// A v0.0.45 slurmdbd answer with records for the given (id, name, comment, cwd).
std::string db_answer(const std::vector<std::tuple<int, std::string, std::string, std::string>>& records) {
  std::string body = R"({"jobs":[)";
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& [id, name, comment, cwd] = records[i];
    body += (i ? "," : "") + std::string(R"({"job_id":)") + std::to_string(id) + R"(,"name":")" + name +
            R"(","comment":{"administrator":"","job":")" + comment + R"(","system":""},"working_directory":")" + cwd +
            R"(","state":{"current":["COMPLETED"],"reason":"None"},"het":{"job_id":0,"job_offset":{"set":false,"infinite":false,"number":0}},"time":{"submission":1796040000,"start":1796040001,"end":1796040002}})";
  }
  return body + R"(],"meta":{"slurm":{"release":"26.05.3"}},"errors":[],"warnings":[]})";
}

class TagSearchTest : public ::testing::Test {
 protected:
  std::unique_ptr<RestClient> client(const std::string& version) {
    RestClientOptions options;
    options.clock = &m_clock;
    auto made = RestClient::create(m_transport, m_tokens, version, options);
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }
  // The server's clock is 966 s behind the local one.
  void serve_diag_v0045() {
    m_transport.answer("/slurm/v0.0.45/diag", 200,
                       R"({"statistics":{"req_time":{"set":true,"infinite":false,"number":1796039034}},"errors":[]})");
  }

  ManualClock m_clock{from_unix_seconds(1796040000)};
  testing::FakeTransport m_transport;
  testing::StaticTokenSource m_tokens;
  const TimePoint m_intent = from_unix_seconds(1796039900);
  // Component 0 of transcript 17's hetjob carries all three marks, component 1 two.
  const model::JobTag m_het_tag{"sample-het", "hetjob component 0", "/tmp/slurm26/jobs"};
};

TEST_F(TagSearchTest, FindsEveryComponentInSlurmctldAndPurgedJobsInSlurmdbd) {
  serve_diag_v0045();
  m_transport.answer("/slurm/v0.0.45/jobs", 200, testing::response_v0045("17_jobs_update_time"));
  // Window: intent 1796039900 - 86400 - 966 (the server's clock is behind).
  m_transport.answer("/slurmdb/v0.0.45/jobs?job_name=sample-het&start_time=1795952534", 200,
                     db_answer({{14, "sample-het", "hetjob component 0", "/tmp/slurm26/jobs"},
                                {9, "sample-het", "", "/tmp/slurm26/jobs"},
                                {8, "sample-het", "", "/home/alice"}}));
  const SearchResult result = client("v0.0.45")->find_jobs_by_tag(m_het_tag, m_intent);
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_TRUE(result.complete());
  ASSERT_EQ(result.matches.size(), 3u);
  EXPECT_EQ(result.matches[0].job.job_id, 14u);
  EXPECT_EQ(result.matches[0].source, SearchSource::slurmctld);
  EXPECT_EQ(result.matches[0].marks, 3);
  EXPECT_EQ(result.matches[1].job.job_id, 15u);
  EXPECT_EQ(result.matches[1].marks, 2);
  EXPECT_EQ(result.matches[1].job.het_job_id, 14u);
  EXPECT_EQ(result.matches[2].job.job_id, 9u) << "purged from slurmctld: only slurmdbd knows it";
  EXPECT_EQ(result.matches[2].source, SearchSource::slurmdbd);
  EXPECT_EQ(result.matches[2].marks, 2);
  ASSERT_EQ(result.sources.size(), 2u);
  EXPECT_EQ(result.sources[0].source, SearchSource::slurmctld);
  EXPECT_EQ(result.sources[0].records, 4);
  EXPECT_EQ(result.sources[1].source, SearchSource::slurmdbd);
  EXPECT_EQ(result.sources[1].records, 3);
  EXPECT_EQ(result.sources[1].message, "");
  EXPECT_TRUE(result.window_on_server_clock);
  EXPECT_EQ(result.window_start, from_unix_seconds(1796039900 - 86400 - 966));
  EXPECT_EQ(m_transport.targets(), (std::vector<std::string>{"/slurm/v0.0.45/diag", "/slurm/v0.0.45/jobs",
                                                             "/slurmdb/v0.0.45/jobs?job_name=sample-het&start_time=1795952534"}));
}

TEST_F(TagSearchTest, OneMarkIsNotAMatch) {
  serve_diag_v0045();
  m_transport.answer("/slurm/v0.0.45/jobs", 200, testing::response_v0045("17_jobs_update_time"));
  m_transport.answer("/slurmdb/v0.0.45/jobs?job_name=sample-single&start_time=1795952534", 200,
                     db_answer({{12, "sample-single", "someone else", "/home/bob"}}));
  const model::JobTag tag{"sample-single", "tuneplane:other", "/shared/other"};
  const SearchResult result = client("v0.0.45")->find_jobs_by_tag(tag, m_intent);
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_TRUE(result.complete());
  EXPECT_TRUE(result.matches.empty());
}

TEST_F(TagSearchTest, AnAccountingOutageLeavesTheSearchIncomplete) {
  serve_diag_v0045();
  m_transport.answer("/slurm/v0.0.45/jobs", 200, testing::response_v0045("17_jobs_update_time"));
  m_transport.answer("/slurmdb/v0.0.45/jobs?job_name=sample-het&start_time=1795952534", 502,
                     R"({"errors":[{"error_number":7000,"error":"Unable to connect to database","description":"Failed to open slurmdbd connection","source":"openapi_get_db_conn"}],"meta":{"slurm":{"release":"26.05.3"}}})");
  const SearchResult result = client("v0.0.45")->find_jobs_by_tag(m_het_tag, m_intent);
  EXPECT_FALSE(result.complete());
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  const std::string expected =
      "GET /slurmdb/v0.0.45/jobs?job_name=sample-het&start_time=1795952534: HTTP 502: Unable to connect to database "
      "(Failed to open slurmdbd connection) (error 7000)";
  EXPECT_EQ(result.message, expected);
  ASSERT_EQ(result.sources.size(), 2u);
  EXPECT_EQ(result.sources[0].outcome, Outcome::ok);
  EXPECT_EQ(result.sources[1].outcome, Outcome::uncertain);
  EXPECT_EQ(result.sources[1].message, expected);
  EXPECT_EQ(result.matches.size(), 2u) << "what slurmctld knows is still reported";
}

// slurmrestd serves no slurmdbd endpoints (404): the cluster keeps no accounting, so slurmdbd is
// an absent source, and slurmctld's full listing alone completes the search.
TEST_F(TagSearchTest, AServerWithoutAccountingIsAnAbsentSourceAndTheListingCompletesTheSearch) {
  serve_diag_v0045();
  m_transport.answer("/slurm/v0.0.45/jobs", 200, testing::response_v0045("18_jobs_update_time_now"));
  const SearchResult result = client("v0.0.45")->find_jobs_by_tag(m_het_tag, m_intent);
  EXPECT_TRUE(result.matches.empty());
  EXPECT_TRUE(result.complete());
  EXPECT_TRUE(result.without_accounting());
  EXPECT_EQ(result.outcome, Outcome::ok);
  ASSERT_EQ(result.sources.size(), 2u);
  EXPECT_TRUE(result.sources.at(1).absent);
  EXPECT_EQ(result.sources.at(1).message, "slurmrestd serves no slurmdbd endpoints: the cluster keeps no accounting");
}

TEST_F(TagSearchTest, AFailedJobListIsReportedAndSlurmdbdIsStillAsked) {
  serve_diag_v0045();
  m_transport.fail("/slurm/v0.0.45/jobs", Delivery::uncertain, TransportFault::send_timeout);
  m_transport.answer("/slurmdb/v0.0.45/jobs?job_name=sample-het&start_time=1795952534", 200,
                     db_answer({{14, "sample-het", "hetjob component 0", "/tmp/slurm26/jobs"}}));
  const SearchResult result = client("v0.0.45")->find_jobs_by_tag(m_het_tag, m_intent);
  EXPECT_FALSE(result.complete());
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.sources.at(0).outcome, Outcome::uncertain);
  EXPECT_EQ(result.sources.at(1).outcome, Outcome::ok);
  ASSERT_EQ(result.matches.size(), 1u);
  EXPECT_EQ(result.matches[0].source, SearchSource::slurmdbd);
}

TEST_F(TagSearchTest, WithoutTheServersClockTheWindowIsOnTheLocalClockAndSaysSo) {
  m_transport.answer("/slurm/v0.0.45/jobs", 200, testing::response_v0045("18_jobs_update_time_now"));
  m_transport.answer("/slurmdb/v0.0.45/jobs?job_name=sample-het&start_time=1795953500", 200, db_answer({}));
  const SearchResult result = client("v0.0.45")->find_jobs_by_tag(m_het_tag, m_intent);
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_TRUE(result.complete());
  EXPECT_FALSE(result.window_on_server_clock);
  EXPECT_EQ(result.window_start, from_unix_seconds(1796039900 - 86400));
  EXPECT_EQ(result.sources.at(1).message,
            "window on the local clock (GET /slurm/v0.0.45/diag: HTTP 404 with a body that is not the expected JSON)");
}

// 22.05: "uts" times, "Nothing found" (9003, HTTP 200) is an answer, and accounting without
// stored comments still matches on name + working directory.
TEST_F(TagSearchTest, V0038NothingFoundIsACompleteEmptyAnswer) {
  m_transport.answer("/slurm/v0.0.38/diag", 200, testing::transcript_v0038("diag").response_body);
  m_transport.answer("/slurm/v0.0.38/jobs", 200, testing::transcript_v0038("get_jobs").response_body);
  m_transport.answer("/slurmdb/v0.0.38/jobs?job_name=tp-nobody-1&start_time=uts1795952534", 200,
                     recorded("dbv0.0.38_jobs_nothing_found.json"));
  const SearchResult result = client("v0.0.38")->find_jobs_by_tag({"tp-nobody-1", "tuneplane:x", "/tmp"}, m_intent);
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_TRUE(result.complete());
  EXPECT_TRUE(result.matches.empty());
}

TEST_F(TagSearchTest, V0038MatchesPurgedComponentsOnNameAndWorkingDirectory) {
  m_transport.answer("/slurm/v0.0.38/diag", 200, testing::transcript_v0038("diag").response_body);
  m_transport.answer("/slurm/v0.0.38/jobs", 200, testing::transcript_v0038("get_jobs").response_body);
  m_transport.answer("/slurmdb/v0.0.38/jobs?job_name=tp-rec-het-1&start_time=uts1795952534", 200,
                     recorded("dbv0.0.38_jobs_hetjob.json"));
  const model::JobTag tag{"tp-rec-het-1", "tuneplane:0b6f8c1e-rec", "/tmp"};
  const SearchResult result = client("v0.0.38")->find_jobs_by_tag(tag, m_intent);
  EXPECT_TRUE(result.complete()) << result.message;
  ASSERT_EQ(result.matches.size(), 2u);
  EXPECT_EQ(result.matches[0].job.job_id, 2u);
  EXPECT_EQ(result.matches[1].job.job_id, 3u);
  EXPECT_EQ(result.matches[1].job.het_job_id, 2u);
  EXPECT_EQ(result.matches[1].marks, 2);
  EXPECT_EQ(result.matches[1].source, SearchSource::slurmdbd);
}

TEST_F(TagSearchTest, RefusesATagWithoutAName) {
  const SearchResult result = client("v0.0.45")->find_jobs_by_tag({"", "tuneplane:x", "/tmp"}, m_intent);
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_EQ(result.message, "search by tag: the tag has no job name; slurmdbd can only be searched by name");
  EXPECT_TRUE(m_transport.requests().empty());
}

}  // namespace
}  // namespace tpslurm::slurm
