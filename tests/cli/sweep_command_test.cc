// `submit --sweep` and `status --sweep`, the real binary: the example sweep is valid against the
// example catalogs and journals one job per run, idempotently; an invalid sweep lists every
// problem and exits 2; the sweep is shown run by run.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "base/crash_point.h"
#include "cli_fixture.h"

namespace tpslurm::cli {
namespace {

using SweepCommandTest = CliFixture;

TEST_F(SweepCommandTest, TheExampleSweepIsSubmittedOnceAndShownRunByRun) {
  const auto created = cli({"submit", "--sweep", source("etc/sweep.example.json")});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out.find("sweep lr-sweep-3: submitted 3 runs (queued); request sha256 "), 0u) << created.out;
  const auto again = cli({"submit", "--sweep", source("etc/sweep.example.json"), "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto answer = boost::json::parse(again.out).as_object();
  EXPECT_EQ(answer.at("outcome"), "unchanged");
  EXPECT_EQ(answer.at("job_ids"), (boost::json::array{"lr-sweep-3-0", "lr-sweep-3-1", "lr-sweep-3-2"}));

  const auto shown = cli({"status", "--sweep", "lr-sweep-3"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out.find("sweep lr-sweep-3: 3 runs, at most 2 at once, submitted "), 0u) << shown.out;
  EXPECT_NE(shown.out.find("runs: 3 queued\n"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("lr-sweep-3-2"), std::string::npos);
  const auto job = cli({"status", "lr-sweep-3-1"});
  EXPECT_EQ(job.exit_code, 0) << "each run is a job of its own: " << job.err;
  EXPECT_EQ(cli({"status", "--sweep", "nope"}).exit_code, cli({"status", "nope"}).exit_code) << "as for a job";
}

TEST_F(SweepCommandTest, AnInvalidSweepListsEveryProblemAndExitsTwo) {
  std::string text = testing::read_test_file(source("etc/sweep.example.json"));
  text.replace(text.find("\"max_running\": 2"), 16, "\"max_running\": 9");
  text.replace(text.find("\"job_id\": \"lr-sweep-3-2\""), 24, "\"job_id\": \"lr-sweep-3-0\"");
  const std::string path = dir.file("sweep.json");
  testing::write_test_file(path, text);
  const auto refused = cli({"submit", "--sweep", path});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("max_running 9: is more than the sweep's 3 runs"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("runs[2].job_id \"lr-sweep-3-0\": is the job_id of runs[0] too"), std::string::npos)
      << refused.err;
}

// A crash once the runs' credentials are durable but before the sweep's commit, or after the
// commit but before the answer: the same sweep sent again is journaled (or found journaled).
TEST_F(SweepCommandTest, ASweepThatCrashedIsSafeToSendAgain) {
  const std::string sweep = source("etc/sweep.example.json");
  env["TUNEPLANE_CRASH_AT"] = "submit_sweep.after_credentials";
  ASSERT_EQ(cli({"submit", "--sweep", sweep}).exit_code, kCrashExitCode);
  EXPECT_EQ(testing::read_test_file(dir.file("storage/slurm/jobs/lr-sweep-3-1/credentials/ingest_token")),
            "example-ingest-token-1-replace-me");
  EXPECT_NE(cli({"status", "--sweep", "lr-sweep-3"}).exit_code, 0) << "nothing journaled";
  env["TUNEPLANE_CRASH_AT"] = "submit_sweep.after_commit";
  ASSERT_EQ(cli({"submit", "--sweep", sweep}).exit_code, kCrashExitCode);
  env.erase("TUNEPLANE_CRASH_AT");
  const auto found = cli({"submit", "--sweep", sweep});
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_EQ(found.out, "sweep lr-sweep-3: already submitted with this request; nothing changed\n");
}

}  // namespace
}  // namespace tpslurm::cli
