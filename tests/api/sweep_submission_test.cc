// operations::submit_sweep: the sweep's jobs go through the commit path given (the daemon's
// journal writer under `serve`) in one commit, a failed commit journals none of them, and in
// per-user mode every run counts toward the user's max_live_jobs (429 from the API).
#include "operations/sweep_submission.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "api_fixture.h"
#include "model/sweep_request.h"
#include "storage/secret_key.h"
#include "support/fault_vfs.h"

namespace tpslurm::api::testing {
namespace {

using operations::SweepSubmission;
using tpslurm::testing::FaultMode;
using tpslurm::testing::FaultPlan;
using tpslurm::testing::FaultVfs;

class SweepSubmissionTest : public ApiFixture {
 protected:
  void SetUp() override {
    start();
    auto gpu = model::GpuSeriesCatalog::parse(tpslurm::testing::read_test_file(settings.gpu_series_file), "gpu");
    auto runtimes =
        model::RuntimeRegistry::parse(tpslurm::testing::read_test_file(settings.runtime_registry_file), "runtimes");
    ASSERT_TRUE(gpu.ok() && runtimes.ok());
    m_catalogs = std::make_unique<model::Catalogs>(model::Catalogs{std::move(*gpu), std::move(*runtimes)});
    auto key = storage::load_state_key(settings.state_dir);
    ASSERT_TRUE(key.ok());
    m_key = *key;
  }

  // The example sweep, its id and its runs' ids carrying `prefix`.
  SweepSubmission sweep(const std::string& prefix) {
    const std::string text =
        replaced(replaced(replaced(replaced(tpslurm::testing::read_test_file(source("etc/sweep.example.json")),
                                            "\"lr-sweep-3\"", "\"" + prefix + "\""),
                                   "\"lr-sweep-3-0\"", "\"" + prefix + "-0\""),
                          "\"lr-sweep-3-1\"", "\"" + prefix + "-1\""),
                 "\"lr-sweep-3-2\"", "\"" + prefix + "-2\"");
    auto parsed =
        model::parse_sweep_request(text, {m_catalogs->gpu_series, m_catalogs->runtimes, settings.runtime_profile});
    EXPECT_TRUE(parsed.ok()) << parsed.error().to_text();
    return {*parsed, {}, "alice"};
  }

  std::unique_ptr<model::Catalogs> m_catalogs;
  std::string m_key;
};

TEST_F(SweepSubmissionTest, TheSweepIsOneCommitThroughTheCommitPathGivenNamingEveryJob) {
  auto journal = open_journal();
  auto writer = open_journal();
  std::vector<std::vector<std::string>> commits;
  const operations::CommitThrough through = [&](const auto& change, std::vector<std::string> job_ids) -> Status {
    commits.push_back(job_ids);
    if (Status began = writer->begin_group(); !began.ok()) return began;
    Status changed = change(*writer);
    Status ended = writer->end_group();
    return changed.ok() ? ended : changed;
  };
  auto submitted = operations::submit_sweep(*journal, settings, sweep("sw-a"), m_key, through);
  ASSERT_TRUE(submitted.ok()) << submitted.error().message();
  EXPECT_EQ(submitted->outcome, model::SubmitOutcome::created);
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_EQ(commits[0], (std::vector<std::string>{"sw-a-0", "sw-a-1", "sw-a-2"}));
  EXPECT_EQ((*journal->sweep("sw-a"))->runs.size(), 3u);

  auto again = operations::submit_sweep(*journal, settings, sweep("sw-a"), m_key, through);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outcome, model::SubmitOutcome::unchanged);
  EXPECT_EQ(commits.size(), 1u) << "the same sweep again commits nothing";
}

TEST_F(SweepSubmissionTest, AFailedCommitJournalsNoRunAndTheSweepCanBeSentAgain) {
  FaultVfs& vfs = FaultVfs::install();
  auto journal = open_journal();
  vfs.watch(settings.journal_path);
  vfs.reset();
  ASSERT_TRUE(operations::submit_sweep(*journal, settings, sweep("first"), m_key).ok());
  vfs.reset();  // a sweep like the failing one below, on a warm cache: the same calls
  ASSERT_TRUE(operations::submit_sweep(*journal, settings, sweep("probe"), m_key).ok());
  const std::int64_t calls = vfs.calls();  // the last of them is the commit's sync
  vfs.reset();
  vfs.arm(FaultPlan{calls, FaultMode::always});
  const auto failed = operations::submit_sweep(*journal, settings, sweep("sw-b"), m_key);
  vfs.clear();
  vfs.watch("");
  ASSERT_GE(vfs.failures(), 1);
  EXPECT_FALSE(failed.ok());
  auto reader = open_journal();
  EXPECT_FALSE(reader->sweep("sw-b")->has_value());
  for (const char* id : {"sw-b-0", "sw-b-1", "sw-b-2"}) EXPECT_FALSE(reader->job(id)->has_value()) << id;
  const auto again = operations::submit_sweep(*journal, settings, sweep("sw-b"), m_key);
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(again->outcome, model::SubmitOutcome::created);
}

TEST_F(SweepSubmissionTest, InPerUserModeEveryRunCountsTowardTheUsersLimit) {
  stop();
  tpslurm::testing::write_test_file(dir.file("users.json"), R"({"users": {
      "alice": {"unix_user": "daemon", "accounts": ["ml-team"], "qos": ["normal"], "max_live_jobs": 4}}})");
  env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
  env["TUNEPLANE_USER_MAP_FILE"] = dir.file("users.json");
  env["TUNEPLANE_FIRST_USER_ID"] = "1";
  start();
  const std::string base_user = "\"type\": \"custom\",";
  const std::string as_alice = "\"type\": \"custom\", \"user\": \"alice\",";
  const std::string first = replaced(tpslurm::testing::read_test_file(source("etc/sweep.example.json")), base_user,
                                     as_alice);
  const auto created = call("POST", "/v1/sweeps", kAliceToken, first);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string second = replaced(replaced(replaced(replaced(first, "\"lr-sweep-3\"", "\"next\""), "\"lr-sweep-3-0\"",
                                                        "\"next-0\""),
                                               "\"lr-sweep-3-1\"", "\"next-1\""),
                                      "\"lr-sweep-3-2\"", "\"next-2\"");
  const auto refused = call("POST", "/v1/sweeps", kAliceToken, second);
  ASSERT_EQ(refused.status, 429) << refused.body;
  EXPECT_EQ(boost::json::parse(refused.body).at("error"), "too_many_live_jobs");
  EXPECT_NE(refused.body.find("this sweep's 3 runs would exceed that"), std::string::npos) << refused.body;
  EXPECT_FALSE(std::filesystem::exists(env["TUNEPLANE_STORAGE_ROOT"] + "/slurm/jobs/next-0")) << "no credential written";
  EXPECT_EQ((*open_journal()->job("lr-sweep-3-0"))->unix_user, "daemon");
}

}  // namespace
}  // namespace tpslurm::api::testing
