// Job arrays as slurmctld keeps them: the `array` spec of every dialect's submit, the site's
// limits (MaxArraySize, max_array_tasks) and their 2081 refusal, the one pending meta
// record, the tasks split off as they start, per-task reads, release, cancel and the
// slurmdbd rows, per release.
#include <gtest/gtest.h>

#include <map>

#include "array_spec.h"
#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

const std::vector<ServedVersion> kArrayReleases = {
    {Release::r22_05_8, "v0.0.38"},
    {Release::r23_11_11, "v0.0.40"},
    {Release::r24_11_7, "v0.0.42"},
    {Release::r26_05_3, "v0.0.45"},
};

std::string arr_submit_body(const std::string& version, const std::string& spec, bool hold = false,
                            const std::string& name = "sweep") {
  const std::string env = version == "v0.0.38" ? R"({"PATH": "/bin"})" : R"(["PATH=/bin"])";
  return R"({"script": "#!/bin/bash\necho $SLURM_ARRAY_TASK_ID\n", "job": {"name": ")" + name +
         R"(", "comment": "tag-7", "standard_output": "/tmp/o-%A_%a.out", "array": ")" + spec +
         R"(", "environment": )" + env + (hold ? R"(, "hold": true)" : "") + "}}";
}

std::int64_t arr_number(const json::value& v) {
  if (v.is_object()) return v.at("number").to_number<std::int64_t>();
  return v.to_number<std::int64_t>();
}

// A slurmdbd task_id: null (v0.0.38) or set:false reads as -1.
std::int64_t arr_number_or_unset(const json::value& v) {
  if (v.is_null() || (v.is_object() && !v.at("set").as_bool())) return -1;
  return arr_number(v);
}

// array_task_id: unset (`null` / set:false) reads as -1.
std::int64_t arr_task_id(const json::value& job) {
  const json::value& v = job.at("array_task_id");
  if (v.is_null()) return -1;
  if (v.is_object() && !v.at("set").as_bool()) return -1;
  return arr_number(v);
}

TEST(ArraySpec, ParsesEverySyntaxSlurmctldTakes) {
  ArrayLimits limits;
  auto tasks = [&](const std::string& text) {
    auto spec = parse_array_spec(text, limits);
    return spec ? std::vector<std::uint32_t>(spec->tasks.begin(), spec->tasks.end()) : std::vector<std::uint32_t>{9999};
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
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    options.cluster.max_array_size = 100;
    options.cluster.max_array_tasks = 10u;
    SimInstance sim(options);
    const std::string path = "/slurm/" + d.version + "/job/submit";
    for (const char* spec : {"0-100", "0-10", "x"}) {
      HttpResult r = slurm_call(sim, options, "POST", path, arr_submit_body(d.version, spec));
      EXPECT_EQ(r.status, d.release == Release::r26_05_3 ? 422 : 500) << d.version << " " << spec;
      EXPECT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{2081})) << d.version << " " << spec;
      EXPECT_FALSE(r.json().as_object().contains("job_id"));
    }
    EXPECT_EQ(control(sim, "GET", "/sim/stats").at("jobs_created").to_number<int>(), 0);
    HttpResult ok = slurm_call(sim, options, "POST", path, arr_submit_body(d.version, "90-99"));
    EXPECT_EQ(ok.status, 200) << d.version;
  }
}

TEST(Arrays, SubmitAnswersTheMasterIdAndOnePendingMetaRecord) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    options.first_job_id = 14;
    SimInstance sim(options);
    HttpResult r = slurm_call(sim, options, "POST", "/slurm/" + d.version + "/job/submit",
                              arr_submit_body(d.version, "3,5-9%4", true));
    ASSERT_EQ(r.status, 200) << d.version;
    EXPECT_EQ(r.json().at("job_id").to_number<int>(), 14);
    json::value jobs = slurm_call(sim, options, "GET", "/slurm/" + d.version + "/jobs").json();
    ASSERT_EQ(jobs.at("jobs").as_array().size(), 1u) << d.version;
    const json::value& meta = jobs.at("jobs").at(0);
    EXPECT_EQ(arr_number(meta.at("job_id")), 14);
    EXPECT_EQ(arr_number(meta.at("array_job_id")), 14);
    EXPECT_EQ(arr_task_id(meta), -1);
    EXPECT_EQ(arr_number(meta.at("array_max_tasks")), 4);
    EXPECT_EQ(meta.at("array_task_string"), "3,5-9%4");
    EXPECT_EQ(meta.at("state_reason"), "JobHeldUser");
  }
}

