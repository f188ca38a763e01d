// EndToEndTest: the real binary's `serve` against the real Slurm 22.05 that tools/local-slurm
// starts (tools/test exports `tools/local-slurm env`), with the runtime profile m_profile names
// (`apptainer` unless a fixture derived from this one sets `enroot-pyxis` in its constructor; the
// nodes run local-slurm's stand-ins, or the real runtimes where installed), a 1 s poll interval
// and a real image (a SIF, or a SQSH for enroot-pyxis) whose SHA-256 every node checks. Jobs go
// in through `submit`; the test watches the journal (read only) and Slurm. Without the
// environment every test fails; it never skips.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "journal/journal.h"
#include "slurm/curl_transport.h"
#include "slurm/rest_client.h"
#include "support/background_process.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::reconcile::testing {

std::string env_of(const char* name);

class EndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  tpslurm::testing::EnvironmentMap daemon_env();
  tpslurm::testing::ProcessResult cli(std::vector<std::string> args);
  // Writes a request with `pools` (JSON array) running `command` (JSON array), in `working_dir`
  // when one is given, and submits it.
  void submit(const std::string& job_id, const std::string& command, const std::string& pools = {},
              int max_attempts = 1, const std::string& working_dir = {});
  // The same request with `spec_fields` (JSON members, e.g. "\"env\": {...}") added to its spec,
  // given to `submit`, whatever it answers.
  tpslurm::testing::ProcessResult try_submit(const std::string& job_id, const std::string& command,
                                             const std::string& spec_fields);
  void start_serve();
  void kill_serve();  // SIGKILL, as a crash
  // Waits (real time, bounded) until `done` holds for the job's newest attempt and the job.
  bool eventually(const std::string& job_id,
                  const std::function<bool(const journal::JobRecord&, const journal::AttemptRecord&)>& done,
                  std::chrono::seconds limit = std::chrono::seconds(120));
  bool closed_in(const std::string& job_id, model::JobPhase phase,
                 std::chrono::seconds limit = std::chrono::seconds(120));
  journal::JobRecord job(const std::string& job_id);
  std::vector<journal::AttemptRecord> attempts(const std::string& job_id);
  std::vector<std::string> event_kinds(const std::string& job_id);
  // Whether one of the job's events has `key` in its detail.
  bool an_event_detail_has(const std::string& job_id, const std::string& key);
  // The JSON detail of the job's last attempt state change.
  std::string last_state_detail(const std::string& job_id);
  // Distinct Slurm jobs (het leaders) named like attempt `number` of the job.
  int slurm_jobs_named(const std::string& job_id, int number);
  // Submits a two-pool heterogeneous job (one GPU pool per node) running `command`, runs it to a
  // closed cleanup and checks that each component ran on its node and that its log holds `marker`.
  void expect_two_pool_hetjob_on_both_nodes(const std::string& command, const std::string& marker);
  // scontrol on the local cluster.
  tpslurm::testing::ProcessResult slurm_control(const std::vector<std::string>& args);

  // "apptainer" or "enroot-pyxis": TUNEPLANE_SLURM_RUNTIME_PROFILE and the image's kind.
  std::string m_profile = "apptainer";
  tpslurm::testing::TempDir m_dir;
  // The "user" the requests `submit` writes name (per-user mode); empty: none.
  std::string m_user;
  // Added to daemon_env() (a test's own settings, e.g. the platform API).
  tpslurm::testing::EnvironmentMap m_extra_env;
  // Taken out of daemon_env() (a setting the test replaces by another, e.g. the token file by
  // the cluster's key).
  std::set<std::string> m_unset_env;
  std::string m_instance;
  std::unique_ptr<tpslurm::testing::BackgroundProcess> m_serve;
  SystemClock m_clock;
  model::Settings m_settings;
  std::unique_ptr<slurm::CurlTransport> m_transport;
  std::unique_ptr<slurm::TokenSource> m_tokens;
  std::unique_ptr<slurm::RestClient> m_client;
};

}  // namespace tpslurm::reconcile::testing
