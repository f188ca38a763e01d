#include "model/sweep_request.h"

#include <gtest/gtest.h>

#include "test_catalogs.h"

namespace tpslurm::model {
namespace {

namespace json = boost::json;
using testing::cpu_only_request;

json::object run(const std::string& id, const std::string& arg) {
  return json::object{{"job_id", id},
                      {"credentials", json::object{{"ingest_token", "tok-" + id}}},
                      {"command", json::array{"python", "train.py", "--lr", arg}},
                      {"env", json::object{{"LR", arg}}}};
}

// A valid sweep of three CPU-only runs; the base has an env the runs add to and override.
json::object sweep() {
  json::object base = cpu_only_request().as_object();
  base.erase("job_id");
  base.erase("credentials");
  base["spec"].as_object().erase("command");
  base["spec"].as_object()["env"] = json::object{{"LR", "base"}, {"SEED", "7"}};
  return json::object{{"sweep_id", "sw-1"},
                      {"base", base},
                      {"max_running", 2},
                      {"runs", json::array{run("sw-1-a", "1e-3"), run("sw-1-b", "3e-4"), run("sw-1-c", "1e-4")}}};
}

Result<SweepRequest, Problems> parse(const json::object& sweep) {
  return parse_sweep_request(json::serialize(sweep), testing::context());
}

std::string refusal(const json::object& sweep) {
  const auto result = parse(sweep);
  return result.ok() ? "" : result.error().to_text();
}

json::object& base_spec(json::object& sweep) { return sweep["base"].as_object()["spec"].as_object(); }
json::object& run_at(json::object& sweep, std::size_t i) { return sweep["runs"].as_array()[i].as_object(); }

TEST(SweepRequestTest, EachRunIsTheBaseWithItsOwnIdCredentialCommandAndEnv) {
  const auto result = parse(sweep());
  ASSERT_TRUE(result.ok()) << result.error().to_text();
  EXPECT_EQ(result->sweep_id, "sw-1");
  EXPECT_EQ(result->max_running, 2);
  ASSERT_EQ(result->runs.size(), 3u);
  const LaunchRequest& second = result->runs[1];
  EXPECT_EQ(second.job_id, "sw-1-b");
  EXPECT_EQ(second.ingest_token, "tok-sw-1-b");
  EXPECT_EQ(second.command, (std::vector<std::string>{"python", "train.py", "--lr", "3e-4"}));
  EXPECT_EQ(second.env, (std::vector<std::pair<std::string, std::string>>{{"LR", "3e-4"}, {"SEED", "7"}}))
      << "the run's env is merged over the base's, the run's value winning";
  EXPECT_TRUE(second.is_cpu_only());
  EXPECT_EQ(second.canonical_json.find("tok-"), std::string::npos);
  EXPECT_EQ(result->canonical_json.find("tok-"), std::string::npos) << "no run's credential in the sweep's hash";
}

TEST(SweepRequestTest, TheSameSweepWithOtherTokensAndKeyOrderHasTheSameCanonicalForm) {
  json::object other = sweep();
  run_at(other, 0)["credentials"] = json::object{{"ingest_token", "another"}};
  json::object reordered;
  for (const char* key : {"runs", "max_running", "base", "sweep_id"}) reordered[key] = other[key];
  const auto a = parse(sweep());
  const auto b = parse(reordered);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->canonical_json, b->canonical_json);
  json::object changed = sweep();
  run_at(changed, 2)["command"].as_array()[3] = "5e-5";
  EXPECT_NE(parse(changed)->canonical_json, a->canonical_json);
}

TEST(SweepRequestTest, NamesEveryProblemOfTheSweepItsBaseAndItsRuns) {
  json::object bad = sweep();
  bad["sweep_id"] = "Sweep 1";
  bad["max_running"] = 4;
  bad["base"].as_object()["job_id"] = "x";
  base_spec(bad)["command"] = json::array{"true"};
  base_spec(bad)["time_limit_minutes"] = 0;
  run_at(bad, 0)["job_id"] = "BAD";
  run_at(bad, 1)["spec"] = json::object{};
  run_at(bad, 1).erase("command");
  run_at(bad, 2)["job_id"] = "sw-1-b";
  run_at(bad, 2)["env"] = json::object{{"1BAD", "x"}};
  EXPECT_EQ(refusal(bad),
            "sweep_id \"Sweep 1\": must match [a-z0-9][a-z0-9-]{0,62} (lower-case letters, digits and '-', at most 63)\n"
            "base.job_id \"x\": a sweep's base takes no job_id; each run names its own in runs[i].job_id\n"
            "base.spec.command: a sweep's base takes no command; each run names its own in runs[i].command\n"
            "max_running 4: is more than the sweep's 3 runs; give at most that many, or leave it out for no limit\n"
            "runs[0].job_id \"BAD\": must match [a-z0-9][a-z0-9-]{0,62} (lower-case letters, digits and '-', at "
            "most 63)\n"
            "base.spec.time_limit_minutes 0: must be a whole number from 1 to 525600\n"
            "runs[1].spec: a run may set only job_id, credentials, command and env; put the rest in base\n"
            "runs[1].command: is required\n"
            "runs[2].env.1BAD: is not a valid variable name; use letters, digits and '_', not starting with a digit\n"
            "runs[2].job_id \"sw-1-b\": is the job_id of runs[1] too; each run is a job of its own and needs an id "
            "of its own\n");
}

TEST(SweepRequestTest, RefusesSeveralPools) {
  json::object two = sweep();
  json::array& pools = base_spec(two)["pools"].as_array();
  pools.push_back(pools.front());
  EXPECT_NE(refusal(two).find("base.spec.pools has 2 pools: Slurm has no heterogeneous job arrays: a sweep has one "
                              "pool\n"),
            std::string::npos)
      << refusal(two);
}

TEST(SweepRequestTest, RefusesNoRunsAndTooManyRuns) {
  json::object none = sweep();
  none["runs"] = json::array{};
  none.erase("max_running");
  EXPECT_EQ(refusal(none), "runs []: a sweep needs at least one run\n");
  json::object many = sweep();
  many.erase("max_running");
  json::array& runs = many["runs"].as_array();
  while (runs.size() <= SweepLimits::max_runs) runs.push_back(runs.front());
  EXPECT_EQ(refusal(many), "runs: has 10001 runs; the limit is 10000; split the sweep in several\n");
}

TEST(SweepRequestTest, ARunsBadCommandAndCredentialAreItsOwn) {
  json::object bad = sweep();
  run_at(bad, 1)["command"] = json::array{};
  run_at(bad, 2).erase("credentials");
  EXPECT_EQ(refusal(bad),
            "runs[1].command []: must name the program to run and its arguments\n"
            "runs[2].credentials: is required\n");
}

TEST(SweepRequestTest, RefusesAnUnknownTopLevelField) {
  json::object bad = sweep();
  bad["array"] = true;
  EXPECT_NE(refusal(bad).find("array"), std::string::npos);
}

}  // namespace
}  // namespace tpslurm::model
