// find_jobs_by_tags: one slurmctld listing and batched slurmdbd names for every tag, results in
// the order given; the full listing's timeout grows with the jobs last seen; the cheap way
// (jobs/state, then only the records nobody has read) is never proof of absence.
#include <gtest/gtest.h>

#include "fake_transport.h"
#include "slurm/rest_client.h"
#include "slurm/tag_search.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using std::chrono::milliseconds;

// A v0.0.45 record with the fields the search reads.
std::string record(std::uint32_t id, const std::string& name, const std::string& comment, const std::string& cwd) {
  return R"({"job_id":)" + std::to_string(id) + R"(,"name":")" + name + R"(","comment":")" + comment +
         R"(","current_working_directory":")" + cwd + R"(","job_state":["PENDING"]})";
}

// A slurmdbd record: the comment under comment.job, the directory as working_directory.
std::string db_record(std::uint32_t id, const std::string& name, const std::string& cwd) {
  return R"({"job_id":)" + std::to_string(id) + R"(,"name":")" + name +
         R"(","comment":{"administrator":"","job":"","system":""},"working_directory":")" + cwd +
         R"(","state":{"current":["COMPLETED"],"reason":"None"}})";
}

std::string jobs_body(const std::vector<std::string>& records) {
  std::string body = R"({"jobs":[)";
  for (std::size_t i = 0; i < records.size(); ++i) body += (i ? "," : "") + records[i];
  return body + R"(],"meta":{"slurm":{"release":"26.05.3"}},"errors":[],"warnings":[]})";
}

// `count` plain records named bulk-<id> (ids from 1).
std::string many_jobs(int count) {
  std::vector<std::string> records;
  for (int id = 1; id <= count; ++id)
    records.push_back(record(static_cast<std::uint32_t>(id), "bulk-" + std::to_string(id), "", "/w"));
  return jobs_body(records);
}

std::string state_body(const std::vector<std::uint32_t>& ids) {
  std::string body = R"({"jobs":[)";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    body += (i ? "," : "") + std::string(R"({"job_id":")") + std::to_string(ids[i]) + R"(","state":["PENDING"]})";
  }
  return body + R"(],"meta":{"slurm":{"release":"26.05.3"}},"errors":[],"warnings":[]})";
}

std::vector<std::uint32_t> ids_through(std::uint32_t first, std::uint32_t last) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = first; id <= last; ++id) ids.push_back(id);
  return ids;
}

constexpr char kNoDbJobs[] = R"({"jobs":[],"meta":{"slurm":{"release":"26.05.3"}},"errors":[],"warnings":[]})";

class BatchSearchTest : public ::testing::Test {
 protected:
  std::unique_ptr<RestClient> client(const std::string& version, std::size_t max_target_bytes = 8000) {
    RestClientOptions options;
    options.clock = &m_clock;
    options.request_timeout = milliseconds(1000);
    options.listing_time_per_job = milliseconds(2);
    options.bulk.max_target_bytes = max_target_bytes;
    auto made = RestClient::create(m_transport, m_tokens, version, options);
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }
  // The server's clock equals the local one.
  void serve_diag() {
    m_transport.answer("/slurm/v0.0.45/diag", 200,
                       R"({"statistics":{"req_time":{"set":true,"infinite":false,"number":1796040000}},"errors":[]})");
  }
  std::string db_target(const std::string& names) const {
    return "/slurmdb/v0.0.45/jobs?job_name=" + names + "&start_time=" + std::to_string(1796039900 - 86400);
  }
  std::vector<std::optional<milliseconds>> timeouts_of(const std::string& target) const {
    std::vector<std::optional<milliseconds>> out;
    for (const auto& request : m_transport.requests()) {
      if (request.target == target) out.push_back(request.timeout);
    }
    return out;
  }
  int count(const std::string& target) const {
    int n = 0;
    for (const auto& t : m_transport.targets()) n += t == target ? 1 : 0;
    return n;
  }

  ManualClock m_clock{from_unix_seconds(1796040000)};
  testing::FakeTransport m_transport;
  testing::StaticTokenSource m_tokens;
  const TimePoint m_intent = from_unix_seconds(1796039900);
  const std::vector<model::JobTag> m_tags{
      {"tp-a-1", "tuneplane:a", "/att/a"}, {"tp-b-1", "tuneplane:b", "/att/b"}, {"tp-c-1", "tuneplane:c", "/att/c"}};
};

