// Job arrays as slurmctld keeps them: the `array` spec of every dialect's submit, the site's
// limits (MaxArraySize, max_array_tasks) and their 2081 refusal, the one pending meta
// record, the tasks split off as they start, per-task reads, release, cancel and the
// slurmdbd rows, per release.
#include <gtest/gtest.h>

#include "array_spec.h"
#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

struct Dialects {
  Release release;
  std::string version;
};

const std::vector<Dialects> kReleases = {
    {Release::r22_05_8, "v0.0.38"},
    {Release::r23_11_11, "v0.0.40"},
    {Release::r24_11_7, "v0.0.42"},
    {Release::r26_05_3, "v0.0.45"},
};

std::string array_job(const std::string& version, const std::string& spec, bool hold = false,
                      const std::string& name = "sweep") {
  const std::string env = version == "v0.0.38" ? R"({"PATH": "/bin"})" : R"(["PATH=/bin"])";
  return R"({"script": "#!/bin/bash\necho $SLURM_ARRAY_TASK_ID\n", "job": {"name": ")" + name +
         R"(", "comment": "tag-7", "array": ")" + spec + R"(", "environment": )" + env +
         (hold ? R"(, "hold": true)" : "") + "}}";
}

std::int64_t number(const json::value& v) {
  if (v.is_object()) return v.at("number").to_number<std::int64_t>();
  return v.to_number<std::int64_t>();
}

// array_task_id: unset (`null` / set:false) reads as -1.
std::int64_t task_id(const json::value& job) {
  const json::value& v = job.at("array_task_id");
  if (v.is_null()) return -1;
  if (v.is_object() && !v.at("set").as_bool()) return -1;
  return number(v);
}

TEST(ArraySpec, ParsesEverySyntaxSlurmctldTakes) {
  ArrayLimits limits;
  auto tasks = [&](const std::string& text) {
    auto spec = parse_array_spec(text, limits);
    return spec ? std::vector<std::uint32_t>(spec->tasks.begin(), spec->tasks.end())
                : std::vector<std::uint32_t>{9999};
  };
  EXPECT_EQ(tasks("0-2"), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(tasks("1-7:3"), (std::vector<std::uint32_t>{1, 4, 7}));
  EXPECT_EQ(tasks("5,1,3"), (std::vector<std::uint32_t>{1, 3, 5}));
  EXPECT_EQ(tasks("[0-1],4-8:4%2"), (std::vector<std::uint32_t>{0, 1, 4, 8}));
  EXPECT_EQ(parse_array_spec("0-9%4", limits)->max_run, 4u);
  EXPECT_EQ(parse_array_spec("0-9", limits)->max_run, 0u);
  for (const char* bad : {"", "a", "3-1", "-1", "0-1001", "0-9:0", "1-5x", "1,x"}) {
    EXPECT_FALSE(parse_array_spec(bad, limits)) << bad;
  }
  EXPECT_FALSE(parse_array_spec("1001", ArrayLimits{1001, std::nullopt}));
  EXPECT_TRUE(parse_array_spec("1000", ArrayLimits{1001, std::nullopt}));
  EXPECT_FALSE(parse_array_spec("0-4", ArrayLimits{1001, 4u}));
  EXPECT_TRUE(parse_array_spec("0-3,900", ArrayLimits{1001, 5u}));
  EXPECT_FALSE(parse_array_spec("0", ArrayLimits{0, std::nullopt}));
}

TEST(ArraySpec, PrintsTheTaskStringAsLibslurmDoes) {
  auto text = [](const std::string& spec) {
    auto parsed = parse_array_spec(spec, ArrayLimits{4000001, std::nullopt});
    return array_task_string(parsed->tasks, parsed->max_run);
  };
  EXPECT_EQ(text("0-999"), "0-999");
  EXPECT_EQ(text("3,5-9%4"), "3,5-9%4");
  EXPECT_EQ(text("0-20:2"), "0-20:2");
  EXPECT_EQ(text("0-8:2"), "0,2,4,6,8");  // a stride needs more than 10 ids and 5 tasks
  std::string sparse = text("0-200:3,1");
  EXPECT_EQ(sparse.size(), 63u);
  EXPECT_EQ(sparse.substr(60), "...");
  EXPECT_EQ(sparse.substr(0, 6), "0-1,3,");
  EXPECT_EQ(array_hexmask({3, 4, 5, 6, 7, 8, 9}), "0x3F8");
  EXPECT_EQ(array_hexmask({0, 1, 2}), "0x7");
}

TEST(Arrays, ASpecOverTheSiteLimitsIsRefusedWith2081AndCreatesNothing) {
  for (const auto& d : kReleases) {
    SimOptions options = test_options(d.release);
    options.cluster.max_array_size = 100;
    options.cluster.max_array_tasks = 10u;
    SimInstance sim(options);
    const std::string path = "/slurm/" + d.version + "/job/submit";
    for (const char* spec : {"0-100", "0-10", "x"}) {
      HttpResult r = slurm_call(sim, options, "POST", path, array_job(d.version, spec));
      EXPECT_EQ(r.status, d.release == Release::r26_05_3 ? 422 : 500) << d.version << " " << spec;
      EXPECT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{2081})) << d.version << " " << spec;
      EXPECT_FALSE(r.json().as_object().contains("job_id"));
    }
    EXPECT_EQ(control(sim, "GET", "/sim/stats").at("jobs_created").to_number<int>(), 0);
    HttpResult ok = slurm_call(sim, options, "POST", path, array_job(d.version, "90-99"));
    EXPECT_EQ(ok.status, 200) << d.version;
  }
}

TEST(Arrays, SubmitAnswersTheMasterIdAndOnePendingMetaRecord) {
  for (const auto& d : kReleases) {
    SimOptions options = test_options(d.release);
    options.first_job_id = 14;
    SimInstance sim(options);
    HttpResult r = slurm_call(sim, options, "POST", "/slurm/" + d.version + "/job/submit",
                              array_job(d.version, "3,5-9%4", true));
    ASSERT_EQ(r.status, 200) << d.version;
    EXPECT_EQ(r.json().at("job_id").to_number<int>(), 14);
    json::value jobs = slurm_call(sim, options, "GET", "/slurm/" + d.version + "/jobs").json();
    ASSERT_EQ(jobs.at("jobs").as_array().size(), 1u) << d.version;
    const json::value& meta = jobs.at("jobs").at(0);
    EXPECT_EQ(number(meta.at("job_id")), 14);
    EXPECT_EQ(number(meta.at("array_job_id")), 14);
    EXPECT_EQ(task_id(meta), -1);
    EXPECT_EQ(number(meta.at("array_max_tasks")), 4);
    EXPECT_EQ(meta.at("array_task_string"), "3,5-9%4");
    EXPECT_EQ(meta.at("state_reason"), "JobHeldUser");
  }
}

}  // namespace
}  // namespace tpslurm::sim::test
