// The crash matrix: every named crash point of the submit protocol and the cleanup × six
// scenarios × two dialects. The real binary runs `serve --once` with TUNEPLANE_CRASH_AT set until it dies
// there (exit 86), then runs again without it until quiet; then the invariants are checked:
//   - at most one Slurm job (one het job) per attempt, exactly one — the journaled one — for
//     every attempt the journal says Slurm holds, and no job of the test's that the journal
//     does not account for;
//   - no submit after a lost answer before the job was found: Slurm received at most one
//     submit per attempt that committed its intent, and none for an attempt that did not;
//   - an attempt still blocked is one whose job Slurm never created (a crash before the send),
//     and every other attempt ended where its scenario ends (released and pending, cancelled,
//     or — the job run to its end by the simulator — succeeded with its cleanup closed); a
//     second copy Slurm holds (a lost answer, then the same POST again behind the daemon's
//     back) is cancelled while held and never ran;
//   - `journal check` is clean, and the journal's story is one unbroken chain of states.
// Each (dialect, scenario) is its own test so ctest can run them side by side; each prints
// its row of the matrix (points × outcome), and the last one the points no scenario reached.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <boost/json.hpp>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "base/crash_point.h"
#include "base/digest.h"
#include "binary_fixture.h"
#include "journal/journal.h"
#include "slurm/curl_transport.h"
#include "slurm/rest_client.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::reconcile::testing {
namespace {

using tpslurm::testing::ProcessResult;

const std::vector<std::string> kPoints = {
    "prepare.after_preparing",
    "attempt_dir.before_manifest",
    "prepare.after_manifest",
    "submit.after_intent",
    "submit.sent",
    "submit.after_answer",
    "identify.after",
    "release.after_send",
    "release.after_commit",
    "search.after_found",
    "adopt.after_commit",
    "duplicate.after_cancel",
    "follow.after_end",
    "cleanup.after_epilog",
    "cleanup.after_staging",
    "cleanup.after_seal",
};

// per_user_lost_with_copy: lost_with_copy for a platform user's job in per-user mode (the
// map gives "alice" the Unix user "daemon"; every call about the job goes as it).
enum class Scenario {
  single_pool,
  three_pools,
  cpu_only,
  cancel_while_unknown,
  runs_to_end,
  lost_with_copy,
  per_user_lost_with_copy
};

bool loses_with_copy(Scenario s) { return s == Scenario::lost_with_copy || s == Scenario::per_user_lost_with_copy; }

constexpr const char* kJobUnixUser = "daemon";

std::string name_of(Scenario s) {
  switch (s) {
    case Scenario::single_pool: return "single-pool";
    case Scenario::three_pools: return "three-pool hetjob";
    case Scenario::cpu_only: return "CPU-only";
    case Scenario::cancel_while_unknown: return "cancel while unknown";
    case Scenario::runs_to_end: return "runs to the end";
    case Scenario::lost_with_copy: return "lost answer and a copy";
    case Scenario::per_user_lost_with_copy: return "per-user lost answer and a copy";
  }
  return "?";
}

std::string pools_of(Scenario s) {
  const std::string gpu =
      R"({"name": "p", "gpu_series": "h100-80g", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1})";
  switch (s) {
    case Scenario::single_pool: return "[" + gpu + "]";
    case Scenario::three_pools: {
      std::string three = "[";
      for (const char* name : {"a", "b", "c"}) {
        std::string pool = gpu;
        pool.replace(pool.find("\"p\""), 3, std::string("\"") + name + "\"");
        three += (three.size() > 1 ? ", " : "") + pool;
      }
      return three + "]";
    }
    default: return {};
  }
}

struct Case {
  bool crashed = false;
  int copies = 0;  // submits the test itself sent (a copy behind the daemon's back)
  std::vector<std::string> failures;
  std::string log;  // what the serve runs wrote (warnings and errors): shown with a failure
};

class CrashMatrixTest : public BinaryTest, public ::testing::WithParamInterface<std::pair<std::string, Scenario>> {
 protected:
  void SetUp() override { start_sim(GetParam().first); }

