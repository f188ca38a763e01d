// Job lifecycle: automatic timings on the simulated clock, manual steps, purge after
// MinJobAge (slurmctld forgets, slurmdbd keeps), job ids restarting after a controller
// lost its state, het job records, per-component requeue, SLUIDs per run, DELETE codes
// and update_time bookkeeping.
#include <gtest/gtest.h>

#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

constexpr char kSubmitTarget[] = "/slurm/v0.0.45/job/submit";

std::string state_of(const SimInstance& sim, const SimOptions& options, int id, const std::string& v = "v0.0.45") {
  json::value body = slurm_call(sim, options, "GET", "/slurm/" + v + "/job/" + std::to_string(id)).json();
  std::vector<std::string> states = job_states(body);
  return states.empty() ? "<none>" : states.front();
}

void advance_ms(const SimInstance& sim, std::int64_t ms) {
  control(sim, "POST", "/sim/clock/advance", "{\"ms\": " + std::to_string(ms) + "}");
}

TEST(Lifecycle, JobsMoveThroughTheirStatesOnConfiguredTimings) {
  SimOptions options = test_options();
  options.timing = Timing{true, 1000, 2000, 1000};
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, simple_job("ok")).status, 200);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, simple_job("bad", "#!/bin/bash\necho x\nexit 3\n")).status, 200);
  EXPECT_EQ(state_of(sim, options, 1), "PENDING");
  advance_ms(sim, 1000);
  EXPECT_EQ(state_of(sim, options, 1), "RUNNING");
  advance_ms(sim, 2000);
  EXPECT_EQ(state_of(sim, options, 1), "COMPLETED,COMPLETING");
  EXPECT_EQ(state_of(sim, options, 2), "FAILED,COMPLETING");
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.38/job/1").status, 404);  // not served by 26.05
  advance_ms(sim, 1000);
  EXPECT_EQ(state_of(sim, options, 1), "COMPLETED");
  json::value failed = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/2").json();
  EXPECT_EQ(failed.at("jobs").at(0).at("exit_code").at("return_code").at("number").to_number<int>(), 3);
  EXPECT_EQ(failed.at("jobs").at(0).at("state_reason"), "NonZeroExitCode");
}

TEST(Lifecycle, V0038ShowsCompletingInsteadOfTheBaseState) {
  SimOptions options = test_options(Release::r22_05_8);
  options.timing = Timing{true, 0, 1000, 5000};
  SimInstance sim(options);
  std::string body = R"({"script": "#!/bin/bash\ntrue\n", "job": {"environment": {"PATH": "/bin"}}})";
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/submit", body).status, 200);
  advance_ms(sim, 1000);
  json::value job = slurm_call(sim, options, "GET", "/slurm/v0.0.38/job/1").json();
  EXPECT_EQ(job.at("jobs").at(0).at("job_state"), "COMPLETING");
  advance_ms(sim, 5000);
  job = slurm_call(sim, options, "GET", "/slurm/v0.0.38/job/1").json();
  EXPECT_EQ(job.at("jobs").at(0).at("job_state"), "COMPLETED");
}