TEST_F(BatchSearchTest, OneListingAndOneSlurmdbdCallServeEveryTagInTheOrderGiven) {
  serve_diag();
  m_transport.answer("/slurm/v0.0.45/jobs", 200,
                     jobs_body({record(7, "tp-c-1", "tuneplane:c", "/att/c"), record(8, "other", "", "/w"),
                                record(9, "tp-a-1", "edited", "/att/a")}));
  m_transport.answer(db_target("tp-a-1%2Ctp-b-1%2Ctp-c-1"), 200,
                     jobs_body({db_record(3, "tp-b-1", "/att/b"), db_record(9, "tp-a-1", "/att/a")}));
  SearchOptions options;
  options.full = true;
  auto rest = client("v0.0.45");
  const BatchSearchResult batch = rest->find_jobs_by_tags(m_tags, m_intent, options);
  EXPECT_EQ(batch.outcome, Outcome::ok) << batch.message;
  EXPECT_EQ(batch.calls, 2);
  EXPECT_EQ(batch.slurmdbd_calls, 1);
  EXPECT_TRUE(batch.full_listing);
  EXPECT_GT(batch.bytes_read, 0);
  ASSERT_EQ(batch.searches.size(), 3u);
  for (const auto& search : batch.searches) EXPECT_TRUE(search.complete());
  ASSERT_EQ(batch.searches[0].matches.size(), 1u);
  EXPECT_EQ(batch.searches[0].matches[0].job.job_id, 9u);
  EXPECT_EQ(batch.searches[0].matches[0].source, SearchSource::slurmctld) << "slurmctld's record is preferred";
  ASSERT_EQ(batch.searches[1].matches.size(), 1u);
  EXPECT_EQ(batch.searches[1].matches[0].job.job_id, 3u);
  EXPECT_EQ(batch.searches[1].matches[0].source, SearchSource::slurmdbd);
  ASSERT_EQ(batch.searches[2].matches.size(), 1u);
  EXPECT_EQ(batch.searches[2].matches[0].job.job_id, 7u);
  EXPECT_EQ(batch.searches[0].sources.at(1).records, 1) << "records bearing this tag's name";
  EXPECT_EQ(batch.searches[1].sources.at(1).records, 1);
  EXPECT_EQ(batch.searches[2].sources.at(1).records, 0);
  EXPECT_EQ(m_transport.targets(), (std::vector<std::string>{"/slurm/v0.0.45/diag", "/slurm/v0.0.45/jobs",
                                                             db_target("tp-a-1%2Ctp-b-1%2Ctp-c-1")}));
}

TEST_F(BatchSearchTest, NamesAreBatchedUnderTheUrlBoundAndEachBatchAnswersForItsTags) {
  serve_diag();
  m_transport.answer("/slurm/v0.0.45/jobs", 200, jobs_body({}));
  const std::string first = db_target("tp-a-1%2Ctp-b-1");
  const std::string second = db_target("tp-c-1");
  m_transport.answer(first, 200, kNoDbJobs);
  m_transport.answer(
      second, 502,
      R"({"errors":[{"error_number":7000,"error":"Unable to connect to database","description":"Failed to open slurmdbd connection","source":"openapi_get_db_conn"}]})");
  SearchOptions options;
  options.full = true;
  auto rest = client("v0.0.45", first.size());
  const BatchSearchResult batch = rest->find_jobs_by_tags(m_tags, m_intent, options);
  EXPECT_EQ(batch.slurmdbd_calls, 2);
  EXPECT_EQ(batch.outcome, Outcome::uncertain);
  EXPECT_TRUE(batch.searches[0].complete());
  EXPECT_TRUE(batch.searches[1].complete());
  EXPECT_FALSE(batch.searches[2].complete()) << "its batch failed";
  EXPECT_EQ(batch.searches[2].outcome, Outcome::uncertain);
  EXPECT_EQ(batch.searches[2].sources.at(1).outcome, Outcome::uncertain);
  EXPECT_EQ(count(first), 1);
  EXPECT_EQ(count(second), 1);
}

TEST_F(BatchSearchTest, PlanningKeepsEveryTargetWithinTheBoundAndDropsDuplicates) {
  const auto codec = make_dialect("v0.0.45");
  std::vector<std::string> names;
  for (int i = 0; i < 40; ++i) names.push_back("tp-prod-train-" + std::to_string(i) + "-1");
  names.push_back("tp-prod-train-3-1");
  names.push_back(std::string(300, 'x'));
  const auto plan = plan_name_batches(*codec, names, 1796000000, 200);
  std::size_t planned = 0;
  for (const auto& batch : plan) {
    planned += batch.size();
    std::string joined;
    for (const auto& name : batch) joined += (joined.empty() ? "" : ",") + name;
    if (batch.size() > 1) {
      EXPECT_LE(codec->db_jobs_path(joined, 1796000000).size(), 200u) << joined;
    }
  }
  EXPECT_EQ(planned, 41u) << "the duplicate is searched once";
  EXPECT_EQ(plan.back(), std::vector<std::string>{std::string(300, 'x')}) << "too long alone: a call of its own";
  EXPECT_GT(plan.size(), 2u);
  EXPECT_LT(plan.size(), 41u);
}

