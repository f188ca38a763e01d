// The deployment's two users on the real local Slurm 22.05 (tools/local-slurm; label
// real-slurm): the daemon's files are written by the service account (tpsvc, through the real
// CLI run under setpriv), the job runs as a dedicated job user (tpjob, through slurmrestd with
// that user's token), and they share only the group TUNEPLANE_STORAGE_GROUP. The rendered
// script must run to its end as the job user: the image check on the node, the env file, the
// program through local-slurm's stand-in `apptainer`, exit.json; a probe job shows what the job
// user can and cannot reach; a third user reaches nothing. Without the cluster's environment
// it fails.
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "base/digest.h"
#include "render/renderer.h"
#include "render/shell_quote.h"
#include "sbatch_reader.h"
#include "slurm/curl_transport.h"
#include "slurm/jwt_source.h"
#include "slurm/rest_client.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::render {
namespace {

namespace fs = std::filesystem;
using tpslurm::testing::read_test_file;
using tpslurm::testing::run_process;
using tpslurm::testing::TempDir;
using tpslurm::testing::write_test_file;

const std::string kCanary = "tok-two-users-canary";
const std::string kJobId = "two-users-1";

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

struct Account {
  uid_t uid = 0;
  gid_t gid = 0;
};

Account account(const std::string& user) {
  const struct passwd* entry = ::getpwnam(user.c_str());
  EXPECT_NE(entry, nullptr) << user;
  return entry == nullptr ? Account{} : Account{entry->pw_uid, entry->pw_gid};
}

gid_t group_id(const std::string& group) {
  const struct group* entry = ::getgrnam(group.c_str());
  EXPECT_NE(entry, nullptr) << group;
  return entry == nullptr ? 0 : entry->gr_gid;
}

class TwoUsersRealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"TUNEPLANE_SLURM_REST_URL", "TUNEPLANE_SLURM_PARTITION",
                             "TUNEPLANE_LOCAL_SLURM_SERVICE_USER", "TUNEPLANE_LOCAL_SLURM_JOB_USER",
                             "TUNEPLANE_LOCAL_SLURM_JOB_GROUP", "TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE"}) {
      ASSERT_FALSE(env(name).empty()) << "the local Slurm is not up: " << name
                                      << " is not set; run tools/local-slurm up and export tools/local-slurm env";
    }
    ASSERT_EQ(::geteuid(), 0u) << "the test switches users: it must run as root";
    m_service = env("TUNEPLANE_LOCAL_SLURM_SERVICE_USER");
    m_job_user = env("TUNEPLANE_LOCAL_SLURM_JOB_USER");
    m_group = env("TUNEPLANE_LOCAL_SLURM_JOB_GROUP");
    const Account service = account(m_service);
    const gid_t group = group_id(m_group);

    // The storage root belongs to the service account; the job user reaches it through the group.
    ASSERT_EQ(::chown(m_root.path().c_str(), service.uid, group), 0);
    fs::permissions(m_root.path(), fs::perms(0750));
    // A real SIF image: the nodes' apptainer (local-slurm's stand-in) runs it.
    fs::create_directories(m_root.file("runtimes"));
    const auto made = run_process({TP_SOURCE_DIR "/tools/make-test-sif", m_root.file("runtimes/probe.sif")},
                                  {{"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}});
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
    fs::permissions(m_root.file("runtimes/probe.sif"), fs::perms(0644));
    const std::string image = read_test_file(m_root.file("runtimes/probe.sif"));
    fs::permissions(m_root.file("runtimes"), fs::perms(0755));
    // The service account's own files: configuration and its state directory.
    fs::permissions(m_config.path(), fs::perms(0755));
    write_test_file(m_config.file("registry.json"),
                    R"({ "runtimes": { "custom-probe": { "framework": "custom", "launcher": "srun",
                         "sif": { "path": "runtimes/probe.sif", "sha256": ")" +
                        sha256_hex(image) + R"(" } } } })",
                    fs::perms(0644));
    write_test_file(m_config.file("gpu-series.json"), R"({ "series": {} })", fs::perms(0644));
    write_test_file(m_config.file("request.json"),
                    R"({ "job_id": ")" + kJobId + R"(", "type": "custom",
                         "spec": { "framework": { "name": "custom", "runtime_id": "custom-probe" },
                                   "command": ["/bin/true"], "time_limit_minutes": 5,
                                   "pools": [ { "name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 1,
                                                "memory_gb": 1 } ] },
                         "credentials": { "ingest_token": ")" +
                        kCanary + R"(" } })",
                    fs::perms(0644));
    fs::create_directories(m_config.file("state"));
    ASSERT_EQ(::chown(m_config.file("state").c_str(), service.uid, service.gid), 0);
    fs::permissions(m_config.file("state"), fs::perms(0700));
    m_attempt = m_root.file("slurm/jobs/" + kJobId + "/attempts/1");
  }

  // The CLI as the service account, with the deployment's settings.
  tpslurm::testing::ProcessResult as_service(std::vector<std::string> args) {
    std::vector<std::string> argv = {"setpriv", "--reuid=" + m_service, "--regid=" + m_service, "--init-groups",
                                     TP_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, {{"PATH", "/usr/bin:/bin"},
                              {"TUNEPLANE_STORAGE_ROOT", m_root.path()},
                              {"TUNEPLANE_STORAGE_GROUP", m_group},
                              {"TUNEPLANE_STATE_DIR", m_config.file("state")},
                              {"TUNEPLANE_RUNTIME_REGISTRY_FILE", m_config.file("registry.json")},
                              {"TUNEPLANE_GPU_SERIES_FILE", m_config.file("gpu-series.json")},
                              {"TUNEPLANE_SLURM_RUNTIME_PROFILE", "apptainer"},
                              {"TUNEPLANE_SLURM_PARTITION", env("TUNEPLANE_SLURM_PARTITION")},
                              {"TUNEPLANE_SLURM_REST_URL", env("TUNEPLANE_SLURM_REST_URL")},
                              {"TUNEPLANE_SLURM_REST_API_VERSION", "v0.0.38"},
                              {"TUNEPLANE_SLURM_REST_USER", m_job_user},
                              {"TUNEPLANE_SLURM_JWT_FILE", env("TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE")},
                              {"TUNEPLANE_INSTANCE", "twousers"}});
  }

  // A shell command as another user (no supplementary groups unless `group` is given).
  tpslurm::testing::ProcessResult as_user(const std::string& user, const std::string& group,
                                          const std::string& command) {
    return run_process({"setpriv", "--reuid=" + user, "--regid=" + group, "--init-groups", "/bin/sh", "-c", command},
                       {{"PATH", "/usr/bin:/bin"}});
  }

  // Submits `script` with the job user's token, working in the attempt directory.
  std::uint32_t submit_as_job_user(model::SubmitDescription description) {
    model::Settings settings;
    settings.rest_url = env("TUNEPLANE_SLURM_REST_URL");
    auto transport = slurm::CurlTransport::create(slurm::transport_options(settings));
    EXPECT_TRUE(transport.ok()) << transport.error().message();
    m_transport = std::move(transport).value();
    m_tokens =
        std::make_unique<slurm::FileTokenSource>(m_job_user, env("TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE"), m_clock);
    auto client = slurm::RestClient::create(*m_transport, *m_tokens, "v0.0.38");
    EXPECT_TRUE(client.ok());
    m_client = std::move(client).value();
    const slurm::SubmitResult submitted = m_client->submit(description);
    EXPECT_EQ(submitted.outcome, slurm::Outcome::ok) << submitted.message;
    return submitted.job_id.value_or(0);
  }

  std::vector<model::JobSnapshot> wait_terminal(std::uint32_t job_id) {
    std::vector<model::JobSnapshot> jobs;
    for (int i = 0; i < 120 && job_id != 0; ++i) {
      const slurm::JobsResult result = m_client->get_job({job_id, ""});
      jobs = result.jobs;
      bool done = !jobs.empty();
      for (const auto& job : jobs) done = done && job.state.is_terminal();
      if (done) return jobs;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    ADD_FAILURE() << "job " << job_id << " did not finish within 60 s";
    return jobs;
  }

  TempDir m_root;
  TempDir m_config;
  std::string m_service;
  std::string m_job_user;
  std::string m_group;
  std::string m_attempt;
  SystemClock m_clock;
  std::unique_ptr<slurm::CurlTransport> m_transport;
  std::unique_ptr<slurm::FileTokenSource> m_tokens;
  std::unique_ptr<slurm::RestClient> m_client;
};

