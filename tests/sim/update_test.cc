// Job update (POST /slurm/vX/job/{id}) as the real servers answer it: `hold` releases or
// holds, a held job starts on the configured timing once released, het components are
// released one by one on v0.0.4x and with their leader on v0.0.38, a SLUID in the path is
// no job to 26.05's update, and refusals come back in errors[] (200 on v0.0.4x, 500 on
// v0.0.38).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

constexpr char kSubmit45[] = "/slurm/v0.0.45/job/submit";
constexpr char kRelease[] = R"({"hold": false})";

std::string held_job(const std::string& name = "held") {
  json::object job{{"name", name},
                   {"environment", json::array{"PATH=/usr/bin:/bin"}},
                   {"current_working_directory", "/w"},
                   {"hold", true}};
  return json::serialize(json::object{{"script", "#!/bin/bash\ntrue\n"}, {"job", std::move(job)}});
}

std::string held_het_v45() {
  return R"({"script": "#!/bin/bash\ntrue\n", "jobs": [{"environment": ["A=1"], "hold": true}, {"environment": ["A=1"], "hold": true}]})";
}

std::string held_het_v38() {
  return R"({"script": "#!/bin/bash\ntrue\n", "jobs": [{"environment": {"A": "1"}, "hold": true}, {"environment": {"A": "1"}, "hold": true}]})";
}

std::string state(const SimInstance& sim, int id) {
  return std::string(control(sim, "GET", "/sim/jobs/" + std::to_string(id)).at("state").as_string());
}
bool held(const SimInstance& sim, int id) {
  return control(sim, "GET", "/sim/jobs/" + std::to_string(id)).at("hold").as_bool();
}
std::string reason(const SimInstance& sim, int id) {
  return std::string(control(sim, "GET", "/sim/jobs/" + std::to_string(id)).at("state_reason").as_string());
}
void advance_ms(const SimInstance& sim, std::int64_t ms) {
  control(sim, "POST", "/sim/clock/advance", "{\"ms\": " + std::to_string(ms) + "}");
}
SimOptions timed(Release release = Release::r26_05_3) {
  SimOptions options = test_options(release);
  options.timing = Timing{true, 1000, 60'000, 1000};
  return options;
}

TEST(Update, ReleasingAHeldJobGivesItsPriorityBackAndItStartsOnTheTiming) {
  SimOptions options = timed();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmit45, held_job()).status, 200);
  advance_ms(sim, 5000);
  EXPECT_EQ(state(sim, 1), "PENDING");
  EXPECT_EQ(reason(sim, 1), "JobHeldUser");
  json::value record = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json();
  EXPECT_EQ(record.at("jobs").at(0).at("priority").at("number").to_number<int>(), 0);

  HttpResult released = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", kRelease);
  EXPECT_EQ(released.status, 200);
  EXPECT_TRUE(released.json().at("results").is_null());
  EXPECT_TRUE(released.json().at("errors").as_array().empty());
  EXPECT_TRUE(released.json().at("warnings").as_array().empty());
  EXPECT_FALSE(held(sim, 1));
  EXPECT_EQ(reason(sim, 1), "None");
  record = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json();
  EXPECT_GT(record.at("jobs").at(0).at("priority").at("number").to_number<std::int64_t>(), 0);
  advance_ms(sim, 999);
  EXPECT_EQ(state(sim, 1), "PENDING") << "the timing counts from the release";
  advance_ms(sim, 1);
  EXPECT_EQ(state(sim, 1), "RUNNING");

  // A job that is not held: nothing to do, no error.
  EXPECT_TRUE(
      slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", kRelease).json().at("errors").as_array().empty());
  const json::value stats = control(sim, "GET", "/sim/stats");
  EXPECT_EQ(stats.at("updates_received").to_number<int>(), 2);
  EXPECT_EQ(stats.at("submits_received").to_number<int>(), 1);
  EXPECT_EQ(stats.at("requests_by_route").at("POST /slurm/v0.0.45/job/{job_id}").to_number<int>(), 2);
}