  // `serve --once`, crashing at `point` unless the case already crashed there.
  void serve(tpslurm::testing::EnvironmentMap env, const std::string& point, Case& c) {
    if (!c.crashed) env["TUNEPLANE_CRASH_AT"] = point;
    const ProcessResult run = cli(env, {"serve", "--once"});
    c.log += run.err;
    if (run.exit_code == kCrashExitCode && !c.crashed) {
      c.crashed = true;
      return;
    }
    if (run.exit_code != 0)
      c.failures.push_back("serve --once exited " + std::to_string(run.exit_code) + ": " + run.err);
  }

  Case run_case(Scenario scenario, const std::string& point, int index);
  // environment(root), in per-user mode for per_user_lost_with_copy (its map written in root).
  tpslurm::testing::EnvironmentMap case_environment(const std::string& root, Scenario scenario);
  // The het leaders (or plain jobs) the simulator holds with this name and their views (ids are
  // handed out in order, so the first unknown id ends the scan).
  std::map<std::uint32_t, boost::json::object> leaders_named(const std::string& name);
  // Submits, through slurmrestd, a held copy of the job with this name (its name, comment and
  // working directory): what a proxy that re-sent the POST leaves behind.
  void submit_copy(const std::string& name, const std::string& unix_user, Case& c);
  // Steps every job with this name in the simulator (POST /sim/jobs/{id}/state).
  void step_jobs(const std::string& name, const std::string& body, Case& c);
  void check(const tpslurm::testing::EnvironmentMap& env, const std::string& job_id, Scenario scenario,
             std::int64_t submits, Case& c);
};

tpslurm::testing::EnvironmentMap CrashMatrixTest::case_environment(const std::string& root, Scenario scenario) {
  auto env = environment(root);
  if (scenario != Scenario::per_user_lost_with_copy) return env;
  tpslurm::testing::write_test_file(root + "/users.json", std::string(R"({"users": {"alice": {"unix_user": ")") +
                                                              kJobUnixUser + R"(", "accounts": ["ml"]}}})");
  env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
  env["TUNEPLANE_USER_MAP_FILE"] = root + "/users.json";
  env["TUNEPLANE_FIRST_USER_ID"] = "1";  // "daemon" is uid 1 on every Debian system
  return env;
}

