// The releases between 22.05 and 25.05 (23.11.4, 23.11.11, 24.05.8, 24.11.7) and the
// dialects v0.0.40, v0.0.41 and v0.0.42, one test per behaviour read from Slurm's source at
// the release's tag: versions served, jobs/state's binding, 23.11.4's top-level script,
// DELETE before and after slurm_kill_jobs(), the error -> HTTP tables, ping's fields and a
// refused token, the deprecated submit `result`, record fields, UPDATE_DB and `meta`.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

std::vector<std::string> keys(const json::value& v) {
  std::vector<std::string> out;
  for (const auto& kv : v.as_object()) out.emplace_back(kv.key());
  return out;
}

bool has_key(const json::value& v, const char* key) { return v.as_object().contains(key); }

std::string text(const json::value& v) { return v.is_string() ? std::string(v.as_string()) : json::serialize(v); }

HttpResult bad_token_call(const SimInstance& sim, const SimOptions& options, const std::string& method,
                          const std::string& path) {
  HttpClient client;
  RequestOptions req;
  const std::int64_t now = options.manual_clock_start_ms / 1000;
  req.headers = {{"X-SLURM-USER-NAME", "root"}, {"X-SLURM-USER-TOKEN", mint_token("wrong key", "root", now + 600)}};
  return client.request(method, sim.url(path), req);
}

std::uint32_t submit(const SimInstance& sim, const SimOptions& options, const std::string& v) {
  HttpResult r = slurm_call(sim, options, "POST", "/slurm/" + v + "/job/submit", simple_job());
  EXPECT_EQ(r.status, 200) << r.body;
  return static_cast<std::uint32_t>(r.json().at("job_id").as_int64());
}

TEST(Releases, VersionsServedAndImplemented) {
  struct Row {
    Release release;
    std::vector<int> implemented;
    std::vector<int> served_only;
    std::vector<int> not_served;
  };
  const Row rows[] = {
      {Release::r23_11_4, {38, 40}, {39}, {37, 41}},
      {Release::r23_11_11, {38, 40}, {39}, {37, 41}},
      {Release::r24_05_8, {40, 41}, {39}, {38, 42}},
      {Release::r24_11_7, {40, 41, 42}, {}, {39, 43}},
      {Release::r25_05_0, {40, 41, 42, 43}, {}, {39, 44}},
      {Release::r25_11_7, {41, 42, 43, 44}, {}, {40, 45}},
      {Release::r26_05_3, {42, 43, 44, 45}, {}, {41, 46}},
  };
  for (const Row& row : rows) {
    SimOptions options = test_options(row.release);
    SimInstance sim(options);
    const std::string name(release_name(row.release));
    for (int v : row.implemented) {
      HttpResult r = slurm_call(sim, options, "GET", "/slurm/v0.0." + std::to_string(v) + "/ping");
      EXPECT_EQ(r.status, 200) << name << " v" << v;
      Dialect d;
      EXPECT_EQ(version_support(row.release, "v0.0." + std::to_string(v), &d), VersionSupport::implemented);
    }
    for (int v : row.served_only) {
      EXPECT_EQ(version_support(row.release, "v0.0." + std::to_string(v), nullptr),
                VersionSupport::served_not_implemented)
          << name << " v" << v;
      EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0." + std::to_string(v) + "/ping").status, 404);
    }
    for (int v : row.not_served) {
      EXPECT_EQ(version_support(row.release, "v0.0." + std::to_string(v), nullptr), VersionSupport::not_served)
          << name << " v" << v;
    }
  }
}

TEST(Releases, ParseReleaseNames) {
  EXPECT_EQ(parse_release("23.11.4"), Release::r23_11_4);
  EXPECT_EQ(parse_release("23.11.11"), Release::r23_11_11);
  EXPECT_EQ(parse_release("23.11"), Release::r23_11_11);
  EXPECT_EQ(parse_release("24.05.8"), Release::r24_05_8);
  EXPECT_EQ(parse_release("24.05"), Release::r24_05_8);
  EXPECT_EQ(parse_release("24.11.7"), Release::r24_11_7);
  EXPECT_EQ(parse_release("24.11"), Release::r24_11_7);
  EXPECT_EQ(parse_release("25.05.0"), Release::r25_05_0);
  EXPECT_FALSE(parse_release("23.11.5").has_value());
}