void arr_advance(const SimInstance& sim, std::int64_t ms) {
  control(sim, "POST", "/sim/clock/advance", "{\"ms\": " + std::to_string(ms) + "}");
}

json::array arr_jobs(const SimInstance& sim, const SimOptions& options, const std::string& path) {
  return slurm_call(sim, options, "GET", path).json().at("jobs").as_array();
}

// job_id -> array_task_id of every record in a listing.
std::map<std::int64_t, std::int64_t> arr_tasks_by_job(const json::array& jobs) {
  std::map<std::int64_t, std::int64_t> out;
  for (const auto& job : jobs) out[arr_number(job.at("job_id"))] = arr_task_id(job);
  return out;
}

TEST(Arrays, StartedTasksSplitOffWithNewIdsAndTheLastKeepsTheMastersId) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    options.first_job_id = 14;
    options.timing = Timing{true, 1000, 60000, 1000};
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-2")).status, 200);
    arr_advance(sim, 1000);
    json::array jobs = arr_jobs(sim, options, v + "/jobs");
    // As the real 22.05.8 did with job 14: task 0 became 15, task 1 became 16, task 2 stayed 14.
    EXPECT_EQ(arr_tasks_by_job(jobs), (std::map<std::int64_t, std::int64_t>{{14, 2}, {15, 0}, {16, 1}})) << d.version;
    for (const auto& job : jobs) {
      EXPECT_EQ(arr_number(job.at("array_job_id")), 14);
      EXPECT_EQ(job.at("name"), "sweep");
      EXPECT_EQ(job.at("comment"), "tag-7");
      EXPECT_EQ(job.at("array_task_string"), "");
      EXPECT_EQ(job_states(json::value{{"jobs", json::array{job}}}).front().substr(0, 7), "RUNNING");
    }
    EXPECT_EQ(arr_jobs(sim, options, v + "/job/14").size(), 3u) << d.version;
    EXPECT_EQ(arr_jobs(sim, options, v + "/job/15").size(), 1u) << d.version;
    if (d.version != "v0.0.38") {
      // The expanded path (v0.0.43 on: stdout_expanded): %A the master, %a the task.
      for (const auto& job : jobs) {
        const std::string expected = "/tmp/o-14_" + std::to_string(arr_task_id(job)) + ".out";
        const char* key = d.version == "v0.0.45" ? "stdout_expanded" : "standard_output";
        EXPECT_EQ(job.at(key), expected.c_str()) << d.version;
      }
    }
  }
}

TEST(Arrays, TheThrottleLimitsTasksRunningAtOnce) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    options.timing = Timing{true, 1000, 2000, 0};
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-4%2")).status, 200);
    arr_advance(sim, 1000);
    json::array jobs = arr_jobs(sim, options, v + "/job/1");
    ASSERT_EQ(jobs.size(), 3u) << d.version;
    EXPECT_EQ(jobs.at(0).at("array_task_string"), "2-4%2");
    EXPECT_EQ(jobs.at(0).at("state_reason"), "JobArrayTaskLimit");
    EXPECT_EQ(arr_tasks_by_job(jobs), (std::map<std::int64_t, std::int64_t>{{1, -1}, {2, 0}, {3, 1}}));
    EXPECT_EQ(arr_number(jobs.at(1).at("array_max_tasks")), 2);
    arr_advance(sim, 2000);  // tasks 0 and 1 end: 2 and 3 start
    jobs = arr_jobs(sim, options, v + "/job/1");
    // Tasks 2 and 3 split off; the one task left is the master's record, still throttled.
    EXPECT_EQ(jobs.size(), 5u) << d.version;
    EXPECT_EQ(arr_task_id(jobs.at(0)), 4);
    EXPECT_EQ(jobs.at(0).at("array_task_string"), "");
    EXPECT_EQ(jobs.at(0).at("state_reason"), "JobArrayTaskLimit");
    arr_advance(sim, 2000);  // the last task starts in the master's record
    jobs = arr_jobs(sim, options, v + "/job/1");
    EXPECT_EQ(arr_task_id(jobs.at(0)), 4) << d.version;
    EXPECT_EQ(job_states(json::value{{"jobs", json::array{jobs.at(0)}}}).front(), "RUNNING");
  }
}

