// The client's job-array calls against tools/slurmrestd-sim impersonating every release it
// serves, with `auto` choosing each release's newest version: a held array submitted,
// polled (one entry per task), released once, one pending and one started task cancelled
// alone while the others stay; 2081's refusal; two arrays in one poll; MaxArraySize from GET
// conf where 26.05 serves it.
#include <gtest/gtest.h>

#include <array>
#include <map>

#include "sim_client_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;
using testing::sim_description;

struct ArrayRelease {
  std::string release;
  std::string dialect;
};

std::string PrintToString(const ArrayRelease& r) { return r.release; }

struct Task {
  std::uint32_t job_id = 0;
  SlurmBaseState state = SlurmBaseState::pending;
};

class SimArraysTest : public testing::SimClientTest, public ::testing::WithParamInterface<ArrayRelease> {
 protected:
  void start_release(std::vector<std::string> args = {}) {
    args.insert(args.begin(), {"--release", GetParam().release});
    start(args, "auto");
    const ServerResult server = m_client->detect();
    ASSERT_EQ(server.outcome, Outcome::ok) << server.message;
    ASSERT_EQ(server.dialect, GetParam().dialect);
  }
  bool per_task_unsafe() const { return GetParam().release == "23.11.4"; }

  model::SubmitDescription held_array(const std::string& name, std::uint32_t last) {
    auto description = sim_description(name);
    description.hold = true;
    description.array = model::ArraySpec{0, last, std::nullopt};
    return description;
  }

  // Every task bulk_state reports for `master`, by task id.
  std::map<std::uint32_t, Task> tasks(std::uint32_t master) {
    const std::array<std::uint32_t, 1> ids{master};
    const BulkStateResult polled = m_client->bulk_state(ids);
    EXPECT_TRUE(polled.ok()) << polled.message;
    std::map<std::uint32_t, Task> out;
    for (const auto& entry : polled.states) {
      EXPECT_EQ(entry.array_job_id, master) << entry.job_id;
      if (entry.array_task_id) out[*entry.array_task_id] = {entry.job_id, entry.state.base};
    }
    return out;
  }

  std::int64_t deletes() {
    const std::string v = "/slurm/" + GetParam().dialect;
    return m_sim->route_count("DELETE " + v + "/job/{job_id}") + m_sim->route_count("DELETE " + v + "/jobs");
  }

  void start_task(std::uint32_t master, std::uint32_t task) {
    control(HttpMethod::post, "/sim/jobs/" + std::to_string(master) + "_" + std::to_string(task) + "/state",
            R"({"state": "RUNNING"})");
  }
};

TEST_P(SimArraysTest, OneTaskIsCancelledAloneAndTheOthersStay) {
  start_release();
  const auto description = held_array("tp-array", 3);
  const SubmitResult submitted = m_client->submit(description);
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const std::uint32_t master = *submitted.job_id;
  const JobRef array{master, "", description.tag};

  auto held = tasks(master);
  ASSERT_EQ(held.size(), 4u) << "one entry per pending task";
  for (const auto& [task, seen] : held) {
    EXPECT_EQ(seen.job_id, master) << task;
    EXPECT_EQ(seen.state, SlurmBaseState::pending) << task;
  }

  const ReleaseResult released = m_client->release_hold(array);
  ASSERT_EQ(released.outcome, Outcome::ok) << released.message;
  EXPECT_FALSE(released.already_ended);
  if (GetParam().release == "22.05.8") {
    EXPECT_NE(released.message.find("job array update from"), std::string::npos) << "22.05's note is kept";
  }
  const CancelResult unsendable = m_client->cancel_array_task(array, 1, "SIGNOTONE");
  EXPECT_EQ(unsendable.outcome, Outcome::rejected);
  start_task(master, 0);
  auto started = tasks(master);
  ASSERT_EQ(started.size(), 4u);
  EXPECT_NE(started[0].job_id, master) << "task 0 was split off under its own id";
  EXPECT_EQ(started[0].state, SlurmBaseState::running);
  const std::uint32_t own_id = started[0].job_id;

  const std::int64_t before = deletes();
  const CancelResult pending = m_client->cancel_array_task(array, 2);
  if (per_task_unsafe()) {
    EXPECT_EQ(pending.outcome, Outcome::rejected) << pending.message;
    EXPECT_EQ(deletes(), before) << "nothing sent";
  } else {
    ASSERT_EQ(pending.outcome, Outcome::ok) << pending.message;
  }
  const std::optional<JobRef> own = per_task_unsafe() ? std::optional<JobRef>(JobRef{own_id, "", description.tag})
                                                      : std::nullopt;
  const CancelResult running = m_client->cancel_array_task(array, 0, {}, own);
  ASSERT_EQ(running.outcome, Outcome::ok) << running.message;

  auto after = tasks(master);
  EXPECT_EQ(after.contains(2), per_task_unsafe()) << "a pending task cancelled alone leaves no record";
  ASSERT_TRUE(after.contains(0));
  EXPECT_NE(after[0].state, SlurmBaseState::running);
  EXPECT_NE(after[0].state, SlurmBaseState::pending);
  for (std::uint32_t task : {1u, 3u}) {
    ASSERT_TRUE(after.contains(task)) << task;
    EXPECT_EQ(after[task].state, SlurmBaseState::pending) << "task " << task << " stays";
  }
}

