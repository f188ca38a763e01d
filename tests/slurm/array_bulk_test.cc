// bulk_state of job arrays against canned answers: 22.05's listing (the real
// arrays-v0.0.38/10_jobs_with_array) expanded per pending task, a cut array_task_string
// reported as incomplete, and v0.0.4x jobs/state entries settled to the master asked, with one
// more call per array only when one answer held several arrays' split tasks.
#include <gtest/gtest.h>

#include <array>

#include "fake_transport.h"
#include "slurm/bulk_state.h"
#include "slurm/rest_client.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;

std::string states_answer(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string body = R"({"jobs":[)";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    body += (i ? "," : "") + std::string(R"({"job_id":")") + entries[i].first + R"(","state":[")" +
            entries[i].second + R"("]})";
  }
  return body + R"(],"meta":{"slurm":{"release":"26.05.3"}},"errors":[],"warnings":[]})";
}

// A 22.05 listing of one meta record (master 30) whose pending tasks are `task_string`.
std::string listing38(const std::string& task_string) {
  return R"({"meta":{"Slurm":{"release":"22.05.8"}},"errors":[],"jobs":[{"job_id":30,"array_job_id":30,)"
         R"("array_task_id":null,"array_max_tasks":0,"array_task_string":")" +
         task_string + R"(","job_state":"PENDING","name":"a"}]})";
}

class ArrayBulkTest : public ::testing::Test {
 protected:
  std::unique_ptr<RestClient> client(std::string version) {
    RestClientOptions options;
    options.clock = &m_clock;
    auto made = RestClient::create(m_transport, m_tokens, std::move(version), options);
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }
  ManualClock m_clock{from_unix_seconds(1796040000)};
  testing::FakeTransport m_transport;
  testing::StaticTokenSource m_tokens;
};

TEST_F(ArrayBulkTest, TheReal2205ListingGivesEveryTaskOfTheAskedMaster) {
  m_transport.answer("/slurm/v0.0.38/jobs",
                     200, testing::fixture("arrays-v0.0.38/10_jobs_with_array.response.json"));
  const std::array<std::uint32_t, 1> ids{9};
  const BulkStateResult result = client("v0.0.38")->bulk_state(ids);
  ASSERT_TRUE(result.ok()) << result.message;
  ASSERT_EQ(result.states.size(), 4u);
  std::vector<std::vector<std::uint32_t>> seen;  // {task, job id}
  for (const auto& entry : result.states) {
    EXPECT_EQ(entry.array_job_id, 9u);
    ASSERT_TRUE(entry.array_task_id);
    seen.push_back({*entry.array_task_id, entry.job_id});
    EXPECT_EQ(entry.state.base, entry.job_id == 9 ? SlurmBaseState::pending : SlurmBaseState::running);
  }
  // "2-3%2" pending under the master; tasks 0 and 1 split off as jobs 10 and 11.
  EXPECT_EQ(seen, (std::vector<std::vector<std::uint32_t>>{{2, 9}, {3, 9}, {0, 10}, {1, 11}}));
  EXPECT_TRUE(result.incomplete_arrays.empty());
  EXPECT_TRUE(result.not_reported.empty());
  EXPECT_EQ(result.records.size(), 3u);
}

TEST_F(ArrayBulkTest, ACutTaskStringMakesTheArrayIncompleteNotAbsent) {
  m_transport.answer("/slurm/v0.0.38/jobs", 200,
                     listing38("0,2-3,5-6,8-9,11-12,14-15,17-18,20-21,23-24,26-27,29-30,32-33,35-...%4"));
  const std::array<std::uint32_t, 1> ids{30};
  const BulkStateResult result = client("v0.0.38")->bulk_state(ids);
  ASSERT_TRUE(result.ok()) << result.message;
  EXPECT_EQ(result.incomplete_arrays, std::vector<std::uint32_t>{30});
  ASSERT_FALSE(result.states.empty());
  EXPECT_EQ(result.states.back().array_task_id, 33u) << "the cut item \"35-\" is not guessed";
  EXPECT_TRUE(result.not_reported.empty());
}

TEST_F(ArrayBulkTest, AMetaRecordWithoutPendingTasksIsOneEntry) {
  m_transport.answer("/slurm/v0.0.38/jobs", 200, listing38(""));
  const std::array<std::uint32_t, 1> ids{30};
  const BulkStateResult result = client("v0.0.38")->bulk_state(ids);
  ASSERT_EQ(result.states.size(), 1u);
  EXPECT_EQ(result.states[0].array_job_id, 30u);
  EXPECT_FALSE(result.states[0].array_task_id);
}

TEST_F(ArrayBulkTest, OneArrayInACallIsSettledFromThatCall) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=5&job_id=20", 200,
                     states_answer({{"5", "RUNNING"}, {"20_2", "PENDING"}, {"20_3", "PENDING"}, {"22_0", "RUNNING"},
                                    {"21_1", "RUNNING"}}));
  const std::array<std::uint32_t, 2> ids{5, 20};
  const BulkStateResult result = client("v0.0.45")->bulk_state(ids);
  ASSERT_TRUE(result.ok()) << result.message;
  EXPECT_EQ(result.calls, 1);
  ASSERT_EQ(result.states.size(), 5u);
  EXPECT_FALSE(result.states[0].array_job_id) << "job 5 is a plain job";
  for (std::size_t i = 1; i < result.states.size(); ++i) EXPECT_EQ(result.states[i].array_job_id, 20u);
  EXPECT_EQ(result.states[3].job_id, 21u);
  EXPECT_EQ(result.states[3].array_task_id, 1u);
}

TEST_F(ArrayBulkTest, SplitTasksOfSeveralArraysAreToldApartByAskingEachMasterAlone) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=20&job_id=30", 200,
                     states_answer({{"20_2", "PENDING"}, {"22_0", "RUNNING"}, {"30_1", "PENDING"}, {"31_0", "RUNNING"}}));
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=20", 200, states_answer({{"20_2", "PENDING"}, {"22_0", "RUNNING"}}));
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=30", 200, states_answer({{"30_1", "PENDING"}, {"31_0", "RUNNING"}}));
  const std::array<std::uint32_t, 2> ids{20, 30};
  const BulkStateResult result = client("v0.0.45")->bulk_state(ids);
  ASSERT_TRUE(result.ok()) << result.message;
  EXPECT_EQ(result.calls, 3);
  ASSERT_EQ(result.states.size(), 4u);
  for (const auto& entry : result.states) {
    const std::uint32_t master = entry.job_id < 30 ? 20 : 30;
    EXPECT_EQ(entry.array_job_id, master) << entry.job_id;
  }
}

TEST_F(ArrayBulkTest, AMasterThatCouldNotBeAskedAloneIsUnanswered) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=20&job_id=30", 200,
                     states_answer({{"20_2", "PENDING"}, {"22_0", "RUNNING"}, {"30_1", "PENDING"}, {"31_0", "RUNNING"}}));
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=20", 200, states_answer({{"20_2", "PENDING"}, {"22_0", "RUNNING"}}));
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=30", 502, "");
  const std::array<std::uint32_t, 2> ids{20, 30};
  const BulkStateResult result = client("v0.0.45")->bulk_state(ids);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.unanswered, std::vector<std::uint32_t>{30});
  EXPECT_TRUE(result.not_reported.empty()) << "30 is unknown, not gone";
  ASSERT_EQ(result.states.size(), 2u);
  for (const auto& entry : result.states) EXPECT_EQ(entry.array_job_id, 20u);
}

}  // namespace
}  // namespace tpslurm::slurm
