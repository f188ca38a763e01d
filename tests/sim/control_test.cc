// The control API: stepping jobs, the clock, bulk creation, stats, and its errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "json_shape.h"
#include "sim_harness.h"
#include "transcripts.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

TEST(Control, StepsALeaderWithAllItsComponentsOrOneComponent) {
  SimOptions options = test_options();
  SimInstance sim(options);
  std::string het = R"({"script": "#!/bin/bash\n", "jobs": [{"environment": ["A=1"]}, {"environment": ["A=1"]}]})";
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", het).status, 200);
  EXPECT_EQ(control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})").at("jobs").as_array().size(), 2u);
  control(sim, "POST", "/sim/jobs/2/state", R"({"state": "OUT_OF_MEMORY"})");
  EXPECT_EQ(job_states(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json()),
            (std::vector<std::string>{"RUNNING", "OUT_OF_MEMORY"}));
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "CANCELLED", "signal": "SIGINT", "component_only": true})");
  json::value summary = control(sim, "GET", "/sim/jobs/1");
  EXPECT_EQ(summary.at("signal").to_number<int>(), 2);
}

TEST(Control, RefusesStepsSlurmWouldNotTakeAndNamesTheFix) {
  SimInstance sim(test_options());
  EXPECT_EQ(control_raw(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})").json().at("error"),
            "job 1 is not in slurmctld (never submitted or already purged)");
  control(sim, "POST", "/sim/jobs/bulk", R"({"count": 1, "state": "COMPLETED"})");
  HttpResult back = control_raw(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  EXPECT_EQ(back.status, 409);
  EXPECT_EQ(back.json().at("error"), "job 1 already finished (COMPLETED); requeue it first");
  HttpResult bad = control_raw(sim, "POST", "/sim/jobs/1/state", R"({"state": "DONE"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(control_raw(sim, "POST", "/sim/jobs/1/state", "{}").json().at("error"),
            "give \"state\", \"completing\", \"reason\", \"expected_start\" or \"auto_progress\"");
  HttpResult no_estimate = control_raw(sim, "POST", "/sim/jobs/1/state", R"({"expected_start": 1800000000})");
  EXPECT_EQ(no_estimate.status, 409);
  EXPECT_EQ(no_estimate.json().at("error"), "job 1 is COMPLETED; only a pending job has an expected start");
  EXPECT_EQ(control_raw(sim, "POST", "/sim/clock/advance", R"({"ms": -5})").json().at("error"),
            "\"ms\"/\"seconds\" must not be negative: the clock never goes back");
  EXPECT_EQ(control_raw(sim, "GET", "/sim/nope").status, 404);
}

TEST(Control, RealTimeClockCannotBeMoved) {
  SimOptions options = test_options();
  options.manual_clock = false;
  SimInstance sim(options);
  HttpResult r = control_raw(sim, "POST", "/sim/clock/advance", R"({"seconds": 1})");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.json().at("error"), "the clock follows real time; start with --manual-clock to move it");
}

TEST(Control, BulkCreatesJobsWithoutRestAndAdvanceMovesSomeOfThem) {
  SimOptions options = test_options();
  SimInstance sim(options);
  json::value made =
      control(sim, "POST", "/sim/jobs/bulk", R"({"count": 500, "name_prefix": "b-", "het_components": 2})");
  EXPECT_EQ(made.at("first_job_id").to_number<int>(), 1);
  EXPECT_EQ(made.at("last_job_id").to_number<int>(), 1000);
  json::value moved = control(sim, "POST", "/sim/jobs/advance", R"({"count": 3, "from": "PENDING", "to": "RUNNING"})");
  EXPECT_EQ(moved.at("changed"), (json::array{1, 2, 3}));
  json::value stats = control(sim, "GET", "/sim/stats");
  EXPECT_EQ(stats.at("jobs_in_controller").to_number<int>(), 1000);
  EXPECT_EQ(stats.at("submits_received").to_number<int>(), 0);  // no REST involved
}