TEST(Releases, JobsStateIsNotBoundOn23114) {
  {
    SimOptions options = test_options(Release::r23_11_4);
    SimInstance sim(options);
    submit(sim, options, "v0.0.40");
    HttpResult r = slurm_call(sim, options, "GET", "/slurm/v0.0.40/jobs/state?job_id=1");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.body, "Unable to find requested URL");
  }
  for (Release release : {Release::r23_11_11, Release::r24_05_8, Release::r24_11_7}) {
    SimOptions options = test_options(release);
    SimInstance sim(options);
    const std::string v = release == Release::r24_11_7 ? "v0.0.42" : "v0.0.40";
    submit(sim, options, v);
    HttpResult r = slurm_call(sim, options, "GET", "/slurm/" + v + "/jobs/state?job_id=1");
    EXPECT_EQ(r.status, 200) << release_name(release);
    EXPECT_EQ(job_states(r.json()), (std::vector<std::string>{"PENDING"}));
  }
}

// A time in a query: v0.0.40/41 read it with parse_time() only ("uts<N>"; a bare number is
// 9202, 500 on 23.11 as on the real 23.11.11, 422 on 24.11 as on the real 24.11.7); v0.0.42
// takes both.
TEST(Releases, QueryTimesAsEachVersionReadsThem) {
  struct Case {
    Release release;
    const char* version;
    int bare_status;
  };
  for (const Case& c : {Case{Release::r23_11_11, "v0.0.40", 500}, Case{Release::r24_11_7, "v0.0.40", 422},
                        Case{Release::r24_11_7, "v0.0.42", 200}}) {
    SimOptions options = test_options(c.release);
    SimInstance sim(options);
    const std::string v = c.version;
    const std::string seconds = std::to_string(options.manual_clock_start_ms / 1000 - 3600);
    for (const std::string& path : {"/slurm/" + v + "/jobs?update_time=", "/slurmdb/" + v + "/jobs?start_time="}) {
      HttpResult bare = slurm_call(sim, options, "GET", path + seconds);
      EXPECT_EQ(bare.status, c.bare_status) << release_name(c.release) << " " << path << bare.body;
      if (c.bare_status != 200) {
        EXPECT_EQ(text(bare.json().at("errors").at(0).at("error_number")), "9202") << bare.body;
      }
      EXPECT_EQ(slurm_call(sim, options, "GET", path + "uts" + seconds).status, 200) << path;
    }
  }
}

TEST(Releases, On23114ASubmitNeedsATopLevelScript) {
  const std::string body =
      R"({"job": {"name": "a", "script": "#!/bin/bash\ntrue\n", "environment": ["PATH=/bin"], "current_working_directory": "/w"}})";
  {
    SimOptions options = test_options(Release::r23_11_4);
    SimInstance sim(options);
    HttpResult r = slurm_call(sim, options, "POST", "/slurm/v0.0.40/job/submit", body);
    EXPECT_EQ(r.status, 422);
    EXPECT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{9000}));
    EXPECT_EQ(r.json().at("errors").at(0).at("description"), "Populated \"script\" field is required for job submission");
    EXPECT_EQ(r.json().at("errors").at(0).at("source"), "_job_post");
    EXPECT_EQ(keys(r.json()), (std::vector<std::string>{"errors", "warnings", "meta"}));
    // With the script at the top level it goes through.
    EXPECT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.40/job/submit", simple_job()).status, 200);
  }
  SimOptions options = test_options(Release::r23_11_11);
  SimInstance sim(options);
  EXPECT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.40/job/submit", body).status, 200);
}