TEST(Update, HoldTrueHoldsAPendingJob) {
  SimOptions options = timed();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmit45, simple_job("later")).status, 200);
  EXPECT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", R"({"hold": true})").status, 200);
  advance_ms(sim, 10'000);
  EXPECT_EQ(state(sim, 1), "PENDING");
  EXPECT_TRUE(held(sim, 1));
  EXPECT_EQ(reason(sim, 1), "JobHeldAdmin") << "root holds as an administrator";
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", kRelease).status, 200);
  advance_ms(sim, 1000);
  EXPECT_EQ(state(sim, 1), "RUNNING");
}

// 25.05-26.05's handler gives slurmctld only the numeric id: update_job() touches that record.
TEST(Update, V0045ReleasesOnlyTheComponentAddressedAndAHetJobWaitsForAll) {
  SimOptions options = timed();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmit45, held_het_v45()).status, 200);
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", kRelease).status, 200);
  EXPECT_FALSE(held(sim, 1));
  EXPECT_TRUE(held(sim, 2));
  advance_ms(sim, 5000);
  EXPECT_EQ(state(sim, 1), "PENDING") << "a held component keeps the whole het job waiting";
  EXPECT_EQ(state(sim, 2), "PENDING");
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/2", kRelease).status, 200);
  advance_ms(sim, 1000);
  EXPECT_EQ(state(sim, 1), "RUNNING");
  EXPECT_EQ(state(sim, 2), "RUNNING");
}

TEST(Update, WithWholeHetjobOneReleaseReleasesEveryComponent) {
  SimOptions options = timed();
  options.cluster.whole_hetjob = true;
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmit45, held_het_v45()).status, 200);
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", kRelease).status, 200);
  EXPECT_FALSE(held(sim, 2));
  advance_ms(sim, 1000);
  EXPECT_EQ(state(sim, 2), "RUNNING");
}

// 22.05's handler passes the path id to update_job_str(), which updates each component.
TEST(Update, V0038ReleasingTheLeaderReleasesEveryComponent) {
  SimOptions options = timed(Release::r22_05_8);
  SimInstance sim(options);
  HttpResult submitted = slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/submit", held_het_v38());
  ASSERT_EQ(submitted.status, 200);
  EXPECT_EQ(error_numbers(submitted.json()), (std::vector<std::int64_t>{2042})) << "22.05's non-fatal held error";
  HttpResult released = slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/1", kRelease);
  EXPECT_EQ(released.status, 200);
  EXPECT_TRUE(released.json().at("errors").as_array().empty());
  EXPECT_FALSE(released.json().as_object().contains("results"));
  EXPECT_FALSE(held(sim, 1));
  EXPECT_FALSE(held(sim, 2));
  advance_ms(sim, 1000);
  EXPECT_EQ(state(sim, 1), "RUNNING");
  EXPECT_EQ(state(sim, 2), "RUNNING");
}

TEST(Update, ASluidInThePathIsNoJobTo2605sUpdate) {
  SimOptions options = timed();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmit45, held_job()).status, 200);
  const json::value record = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json();
  const std::string sluid(record.at("jobs").at(0).at("step_id").at("sluid").as_string());
  HttpResult answer = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/" + sluid, kRelease);
  EXPECT_EQ(answer.status, 200);
  const json::value& error = answer.json().at("errors").at(0);
  EXPECT_EQ(error.at("error_number").to_number<int>(), 2017);
  EXPECT_EQ(error.at("error"), "Invalid job id specified");
  EXPECT_EQ(error.at("source"), "slurm_update_job2()");
  EXPECT_TRUE(held(sim, 1)) << "nothing changes";
  // 25.11 takes no SLUID in paths at all: its parameter parser refuses it.
  SimOptions older = timed(Release::r25_11_7);
  SimInstance sim2511(older);
  EXPECT_EQ(slurm_call(sim2511, older, "POST", "/slurm/v0.0.44/job/" + sluid, kRelease).status, 422);
}