TEST(Arrays, JobsStateListsEveryPendingTaskAndEachSplitTask) {
  for (const auto& d : kArrayReleases) {
    if (d.version == "v0.0.38") continue;  // no jobs/state before v0.0.40
    SimOptions options = test_options(d.release);
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-3", true)).status, 200);
    control(sim, "POST", "/sim/jobs/1_2/state", R"({"state": "RUNNING"})");
    json::array entries = arr_jobs(sim, options, v + "/jobs/state?job_id=1");
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.emplace_back(e.at("job_id").as_string());
    // A split task is named by its own job id (job_state.c), a pending one by the master's.
    EXPECT_EQ(ids, (std::vector<std::string>{"1_0", "1_1", "1_3", "2_2"})) << d.version;
    // Every pending task cancelled: the meta record is listed once, as "M_*".
    for (const char* task : {"1_0", "1_1", "1_3"})
      slurm_call(sim, options, "DELETE", v + "/jobs", std::string(R"({"jobs": [")") + task + "\"]}");
    entries = arr_jobs(sim, options, v + "/jobs/state?job_id=1");
    ASSERT_EQ(entries.size(), 2u) << d.version;
    EXPECT_EQ(entries.at(0).at("job_id"), "1_*");
    EXPECT_EQ(entries.at(0).at("state").at(0), "CANCELLED");
  }
}

TEST(Arrays, GetByTaskIdFollowsEachRelease) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-3")).status, 200);
    control(sim, "POST", "/sim/jobs/1_2/state", R"({"state": "RUNNING"})");
    HttpResult pending = slurm_call(sim, options, "GET", v + "/job/1_1");
    HttpResult split = slurm_call(sim, options, "GET", v + "/job/1_2");
    if (d.version == "v0.0.38") {
      // slurm_xlate_job_id(): only a record with that task id is found.
      EXPECT_EQ(pending.status, 400);
      EXPECT_EQ(error_numbers(pending.json()), (std::vector<std::int64_t>{9002}));
      ASSERT_EQ(split.status, 200);
      ASSERT_EQ(split.json().at("jobs").as_array().size(), 1u);
      EXPECT_EQ(arr_number(split.json().at("jobs").at(0).at("job_id")), 2);
    } else {
      // The task id is dropped with a warning: every record of the array.
      EXPECT_EQ(pending.status, 200) << d.version;
      EXPECT_EQ(pending.json().at("jobs").as_array().size(), 2u);
      EXPECT_EQ(split.json().at("jobs").as_array().size(), 2u);
      EXPECT_EQ(pending.json().at("warnings").as_array().size(), 1u);
    }
  }
}

TEST(Arrays, TheControlApiStepsOneTaskByItsSplitIdOrByMasterUnderscoreTask) {
  SimOptions options = test_options();
  SimInstance sim(options);
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", arr_submit_body("v0.0.45", "0-2")).status,
            200);
  json::value stepped = control(sim, "POST", "/sim/jobs/1_1/state", R"({"state": "RUNNING"})");
  const std::int64_t split_id = stepped.at("jobs").at(0).at("job_id").to_number<std::int64_t>();
  EXPECT_EQ(split_id, 2);
  control(sim, "POST", "/sim/jobs/2/state", R"({"state": "COMPLETED"})");
  json::array jobs = arr_jobs(sim, options, "/slurm/v0.0.45/job/1");
  EXPECT_EQ(jobs.at(0).at("array_task_string"), "0,2");
  EXPECT_EQ(job_states(json::value{{"jobs", json::array{jobs.at(1)}}}).front(), "COMPLETED");
  EXPECT_EQ(control_raw(sim, "POST", "/sim/jobs/1_7/state", R"({"state": "RUNNING"})").status, 404);
  // Splitting one of the last two pending tasks leaves the master as the other one.
  control(sim, "POST", "/sim/jobs/1_0/state", R"({"state": "RUNNING"})");
  jobs = arr_jobs(sim, options, "/slurm/v0.0.45/job/1");
  EXPECT_EQ(arr_task_id(jobs.at(0)), 2);
  EXPECT_EQ(jobs.size(), 3u);
}

std::string arr_state(const json::value& job) { return job_states(json::value{{"jobs", json::array{job}}}).front(); }