Case CrashMatrixTest::run_case(Scenario scenario, const std::string& point, int index) {
  Case c;
  const std::string root = m_dir.file("case-" + std::to_string(index));
  const auto env = case_environment(root, scenario);
  const bool per_user = scenario == Scenario::per_user_lost_with_copy;
  const std::string job_id = "cm-" + std::to_string(static_cast<int>(scenario)) + "-" + std::to_string(index);
  const std::string request = request_file(root, job_id, pools_of(scenario));
  if (per_user) {
    std::string text = tpslurm::testing::read_test_file(request);
    const std::string id_member = R"("job_id": ")" + job_id + "\"";
    text.insert(text.find(id_member) + id_member.size(), R"(, "user": "alice")");
    tpslurm::testing::write_test_file(request, text);
  }
  const ProcessResult submitted = cli(env, {"submit", request});
  if (submitted.exit_code != 0) {
    c.failures.push_back("submit: " + submitted.err);
    return c;
  }
  const std::int64_t submits_before = m_sim->stat("submits_received");
  const std::string submit_path = "/slurm/" + m_dialect + "/job/submit";
  if (scenario == Scenario::cancel_while_unknown) {
    // The answer is lost and every search fails at first: the job is blocked when the cancel
    // arrives; then Slurm answers again and the job is found.
    fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": ")" + submit_path + R"("})");
    // The submit's pre-flight (jobs/state on v0.0.4x) passes untouched, once.
    fault(R"({"kind": "delay", "ms": 1, "method": "GET", "path_prefix": "/slurm/)" + m_dialect + R"(/jobs/state"})");
    fault(R"({"kind": "error_response", "status": 500, "method": "GET", "path_prefix": "/slurm/)" + m_dialect +
          R"(/jobs", "count": -1})");
    fault(R"({"kind": "accounting_outage"})");
    serve(env, point, c);
    const ProcessResult cancelled = cli(env, {"cancel", job_id, "--reason", "crash matrix"});
    if (cancelled.exit_code != 0) c.failures.push_back("cancel: " + cancelled.err);
    (void)m_sim->control(slurm::HttpMethod::del, "/sim/faults");
  }
  if (loses_with_copy(scenario)) {
    // The answer is lost after Slurm created the job, then the same POST arrives again (as the
    // job's user, whose request it was).
    fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": ")" + submit_path + R"(", "count": 1})");
    serve(env, point, c);
    (void)m_sim->control(slurm::HttpMethod::del, "/sim/faults");
    if (leaders_named("tp-cm-" + job_id + "-1").size() == 1) {
      submit_copy("tp-cm-" + job_id + "-1", per_user ? kJobUnixUser : "", c);
    }
  }
  if (scenario == Scenario::runs_to_end) {
    // Slurm runs the job and ends it while its epilog still runs, then lets it go.
    serve(env, point, c);
    serve(env, point, c);
    step_jobs("tp-cm-" + job_id + "-1", R"({"state": "COMPLETED", "completing": true})", c);
    serve(env, point, c);
    step_jobs("tp-cm-" + job_id + "-1", R"({"completing": false})", c);
  }
  serve(env, point, c);
  serve(env, point, c);  // the restart after the crash (or a second quiet run)
  check(env, job_id, scenario, m_sim->stat("submits_received") - submits_before - c.copies, c);
  return c;
}

std::map<std::uint32_t, boost::json::object> CrashMatrixTest::leaders_named(const std::string& name) {
  std::map<std::uint32_t, boost::json::object> leaders;
  for (std::uint32_t id = 1; id < 100000; ++id) {
    auto view = m_sim->control(slurm::HttpMethod::get, "/sim/jobs/" + std::to_string(id));
    if (!view.ok()) break;
    const auto& record = view->as_object();
    if (record.at("name").as_string() != name) continue;
    const std::int64_t het = record.at("het_job_id").to_number<std::int64_t>();
    leaders.emplace(het > 0 ? static_cast<std::uint32_t>(het) : id, record);
  }
  return leaders;
}

void CrashMatrixTest::submit_copy(const std::string& name, const std::string& unix_user, Case& c) {
  const auto leaders = leaders_named(name);
  const boost::json::object& original = leaders.begin()->second;
  slurm::CurlTransportOptions options;
  options.url = m_sim->url();
  auto transport = slurm::CurlTransport::create(options);
  auto tokens = m_sim->tokens();
  if (!transport.ok()) return c.failures.push_back("transport: " + transport.error().message());
  auto client = slurm::RestClient::create(**transport, *tokens, m_dialect);
  if (!client.ok()) return c.failures.push_back("client: " + client.error().message());
  model::SubmitDescription copy;
  copy.tag = model::JobTag{name, std::string(original.at("comment").as_string()),
                           std::string(original.at("current_working_directory").as_string())};
  copy.script = "#!/bin/bash\ntrue\n";
  copy.environment = {{"PATH", "/usr/bin:/bin"}};
  copy.hold = true;
  copy.unix_user = unix_user;
  copy.time_limit_minutes = 10;
  copy.components = {model::SubmitComponent{"cpu", "", 1, 1, 1, 100, ""}};
  const slurm::SubmitResult answer = (*client)->submit(copy);
  if (!answer.ok()) c.failures.push_back("the copy's submit: " + answer.message);
  ++c.copies;
}

