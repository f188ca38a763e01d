// The `enroot-pyxis` runtime profile from `submit` to a closed cleanup on the real Slurm 22.05
// (real_end_to_end_test.h), its containers made by Pyxis and Enroot (local-slurm's stand-ins,
// which follow their real mechanics: the mounts go through a configuration file that Enroot
// sources in bash on the node): a CPU-only job, a two-pool heterogeneous job on both nodes, what a
// job run as the cluster's job user (as at a site) sees and cannot see, hostile mount targets,
// sources and working directories refused before anything is journaled or rendered, and hostile
// environment values that reach the program byte for byte while nothing runs on the host.
#include <pwd.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>

#include "real_end_to_end_test.h"
#include "support/run_process.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

class EnrootPyxisEndToEndTest : public EndToEndTest {
 protected:
  EnrootPyxisEndToEndTest() { m_profile = "enroot-pyxis"; }

  // The job's standard output, as `logs` shows it.
  std::string output(const std::string& job_id) { return cli({"logs", job_id}).out; }

  // The jobs run as the cluster's job user, as at a site, not as the test's root (the daemon stays
  // root): the job user's token (a copy of the service account's, which the daemon's user must
  // own), the group it shares with the daemon's files, a test directory it may pass through.
  void run_jobs_as_the_job_user() {
    const std::string token = env_of("TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE");
    ASSERT_FALSE(token.empty()) << "TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE: the local Slurm's env";
    tpslurm::testing::write_test_file(m_dir.file("jwt.job-user.token"), tpslurm::testing::read_test_file(token));
    m_extra_env["TUNEPLANE_SLURM_JWT_FILE"] = m_dir.file("jwt.job-user.token");
    m_extra_env["TUNEPLANE_SLURM_REST_USER"] = env_of("TUNEPLANE_LOCAL_SLURM_JOB_USER");
    m_extra_env["TUNEPLANE_STORAGE_GROUP"] = env_of("TUNEPLANE_LOCAL_SLURM_JOB_GROUP");
    for (const auto& [name, value] : m_extra_env) ASSERT_FALSE(value.empty()) << name << ": the local Slurm's env";
    // Enroot, and so its stand-in, runs the job user's container in a user namespace: say so when
    // this machine refuses them, rather than fail later on the job's end.
    const auto userns = tpslurm::testing::run_process(
        {"setpriv", "--reuid=" + m_extra_env["TUNEPLANE_SLURM_REST_USER"],
         "--regid=" + m_extra_env["TUNEPLANE_STORAGE_GROUP"], "--init-groups", "/bin/sh", "-c", "unshare --user true 2>&1"},
        {{"PATH", "/usr/bin:/bin"}});
    ASSERT_EQ(userns.exit_code, 0)
        << "the job user cannot create a user namespace here (" << userns.out
        << "), and Enroot (the local Slurm's stand-in too) needs one to run its jobs. A chroot refuses them to every "
           "user, root included, and so do kernels with kernel.unprivileged_userns_clone=0 or "
           "kernel.apparmor_restrict_unprivileged_userns=1: run the tests on a machine or VM that allows them.";
    std::filesystem::permissions(m_dir.path(), std::filesystem::perms(0711));
  }

  // A path on the host that a hostile value would create; none may exist after the test.
  std::string canary(const std::string& name) { return m_dir.file("canary-" + name); }
  bool exists(const std::string& path) { return std::filesystem::exists(path); }

  // A request that names a hostile value must be refused by `submit`: nothing journaled, no
  // attempt directory, nothing run.
  void expect_refused(const std::string& job_id, const std::string& spec_fields, const std::string& field,
                      const std::string& canary_path) {
    const auto answer = try_submit(job_id, R"(["/bin/true"])", spec_fields);
    EXPECT_NE(answer.exit_code, 0) << "submit accepted " << field << " in " << spec_fields;
    EXPECT_NE(answer.err.find(field), std::string::npos) << answer.err;
    EXPECT_TRUE(job(job_id).job_id.empty()) << job_id << " was journaled";
    EXPECT_FALSE(exists(m_dir.file("storage/slurm/jobs/" + job_id))) << job_id << "'s attempt was rendered";
    EXPECT_FALSE(exists(canary_path)) << canary_path;
  }
};

std::string json_string(const std::string& value) { return boost::json::serialize(boost::json::value(value)); }

// A command (JSON array) that runs `script` under /bin/sh with `args`.
std::string shell(const std::string& script, const std::vector<std::string>& args = {}) {
  std::string out = R"(["/bin/sh", "-c", )" + json_string(script) + R"(, "probe")";
  for (const auto& arg : args) out += ", " + json_string(arg);
  return out + "]";
}

// The value of the line "KEY VALUE" in `text`.
std::string field(const std::string& text, const std::string& key) {
  const std::string prefix = key + " ";
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
    at = end + 1;
  }
  return "(missing)";
}

std::string hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