TEST(Releases, DeleteBefore2411ReportsInErrorsWithoutStatus) {
  for (Release release : {Release::r23_11_11, Release::r24_05_8}) {
    SimOptions options = test_options(release);
    SimInstance sim(options);
    const std::string v = "v0.0.40";
    const std::string name(release_name(release));
    // Unknown job: 2017 -> 404.
    HttpResult unknown = slurm_call(sim, options, "DELETE", "/slurm/" + v + "/job/77");
    EXPECT_EQ(unknown.status, 404) << name;
    EXPECT_EQ(keys(unknown.json()), (std::vector<std::string>{"errors", "warnings", "meta"}));
    EXPECT_EQ(error_numbers(unknown.json()), (std::vector<std::int64_t>{2017}));
    EXPECT_EQ(unknown.json().at("errors").at(0).at("description"), "unable to send signal Killed to JobId=77");
    EXPECT_EQ(unknown.json().at("errors").at(0).at("source"), "slurm_kill_job2()");
    // A non-KILL signal to a pending job: 2020 -> 500.
    const std::uint32_t id = submit(sim, options, v);
    HttpResult usr1 = slurm_call(sim, options, "DELETE", "/slurm/" + v + "/job/" + std::to_string(id) + "?signal=USR1");
    EXPECT_EQ(usr1.status, 500) << name;
    EXPECT_EQ(error_numbers(usr1.json()), (std::vector<std::int64_t>{2020}));
    // Cancelling: 200, nothing in errors, no status.
    HttpResult cancel = slurm_call(sim, options, "DELETE", "/slurm/" + v + "/job/" + std::to_string(id));
    EXPECT_EQ(cancel.status, 200) << name;
    EXPECT_FALSE(has_key(cancel.json(), "status"));
    EXPECT_TRUE(cancel.json().at("errors").as_array().empty());
    // Again: already done -> 200 with a warning.
    HttpResult again = slurm_call(sim, options, "DELETE", "/slurm/" + v + "/job/" + std::to_string(id));
    EXPECT_EQ(again.status, 200) << name;
    EXPECT_TRUE(again.json().at("errors").as_array().empty());
    ASSERT_EQ(again.json().at("warnings").as_array().size(), 1u);
    EXPECT_EQ(again.json().at("warnings").at(0).at("description"), "Job was already sent signal Killed");
  }
}

TEST(Releases, DeleteOn2411HasStatusOnV42Only) {
  SimOptions options = test_options(Release::r24_11_7);
  SimInstance sim(options);
  HttpResult v42 = slurm_call(sim, options, "DELETE", "/slurm/v0.0.42/job/77");
  EXPECT_EQ(v42.status, 200);
  EXPECT_EQ(status_codes(v42.json()), (std::vector<std::int64_t>{2017}));
  // v0.0.40/41 alias OPENAPI_KILL_JOB_RESP to the plain answer: the refusal is not shown.
  for (const std::string v : {"v0.0.40", "v0.0.41"}) {
    HttpResult r = slurm_call(sim, options, "DELETE", "/slurm/" + v + "/job/77");
    EXPECT_EQ(r.status, 200) << v;
    EXPECT_EQ(keys(r.json()), (std::vector<std::string>{"meta", "errors", "warnings"})) << v;
    EXPECT_TRUE(r.json().at("errors").as_array().empty());
  }
  const std::uint32_t id = submit(sim, options, "v0.0.41");
  EXPECT_EQ(slurm_call(sim, options, "DELETE", "/slurm/v0.0.41/job/" + std::to_string(id)).status, 200);
  HttpResult state = slurm_call(sim, options, "GET", "/slurm/v0.0.42/job/" + std::to_string(id));
  EXPECT_EQ(job_states(state.json()), (std::vector<std::string>{"CANCELLED"}));
}

TEST(Releases, ErrorToHttpTables) {
  // Before 24.11: only 9000, 9001/9002 and 2017 are mapped; auth and comms errors are 500.
  for (Release release : {Release::r23_11_4, Release::r23_11_11, Release::r24_05_8}) {
    EXPECT_EQ(http_status_for_error(release, 9000), 422);
    EXPECT_EQ(http_status_for_error(release, 9001), 400);
    EXPECT_EQ(http_status_for_error(release, 9002), 400);
    EXPECT_EQ(http_status_for_error(release, 2017), 404);
    EXPECT_EQ(http_status_for_error(release, 1007), 500);
    EXPECT_EQ(http_status_for_error(release, 1001), 500);
    EXPECT_EQ(http_status_for_error(release, 7000), 500);
    EXPECT_EQ(http_status_for_error(release, 5004), 500);
    EXPECT_EQ(http_status_for_error(release, 2000), 500);
  }
  EXPECT_EQ(http_status_for_error(Release::r24_11_7, 1007), 511);
  EXPECT_EQ(http_status_for_error(Release::r24_11_7, 1001), 502);
  EXPECT_EQ(http_status_for_error(Release::r24_11_7, 7000), 502);
  EXPECT_EQ(http_status_for_error(Release::r24_11_7, 5004), 504);
  EXPECT_EQ(http_status_for_error(Release::r24_11_7, 2000), 500);
  // 24.05 without accounting: a refused token reaches slurmctld, 1007 answers 500.
  SimOptions options = test_options(Release::r24_05_8);
  options.cluster.accounting = false;
  SimInstance sim(options);
  HttpResult jobs = bad_token_call(sim, options, "GET", "/slurm/v0.0.41/jobs");
  EXPECT_EQ(jobs.status, 500);
  EXPECT_EQ(error_numbers(jobs.json()), (std::vector<std::int64_t>{1007}));
}