void CrashMatrixTest::step_jobs(const std::string& name, const std::string& body, Case& c) {
  for (const auto& [id, view] : leaders_named(name)) {
    auto stepped = m_sim->control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(id) + "/state", body);
    if (!stepped.ok()) c.failures.push_back("step job " + std::to_string(id) + ": " + stepped.error().message());
  }
}

void CrashMatrixTest::check(const tpslurm::testing::EnvironmentMap& env, const std::string& job_id, Scenario scenario,
                            std::int64_t submits, Case& c) {
  const auto fail = [&](const std::string& what) { c.failures.push_back(what); };
  const ProcessResult check = cli(env, {"journal", "check"});
  if (check.exit_code != 0) fail("journal check: " + check.out);
  auto reader = tpslurm::testing::open_read_only(journal_of(env));
  if (!reader) return fail("the journal cannot be opened read-only");
  auto read = reader->attempts(job_id);
  const auto attempts = read.ok() ? std::move(*read) : std::vector<journal::AttemptRecord>{};
  if (attempts.size() != 1)
    return fail("expected exactly one attempt, the journal holds " + std::to_string(attempts.size()));
  const journal::AttemptRecord& a = attempts.front();

  // What Slurm holds with this attempt's name, grouped by het job.
  // A copy is allowed only when the scenario made one, and only cancelled without having run.
  std::set<std::uint32_t> leaders;
  for (const auto& [id, view] : leaders_named("tp-cm-" + job_id + "-1")) {
    const bool journaled = a.slurm_job_id && id == *a.slurm_job_id;
    if (!journaled && loses_with_copy(scenario) && a.slurm_job_id) {
      if (view.at("state").as_string() != "CANCELLED") fail("the copy " + std::to_string(id) + " was not cancelled");
      if (view.at("allocated").as_bool()) fail("the copy " + std::to_string(id) + " ran");
      continue;
    }
    leaders.insert(id);
  }
  if (leaders.size() > 1) fail(std::to_string(leaders.size()) + " Slurm jobs carry the attempt's name");
  if (a.slurm_job_id && (leaders.size() != 1 || *leaders.begin() != *a.slurm_job_id)) {
    fail("the journal holds Slurm job " + std::to_string(*a.slurm_job_id) + " but Slurm has " +
         std::to_string(leaders.size()) + " with the name");
  }
  if (!a.slurm_job_id && !leaders.empty()) fail("Slurm holds a job the journal does not account for");
  if (submits > 1) fail(std::to_string(submits) + " submits reached Slurm for one attempt");
  if (scenario == Scenario::per_user_lost_with_copy) {
    for (std::uint32_t id : leaders) {
      const auto view = m_sim->control(slurm::HttpMethod::get, "/sim/jobs/" + std::to_string(id));
      if (view.ok() && view->as_object().at("user").as_string() != kJobUnixUser) {
        fail("Slurm job " + std::to_string(id) + " runs as " + std::string(view->as_object().at("user").as_string()) +
             ", not as the job's user");
      }
    }
  }
  if (a.intent_at.empty() && submits != 0) fail("a submit reached Slurm without a journaled intent");

  const std::string state(model::to_string(a.state));
  if (a.state == model::AttemptState::submit_unknown) {
    if (!leaders.empty()) fail("still blocked although Slurm has the job");
  } else if (scenario == Scenario::cancel_while_unknown) {
    if (a.state != model::AttemptState::cancelled) fail("ended " + state + ", expected cancelled");
    if (!a.released_at.empty()) fail("a job cancelled while unknown was released");
  } else if (scenario == Scenario::runs_to_end) {
    if (a.state != model::AttemptState::succeeded || a.cleanup != model::CleanupStep::closed) {
      fail("ended " + state + " with cleanup " + std::string(model::to_string(a.cleanup)) +
           ", expected succeeded and closed");
    }
    struct stat st {};
    if (::stat((a.attempt_dir + "/credentials").c_str(), &st) == 0) fail("credentials/ survived the cleanup");
  } else if (a.state != model::AttemptState::pending || a.released_at.empty()) {
    fail("ended " + state + (a.released_at.empty() ? " (not released)" : "") + ", expected released and pending");
  }

  // The story: every state change starts where the previous one ended.
  auto timeline = reader->timeline(job_id);
  if (!timeline.ok()) return fail("timeline: " + timeline.error().message());
  std::string at = "preparing";
  for (const auto& e : *timeline) {
    if (e.kind != "attempt.state") continue;
    if (e.from_state != at) fail("the story jumps: " + e.from_state + "->" + e.to_state + " after " + at);
    at = e.to_state;
  }
  if (at != state) fail("the story ends at " + at + " but the attempt is " + state);
}