TEST(Arrays, OneReleaseOfTheMasterReleasesEveryPendingTask) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    options.timing = Timing{true, 1000, 60000, 0};
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-3", true)).status, 200);
    arr_advance(sim, 5000);
    EXPECT_EQ(arr_jobs(sim, options, v + "/jobs").size(), 1u) << d.version;  // held: never split
    HttpResult r = slurm_call(sim, options, "POST", v + "/job/1", R"({"hold": false})");
    EXPECT_EQ(r.status, 200) << d.version;
    arr_advance(sim, 1000);
    json::array jobs = arr_jobs(sim, options, v + "/job/1");
    ASSERT_EQ(jobs.size(), 4u) << d.version;
    for (const auto& job : jobs) EXPECT_EQ(arr_state(job), "RUNNING") << d.version;
  }
}

// DELETE job/{M}_{t} on a task still pending in the meta record.
TEST(Arrays, DeletingOnePendingTaskFollowsEachRelease) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-3", true)).status, 200);
    HttpResult r = slurm_call(sim, options, "DELETE", v + "/job/1_2");
    EXPECT_EQ(r.status, 200) << d.version;
    json::array jobs = arr_jobs(sim, options, v + "/jobs");
    ASSERT_EQ(jobs.size(), 1u) << d.version;  // a cancelled pending task leaves no record
    if (d.release == Release::r23_11_11) {
      // 23.11-24.05 send only the numeric id: the whole array is cancelled.
      EXPECT_EQ(arr_state(jobs.at(0)), "CANCELLED");
      EXPECT_EQ(jobs.at(0).at("array_task_string"), "0-3");
    } else {
      EXPECT_EQ(arr_state(jobs.at(0)), "PENDING") << d.version;
      EXPECT_EQ(jobs.at(0).at("array_task_string"), "0-1,3") << d.version;
    }
  }
}

TEST(Arrays, DeletingOneSplitTaskCancelsItAloneFrom24_11) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-3")).status, 200);
    control(sim, "POST", "/sim/jobs/1_0/state", R"({"state": "RUNNING"})");  // job 2
    EXPECT_EQ(slurm_call(sim, options, "DELETE", v + "/job/1_0").status, 200) << d.version;
    json::array jobs = arr_jobs(sim, options, v + "/job/1");
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(arr_state(jobs.at(1)).substr(0, 9), "CANCELLED") << d.version;
    EXPECT_EQ(arr_state(jobs.at(0)), d.release == Release::r23_11_11 ? "CANCELLED" : "PENDING") << d.version;
    // The last pending tasks cancelled one by one: the meta record ends CANCELLED.
    for (const char* task : {"1_1", "1_2", "1_3"}) slurm_call(sim, options, "DELETE", v + "/job/" + task);
    EXPECT_EQ(arr_state(arr_jobs(sim, options, v + "/job/1").at(0)), "CANCELLED") << d.version;
  }
}

TEST(Arrays, DeletingTheMasterCancelsTheWholeArray) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-3")).status, 200);
    control(sim, "POST", "/sim/jobs/1_0/state", R"({"state": "RUNNING"})");
    EXPECT_EQ(slurm_call(sim, options, "DELETE", v + "/job/1").status, 200) << d.version;
    for (const auto& job : arr_jobs(sim, options, v + "/job/1")) {
      EXPECT_EQ(arr_state(job).substr(0, 9), "CANCELLED") << d.version;
    }
  }
}

TEST(Arrays, SlurmdbdKeepsOneRowPerTaskAndTheMastersIdFindsThemAll) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    const std::string db = d.version == "v0.0.38" ? "/slurmdb/v0.0.38" : "/slurmdb/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "3-9%2")).status, 200);
    control(sim, "POST", "/sim/jobs/1_3/state", R"({"state": "RUNNING"})");
    slurm_call(sim, options, "DELETE", v + "/job/1_4");  // cancelled while pending: no row
    json::array rows = arr_jobs(sim, options, db + "/job/1");
    ASSERT_EQ(rows.size(), 2u) << d.version;
    const json::value& meta = rows.at(0).at("array");
    EXPECT_EQ(meta.at("job_id").to_number<int>(), 1);
    EXPECT_EQ(arr_number_or_unset(meta.at("task_id")), -1) << d.version;
    // The pending tasks as slurmctld's hex mask: 5-9 (23.11 cancelled the whole array, 4-9).
    EXPECT_EQ(meta.at("task"), d.release == Release::r23_11_11 ? "0x3F0" : "0x3E0") << d.version;
    EXPECT_EQ(meta.at("limits").at("max").at("running").at("tasks").to_number<int>(), 2);
    const json::value& task = rows.at(1).at("array");
    EXPECT_EQ(rows.at(1).at("job_id").to_number<int>(), 2);
    EXPECT_EQ(task.at("job_id").to_number<int>(), 1);
    EXPECT_EQ(arr_number_or_unset(task.at("task_id")), 3) << d.version;
  }
}