TEST(Lifecycle, FinishedJobsArePurgedAfterMinJobAgeButStayInAccounting) {
  SimOptions options = test_options();
  options.min_job_age_s = 10;
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, simple_job("purge-me")).status, 200);
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "COMPLETED", "completing": true})");
  advance_ms(sim, 60'000);  // still COMPLETING: MinJobAge has not started
  EXPECT_EQ(state_of(sim, options, 1), "COMPLETED,COMPLETING");
  control(sim, "POST", "/sim/jobs/1/state", R"({"completing": false})");
  advance_ms(sim, 9'999);
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").status, 200);
  advance_ms(sim, 1);
  HttpResult gone = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1");
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(error_numbers(gone.json()), (std::vector<std::int64_t>{2017}));
  EXPECT_TRUE(slurm_call(sim, options, "GET", "/slurm/v0.0.45/jobs").json().at("jobs").as_array().empty());
  json::value dbd = slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/job/1").json();
  ASSERT_EQ(dbd.at("jobs").as_array().size(), 1u);
  EXPECT_EQ(dbd.at("jobs").at(0).at("name"), "purge-me");
  EXPECT_EQ(dbd.at("jobs").at(0).at("state").at("current").at(0), "COMPLETED");
}

TEST(Lifecycle, JobIdsRestartFromOneWhenTheControllerLostItsState) {
  SimOptions options = test_options();
  SimInstance sim(options);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, simple_job("before")).status, 200);
  json::value reset = control(sim, "POST", "/sim/ids/reset", R"({"next_id": 1})");
  EXPECT_EQ(reset.at("jobs_in_controller").to_number<int>(), 0);
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/2").status, 404);
  HttpResult again = slurm_call(sim, options, "POST", kSubmitTarget, simple_job("after"));
  EXPECT_EQ(again.json().at("job_id").to_number<int>(), 1);
  // slurmdbd now holds two different job 1s.
  json::value dbd = slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/job/1").json();
  ASSERT_EQ(dbd.at("jobs").as_array().size(), 2u);
  EXPECT_EQ(dbd.at("jobs").at(0).at("name"), "before");
  EXPECT_EQ(dbd.at("jobs").at(1).at("name"), "after");
}

TEST(Lifecycle, AHetJobIsOneRecordPerComponentAndCanBeAddressedByComponent) {
  SimOptions options = test_options();
  SimInstance sim(options);
  std::string body = R"({"script": "#!/bin/bash\ntrue\n", "jobs": [
      {"name": "het", "environment": ["A=1"]}, {"name": "het", "environment": ["A=1"]}, {"name": "het"}]})";
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, body).json().at("job_id").to_number<int>(), 1);
  json::value leader = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json();
  ASSERT_EQ(leader.at("jobs").as_array().size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const json::value& c = leader.at("jobs").at(k);
    EXPECT_EQ(c.at("job_id").to_number<int>(), 1 + k);
    EXPECT_EQ(c.at("het_job_id").at("number").to_number<int>(), 1);
    EXPECT_EQ(c.at("het_job_offset").at("number").to_number<int>(), k);
    EXPECT_EQ(c.at("het_job_id_set"), "1-3");
  }
  EXPECT_NE(leader.at("jobs").at(0).at("step_id").at("sluid"), leader.at("jobs").at(1).at("step_id").at("sluid"));
  json::value component = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1%2B2").json();
  ASSERT_EQ(component.at("jobs").as_array().size(), 1u);
  EXPECT_EQ(component.at("jobs").at(0).at("job_id").to_number<int>(), 3);
  // A literal "+" is not a valid URL path character.
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1+2").status, 404);
  SimOptions old = test_options(Release::r25_05_0);
  SimInstance sim25(old);
  EXPECT_EQ(slurm_call(sim25, old, "GET", "/slurm/v0.0.43/job/1+2").status, 400);
}

TEST(Lifecycle, RequeueIsPerComponentAndARequeueGivesANewSluid) {
  SimOptions options = test_options();
  SimInstance sim(options);
  std::string body = R"({"script": "#!/bin/bash\ntrue\n", "jobs": [
      {"name": "het", "environment": ["A=1"], "requeue": false}, {"name": "het", "environment": ["A=1"]}]})";
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, body).status, 200);
  json::value jobs = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json();
  EXPECT_EQ(jobs.at("jobs").at(0).at("requeue"), false);
  EXPECT_EQ(jobs.at("jobs").at(1).at("requeue"), true);  // component 1 did not say requeue=false

  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, simple_job("plain")).status, 200);
  std::string before = std::string(control(sim, "GET", "/sim/jobs/3").at("sluid").as_string());
  control(sim, "POST", "/sim/jobs/3/state", R"({"state": "RUNNING"})");
  control(sim, "POST", "/sim/jobs/3/requeue");
  json::value after = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/3").json().at("jobs").at(0);
  EXPECT_NE(std::string(after.at("step_id").at("sluid").as_string()), before);
  EXPECT_GT(std::string(after.at("step_id").at("sluid").as_string()), before);  // SLUIDs sort by time
  EXPECT_EQ(after.at("restart_cnt").to_number<int>(), 1);
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/" + before).status, 404);
  HttpResult refused = control_raw(sim, "POST", "/sim/jobs/1/requeue");
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(refused.json().at("error"),
            "job 1 has requeue=false; Slurm would not requeue it (pass \"force\": true to do it anyway)");
}