TEST_P(CrashMatrixTest, EveryCrashPointRecovers) {
  const Scenario scenario = GetParam().second;
  std::string row;
  int passed = 0;
  int crashed = 0;
  for (std::size_t i = 0; i < kPoints.size(); ++i) {
    const Case c = run_case(scenario, kPoints[i], static_cast<int>(i));
    for (const auto& failure : c.failures) {
      ADD_FAILURE() << name_of(scenario) << " @ " << kPoints[i] << ": " << failure << "\n" << c.log;
    }
    passed += c.failures.empty() ? 1 : 0;
    crashed += c.crashed ? 1 : 0;
    if (std::getenv("TP_CRASH_MATRIX_LOG") != nullptr) std::cout << kPoints[i] << ":\n" << c.log;
    row += "  " + kPoints[i] + (c.crashed ? ": crashed, " : ": not reached, ") +
           (c.failures.empty() ? "ok" : "FAILED") + "\n";
  }
  std::cout << "crash matrix " << GetParam().first << " (" << m_dialect << ") × " << name_of(scenario) << ": "
            << kPoints.size() << " points, " << crashed << " reached, " << passed << " passed, "
            << kPoints.size() - static_cast<std::size_t>(passed) << " failed\n"
            << row;
  EXPECT_GE(crashed, 8) << "most points must be reached in every scenario";
}

INSTANTIATE_TEST_SUITE_P(Matrix, CrashMatrixTest,
                         ::testing::Values(std::pair{std::string("26.05.3"), Scenario::single_pool},
                                           std::pair{std::string("26.05.3"), Scenario::three_pools},
                                           std::pair{std::string("26.05.3"), Scenario::cpu_only},
                                           std::pair{std::string("26.05.3"), Scenario::cancel_while_unknown},
                                           std::pair{std::string("26.05.3"), Scenario::runs_to_end},
                                           std::pair{std::string("26.05.3"), Scenario::lost_with_copy},
                                           std::pair{std::string("26.05.3"), Scenario::per_user_lost_with_copy},
                                           std::pair{std::string("22.05.8"), Scenario::single_pool},
                                           std::pair{std::string("22.05.8"), Scenario::three_pools},
                                           std::pair{std::string("22.05.8"), Scenario::cpu_only},
                                           std::pair{std::string("22.05.8"), Scenario::cancel_while_unknown},
                                           std::pair{std::string("22.05.8"), Scenario::runs_to_end},
                                           std::pair{std::string("22.05.8"), Scenario::lost_with_copy},
                                           std::pair{std::string("24.11.7"), Scenario::single_pool},
                                           std::pair{std::string("24.11.7"), Scenario::three_pools},
                                           std::pair{std::string("24.11.7"), Scenario::cpu_only},
                                           std::pair{std::string("24.11.7"), Scenario::cancel_while_unknown},
                                           std::pair{std::string("24.11.7"), Scenario::runs_to_end},
                                           std::pair{std::string("24.11.7"), Scenario::lost_with_copy}),
                         [](const auto& param_info) {
                           const std::string& release = param_info.param.first;
                           std::string name = (release == "22.05.8"   ? "v0038_"
                                               : release == "24.11.7" ? "v0042_"
                                                                      : "v0045_") +
                                              name_of(param_info.param.second);
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace tpslurm::reconcile::testing
