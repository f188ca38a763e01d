// Answers without a real transcript, held to Slurm's own generated OpenAPI documents.
//
// The 26.05 transcripts were taken without slurmdbd, so the slurmdbd views (and the
// partition list) are checked against the schemas `slurmrestd --generate-openapi-spec`
// produced for v0.0.45, v0.0.44 and v0.0.43, and 24.11.7's and 23.11.11's answers against the
// documents those servers served (copied, components only, into tests/sim/openapi/): every
// property present, none extra, kinds and enums as declared.
// The answers that do have transcripts are checked against the schemas too, which
// confirms the documents describe what the real server sends.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "json_shape.h"
#include "sim_harness.h"
#include "transcripts.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

json::value spec(const std::string& version) {
  return json::parse(read_file(std::string(TP_SOURCE_DIR) + "/tests/sim/openapi/openapi-" + version + ".schemas.json"));
}

struct SchemaCase {
  Release release;       // the release the simulator impersonates
  std::string document;  // openapi-<document>.schemas.json
  std::string version;
};

std::string PrintToString(const SchemaCase& c) { return c.document + " " + c.version; }

class SchemaTest : public ::testing::TestWithParam<SchemaCase> {};

// A plain job that ran and failed, a het job that runs and is cancelled twice: each answer,
// and each view of them, held to the document's schema.
TEST_P(SchemaTest, EveryAnswerMatchesTheSchema) {
  const SchemaCase& c = GetParam();
  const std::string v = c.version;
  const std::string prefix = v + "_";
  json::value document = spec(c.document);
  const auto& schemas = document.at("components").at("schemas").as_object();
  SimOptions options = test_options(c.release);
  SimInstance sim(options);
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  auto get = [&](const std::string& path) {
    HttpResult r = client.request("GET", sim.url(path), req);
    EXPECT_EQ(r.curl_code, 0) << path;
    return r;
  };
  auto expect_schema = [&](const HttpResult& r, const std::string& schema, const std::string& what) {
    std::vector<std::string> diffs = schema_diff(r.json(), document, prefix + schema);
    EXPECT_TRUE(diffs.empty()) << c.document << " " << v << " " << what << " against " << schema << ":" << join(diffs);
  };

  RequestOptions submit = req;
  submit.body = R"({"script": "#!/bin/bash\nexit 3\n", "job": {"name": "a", "environment": ["PATH=/bin"],
                    "tres_per_node": "gres/gpu:2", "time_limit": 30, "current_working_directory": "/w"}})";
  HttpResult plain = client.request("POST", sim.url("/slurm/" + v + "/job/submit"), submit);
  ASSERT_EQ(plain.status, 200) << plain.body;
  expect_schema(plain, "openapi_job_submit_response", "submit");
  submit.body = R"({"jobs": [{"script": "#!/bin/bash\ntrue\n", "name": "h", "environment": ["A=1"]},
                             {"name": "h", "environment": ["A=1"]}]})";
  HttpResult het = client.request("POST", sim.url("/slurm/" + v + "/job/submit"), submit);
  ASSERT_EQ(het.status, 200) << het.body;
  expect_schema(het, "openapi_job_submit_response", "het submit");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "FAILED", "exit_code": 3})");
  control(sim, "POST", "/sim/jobs/2/state", R"({"state": "RUNNING"})");

  // v0.0.40 and v0.0.41 take a time in a query as "uts<seconds>" (parse_time).
  const std::string since = v == "v0.0.40" || v == "v0.0.41" ? "uts1000000" : "1000000";
  expect_schema(get("/slurm/" + v + "/ping"), "openapi_ping_array_resp", "ping");
  expect_schema(get("/slurm/" + v + "/diag"), "openapi_diag_resp", "diag");
  expect_schema(get("/slurm/" + v + "/jobs"), "openapi_job_info_resp", "jobs");
  expect_schema(get("/slurm/" + v + "/job/2"), "openapi_job_info_resp", "job/2");
  expect_schema(get("/slurm/" + v + "/partitions"), "openapi_partition_resp", "partitions");
  expect_schema(get("/slurm/" + v + "/partition/gpu"), "openapi_partition_resp", "partition/gpu");
  expect_schema(get("/slurmdb/" + v + "/jobs?start_time=" + since), "openapi_slurmdbd_jobs_resp", "slurmdb jobs");
  expect_schema(get("/slurmdb/" + v + "/job/2"), "openapi_slurmdbd_jobs_resp", "slurmdb job/2");
  if (schemas.contains(prefix + "openapi_job_state_resp")) {
    expect_schema(get("/slurm/" + v + "/jobs/state?job_id=1"), "openapi_job_state_resp", "jobs/state");
  }
  // A status per job from 24.11 on (v0.0.42+); before, the plain answer with errors[].
  const bool status_list = schemas.contains(prefix + "openapi_kill_job_resp");
  HttpResult cancelled = client.request("DELETE", sim.url("/slurm/" + v + "/job/2"), req);
  EXPECT_EQ(cancelled.status, 200);
  expect_schema(cancelled, status_list ? "openapi_kill_job_resp" : "openapi_resp", "DELETE job/2");
  if (status_list) {
    HttpResult again = client.request("DELETE", sim.url("/slurm/" + v + "/job/2"), req);
    expect_schema(again, "openapi_kill_job_resp", "DELETE job/2 again");
    EXPECT_EQ(status_codes(again.json()), (std::vector<std::int64_t>{2021}));
  }
}

// The documents `slurmrestd --generate-openapi-spec` produced for 26.05's versions, and those
// real 24.11.7 (v0.0.40, 41, 42) and 23.11.11 (v0.0.40) servers served.
INSTANTIATE_TEST_SUITE_P(Dialects, SchemaTest,
                         ::testing::Values(SchemaCase{Release::r26_05_3, "v0.0.45", "v0.0.45"},
                                           SchemaCase{Release::r26_05_3, "v0.0.44", "v0.0.44"},
                                           SchemaCase{Release::r26_05_3, "v0.0.43", "v0.0.43"},
                                           SchemaCase{Release::r24_11_7, "24.11.7-served", "v0.0.42"},
                                           SchemaCase{Release::r24_11_7, "24.11.7-served", "v0.0.41"},
                                           SchemaCase{Release::r24_11_7, "24.11.7-served", "v0.0.40"},
                                           SchemaCase{Release::r23_11_11, "23.11.11-served", "v0.0.40"}),
                         [](const ::testing::TestParamInfo<SchemaCase>& param_info) {
                           std::string name =
                               std::string(release_name(param_info.param.release)) + "_" + param_info.param.version;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

TEST(SchemaTest, TheRealTranscriptsMatchTheGeneratedSchemasToo) {
  json::value document = spec("v0.0.45");
  for (const char* name :
       {"05_get_job_by_id", "15_get_hetjob_component1", "12_get_job_exit3_finished", "17_jobs_update_time"}) {
    json::value real = json::parse(load_v45(name).response_body);
    std::vector<std::string> diffs = schema_diff(real, document, "v0.0.45_openapi_job_info_resp");
    EXPECT_TRUE(diffs.empty()) << name << ":" << join(diffs);
  }
  json::value ping = json::parse(load_v45("01_ping_v0.0.45").response_body);
  EXPECT_TRUE(schema_diff(ping, document, "v0.0.45_openapi_ping_array_resp").empty());
}

}  // namespace
}  // namespace tpslurm::sim::test