TEST(Lifecycle, DeleteAnswersPerDialect) {
  SimOptions options = test_options();
  SimInstance sim(options);
  std::string het = R"({"script": "#!/bin/bash\ntrue\n", "jobs": [{"environment": ["A=1"]}, {"environment": ["A=1"]}]})";
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, het).status, 200);
  std::string sluid = std::string(control(sim, "GET", "/sim/jobs/1").at("sluid").as_string());
  // A pending component cannot be signalled alone.
  EXPECT_EQ(status_codes(slurm_call(sim, options, "DELETE", "/slurm/v0.0.45/job/2").json()), (std::vector<std::int64_t>{2108}));
  HttpResult by_sluid = slurm_call(sim, options, "DELETE", "/slurm/v0.0.45/job/" + sluid);
  EXPECT_EQ(by_sluid.status, 200);
  EXPECT_TRUE(status_codes(by_sluid.json()).empty());
  EXPECT_EQ(job_states(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json()),
            (std::vector<std::string>{"CANCELLED", "CANCELLED"}));
  HttpResult again = slurm_call(sim, options, "DELETE", "/slurm/v0.0.45/job/1");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(status_codes(again.json()), (std::vector<std::int64_t>{2021}));
  HttpResult unknown = slurm_call(sim, options, "DELETE", "/slurm/v0.0.45/job/4242");
  EXPECT_EQ(unknown.status, 200);
  EXPECT_EQ(status_codes(unknown.json()), (std::vector<std::int64_t>{2017}));
  EXPECT_EQ(unknown.json().at("status").at(0).at("step_id"), "4242");

  SimOptions old = test_options(Release::r22_05_8);
  SimInstance sim22(old);
  HttpResult unknown22 = slurm_call(sim22, old, "DELETE", "/slurm/v0.0.38/job/4242");
  EXPECT_EQ(unknown22.status, 500);
  EXPECT_EQ(error_numbers(unknown22.json()), (std::vector<std::int64_t>{2017}));
}

TEST(Lifecycle, ASluidInThePathNeeds2605) {
  for (Release release : {Release::r25_11_7, Release::r26_05_3}) {
    SimOptions options = test_options(release);
    SimInstance sim(options);
    ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.44/job/submit", simple_job()).status, 200);
    std::string sluid = std::string(control(sim, "GET", "/sim/jobs/1").at("sluid").as_string());
    HttpResult r = slurm_call(sim, options, "GET", "/slurm/v0.0.44/job/" + sluid);
    EXPECT_EQ(r.status, release == Release::r26_05_3 ? 200 : 422) << release_name(release);
    // The v0.0.44 record carries the SLUID even where the path does not take it.
    json::value by_id = slurm_call(sim, options, "GET", "/slurm/v0.0.44/job/1").json();
    EXPECT_EQ(std::string(by_id.at("jobs").at(0).at("step_id").at("sluid").as_string()), sluid);
  }
}

