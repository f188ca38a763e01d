// DELETE job/{id}?signal=NAME as the real servers answer it: a signal other than the kill
// reaches a running job and changes nothing but the simulator's `last_signal`; a pending job
// is not signalled (2020); a name slurmrestd cannot parse kills the job on v0.0.4x (measured on
// 26.05.3) and is refused on v0.0.38 (22.05's source); sig_name2num's table differs by release.
#include <gtest/gtest.h>

#include <cctype>

#include "json_shape.h"
#include "sim_harness.h"
#include "slurm_signals.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

const std::string kV38Job = R"({"script": "#!/bin/bash\ntrue\n", "job": {"environment": {"PATH": "/bin"}}})";

struct SignalCase {
  Release release;
  std::string version;
};

void PrintTo(const SignalCase& c, std::ostream* out) { *out << c.version << " on " << release_name(c.release); }

std::string case_name(const ::testing::TestParamInfo<SignalCase>& param) {
  std::string name = param.param.version + "_on_" + std::string(release_name(param.param.release));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class SignalTest : public ::testing::TestWithParam<SignalCase> {
 protected:
  SignalTest() : m_options(test_options(GetParam().release)), m_sim(m_options) {}

  std::string path(const std::string& rest) const { return "/slurm/" + GetParam().version + "/" + rest; }
  bool v38() const { return GetParam().version == "v0.0.38"; }

  // Submits a job (ids count from 1) and, when asked, starts it.
  void submit(bool running) {
    ASSERT_EQ(slurm_call(m_sim, m_options, "POST", path("job/submit"), v38() ? kV38Job : simple_job()).status, 200);
    ++m_jobs;
    if (running) control(m_sim, "POST", "/sim/jobs/" + std::to_string(m_jobs) + "/state", R"({"state": "RUNNING"})");
  }
  HttpResult signal(int id, const std::string& name) {
    return slurm_call(m_sim, m_options, "DELETE", path("job/" + std::to_string(id) + "?signal=" + name));
  }
  json::value view(int id) { return control(m_sim, "GET", "/sim/jobs/" + std::to_string(id)); }

  SimOptions m_options;
  SimInstance m_sim;
  int m_jobs = 0;
};

TEST_P(SignalTest, ASignalReachesARunningJobAndLeavesItRunning) {
  submit(true);
  HttpResult r = signal(1, "SIGUSR1");
  EXPECT_EQ(r.status, 200) << r.body;
  if (v38()) {
    EXPECT_TRUE(error_numbers(r.json()).empty()) << r.body;
  } else {
    EXPECT_TRUE(status_codes(r.json()).empty()) << r.body;
    EXPECT_TRUE(r.json().at("errors").as_array().empty()) << r.body;
  }
  EXPECT_EQ(view(1).at("state"), "RUNNING");
  EXPECT_EQ(view(1).at("last_signal").to_number<int>(), 10);
}

TEST_P(SignalTest, APendingJobIsNotSignalled) {
  submit(false);
  HttpResult r = signal(1, "SIGUSR1");
  if (v38()) {
    // _handle_job_delete's resp_error with slurm_kill_job2()'s errno; 22.05 makes it a 500.
    EXPECT_EQ(r.status, 500);
    ASSERT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{2020})) << r.body;
    const json::value& error = r.json().at("errors").at(0);
    EXPECT_EQ(error.at("description"),
              "unable to kill JobId=1 with signal 10: Job can not be altered now, try again later");
    EXPECT_EQ(error.at("source"), "slurm_kill_job");
  } else {
    EXPECT_EQ(r.status, 200);
    ASSERT_EQ(status_codes(r.json()), (std::vector<std::int64_t>{2020})) << r.body;
    EXPECT_EQ(r.json().at("status").at(0).at("error").at("string"), "Job can not be altered now, try again later");
  }
  EXPECT_EQ(view(1).at("state"), "PENDING");
  EXPECT_EQ(view(1).at("last_signal").to_number<int>(), 0);
}

TEST_P(SignalTest, ANameSlurmrestdCannotParseKillsTheJobOnV004xAndIsRefusedOnV0038) {
  submit(true);
  HttpResult r = signal(1, "SIGFOO");
  if (v38()) {
    EXPECT_EQ(r.status, 400);
    ASSERT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{9000})) << r.body;
    EXPECT_EQ(r.json().at("errors").at(0).at("description"), "invalid signal: 0");
    EXPECT_EQ(view(1).at("state"), "RUNNING");
  } else {
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(status_codes(r.json()).empty()) << r.body;
    const json::value& note = r.json().at("errors").at(0);
    EXPECT_EQ(note.at("error_number").to_number<int>(), 0);
    EXPECT_EQ(note.at("error"), "No error");
    EXPECT_EQ(note.at("description"), "Unknown signal (null)");
    EXPECT_EQ(note.at("source"), "#/signal/");
    EXPECT_EQ(view(1).at("state"), "CANCELLED");
    EXPECT_EQ(view(1).at("signal").to_number<int>(), 15) << "killed as by the default";
  }
  EXPECT_EQ(view(1).at("last_signal").to_number<int>(), 0);
}

TEST_P(SignalTest, ASignalToAnEndedJobIsAlreadyDoneOnV004xAndSuccessOnV0038) {
  submit(true);
  control(m_sim, "POST", "/sim/jobs/1/state", R"({"state": "COMPLETED"})");
  HttpResult r = signal(1, "SIGUSR1");
  EXPECT_EQ(r.status, 200);
  if (v38()) {
    EXPECT_TRUE(error_numbers(r.json()).empty()) << r.body;
  } else {
    EXPECT_EQ(status_codes(r.json()), (std::vector<std::int64_t>{2021})) << r.body;
  }
  EXPECT_EQ(view(1).at("last_signal").to_number<int>(), 0);
}

