// The slurmdbd view: every job ever submitted (purged or not), searched by name within
// a usage window whose default (no start_time) begins at midnight today, as in
// slurmdb_job_cond_def_start_end(); job/{id} brings a whole het job.
#include <gtest/gtest.h>

#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

std::vector<std::string> names(const HttpResult& r) {
  std::vector<std::string> out;
  for (const auto& j : r.json().at("jobs").as_array()) out.emplace_back(j.at("name").as_string());
  return out;
}

TEST(Accounting, AJobFromYesterdayIsFoundOnlyWithAnExplicitStartTime) {
  SimOptions options = test_options();
  options.manual_clock_start_ms = 1796083200000 - 3600 * 1000;  // 23:00 UTC, the day before
  options.min_job_age_s = 60;
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", simple_job("tp-x-1-1")).status, 200);
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "COMPLETED"})");
  control(sim, "POST", "/sim/clock/advance", R"({"seconds": 7200})");  // 01:00 the next day, purged

  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").status, 404);
  HttpResult default_window = slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/jobs?job_name=tp-x-1-1");
  EXPECT_EQ(default_window.status, 200);
  EXPECT_TRUE(names(default_window).empty());
  EXPECT_EQ(default_window.json().at("warnings").as_array().size(), 1u);
  const std::string start = std::to_string(options.manual_clock_start_ms / 1000 - 86400);
  HttpResult windowed = slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/jobs?job_name=tp-x-1-1&start_time=" + start);
  EXPECT_EQ(names(windowed), (std::vector<std::string>{"tp-x-1-1"}));
  const json::value& job = windowed.json().at("jobs").at(0);
  EXPECT_EQ(job.at("state").at("current").at(0), "COMPLETED");
  EXPECT_EQ(job.at("sluid"), job.at("original_sluid"));
  EXPECT_EQ(job.at("comment").at("job"), "");
  EXPECT_EQ(job.at("working_directory"), "/w");
}

TEST(Accounting, JobNameIsAnExactMatchCsvList) {
  SimOptions options = test_options();
  SimInstance sim(options);
  for (const char* n : {"a", "ab", "b"}) {
    ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", simple_job(n)).status, 200);
  }
  EXPECT_EQ(names(slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/jobs?job_name=a%2Cb&start_time=1")),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(names(slurm_call(sim, options, "GET", "/slurmdb/v0.0.43/jobs?job_name=ab&start_time=1")),
            (std::vector<std::string>{"ab"}));
}

TEST(Accounting, JobByIdReturnsEveryComponentOfAHetJob) {
  SimOptions options = test_options();
  SimInstance sim(options);
  std::string het = R"({"script": "#!/bin/bash\n", "jobs": [{"name": "h", "environment": ["A=1"]}, {"name": "h"}]})";
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", het).status, 200);
  HttpResult r = slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/job/2");
  ASSERT_EQ(r.json().at("jobs").as_array().size(), 2u);
  EXPECT_EQ(r.json().at("jobs").at(1).at("het").at("job_offset").at("number").to_number<int>(), 1);
  EXPECT_TRUE(slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/job/99").json().at("jobs").as_array().empty());
}

TEST(Accounting, V0038ReportsAnyNormalExitAsSuccessLike2205) {
  SimOptions options = test_options(Release::r22_05_8);
  SimInstance sim(options);
  std::string body = R"({"script": "#!/bin/bash\nexit 3\n", "job": {"name": "e", "environment": {"A": "1"}}})";
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/submit", body).status, 200);
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "FAILED", "exit_code": 3})");
  // 22.05 reads times with parse_time(): a Unix time needs its "uts" prefix.
  HttpResult r = slurm_call(sim, options, "GET", "/slurmdb/v0.0.38/jobs?job_name=e&start_time=uts1000000");
  const json::value& job = r.json().at("jobs").at(0);
  EXPECT_EQ(job.at("state").at("current"), "FAILED");
  EXPECT_EQ(job.at("exit_code").at("status"), "SUCCESS");
  EXPECT_EQ(job.at("exit_code").at("return_code").to_number<int>(), 0);
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurmdb/v0.0.38/jobs?bogus=1").status, 400);
}

TEST(Accounting, WithoutSlurmdbdThereAreNoSlurmdbEndpoints) {
  SimOptions options = test_options();
  options.cluster.accounting = false;
  SimInstance sim(options);
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/jobs").status, 404);
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping").json().at("meta").at("plugin").at("accounting_storage"), "");
}

TEST(Accounting, ARefusedTokenCannotOpenTheSlurmdbdConnection) {
  SimOptions options = test_options();
  SimInstance sim(options);
  HttpClient client;
  RequestOptions req;
  req.headers = {{"X-SLURM-USER-TOKEN", "bad.token.here"}};
  HttpResult r = client.request("GET", sim.url("/slurmdb/v0.0.45/jobs"), req);
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{7000}));
  EXPECT_EQ(r.json().at("errors").at(0).at("description"), "Failed to open slurmdbd connection, authentication error");
}

}  // namespace
}  // namespace tpslurm::sim::test