TEST(Lifecycle, UpdateTimeIsOneSecondResolutionAnd304On2205) {
  SimOptions options = test_options(Release::r22_05_8);
  SimInstance sim(options);
  std::string body = R"({"script": "#!/bin/bash\ntrue\n", "job": {"environment": {"PATH": "/bin"}}})";
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/submit", body).status, 200);
  const std::int64_t t = options.manual_clock_start_ms / 1000;
  // slurmctld: unchanged only when (update_time - 1) >= last change.
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.38/jobs?update_time=" + std::to_string(t)).status, 200);
  HttpResult unchanged = slurm_call(sim, options, "GET", "/slurm/v0.0.38/jobs?update_time=" + std::to_string(t + 1));
  EXPECT_EQ(unchanged.status, 304);
  EXPECT_TRUE(unchanged.body.empty());
  advance_ms(sim, 5000);
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.38/jobs?update_time=" + std::to_string(t + 1)).status, 200);

  SimOptions current = test_options();
  SimInstance sim26(current);
  HttpResult r = slurm_call(sim26, current, "GET", "/slurm/v0.0.45/jobs?update_time=" + std::to_string(t + 1));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.json().at("jobs").as_array().empty());
  EXPECT_EQ(r.json().at("warnings").at(0).at("description"), "No job changes since update_time[1796040001]=2026-11-30T12:00:01");
}

TEST(Lifecycle, JobsStateTakesRepeatedIdsAndIgnoresSluids) {
  SimOptions options = test_options();
  SimInstance sim(options);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(slurm_call(sim, options, "POST", kSubmitTarget, simple_job()).status, 200);
  std::string sluid = std::string(control(sim, "GET", "/sim/jobs/1").at("sluid").as_string());
  EXPECT_EQ(job_states(slurm_call(sim, options, "GET", "/slurm/v0.0.45/jobs/state?job_id=2&job_id=2").json()).size(), 2u);
  json::value by_sluids =
      slurm_call(sim, options, "GET", "/slurm/v0.0.45/jobs/state?job_id=" + sluid + "&job_id=" + sluid).json();
  EXPECT_EQ(by_sluids.at("jobs").as_array().size(), 6u);  // every job, once per SLUID
  HttpResult encoded_comma = slurm_call(sim, options, "GET", "/slurm/v0.0.45/jobs/state?job_id=1%2C2");
  EXPECT_EQ(encoded_comma.status, 422);
  EXPECT_EQ(error_numbers(encoded_comma.json()), (std::vector<std::int64_t>{9000}));
  HttpResult comma = slurm_call(sim, options, "GET", "/slurm/v0.0.45/jobs/state?job_id=1,2");
  EXPECT_EQ(comma.status, 500);
  EXPECT_EQ(comma.body, "Unspecified error");
  EXPECT_TRUE(slurm_call(sim, options, "GET", "/slurm/v0.0.45/jobs/state?job_id=77").json().at("jobs").as_array().empty());
}

TEST(Lifecycle, VersionsFollowTheRelease) {
  struct Expect {
    Release release;
    std::vector<std::string> served;
    std::vector<std::string> not_served;
  };
  for (const Expect& e : {Expect{Release::r26_05_3, {"v0.0.43", "v0.0.44", "v0.0.45"}, {"v0.0.41", "v0.0.38"}},
                          Expect{Release::r25_11_7, {"v0.0.43", "v0.0.44"}, {"v0.0.45", "v0.0.40"}},
                          Expect{Release::r25_05_0, {"v0.0.43"}, {"v0.0.44", "v0.0.45"}},
                          Expect{Release::r22_05_8, {"v0.0.38"}, {"v0.0.43", "v0.0.39"}}}) {
    SimOptions options = test_options(e.release);
    SimInstance sim(options);
    for (const auto& v : e.served) EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/" + v + "/ping").status, 200) << v;
    for (const auto& v : e.not_served) EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/" + v + "/ping").status, 404) << v;
    HttpResult ping = slurm_call(sim, options, "GET", "/slurm/" + e.served.back() + "/ping");
    const json::object& meta = ping.json().at("meta").as_object();
    if (e.release == Release::r22_05_8) {
      EXPECT_EQ(meta.at("Slurm").at("release"), "22.05.8");
      EXPECT_TRUE(meta.at("Slurm").at("version").at("minor").is_int64());
    } else {
      EXPECT_EQ(std::string(meta.at("slurm").at("release").as_string()), release_name(e.release));
      EXPECT_TRUE(meta.at("slurm").at("version").at("minor").is_string());
    }
  }
}

}  // namespace
}  // namespace tpslurm::sim::test
