// slurmdbd job records: v0.0.38 as recorded from a real 22.05.8 with accounting
// (tests/slurm/recorded/), v0.0.4x in the shape of the generated OpenAPI document's
// `v0.0.45_job` (no transcript shows slurmdbd on 26.05).
#include <gtest/gtest.h>

#include "slurm/dialect.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;

using testing::recorded;

// Two records as v0.0.45 writes them (field names and shapes from openapi-v0.0.45.json).
constexpr char kV0045Records[] = R"J({
  "jobs": [
    {"job_id": 21, "name": "tp-prod-train-7-1",
     "comment": {"administrator": "", "job": "tuneplane:0b6f8c1e", "system": ""},
     "working_directory": "/shared/tuneplane/jobs/train-7/attempts/1", "partition": "gpu", "nodes": "vm",
     "state": {"current": ["FAILED"], "reason": "NonZeroExitCode"},
     "het": {"job_id": 21, "job_offset": {"set": true, "infinite": false, "number": 0}},
     "time": {"submission": 1796040000, "start": 1796040005, "end": 1796040065, "elapsed": 60},
     "tres": {"allocated": [{"type": "cpu", "name": "", "id": 1, "count": 16},
                            {"type": "mem", "name": "", "id": 2, "count": 65536},
                            {"type": "node", "name": "", "id": 4, "count": 2},
                            {"type": "gres", "name": "gpu:h100", "id": 1002, "count": 8},
                            {"type": "gres", "name": "gpu", "id": 1001, "count": 8}],
              "requested": [{"type": "cpu", "name": "", "id": 1, "count": 32}]},
     "exit_code": {"status": ["ERROR"], "return_code": {"set": true, "infinite": false, "number": 3},
                   "signal": {"id": {"set": false, "infinite": false, "number": 0}, "name": ""}},
     "restart_cnt": 0, "sluid": "sEE9M8P5KTGY07", "original_sluid": "sEE9M8P5KTGY00",
     "stdout_expanded": "/shared/tuneplane/jobs/train-7/attempts/1/logs/slurm-21.out", "stderr_expanded": ""},
    {"job_id": 22, "name": "tp-prod-train-7-1",
     "comment": {"administrator": "", "job": "", "system": ""},
     "working_directory": "/home/alice", "partition": "gpu", "nodes": "",
     "state": {"current": ["CANCELLED"], "reason": "None"},
     "het": {"job_id": 0, "job_offset": {"set": false, "infinite": false, "number": 0}},
     "time": {"submission": 1796040100, "start": 0, "end": 1796040200},
     "exit_code": {"status": ["SIGNALED"], "return_code": {"set": false, "infinite": false, "number": 0},
                   "signal": {"id": {"set": true, "infinite": false, "number": 15}, "name": "SIGTERM"}}}
  ],
  "meta": {"slurm": {"release": "26.05.3"}}, "errors": [], "warnings": []
})J";

TEST(SlurmdbdRecordsTest, V0045ReadsTheCommentWorkingDirectoryStateExitAndOriginalSluid) {
  const auto reply = make_dialect("v0.0.45")->decode_db_jobs(kV0045Records);
  ASSERT_TRUE(reply.ok()) << reply.error().message();
  ASSERT_EQ(reply->jobs.size(), 2u);
  const model::JobSnapshot& failed = reply->jobs[0];
  EXPECT_EQ(failed.job_id, 21u);
  EXPECT_EQ(failed.name, "tp-prod-train-7-1");
  EXPECT_EQ(failed.comment, "tuneplane:0b6f8c1e");
  EXPECT_EQ(failed.working_directory, "/shared/tuneplane/jobs/train-7/attempts/1");
  EXPECT_EQ(failed.sluid, "sEE9M8P5KTGY00") << "the original SLUID is the one slurmctld showed";
  EXPECT_EQ(failed.het_job_id, 21u);
  EXPECT_EQ(failed.het_job_offset, 0u);
  EXPECT_EQ(failed.state.base, SlurmBaseState::failed);
  EXPECT_EQ(failed.state_reason, "NonZeroExitCode");
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.submit_time, from_unix_seconds(1796040000));
  EXPECT_EQ(failed.end_time, from_unix_seconds(1796040065));
  const model::JobSnapshot& cancelled = reply->jobs[1];
  EXPECT_FALSE(cancelled.het_job_id);
  EXPECT_EQ(cancelled.exit_signal, 15);
  EXPECT_FALSE(cancelled.start_time);
}

TEST(SlurmdbdRecordsTest, TheAllocationIsWhatWasGivenNotWhatWasAsked) {
  const auto reply = make_dialect("v0.0.45")->decode_db_jobs(kV0045Records);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->jobs[0].allocation, (model::Allocation{60, 16, 65536, 2, 8}))
      << "the untyped gpu GRES, not it and its typed entry added";
  EXPECT_EQ(reply->jobs[1].allocation, model::Allocation{}) << "a job that never ran was given nothing";
  const auto real = make_dialect("v0.0.38")->decode_db_jobs(recorded("dbv0.0.38_jobs_single.json"));
  ASSERT_TRUE(real.ok());
  EXPECT_EQ(real->jobs[0].allocation, (model::Allocation{0, 1, 256, 1, 0})) << "22.05's null names and energy count";
}