TEST(Update, AnUnknownJobIsError2017) {
  SimOptions options = timed();
  SimInstance sim(options);
  HttpResult v45 = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/4242", kRelease);
  EXPECT_EQ(v45.status, 200);
  EXPECT_EQ(error_numbers(v45.json()), (std::vector<std::int64_t>{2017}));
  SimOptions options38 = timed(Release::r22_05_8);
  SimInstance sim38(options38);
  HttpResult v38 = slurm_call(sim38, options38, "POST", "/slurm/v0.0.38/job/4242", kRelease);
  EXPECT_EQ(v38.status, 500);
  EXPECT_EQ(error_numbers(v38.json()), (std::vector<std::int64_t>{2017}));
  EXPECT_EQ(v38.json().at("errors").at(0).at("source"), "_parse_job_list");
}

TEST(Update, AnEndedJobIsError2084) {
  SimOptions options = timed();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmit45, held_job()).status, 200);
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "CANCELLED"})");
  HttpResult v45 = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", kRelease);
  EXPECT_EQ(v45.status, 200);
  EXPECT_EQ(error_numbers(v45.json()), (std::vector<std::int64_t>{2084}));
  EXPECT_EQ(v45.json().at("errors").at(0).at("error"), "Job has already finished");
  SimOptions options38 = timed(Release::r22_05_8);
  SimInstance sim38(options38);
  ASSERT_EQ(slurm_call(sim38, options38, "POST", "/slurm/v0.0.38/job/submit", held_het_v38()).status, 200);
  control(sim38, "POST", "/sim/jobs/1/state", R"({"state": "CANCELLED"})");
  HttpResult v38 = slurm_call(sim38, options38, "POST", "/slurm/v0.0.38/job/1", kRelease);
  EXPECT_EQ(v38.status, 500);
  EXPECT_EQ(error_numbers(v38.json()), (std::vector<std::int64_t>{2084}));
}

TEST(Update, AnUnknownFieldIsAWarningOnV4xAndStopsTheParseOnV38) {
  SimOptions options = timed();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmit45, held_job()).status, 200);
  HttpResult v45 = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", R"({"hold": false, "frobnicate": 1})");
  EXPECT_EQ(v45.status, 200);
  EXPECT_TRUE(v45.json().at("errors").as_array().empty());
  EXPECT_EQ(v45.json().at("warnings").at(0).at("description"),
            "Ignoring unknown field \"frobnicate\" of type integer in #");
  EXPECT_FALSE(held(sim, 1));

  SimOptions options38 = timed(Release::r22_05_8);
  SimInstance sim38(options38);
  ASSERT_EQ(slurm_call(sim38, options38, "POST", "/slurm/v0.0.38/job/submit", held_het_v38()).status, 200);
  HttpResult v38 = slurm_call(sim38, options38, "POST", "/slurm/v0.0.38/job/1", R"({"frobnicate": 1, "hold": false})");
  EXPECT_EQ(v38.status, 200) << "22.05's update handler reports the parse failure but returns success";
  EXPECT_EQ(v38.json().at("errors").at(0).at("description"), "Unknown key \"frobnicate\"");
  EXPECT_EQ(error_numbers(v38.json()), (std::vector<std::int64_t>{0, 9001}));
  EXPECT_TRUE(held(sim38, 1));
}

TEST(Update, AnotherUsersJobIsNotTheirsToRelease) {
  SimOptions options = timed();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", kSubmit45, held_job()).status, 200);
  HttpResult answer = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/1", kRelease, "alice");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(error_numbers(answer.json()), (std::vector<std::int64_t>{2010}));
  EXPECT_TRUE(held(sim, 1));
}

}  // namespace
}  // namespace tpslurm::sim::test