TEST_F(BatchSearchTest, ATagThatCannotBeSearchedIsRejectedAndTheOthersAreSearched) {
  serve_diag();
  m_transport.answer("/slurm/v0.0.45/jobs", 200, jobs_body({}));
  m_transport.answer(db_target("tp-a-1"), 200, kNoDbJobs);
  const std::vector<model::JobTag> tags{{"", "tuneplane:x", "/x"}, m_tags[0], {"tp,comma", "tuneplane:y", "/y"}};
  SearchOptions options;
  options.full = true;
  const BatchSearchResult batch = client("v0.0.45")->find_jobs_by_tags(tags, m_intent, options);
  EXPECT_EQ(batch.outcome, Outcome::ok) << batch.message;
  EXPECT_EQ(batch.searches[0].outcome, Outcome::rejected);
  EXPECT_TRUE(batch.searches[0].sources.empty());
  EXPECT_TRUE(batch.searches[1].complete());
  EXPECT_EQ(batch.searches[2].outcome, Outcome::rejected);
  EXPECT_EQ(batch.searches[2].message,
            "search by tag: the job name \"tp,comma\" holds a comma, which slurmdbd's job_name list splits on");
}

TEST_F(BatchSearchTest, TheListingsTimeoutGrowsWithTheJobsLastListed) {
  serve_diag();
  m_transport.answer("/slurm/v0.0.45/jobs", 200, many_jobs(5000));
  m_transport.answer(db_target("tp-a-1"), 200, kNoDbJobs);
  auto rest = client("v0.0.45");
  (void)rest->find_jobs_by_tag(m_tags[0], m_intent);
  (void)rest->find_jobs_by_tag(m_tags[0], m_intent);
  EXPECT_EQ(timeouts_of("/slurm/v0.0.45/jobs"),
            (std::vector<std::optional<milliseconds>>{milliseconds(1000), milliseconds(1000 + 5000 * 2)}));
  EXPECT_EQ(timeouts_of(db_target("tp-a-1")), (std::vector<std::optional<milliseconds>>{std::nullopt, std::nullopt}))
      << "other calls keep the transport's timeout";
}

TEST_F(BatchSearchTest, TheCheapWaysFallbackListingIsTimedByTheJobsStateCount) {
  serve_diag();
  m_transport.answer("/slurm/v0.0.45/jobs/state", 200, state_body(ids_through(1, 3000)));
  m_transport.answer("/slurm/v0.0.45/jobs", 200, jobs_body({record(5, "tp-a-1", "tuneplane:a", "/att/a")}));
  m_transport.answer(db_target("tp-a-1"), 200, kNoDbJobs);
  SearchOptions options;
  options.max_record_gets = 10;
  const BatchSearchResult batch = client("v0.0.45")->find_jobs_by_tags({&m_tags[0], 1}, m_intent, options);
  EXPECT_EQ(batch.outcome, Outcome::ok) << batch.message;
  EXPECT_TRUE(batch.full_listing);
  EXPECT_EQ(batch.record_gets, 0);
  EXPECT_EQ(timeouts_of("/slurm/v0.0.45/jobs"),
            (std::vector<std::optional<milliseconds>>{milliseconds(1000 + 3000 * 2)}));
  const SearchResult& search = batch.searches[0];
  ASSERT_EQ(search.matches.size(), 1u);
  EXPECT_FALSE(search.complete()) << "not asked as a full search";
  EXPECT_FALSE(search.sources[0].exhaustive);
}