TEST(SlurmdbdRecordsTest, OnlyV0045ReadsSluidsFromSlurmdbd) {
  EXPECT_EQ(make_dialect("v0.0.44")->decode_db_jobs(kV0045Records)->jobs.at(0).sluid, "");
  EXPECT_EQ(make_dialect("v0.0.43")->decode_db_jobs(kV0045Records)->jobs.at(0).sluid, "");
}

TEST(SlurmdbdRecordsTest, V0038ReadsARealRecordWithoutAStoredComment) {
  const auto reply = make_dialect("v0.0.38")->decode_db_jobs(recorded("dbv0.0.38_jobs_single.json"));
  ASSERT_TRUE(reply.ok()) << reply.error().message();
  ASSERT_EQ(reply->jobs.size(), 1u);
  const model::JobSnapshot& job = reply->jobs[0];
  EXPECT_EQ(job.job_id, 1u);
  EXPECT_EQ(job.name, "c2-probe-1");
  EXPECT_EQ(job.comment, "");
  EXPECT_EQ(job.working_directory, "/tmp");
  EXPECT_FALSE(job.het_job_id);
  EXPECT_EQ(job.state.base, SlurmBaseState::completed);
  EXPECT_EQ(job.submit_time, from_unix_seconds(1796045371));
  EXPECT_EQ(job.end_time, from_unix_seconds(1796045372));
  EXPECT_EQ(reply->release, "22.05.8");
}

// The job ran `exit 3`: FAILED in both records, while dbv0.0.38's exit code claims SUCCESS/0.
TEST(SlurmdbdRecordsTest, V0038ReadsBothComponentsOfARealHetjobAndTrustsNoExitCode) {
  const auto reply = make_dialect("v0.0.38")->decode_db_jobs(recorded("dbv0.0.38_jobs_hetjob.json"));
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->jobs.size(), 2u);
  for (std::uint32_t k = 0; k < 2; ++k) {
    const model::JobSnapshot& job = reply->jobs[k];
    EXPECT_EQ(job.job_id, 2 + k);
    EXPECT_EQ(job.het_job_id, 2u);
    EXPECT_EQ(job.het_job_offset, k);
    EXPECT_EQ(job.name, "tp-rec-het-1");
    EXPECT_EQ(job.state.base, SlurmBaseState::failed);
    EXPECT_FALSE(job.exit_code) << "22.05 reports SUCCESS for exit 3";
    EXPECT_FALSE(job.exit_signal);
  }
}

TEST(SlurmdbdRecordsTest, V0038NothingFoundIsAnEmptyListWithError9003) {
  const auto reply = make_dialect("v0.0.38")->decode_db_jobs(recorded("dbv0.0.38_jobs_nothing_found.json"));
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(reply->jobs.empty());
  ASSERT_EQ(reply->errors.size(), 1u);
  EXPECT_EQ(reply->errors[0].text(), "Nothing found with query (Nothing found) (error 9003)");
}

TEST(SlurmdbdRecordsTest, EachVersionWritesTheStartTimeItsServerParses) {
  EXPECT_EQ(make_dialect("v0.0.38")->db_jobs_path("tp-a-b-1", 1795958977),
            "/slurmdb/v0.0.38/jobs?job_name=tp-a-b-1&start_time=uts1795958977");
  EXPECT_EQ(make_dialect("v0.0.45")->db_jobs_path("tp-a-b-1", 1795958977),
            "/slurmdb/v0.0.45/jobs?job_name=tp-a-b-1&start_time=1795958977");
  EXPECT_EQ(make_dialect("v0.0.45")->db_jobs_path("we ird,name", 1),
            "/slurmdb/v0.0.45/jobs?job_name=we%20ird%2Cname&start_time=1");
}

TEST(SlurmdbdRecordsTest, DiagGivesTheServersTimeInEitherForm) {
  const auto v38 = make_dialect("v0.0.38")->decode_diag(testing::transcript_v0038("diag").response_body);
  ASSERT_TRUE(v38.ok());
  EXPECT_EQ(v38->request_time, 1796039034);
  const auto v45 = make_dialect("v0.0.45")->decode_diag(
      R"({"statistics":{"req_time":{"set":true,"infinite":false,"number":1796040000}},"errors":[],"warnings":[]})");
  ASSERT_TRUE(v45.ok());
  EXPECT_EQ(v45->request_time, 1796040000);
  EXPECT_FALSE(make_dialect("v0.0.45")->decode_diag(R"({"errors":[]})").ok());
}

}  // namespace
}  // namespace tpslurm::slurm