// A pending job that is cancelled never ran: no nodes, and a start time equal to its end (as
// slurmctld sets it), so a start time alone does not say that a job ran.
TEST_P(SignalTest, TheDefaultKillCancelsAPendingJob) {
  submit(false);
  HttpResult r = slurm_call(m_sim, m_options, "DELETE", path("job/1"));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(view(1).at("state"), "CANCELLED");
  EXPECT_FALSE(view(1).at("allocated").as_bool());
  EXPECT_GT(view(1).at("start_time").to_number<std::int64_t>(), 0);
  EXPECT_EQ(view(1).at("start_time"), view(1).at("end_time"));
}

INSTANTIATE_TEST_SUITE_P(Dialects, SignalTest,
                         ::testing::Values(SignalCase{Release::r22_05_8, "v0.0.38"}, SignalCase{Release::r26_05_3, "v0.0.43"},
                                           SignalCase{Release::r26_05_3, "v0.0.44"}, SignalCase{Release::r26_05_3, "v0.0.45"}),
                         case_name);

TEST(Signals, AHetLeaderSignalsEveryRunningComponentAndReportsOneThatIsNot) {
  SimOptions options = test_options();
  SimInstance sim(options);
  std::string het =
      R"({"script": "#!/bin/bash\ntrue\n", "jobs": [{"environment": ["A=1"]}, {"environment": ["A=1"]}]})";
  ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.45/job/submit", het).status, 200);
  control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING", "component_only": true})");
  HttpResult r = slurm_call(sim, options, "DELETE", "/slurm/v0.0.45/job/1?signal=SIGUSR1");
  EXPECT_EQ(status_codes(r.json()), (std::vector<std::int64_t>{2020})) << r.body;
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/1").at("last_signal").to_number<int>(), 10);
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/2").at("last_signal").to_number<int>(), 0);
}

TEST(Signals, V0038TakesAValueOfAnotherTypeAsNoSignal) {
  for (const std::string value : {"true", "off", "1.5", "."}) {
    SimOptions options = test_options(Release::r22_05_8);
    SimInstance sim(options);
    ASSERT_EQ(slurm_call(sim, options, "POST", "/slurm/v0.0.38/job/submit", kV38Job).status, 200);
    control(sim, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
    HttpResult r = slurm_call(sim, options, "DELETE", "/slurm/v0.0.38/job/1?signal=" + value);
    EXPECT_EQ(r.status, 200) << value << ": " << r.body;
    EXPECT_EQ(control(sim, "GET", "/sim/jobs/1").at("state"), "CANCELLED") << value;
  }
  EXPECT_EQ(read_query_value("+10", Dialect::v0038).kind, QueryValue::Kind::number);
  EXPECT_EQ(read_query_value("+10", Dialect::v0045).kind, QueryValue::Kind::text);
  EXPECT_EQ(read_query_value("1e5", Dialect::v0038).kind, QueryValue::Kind::text);
  EXPECT_EQ(read_query_value("1.e5", Dialect::v0038).kind, QueryValue::Kind::other);
  EXPECT_EQ(read_query_value("true", Dialect::v0045).kind, QueryValue::Kind::text);
}

TEST(Signals, Sig2NumReadsNumbersAndTableNamesWithOrWithoutThePrefixInAnyCase) {
  for (Release release : {Release::r22_05_8, Release::r26_05_3}) {
    EXPECT_EQ(sig_name2num("SIGUSR1", release), 10);
    EXPECT_EQ(sig_name2num("usr1", release), 10);
    EXPECT_EQ(sig_name2num("  sigTerm ", release), 15);
    EXPECT_EQ(sig_name2num("10", release), 10);
    EXPECT_EQ(sig_name2num(" 12 ", release), 12);
    EXPECT_EQ(sig_name2num("10x", release), 0);
    EXPECT_EQ(sig_name2num("SIGUSR1x", release), 0);
    EXPECT_EQ(sig_name2num("SIGSEGV", release), 0) << "not in sig_name2num's table";
    EXPECT_EQ(sig_name2num("", release), 0);
  }
  EXPECT_EQ(sig_name2num("SIGCHLD", Release::r22_05_8), 0);
  EXPECT_EQ(sig_name2num("SIGCHLD", Release::r26_05_3), 17);
  EXPECT_EQ(sig_name2num("PIPE", Release::r25_05_0), 13);
}

TEST(Signals, ANameOnlyNewerReleasesKnowIsRefusedBy2205AndKillsOn2505) {
  SimOptions old = test_options(Release::r22_05_8);
  SimInstance sim22(old);
  ASSERT_EQ(slurm_call(sim22, old, "POST", "/slurm/v0.0.38/job/submit", kV38Job).status, 200);
  control(sim22, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  EXPECT_EQ(slurm_call(sim22, old, "DELETE", "/slurm/v0.0.38/job/1?signal=SIGCHLD").status, 400);
  EXPECT_EQ(control(sim22, "GET", "/sim/jobs/1").at("state"), "RUNNING");

  SimOptions newer = test_options(Release::r25_05_0);
  SimInstance sim25(newer);
  ASSERT_EQ(slurm_call(sim25, newer, "POST", "/slurm/v0.0.43/job/submit", simple_job()).status, 200);
  control(sim25, "POST", "/sim/jobs/1/state", R"({"state": "RUNNING"})");
  HttpResult r = slurm_call(sim25, newer, "DELETE", "/slurm/v0.0.43/job/1?signal=SIGCHLD");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.json().at("errors").as_array().empty()) << r.body;
  EXPECT_EQ(control(sim25, "GET", "/sim/jobs/1").at("last_signal").to_number<int>(), 17);
}

}  // namespace
}  // namespace tpslurm::sim::test