TEST_F(BatchSearchTest, TheCheapWayReadsOnlyWhatNobodyHasReadAndIsNeverComplete) {
  serve_diag();
  m_transport.answer("/slurm/v0.0.45/jobs/state", 200, state_body(ids_through(1, 5)));
  for (std::uint32_t id = 3; id <= 5; ++id) {
    m_transport.answer("/slurm/v0.0.45/job/" + std::to_string(id), 200,
                       jobs_body({record(id, "user-job-" + std::to_string(id), "", "/home/u")}));
  }
  m_transport.answer("/slurm/v0.0.45/job/4", 200, jobs_body({record(4, "tp-b-1", "tuneplane:b", "/att/b")}));
  m_transport.answer(db_target("tp-a-1"), 200, kNoDbJobs);
  m_transport.answer(db_target("tp-b-1"), 200, kNoDbJobs);
  SearchOptions options;
  options.known_ids = {2, 1};  // the caller's own jobs
  auto rest = client("v0.0.45");

  const BatchSearchResult first = rest->find_jobs_by_tags({&m_tags[0], 1}, m_intent, options);
  EXPECT_EQ(first.outcome, Outcome::ok) << first.message;
  EXPECT_EQ(first.record_gets, 3);
  EXPECT_FALSE(first.full_listing);
  const SourceReport& ctld = first.searches[0].sources.at(0);
  EXPECT_FALSE(ctld.exhaustive);
  EXPECT_EQ(ctld.skipped, 2);
  EXPECT_EQ(ctld.records, 3);
  EXPECT_EQ(ctld.message,
            "jobs/state listed 5 jobs, 3 read in full, 2 held by the caller and 0 read before without two marks of any "
            "tag skipped: not a full search, so no proof of absence");
  EXPECT_FALSE(first.searches[0].complete());
  EXPECT_TRUE(first.searches[0].matches.empty());
  EXPECT_EQ(count("/slurm/v0.0.45/jobs"), 0);

  // The next cycle: the three records are known not to carry tp-a-1's marks.
  const BatchSearchResult again = rest->find_jobs_by_tags({&m_tags[0], 1}, m_intent, options);
  EXPECT_EQ(again.record_gets, 0);
  EXPECT_EQ(again.searches[0].sources.at(0).skipped, 5);
  // A tag asked for the first time is checked against what was read: job 4 carries it.
  const BatchSearchResult other = rest->find_jobs_by_tags({&m_tags[1], 1}, m_intent, options);
  EXPECT_EQ(other.record_gets, 1);
  ASSERT_EQ(other.searches[0].matches.size(), 1u);
  EXPECT_EQ(other.searches[0].matches[0].job.job_id, 4u);
  EXPECT_EQ(count("/slurm/v0.0.45/job/4"), 2);

  // A job that leaves the listing is forgotten: were its id listed again, it is read again.
  m_transport.answer("/slurm/v0.0.45/jobs/state", 200, state_body({1, 2, 3, 5}));
  (void)rest->find_jobs_by_tags({&m_tags[0], 1}, m_intent, options);
  EXPECT_EQ(rest->slurmctld_listing().examined().size(), 2u);
  m_transport.answer("/slurm/v0.0.45/jobs/state", 200, state_body(ids_through(1, 5)));
  const BatchSearchResult back = rest->find_jobs_by_tags({&m_tags[0], 1}, m_intent, options);
  EXPECT_EQ(back.record_gets, 1);

  // Asked for a full search, the same client lists everything and is complete.
  m_transport.answer("/slurm/v0.0.45/jobs", 200, jobs_body({record(4, "tp-b-1", "tuneplane:b", "/att/b")}));
  options.full = true;
  const BatchSearchResult full = rest->find_jobs_by_tags({&m_tags[1], 1}, m_intent, options);
  EXPECT_TRUE(full.full_listing);
  EXPECT_TRUE(full.searches[0].complete());
}

TEST_F(BatchSearchTest, AJobGoneBetweenTheListingAndItsReadIsNotAFailure) {
  serve_diag();
  m_transport.answer("/slurm/v0.0.45/jobs/state", 200, state_body({77}));
  m_transport.answer("/slurm/v0.0.45/job/77", 404, testing::response_v0045("25_get_unknown_job_id"));
  m_transport.answer(db_target("tp-a-1"), 200, kNoDbJobs);
  const BatchSearchResult batch = client("v0.0.45")->find_jobs_by_tags({&m_tags[0], 1}, m_intent);
  EXPECT_EQ(batch.outcome, Outcome::ok) << batch.message;
  EXPECT_EQ(batch.searches[0].sources.at(0).outcome, Outcome::ok);
  EXPECT_EQ(batch.record_gets, 1);
}

TEST_F(BatchSearchTest, V0038AlwaysListsEveryJobAndIsComplete) {
  m_transport.answer("/slurm/v0.0.38/diag", 200, testing::transcript_v0038("diag").response_body);
  m_transport.answer("/slurm/v0.0.38/jobs", 200, testing::transcript_v0038("get_jobs").response_body);
  m_transport.answer(
      "/slurmdb/v0.0.38/jobs?job_name=tp-a-1%2Ctp-b-1&start_time=uts1795952534", 200,
      testing::read_file(std::string(TP_SOURCE_DIR) + "/tests/slurm/recorded/dbv0.0.38_jobs_nothing_found.json"));
  const BatchSearchResult batch =
      client("v0.0.38")->find_jobs_by_tags(std::span<const model::JobTag>(m_tags.data(), 2), m_intent);
  EXPECT_EQ(batch.outcome, Outcome::ok) << batch.message;
  EXPECT_TRUE(batch.full_listing);
  EXPECT_TRUE(batch.searches[0].complete());
  EXPECT_TRUE(batch.searches[1].complete());
  EXPECT_EQ(count("/slurm/v0.0.38/jobs/state"), 0);
}

}  // namespace
}  // namespace tpslurm::slurm