TEST(Releases, PingFieldsPerDialect) {
  SimOptions options = test_options(Release::r24_11_7);
  SimInstance sim(options);
  for (const std::string v : {"v0.0.40", "v0.0.41"}) {
    HttpResult r = slurm_call(sim, options, "GET", "/slurm/" + v + "/ping");
    EXPECT_EQ(keys(r.json().at("pings").at(0)), (std::vector<std::string>{"hostname", "pinged", "latency", "mode"}));
  }
  HttpResult v42 = slurm_call(sim, options, "GET", "/slurm/v0.0.42/ping");
  EXPECT_EQ(keys(v42.json().at("pings").at(0)),
            (std::vector<std::string>{"hostname", "pinged", "responding", "latency", "mode", "primary"}));
}

TEST(Releases, ARefusedTokenOnPing) {
  // 23.11 with slurmdbd: the wrapper opens a slurmdbd connection first; slurmdbd refuses
  // the token, every call fails with 7000 (500), ping included.
  {
    SimOptions options = test_options(Release::r23_11_11);
    SimInstance sim(options);
    HttpResult ping = bad_token_call(sim, options, "GET", "/slurm/v0.0.40/ping");
    EXPECT_EQ(ping.status, 500);
    EXPECT_EQ(error_numbers(ping.json()), (std::vector<std::int64_t>{7000}));
    EXPECT_EQ(ping.json().at("errors").at(0).at("source"), "wrap_openapi_ctxt_callback");
    EXPECT_EQ(bad_token_call(sim, options, "GET", "/slurm/v0.0.40/jobs").status, 500);
  }
  // 24.05 and 24.11: slurmctld calls skip slurmdbd; ping answers 200 with "DOWN".
  for (Release release : {Release::r24_05_8, Release::r24_11_7}) {
    SimOptions options = test_options(release);
    SimInstance sim(options);
    HttpResult ping = bad_token_call(sim, options, "GET", "/slurm/v0.0.41/ping");
    EXPECT_EQ(ping.status, 200) << release_name(release);
    EXPECT_EQ(ping.json().at("pings").at(0).at("pinged"), "DOWN");
    HttpResult jobs = bad_token_call(sim, options, "GET", "/slurm/v0.0.41/jobs");
    EXPECT_EQ(jobs.status, release == Release::r24_11_7 ? 511 : 500);
    HttpResult dbd = bad_token_call(sim, options, "GET", "/slurmdb/v0.0.41/jobs");
    EXPECT_EQ(dbd.status, release == Release::r24_11_7 ? 502 : 500);
    EXPECT_EQ(error_numbers(dbd.json()), (std::vector<std::int64_t>{7000}));
  }
  SimOptions options = test_options(Release::r24_11_7);
  SimInstance sim(options);
  HttpResult v42 = bad_token_call(sim, options, "GET", "/slurm/v0.0.42/ping");
  EXPECT_EQ(v42.status, 200);
  EXPECT_EQ(v42.json().at("pings").at(0).at("responding"), false);
}

TEST(Releases, SubmitAnswersCarryResultUpToV41) {
  SimOptions options = test_options(Release::r24_11_7);
  SimInstance sim(options);
  for (const std::string v : {"v0.0.40", "v0.0.41"}) {
    HttpResult r = slurm_call(sim, options, "POST", "/slurm/" + v + "/job/submit", simple_job());
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(keys(r.json()), (std::vector<std::string>{"result", "job_id", "step_id", "job_submit_user_msg", "meta",
                                                        "errors", "warnings"}));
    EXPECT_EQ(keys(r.json().at("result")),
              (std::vector<std::string>{"job_id", "step_id", "error_code", "error", "job_submit_user_msg"}));
    EXPECT_EQ(r.json().at("result").at("job_id"), r.json().at("job_id"));
  }
  HttpResult r = slurm_call(sim, options, "POST", "/slurm/v0.0.42/job/submit", simple_job());
  EXPECT_EQ(keys(r.json()),
            (std::vector<std::string>{"job_id", "step_id", "job_submit_user_msg", "meta", "errors", "warnings"}));
}

