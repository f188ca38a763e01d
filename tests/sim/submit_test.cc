// Submit semantics per dialect: what slurmrestd refuses while parsing, what slurmctld
// refuses before creating anything, and what is accepted (with warnings or quirks).
#include <gtest/gtest.h>

#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

struct Refusal {
  int status;
  std::vector<std::int64_t> errors;
  std::string description;
};

Refusal submit_refused(Release release, const std::string& version, const std::string& body) {
  SimOptions options = test_options(release);
  SimInstance sim(options);
  HttpResult r = slurm_call(sim, options, "POST", "/slurm/" + version + "/job/submit", body);
  Refusal out{static_cast<int>(r.status), error_numbers(r.json()), ""};
  if (!r.json().at("errors").as_array().empty() && r.json().at("errors").at(0).as_object().contains("description")) {
    out.description = std::string(r.json().at("errors").at(0).at("description").as_string());
  }
  EXPECT_FALSE(r.json().as_object().contains("job_id"));
  EXPECT_EQ(control(sim, "GET", "/sim/stats").at("jobs_created").to_number<int>(), 0);
  return out;
}

TEST(Submit, ControllerRefusalsMapToTheReleasesStatus) {
  const std::string bad_partition =
      R"({"job": {"script": "#!/bin/bash\n", "partition": "nope", "environment": ["A=1"]}})";
  Refusal r26 = submit_refused(Release::r26_05_3, "v0.0.45", bad_partition);
  EXPECT_EQ(r26.status, 422);
  EXPECT_EQ(r26.errors, (std::vector<std::int64_t>{2000}));
  EXPECT_EQ(r26.description, "Batch job submission failed");
  EXPECT_EQ(submit_refused(Release::r25_11_7, "v0.0.44", bad_partition).status, 500);
  EXPECT_EQ(submit_refused(Release::r25_05_0, "v0.0.43", bad_partition).status, 500);

  Refusal feature = submit_refused(Release::r26_05_3, "v0.0.45",
                                   R"({"job": {"script": "#!/bin/bash\n", "constraints": "a100", "environment": ["A=1"]}})");
  EXPECT_EQ(feature.errors, (std::vector<std::int64_t>{2029}));
  Refusal no_env = submit_refused(Release::r26_05_3, "v0.0.45", R"({"job": {"script": "#!/bin/bash\n"}})");
  EXPECT_EQ(no_env.errors, (std::vector<std::int64_t>{2127}));
  EXPECT_EQ(no_env.status, 422);
}

TEST(Submit, SlurmrestdRefusalsOfV004x) {
  Refusal no_script = submit_refused(Release::r26_05_3, "v0.0.45", R"({"job": {"environment": ["A=1"]}})");
  EXPECT_EQ(no_script.status, 422);
  EXPECT_EQ(no_script.errors, (std::vector<std::int64_t>{9000}));
  EXPECT_EQ(no_script.description, "Populated \"script\" field is required for job submission");
  Refusal both = submit_refused(Release::r26_05_3, "v0.0.45", R"({"script": "x", "job": {}, "jobs": [{}]})");
  EXPECT_EQ(both.description, "Specify only one \"job\" or \"jobs\" fields but never both");
  Refusal neither = submit_refused(Release::r26_05_3, "v0.0.45", R"({"script": "x"})");
  EXPECT_EQ(neither.description, "Specifying either \"job\" or \"jobs\" fields are required to submit job");
  Refusal het_script = submit_refused(Release::r26_05_3, "v0.0.45", R"({"jobs": [{"environment": ["A=1"]}, {"script": "x"}]})");
  EXPECT_EQ(het_script.description,
            "Refusing HetJob submission without batch script or empty batch script for first component");
  Refusal wrong_type = submit_refused(Release::r26_05_3, "v0.0.45", R"({"job": {"script": "x", "requeue": "no"}})");
  EXPECT_EQ(wrong_type.status, 400);
  EXPECT_EQ(wrong_type.errors, (std::vector<std::int64_t>{9001}));
}

TEST(Submit, V0038RefusesAMissingScriptWith2009) {
  Refusal r = submit_refused(Release::r22_05_8, "v0.0.38", R"({"job": {"environment": {"A": "1"}}})");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.errors, (std::vector<std::int64_t>{2009}));
}

TEST(Submit, V004xAcceptsEveryInputFormSlurmDocuments) {
  SimOptions options = test_options();
  SimInstance sim(options);
  std::string body = R"({"script": "#!/bin/bash\ntrue\n", "job": {
      "name": "forms", "environment": {"PATH": "/bin", "A": "b c"}, "bogus_field": 1,
      "memory_per_node": {"set": true, "infinite": false, "number": 4096},
      "time_limit": {"set": false, "infinite": true}, "cpus_per_task": 2, "nodes": "1-4",
      "tres_per_node": "gres/gpu:h100:2"}})";
  HttpResult r = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", body);
  ASSERT_EQ(r.status, 200);
  ASSERT_EQ(r.json().at("warnings").as_array().size(), 1u);
  EXPECT_EQ(r.json().at("warnings").at(0).at("description"), "Ignoring unknown field \"bogus_field\" of type integer in #/job");
  json::value summary = control(sim, "GET", "/sim/jobs/1");
  EXPECT_EQ(summary.at("environment"), (json::array{"PATH=/bin", "A=b c"}));
  EXPECT_EQ(summary.at("gpus_per_node").to_number<int>(), 2);
  json::value job = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json().at("jobs").at(0);
  EXPECT_EQ(job.at("memory_per_node").at("number").to_number<int>(), 4096);
  EXPECT_EQ(job.at("time_limit").at("infinite"), true);
  EXPECT_EQ(job.at("cpus_per_task").at("number").to_number<int>(), 2);
  EXPECT_EQ(job.at("tres_per_node"), "gres/gpu:h100:2");
  EXPECT_EQ(job.at("current_working_directory"), "/srv/slurmrestd");  // slurmrestd's own
}