TEST_F(TwoUsersRealTest, TheJobUserRunsItsAttemptAndReachesOnlyWhatItMay) {
  // The stand-in runs the job in bubblewrap, which needs a user namespace for a user other than
  // root: say so when this machine refuses them, rather than fail later on the job's exit.
  const auto userns = as_user(m_job_user, m_group, "unshare --user true 2>&1");
  ASSERT_EQ(userns.exit_code, 0)
      << "the job user " << m_job_user << " cannot create a user namespace here (" << userns.out
      << "), and the local Slurm's apptainer stand-in needs one to run its jobs. A chroot refuses them to every user "
         "but root, and so do kernels with kernel.unprivileged_userns_clone=0 or "
         "kernel.apparmor_restrict_unprivileged_userns=1: run the tests on a machine or VM that allows them.";
  const auto submitted = as_service({"submit", m_config.file("request.json")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const auto rendered = as_service({"render", m_config.file("request.json"), "--attempt-dir", m_attempt});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  struct stat info {};
  ASSERT_EQ(::stat((m_attempt + "/env").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, account(m_service).uid);
  EXPECT_EQ(info.st_gid, group_id(m_group));

  // The rendered script, as slurmrestd gets it, run by the job user.
  const std::string script = read_test_file(m_attempt + "/job.sh");
  auto description = testing::read_sbatch_directives(script);
  ASSERT_TRUE(description.ok()) << description.error().message();
  description->script = script;
  description->environment = fixed_job_environment(model::Settings{});
  const auto batch = wait_terminal(submit_as_job_user(*description));
  ASSERT_EQ(batch.size(), 1u);
  // Past the image check on the node, the env file and the container: the program ran.
  const std::string exit_evidence = read_test_file(m_attempt + "/logs/exit.json");
  EXPECT_EQ(exit_evidence, "{\"exit_status\": 0, \"failed_phase\": null, \"program_started\": {\"component-0\": 1}}\n")
      << exit_evidence << read_test_file(m_attempt + "/logs/batch.err");
  EXPECT_TRUE(fs::exists(m_attempt + "/scratch/.tuneplane-verified/" + batch[0].nodes)) << batch[0].nodes;
  ASSERT_EQ(::stat((m_attempt + "/logs/slurm-job.json").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, account(m_job_user).uid);
  EXPECT_EQ(info.st_gid, group_id(m_group));
  // The service account reads what the job wrote.
  for (const char* log :
       {"logs/slurm-job.json", "logs/exit.json", "logs/batch.out", "logs/batch.err", "logs/component-0.err"}) {
    EXPECT_EQ(as_user(m_service, m_service, "cat " + shell_quote(m_attempt + "/" + log) + " >/dev/null").exit_code, 0)
        << log;
  }

  // What the job user may and may not reach, from inside a job.
  const std::string master = m_root.file("slurm/jobs/" + kJobId + "/credentials/ingest_token");
  model::SubmitDescription probe = *description;
  probe.tag.name = "tp-twousers-probe";
  probe.standard_output = m_attempt + "/logs/probe.out";
  probe.standard_error = m_attempt + "/logs/probe.err";
  probe.script =
      "#!/bin/bash\n"
      "t() { if \"$@\" 2>/dev/null; then echo yes; else echo no; fi; }\n"
      "echo \"credential $(cat credentials/ingest_token)\"\n"
      "echo \"env $(t test -r env)\"\n"
      "echo \"logs $(t touch logs/probe)\"\n"
      "echo \"scratch $(t touch scratch/probe)\"\n"
      "echo \"attempt $(t touch probe)\"\n"
      "echo \"script $(t sh -c 'echo x >> job.sh')\"\n"
      "echo \"master $(t cat " +
      shell_quote(master) + ")\"\n";
  ASSERT_EQ(wait_terminal(submit_as_job_user(probe)).size(), 1u);
  EXPECT_EQ(read_test_file(m_attempt + "/logs/probe.out"),
            "credential " + kCanary + "\nenv yes\nlogs yes\nscratch yes\nattempt no\nscript no\nmaster no\n");

  // Anyone else reaches nothing: not the attempt, not the credential.
  EXPECT_NE(as_user("nobody", "nogroup", "cat " + shell_quote(m_attempt + "/credentials/ingest_token")).exit_code, 0);
  EXPECT_NE(as_user("nobody", "nogroup", "ls " + shell_quote(m_root.file("slurm"))).exit_code, 0);

  // doctor, as the service account, says the same.
  const auto doctor = as_service({"doctor"});
  EXPECT_NE(doctor.out.find("ok    users and files: jobs run as " + m_job_user + ", the daemon as " + m_service +
                            "; attempts are shared through the group " + m_group + " and closed to others"),
            std::string::npos)
      << doctor.out;
}

}  // namespace
}  // namespace tpslurm::render