TEST(Control, BulkGivesEachJobItsOwnNameCommentAndDirectoryWhenListed) {
  SimInstance sim(test_options());
  control(sim, "POST", "/sim/jobs/bulk",
          R"({"count": 2, "het_components": 2, "names": ["tp-a-j1-1", "tp-a-j2-1"],
              "comments": ["tuneplane:t1", "tuneplane:t2"], "working_directories": ["/s/j1/1", "/s/j2/1"]})");
  json::value second = control(sim, "GET", "/sim/jobs/4");  // job 2's second component
  EXPECT_EQ(second.at("name"), "tp-a-j2-1");
  EXPECT_EQ(second.at("comment"), "tuneplane:t2");
  EXPECT_EQ(second.at("current_working_directory"), "/s/j2/1");
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/1").at("name"), "tp-a-j1-1");

  HttpResult short_list = control_raw(sim, "POST", "/sim/jobs/bulk", R"({"count": 3, "names": ["a", "b"]})");
  EXPECT_EQ(short_list.status, 400);
  EXPECT_EQ(short_list.json().at("error"), "\"names\" has 2 entries for 3 jobs; give one per job or leave it out");
  EXPECT_EQ(control_raw(sim, "POST", "/sim/jobs/bulk", R"({"count": 1, "comments": [1]})").json().at("error"),
            "\"comments\" must be an array of strings, one per job");
}

TEST(Control, ArchiveListsEveryRecordEverCreatedAlsoAfterAnIdReset) {
  SimInstance sim(test_options());
  control(sim, "POST", "/sim/jobs/bulk", R"({"count": 2, "state": "COMPLETED", "names": ["a", "b"]})");
  control(sim, "POST", "/sim/ids/reset", R"({"next_id": 2, "forget_jobs": true})");
  control(sim, "POST", "/sim/jobs/bulk", R"({"count": 1, "names": ["c"]})");
  const json::value archive = control(sim, "GET", "/sim/archive");
  const json::array& jobs = archive.at("jobs").as_array();
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[1].at("job_id").to_number<int>(), 2);
  EXPECT_EQ(jobs[1].at("name"), "b");
  EXPECT_EQ(jobs[1].at("in_controller"), false);
  EXPECT_EQ(jobs[2].at("job_id").to_number<int>(), 2);
  EXPECT_EQ(jobs[2].at("name"), "c");
  EXPECT_EQ(jobs[2].at("state"), "PENDING");
  EXPECT_EQ(jobs[2].at("in_controller"), true);
  EXPECT_GT(jobs[0].at("start_time").to_number<std::int64_t>(), 0);
}

TEST(Control, StatsCountRoutesBytesAndConnections) {
  SimOptions options = test_options();
  SimInstance sim(options);
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  for (int i = 0; i < 3; ++i) client.request("GET", sim.url("/slurm/v0.0.45/job/" + std::to_string(i + 1)), req);
  json::value stats = control(sim, "GET", "/sim/stats");
  EXPECT_EQ(stats.at("requests_by_route").at("GET /slurm/v0.0.45/job/{job_id}").to_number<int>(), 3);
  EXPECT_GT(stats.at("bytes_in").to_number<std::int64_t>(), 0);
  EXPECT_GT(stats.at("bytes_out").to_number<std::int64_t>(), 0);
  // 404s close the connection, as slurmrestd does: three connections, plus the one above.
  EXPECT_EQ(stats.at("connections").to_number<int>(), 4);
  control(sim, "POST", "/sim/stats/reset");
  EXPECT_EQ(control(sim, "GET", "/sim/stats").at("requests").to_number<int>(), 1);
}

TEST(Control, TimingCanBeSwitchedAtRunTime) {
  SimOptions options = test_options();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", simple_job()).status, 200);
  control(sim, "POST", "/sim/timing", R"({"mode": "auto", "pending": "1s", "running": "inf", "completing_ms": 0})");
  control(sim, "POST", "/sim/clock/advance", R"({"seconds": 1})");
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/1").at("state"), "PENDING");  // scheduled before the switch
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", simple_job()).status, 200);
  control(sim, "POST", "/sim/clock/advance", R"({"seconds": 100})");
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/2").at("state"), "RUNNING");
}