TEST(Releases, RecordFieldsPerDialect) {
  SimOptions options = test_options(Release::r24_11_7);
  SimInstance sim(options);
  submit(sim, options, "v0.0.42");
  for (const std::string v : {"v0.0.40", "v0.0.41", "v0.0.42"}) {
    const json::value job = slurm_call(sim, options, "GET", "/slurm/" + v + "/job/1").json().at("jobs").at(0);
    for (const char* absent : {"sluid", "step_id", "stdin_expanded", "stdout_expanded", "stderr_expanded",
                               "segment_size", "licenses_allocated"}) {
      EXPECT_FALSE(has_key(job, absent)) << v << " job " << absent;
    }
    EXPECT_EQ(job.at("standard_output"), "/w/slurm-1.out") << v;
    EXPECT_EQ(job.at("standard_input"), "/dev/null") << v;
    const json::value dbd =
        slurm_call(sim, options, "GET", "/slurmdb/" + v + "/job/1").json().at("jobs").at(0);
    EXPECT_FALSE(has_key(dbd, "sluid")) << v;
    EXPECT_EQ(has_key(dbd, "restart_cnt"), v == "v0.0.42") << v;
    EXPECT_EQ(has_key(dbd, "stdout_expanded"), v != "v0.0.40") << v;
    EXPECT_EQ(has_key(dbd, "stderr_expanded"), v != "v0.0.40") << v;
  }
}

TEST(Releases, UpdateDbFlagShowsOnV40AndV41) {
  SimOptions options = test_options(Release::r24_05_8);
  SimInstance sim(options);
  submit(sim, options, "v0.0.41");
  control(sim, "POST", "/sim/jobs/1/state", R"({"update_db": true})");
  for (const std::string v : {"v0.0.40", "v0.0.41"}) {
    HttpResult r = slurm_call(sim, options, "GET", "/slurm/" + v + "/job/1");
    EXPECT_EQ(job_states(r.json()), (std::vector<std::string>{"PENDING,UPDATE_DB"})) << v;
    HttpResult s = slurm_call(sim, options, "GET", "/slurm/" + v + "/jobs/state?job_id=1");
    EXPECT_EQ(job_states(s.json()), (std::vector<std::string>{"PENDING,UPDATE_DB"})) << v;
  }
  control(sim, "POST", "/sim/jobs/1/state", R"({"update_db": false})");
  EXPECT_EQ(job_states(slurm_call(sim, options, "GET", "/slurm/v0.0.41/job/1").json()),
            (std::vector<std::string>{"PENDING"}));
  // v0.0.42 has no such flag name.
  SimOptions later = test_options(Release::r24_11_7);
  SimInstance sim2(later);
  submit(sim2, later, "v0.0.42");
  control(sim2, "POST", "/sim/jobs/1/state", R"({"update_db": true})");
  EXPECT_EQ(job_states(slurm_call(sim2, later, "GET", "/slurm/v0.0.42/job/1").json()),
            (std::vector<std::string>{"PENDING"}));
}

TEST(Releases, MetaPerRelease) {
  struct Row {
    Release release;
    std::string version;
    std::string major, micro, minor, text;
  };
  const Row rows[] = {
      {Release::r23_11_4, "v0.0.40", "23", "4", "11", "23.11.4"},
      {Release::r23_11_11, "v0.0.40", "23", "11", "11", "23.11.11"},
      {Release::r24_05_8, "v0.0.41", "24", "8", "05", "24.05.8"},
      {Release::r24_11_7, "v0.0.42", "24", "7", "11", "24.11.7"},
  };
  for (const Row& row : rows) {
    SimOptions options = test_options(row.release);
    SimInstance sim(options);
    const json::value meta = slurm_call(sim, options, "GET", "/slurm/" + row.version + "/ping").json().at("meta");
    EXPECT_EQ(text(meta.at("slurm").at("release")), row.text);
    EXPECT_EQ(text(meta.at("slurm").at("version").at("major")), row.major);
    EXPECT_EQ(text(meta.at("slurm").at("version").at("micro")), row.micro);
    EXPECT_EQ(text(meta.at("slurm").at("version").at("minor")), row.minor);
    EXPECT_EQ(text(meta.at("plugin").at("type")), "openapi/slurmctld");
    EXPECT_EQ(text(meta.at("plugin").at("data_parser")), "data_parser/" + row.version);
    const json::value dbd = slurm_call(sim, options, "GET", "/slurmdb/" + row.version + "/jobs").json().at("meta");
    EXPECT_EQ(text(dbd.at("plugin").at("type")), "openapi/slurmdbd");
  }
}

}  // namespace
}  // namespace tpslurm::sim::test