TEST(Submit, ABareGpuTresIsSilentlyIgnored) {
  SimOptions options = test_options();
  SimInstance sim(options);
  std::string body = R"({"job": {"script": "#!/bin/bash\n", "environment": ["A=1"], "tres_per_node": "gpu:1"}})";
  HttpResult r = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", body);
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(r.json().at("warnings").as_array().empty());
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/1").at("gpus_per_node").to_number<int>(), 0);
  json::value job = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1").json().at("jobs").at(0);
  EXPECT_EQ(job.at("tres_req_str").as_string().find("gres/gpu"), json::string::npos);
}

TEST(Submit, AHeldJobIsCreatedAndReportedAsAWarningOnV004x) {
  SimOptions options = test_options();
  SimInstance sim(options);
  HttpResult r = slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit",
                            R"({"job": {"script": "#!/bin/bash\n", "environment": ["A=1"], "hold": true}})");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.json().at("job_id").to_number<int>(), 1);
  EXPECT_EQ(r.json().at("warnings").at(0).at("description"), "Job is in held state, pending scheduler release");
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/1").at("state_reason"), "JobHeldUser");
}

TEST(Submit, AccountsAndQosAreEnforcedWhenConfigured) {
  SimOptions options = test_options();
  options.cluster.accounts = {"research"};
  options.cluster.qos = {"normal"};
  SimInstance sim(options);
  auto submit = [&](const std::string& extra) {
    return slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit",
                      R"({"job": {"script": "#!/bin/bash\n", "environment": ["A=1"])" + extra + "}}");
  };
  EXPECT_EQ(error_numbers(submit(R"(, "account": "other")").json()), (std::vector<std::int64_t>{2045}));
  EXPECT_EQ(error_numbers(submit(R"(, "qos": "gold")").json()), (std::vector<std::int64_t>{2066}));
  EXPECT_EQ(submit(R"(, "account": "research", "qos": "normal")").status, 200);
}

TEST(Submit, V0038TakesSbatchOptionNamesAndGres) {
  SimOptions options = test_options(Release::r22_05_8);
  SimInstance sim(options);
  std::string body = R"({"script": "#!/bin/bash\n", "job": {"job_name": "n", "ntasks": 2, "cwd": "/w",
      "gres": "gpu:1", "environment": {"PATH": "/bin"}, "memory_per_node": "2G", "time_limit": "1:30:00"}})";
  HttpResult r = slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/submit", body);
  ASSERT_EQ(r.status, 200) << r.body;
  json::value job = slurm_call(sim, options, "GET", "/slurm/v0.0.38/job/1").json().at("jobs").at(0);
  EXPECT_EQ(job.at("name"), "n");
  EXPECT_EQ(job.at("tasks").to_number<int>(), 2);
  EXPECT_EQ(job.at("tres_per_node"), "gres:gpu:1");
  EXPECT_EQ(job.at("memory_per_node").to_number<int>(), 2048);
  EXPECT_EQ(job.at("time_limit").to_number<int>(), 90);
  EXPECT_EQ(job.at("current_working_directory"), "/w");
}

}  // namespace
}  // namespace tpslurm::sim::test