TEST(Control, AJobKeptFromMovingStaysUntilItIsSteppedOrCancelled) {
  SimOptions options = test_options();
  SimInstance sim(options);
  control(sim, "POST", "/sim/timing", R"({"mode": "auto", "pending": "1s", "running": "2s", "completing": "1s"})");
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", simple_job()).status, 200);
  }
  control(sim, "POST", "/sim/clock/advance", R"({"seconds": 1})");
  // Job 1 runs until it is cancelled; job 2 stays COMPLETING: what a job the explorer cancels
  // with a grace, and one whose epilog never ends, need.
  control(sim, "POST", "/sim/jobs/1/state", R"({"auto_progress": false})");
  control(sim, "POST", "/sim/jobs/2/state", R"({"auto_progress": false, "state": "COMPLETED", "completing": true})");
  control(sim, "POST", "/sim/clock/advance", R"({"seconds": 600})");
  json::value running = control(sim, "GET", "/sim/jobs/1");
  EXPECT_EQ(running.at("state"), "RUNNING");
  EXPECT_EQ(running.at("auto_progress"), false);
  EXPECT_EQ(job_states(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/2").json()),
            (std::vector<std::string>{"COMPLETED,COMPLETING"}));
  ASSERT_EQ(slurm_call(sim, options, "DELETE", "/slurm/v0.0.45/job/1").status, 200);
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/1").at("state"), "CANCELLED");
  EXPECT_EQ(control_raw(sim, "POST", "/sim/jobs/1/state", R"({"auto_progress": 1})").status, 400);
}

// Every transcript in tests/fixtures/slurm is either replayed by the conformance tests
// or listed here with the reason it is not; a new transcript fails this test until it is
// placed in one of the lists.
TEST(Control, EveryTranscriptIsReplayedOrListedWithAReason) {
  const std::set<std::string> not_replayed = {
      "samples-v0.0.38/get_nodes.txt",  // GET /nodes: node list the simulator does not serve
  };
  // Whole directories the conformance tests do not replay yet: the real 23.11.11 and 24.11.7
  // transcripts, which the client's tests read (tests/slurm/real_releases_test.cc); the
  // simulator's answers for those releases are held to the OpenAPI documents those servers
  // served (SchemaTest in openapi_schema_test.cc) and to the facts of tests/sim/releases_test.cc.
  const std::set<std::string> directories_not_replayed = {"samples-v0.0.40/", "samples-v0.0.42/"};
  std::set<std::string> replayed_sources;
  for (const char* file : {"conformance_v45_test.cc", "conformance_v38_test.cc", "conformance_arrays_v38_test.cc"}) {
    replayed_sources.insert(read_file(std::string(TP_SOURCE_DIR) + "/tests/sim/" + file));
  }
  std::string sources;
  for (const auto& s : replayed_sources) sources += s;
  int replayed = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(fixture_dir())) {
    std::string path = entry.path().string().substr(fixture_dir().size() + 1);
    if (directories_not_replayed.count(path.substr(0, path.find('/') + 1))) continue;
    std::string name = entry.path().filename().string();
    std::string stem;
    if (name.size() > 14 && name.substr(name.size() - 14) == ".response.json") {
      const std::size_t dir = path.find('/') + 1;  // "samples-v0.0.45/", "arrays-v0.0.38/"
      stem = path.substr(dir, path.size() - 14 - dir);
    } else if (path.rfind("samples-v0.0.38/", 0) == 0 && name.size() > 4 && name.substr(name.size() - 4) == ".txt") {
      stem = name.substr(0, name.size() - 4);
    } else {
      continue;
    }
    if (not_replayed.count(path)) continue;
    const bool named =
        sources.find("\"" + stem + "\"") != std::string::npos || sources.find(stem + ".txt\"") != std::string::npos;
    EXPECT_TRUE(named) << path << " is neither replayed nor listed";
    ++replayed;
  }
  // 54 v0.0.4x exchanges, 55 v0.0.38 files, 17 exchanges of the 22.05.8 array session.
  EXPECT_EQ(replayed + static_cast<int>(not_replayed.size()), 54 + 55 + 17);
}

}  // namespace
}  // namespace tpslurm::sim::test