TEST_F(EnrootPyxisEndToEndTest, ACpuOnlyJobRunsInTheImageToAClosedCleanup) {
  submit("cpu", shell(R"(echo "hello-from-${TP_IMAGE_VARIABLE:-the-host}")"));
  start_serve();
  ASSERT_TRUE(closed_in("cpu", JobPhase::succeeded)) << "phase " << model::to_string(job("cpu").phase);
  const auto a = attempts("cpu").back();
  EXPECT_EQ(a.state, AttemptState::succeeded);
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_NE(output("cpu").find("hello-from-from-the-image"), std::string::npos)
      << "the program ran in the image (its /etc/environment): " << output("cpu");
  EXPECT_EQ(slurm_jobs_named("cpu", 1), 1);
}

TEST_F(EnrootPyxisEndToEndTest, ATwoPoolHeterogeneousJobRunsOnBothNodes) {
  expect_two_pool_hetjob_on_both_nodes(shell("echo hello-from-$(hostname)-rank-$NODE_RANK-${TP_IMAGE_VARIABLE}"),
                                       "-from-the-image");
}

// What a job sees, one line per question (its attempt directory is read-only, its scratch/, the
// job's TMPDIR, writable inside it); its arguments: a host path under the storage root
// that is not its own (another job's credential), one outside it (the requests, with their
// tokens), a file in the host's /tmp, the image file.
const std::string kProbe = R"probe(t() { if "$@" 2>/dev/null; then echo yes; else echo no; fi; }
echo "attempt $(t test -e "$TUNEPLANE_ATTEMPT_DIR/env")"
echo "attempt-ro $(t touch "$TUNEPLANE_ATTEMPT_DIR/probe")"
echo "credential $(t test -r "$TUNEPLANE_INGEST_TOKEN_FILE")"
echo "scratch-rw $(t touch "$TMPDIR/probe")"
echo "mount-ro $(t grep -q seen /data/ro/seen)"
echo "mount-ro-write $(t touch /data/ro/probe)"
echo "mount-rw $(t touch /data/rw/probe)"
echo "other-credential $(t test -e "$1")"
echo "jobs $(ls "$TUNEPLANE_ATTEMPT_DIR/../../.." | tr '\n' ' ')"
echo "requests $(t test -e "$2")"
echo "host-tmp $(t test -e "$3")"
echo "image $(t test -e "$4")"
echo "root-ro $(t touch /probe)"
echo "pwd $(pwd)"
echo "user $(id -u)")probe";

TEST_F(EnrootPyxisEndToEndTest, AJobOfTheJobUserSeesItsAttemptScratchAndMountsAndNothingElseOfTheHost) {
  run_jobs_as_the_job_user();
  std::filesystem::create_directories(m_dir.file("storage/datasets/ro"));
  std::filesystem::create_directories(m_dir.file("storage/datasets/rw"));
  const struct passwd* job_user = ::getpwnam(env_of("TUNEPLANE_LOCAL_SLURM_JOB_USER").c_str());
  ASSERT_NE(job_user, nullptr);
  ASSERT_EQ(::chown(m_dir.file("storage/datasets/rw").c_str(), job_user->pw_uid, static_cast<gid_t>(-1)), 0);
  tpslurm::testing::write_test_file(m_dir.file("storage/datasets/ro/seen"), "seen\n", std::filesystem::perms(0644));
  const std::string other = m_dir.file("storage/slurm/jobs/other/attempts/1/credentials/ingest_token");
  std::filesystem::create_directories(std::filesystem::path(other).parent_path());
  tpslurm::testing::write_test_file(other, "not yours\n");
  const std::string host_tmp = "/tmp/tp-e2e-host-" + m_instance;
  tpslurm::testing::write_test_file(host_tmp, "host\n");
  const auto added = try_submit("sees",
                                shell(kProbe, {other, m_dir.file("requests/sees.json"), host_tmp,
                                               m_dir.file("storage/runtimes/e2e.sqsh")}),
                                R"("working_dir": "/data/rw", "mounts": [
                                     {"source": "datasets/ro", "target": "/data/ro", "read_only": true},
                                     {"source": "datasets/rw", "target": "/data/rw"}])");
  ASSERT_EQ(added.exit_code, 0) << added.err;
  start_serve();
  const bool closed = closed_in("sees", JobPhase::succeeded);
  std::filesystem::remove(host_tmp);
  ASSERT_TRUE(closed) << "phase " << model::to_string(job("sees").phase) << "\n" << cli({"logs", "sees", "--stderr"}).out;
  const std::string seen = output("sees");
  EXPECT_EQ(field(seen, "attempt"), "yes") << seen;
  EXPECT_EQ(field(seen, "attempt-ro"), "no") << "its attempt directory is read-only";
  EXPECT_EQ(field(seen, "credential"), "yes") << "its own credential";
  EXPECT_EQ(field(seen, "scratch-rw"), "yes") << "its scratch is writable";
  EXPECT_EQ(field(seen, "mount-ro"), "yes");
  EXPECT_EQ(field(seen, "mount-ro-write"), "no") << "a read_only mount";
  EXPECT_EQ(field(seen, "mount-rw"), "yes");
  EXPECT_TRUE(exists(m_dir.file("storage/datasets/rw/probe"))) << "the write reached the host's directory";
  EXPECT_EQ(field(seen, "other-credential"), "no") << "another job's credential";
  EXPECT_EQ(field(seen, "jobs"), "sees ") << "no other job's directory";
  EXPECT_EQ(field(seen, "requests"), "no") << "the daemon's files";
  EXPECT_EQ(field(seen, "host-tmp"), "no") << "the host's /tmp";
  EXPECT_EQ(field(seen, "image"), "no") << "the image file";
  EXPECT_EQ(field(seen, "root-ro"), "no") << "the image's root is read-only";
  EXPECT_EQ(field(seen, "pwd"), "/data/rw") << "spec.working_dir";
  EXPECT_EQ(field(seen, "user"), std::to_string(job_user->pw_uid)) << "the job user";
}