// 60 pending tasks in no regular pattern: 22.05's array_task_string is cut ("..."), so its
// poll says the array is incomplete and lists only tasks that are pending; jobs/state lists all.
TEST_P(SimArraysTest, ALongPendingListIsNeverReadAsTasksGone) {
  start_release();
  const auto description = held_array("tp-array-long", 89);
  const SubmitResult submitted = m_client->submit(description);
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const std::uint32_t master = *submitted.job_id;
  if (per_task_unsafe()) {
    // No pending task can be cancelled alone there: nothing to fragment the list with.
    EXPECT_EQ(m_client->cancel_array_task({master, "", description.tag}, 1).outcome, Outcome::rejected);
    return;
  }
  for (std::uint32_t task = 1; task < 90; task += 3) {
    ASSERT_TRUE(m_client->cancel_array_task({master, "", description.tag}, task).ok()) << task;
  }
  const std::array<std::uint32_t, 1> ids{master};
  const BulkStateResult polled = m_client->bulk_state(ids);
  ASSERT_TRUE(polled.ok()) << polled.message;
  const bool cut = GetParam().release == "22.05.8";
  EXPECT_EQ(polled.incomplete_arrays, cut ? std::vector<std::uint32_t>{master} : std::vector<std::uint32_t>{});
  if (!cut) {
    EXPECT_EQ(polled.states.size(), 60u);
  }
  EXPECT_FALSE(polled.states.empty());
  for (const auto& entry : polled.states) {
    ASSERT_TRUE(entry.array_task_id);
    EXPECT_NE(*entry.array_task_id % 3, 1u) << "a cancelled task listed as pending";
  }
}

TEST_P(SimArraysTest, AnArrayPastMaxArraySizeIsRejected) {
  start_release();
  const auto description = held_array("tp-array-big", 1500);  // MaxArraySize 1001
  const SubmitResult submitted = m_client->submit(description);
  EXPECT_EQ(submitted.outcome, Outcome::rejected) << submitted.message;
  ASSERT_FALSE(submitted.errors.empty());
  EXPECT_EQ(submitted.errors.front().number, 2081);
  EXPECT_EQ(m_sim->stat("jobs_created"), 0);
}

TEST_P(SimArraysTest, TwoArraysInOnePollKeepTheirTasks) {
  start_release();
  std::array<std::uint32_t, 2> masters{};
  for (std::size_t i = 0; i < masters.size(); ++i) {
    const auto description = held_array("tp-array-" + std::to_string(i), 2);
    const SubmitResult submitted = m_client->submit(description);
    ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
    masters[i] = *submitted.job_id;
    ASSERT_TRUE(m_client->release_hold({masters[i], "", description.tag}).ok());
    start_task(masters[i], 1);
  }
  const BulkStateResult polled = m_client->bulk_state(masters);
  ASSERT_TRUE(polled.ok()) << polled.message;
  std::map<std::pair<std::uint32_t, std::uint32_t>, JobStateEntry> by_task;
  for (const auto& entry : polled.states) {
    ASSERT_TRUE(entry.array_job_id && entry.array_task_id) << entry.job_id;
    by_task[{*entry.array_job_id, *entry.array_task_id}] = entry;
  }
  EXPECT_EQ(by_task.size(), 6u);
  for (std::uint32_t master : masters) {
    const auto started = by_task.find({master, 1});
    const auto waiting = by_task.find({master, 0});
    ASSERT_TRUE(started != by_task.end() && waiting != by_task.end()) << master;
    EXPECT_NE(started->second.job_id, master) << "the started task, under its own id";
    EXPECT_EQ(started->second.state.base, SlurmBaseState::running);
    EXPECT_EQ(waiting->second.state.base, SlurmBaseState::pending);
  }
  EXPECT_TRUE(polled.not_reported.empty());
}

TEST_P(SimArraysTest, ArrayLimitsComeFromGetConfWhereServed) {
  start_release({"--max-array-size", "5000", "--max-array-tasks", "2000"});
  const ArrayLimitsResult limits = m_client->array_limits();
  ASSERT_EQ(limits.outcome, Outcome::ok) << limits.message;
  const bool served = GetParam().release == "26.05.3";
  EXPECT_EQ(limits.served, served) << limits.message;
  if (served) {
    EXPECT_EQ(limits.max_array_size, 5000u);
    EXPECT_EQ(limits.max_array_tasks, 2000u);
  } else {
    EXPECT_EQ(m_sim->route_count("GET /slurm/" + GetParam().dialect + "/conf"), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Releases, SimArraysTest,
                         ::testing::Values(ArrayRelease{"22.05.8", "v0.0.38"}, ArrayRelease{"23.11.4", "v0.0.40"},
                                           ArrayRelease{"23.11.11", "v0.0.40"}, ArrayRelease{"24.05.8", "v0.0.41"},
                                           ArrayRelease{"24.11.7", "v0.0.42"}, ArrayRelease{"25.05.0", "v0.0.43"},
                                           ArrayRelease{"25.11.7", "v0.0.44"}, ArrayRelease{"26.05.3", "v0.0.45"}),
                         [](const auto& param_info) {
                           std::string name = param_info.param.release;
                           for (char& c : name) c = c == '.' ? '_' : c;
                           return "r" + name;
                         });

}  // namespace
}  // namespace tpslurm::slurm