TEST(Arrays, AnUpdateByTaskIdSplitsThatTaskOffOnV0038AndIsRefusedOnV004x) {
  SimOptions options = test_options(Release::r22_05_8);
  SimInstance sim(options);
  ASSERT_EQ(
      slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/submit", arr_submit_body("v0.0.38", "0-3", true)).status,
      200);
  EXPECT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/1_2", R"({"hold": false})").status, 200);
  json::array jobs = arr_jobs(sim, options, "/slurm/v0.0.38/job/1");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs.at(0).at("array_task_string"), "0-1,3");
  EXPECT_EQ(jobs.at(0).at("state_reason"), "JobHeldUser");
  EXPECT_EQ(arr_task_id(jobs.at(1)), 2);
  EXPECT_EQ(jobs.at(1).at("state_reason"), "None");

  SimOptions options26 = test_options();
  SimInstance sim26(options26);
  slurm_call(sim26, options26, "POST", "/slurm/v0.0.45/job/submit", arr_submit_body("v0.0.45", "0-3", true));
  HttpResult r = slurm_call(sim26, options26, "POST", "/slurm/v0.0.45/job/1_2", R"({"hold": false})");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{9000}));
  EXPECT_EQ(arr_jobs(sim26, options26, "/slurm/v0.0.45/jobs").size(), 1u);
}

TEST(Arrays, DeleteJobsCancelsOneTaskByItsStringId) {
  for (const auto& d : kArrayReleases) {
    SimOptions options = test_options(d.release);
    SimInstance sim(options);
    const std::string v = "/slurm/" + d.version;
    ASSERT_EQ(slurm_call(sim, options, "POST", v + "/job/submit", arr_submit_body(d.version, "0-3", true)).status, 200);
    HttpResult r = slurm_call(sim, options, "DELETE", v + "/jobs", R"({"jobs": ["1_2", "1_9"]})");
    if (d.version == "v0.0.38") {
      EXPECT_EQ(r.status, 404);  // 22.05 has no DELETE jobs
      continue;
    }
    EXPECT_EQ(r.status, 200) << d.version;
    ASSERT_EQ(r.json().at("status").as_array().size(), 1u) << d.version;  // 1_9 is no task
    EXPECT_EQ(r.json().at("status").at(0).at("error").at("code").to_number<int>(), 2017);
    EXPECT_EQ(r.json().at("status").at(0).at("step_id"), "1_9");
    json::array jobs = arr_jobs(sim, options, v + "/jobs");
    ASSERT_EQ(jobs.size(), 1u);
    EXPECT_EQ(jobs.at(0).at("array_task_string"), "0-1,3") << d.version;
    // An id slurmctld cannot read fails the whole request: nothing is signalled.
    HttpResult bad = slurm_call(sim, options, "DELETE", v + "/jobs", R"({"jobs": ["1_0", "1_[3]"]})");
    EXPECT_EQ(error_numbers(bad.json()), (std::vector<std::int64_t>{2017})) << d.version;
    EXPECT_EQ(arr_jobs(sim, options, v + "/jobs").at(0).at("array_task_string"), "0-1,3");
    EXPECT_EQ(slurm_call(sim, options, "DELETE", v + "/jobs", R"({"jobs": ["1"]})").status, 200);
    EXPECT_EQ(arr_state(arr_jobs(sim, options, v + "/jobs").at(0)), "CANCELLED") << d.version;
  }
}

TEST(Arrays, OnlyV0045On26_05ServesTheLimitsInConf) {
  SimOptions options = test_options();
  options.cluster.max_array_size = 5000;
  options.cluster.max_array_tasks = 2000u;
  SimInstance sim(options);
  HttpResult r = slurm_call(sim, options, "GET", "/slurm/v0.0.45/conf");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.json().at("slurm_conf").at("MaxArraySize").to_number<int>(), 5000);
  EXPECT_EQ(r.json().at("slurm_conf").at("SchedulerParameters"), (json::array{"max_array_tasks=2000"}));
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.44/conf").status, 404);
  SimOptions options25 = test_options(Release::r25_11_7);
  SimInstance sim25(options25);
  EXPECT_EQ(slurm_call(sim25, options25, "GET", "/slurm/v0.0.44/conf").status, 404);
}

}  // namespace
}  // namespace tpslurm::sim::test