// The forms the issue reports running on the node's host with the real Pyxis 0.24 and Enroot
// 4.1.2, and, before Pyxis 0.24, a newline (a mount line of its own: the host's /) and a space
// ("DST none rbind": the bind loses :ro). Each is refused by `submit`.
std::vector<std::string> hostile_paths(const std::string& canary_path) {
  return {"/data$(touch${IFS}" + canary_path + ")", "/data`touch${IFS}" + canary_path + "`",
          "/data\";touch${IFS}" + canary_path + ";echo${IFS}\"", "/data\n/ /host", "/home none rbind",
          "/data\\$(touch${IFS}" + canary_path + ")"};
}

TEST_F(EnrootPyxisEndToEndTest, HostileMountTargetsAreRefusedBeforeAnythingIsJournaled) {
  int n = 0;
  for (const auto& target : hostile_paths(canary("target"))) {
    SCOPED_TRACE(target);
    expect_refused("target-" + std::to_string(n++),
                   R"("mounts": [{"source": "datasets/d", "target": )" + json_string(target) + "}]",
                   "spec.mounts[0].target", canary("target"));
  }
}

TEST_F(EnrootPyxisEndToEndTest, HostileMountSourcesAreRefusedBeforeAnythingIsJournaled) {
  int n = 0;
  for (const auto& target : hostile_paths(canary("source"))) {
    const std::string source = "datasets" + target;
    SCOPED_TRACE(source);
    expect_refused("source-" + std::to_string(n++),
                   R"("mounts": [{"source": )" + json_string(source) + R"(, "target": "/data"}])",
                   "spec.mounts[0].source", canary("source"));
  }
}

TEST_F(EnrootPyxisEndToEndTest, HostileWorkingDirectoriesAreRefusedBeforeAnythingIsJournaled) {
  int n = 0;
  for (const auto& dir : hostile_paths(canary("workdir"))) {
    SCOPED_TRACE(dir);
    expect_refused("workdir-" + std::to_string(n++), R"("working_dir": )" + json_string(dir), "spec.working_dir",
                   canary("workdir"));
  }
}

TEST_F(EnrootPyxisEndToEndTest, HostileEnvironmentValuesReachTheProgramByteForByteAndRunNothingOnTheHost) {
  const std::string c = canary("env");
  const std::vector<std::pair<std::string, std::string>> values = {
      {"TP_DOLLAR", "$(touch " + c + ")"},
      {"TP_BACKQUOTE", "`touch " + c + "`"},
      {"TP_QUOTES", "'\";touch " + c + ";echo \"'"},
      {"TP_NEWLINES", "first\nsecond\n$(touch " + c + ")\n"},
      {"TP_SHELL", "a; touch " + c + " | cat && echo ${IFS} > " + c + " \\ *"},
      {"TP_BRACES", "${PATH} $$ $0 %s %n"},
  };
  std::string env = R"("env": {)";
  std::string script;
  for (std::size_t i = 0; i < values.size(); ++i) {
    env += (i ? ", " : "") + json_string(values[i].first) + ": " + json_string(values[i].second);
    script += "printf '" + values[i].first + " '; printf '%s' \"$" + values[i].first +
              "\" | od -An -v -tx1 | tr -d ' \\n'; echo\n";
  }
  const auto added = try_submit("env", shell(script), env + "}");
  ASSERT_EQ(added.exit_code, 0) << added.err;
  start_serve();
  ASSERT_TRUE(closed_in("env", JobPhase::succeeded)) << "phase " << model::to_string(job("env").phase);
  const std::string seen = output("env");
  for (const auto& [name, value] : values) EXPECT_EQ(field(seen, name), hex(value)) << name << "\n" << seen;
  EXPECT_FALSE(exists(c)) << "a value ran on the host";
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
