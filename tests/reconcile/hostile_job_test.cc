// A job that turns its attempt directory against the daemon: a FIFO as logs/exit.json must
// neither stop the daemon from following its jobs by Slurm's state nor keep it from stopping.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <optional>
#include <thread>

#include "reconcile_fixture.h"
#include "support/eventually.h"

namespace tpslurm::reconcile::testing {
namespace {

using namespace std::chrono_literals;
using tpslurm::testing::eventually;
using model::AttemptState;
using model::CleanupStep;

class HostileJobTest : public ReconcileTest {
 protected:
  // The job's first attempt once the daemon journaled it (attempt() fails the test before).
  std::optional<journal::AttemptRecord> first_attempt(const std::string& job_id) {
    auto attempts = journal().attempts(job_id);
    if (!attempts.ok() || attempts->empty()) return std::nullopt;
    return attempts->front();
  }
};

TEST_F(HostileJobTest, AFifoAsExitJsonNeitherStopsTheFollowNorTheDaemon) {
  settings.poll_interval = 1s;
  start();
  add_job("j1", Shape::cpu_only);
  start_daemon();
  ASSERT_TRUE(eventually([&] {
    const auto a = first_attempt("j1");
    return a && !a->released_at.empty();
  }, 30s)) << "never released";
  const std::string exit_json = attempt("j1").attempt_dir + "/logs/exit.json";
  ASSERT_EQ(::mkfifo(exit_json.c_str(), 0666), 0) << exit_json;

  const bool closed = eventually([&] {
    advance_slurm("j1");
    return attempt("j1").cleanup == CleanupStep::closed;
  }, 60s);
  EXPECT_TRUE(closed) << "the job was not followed to its end past the FIFO; its state: "
                      << model::to_string(attempt("j1").state);
  EXPECT_EQ(attempt("j1").state, AttemptState::succeeded);
  EXPECT_NE(attempt("j1").logs_sha256.find("exit.json: a FIFO, not sealed"), std::string::npos)
      << attempt("j1").logs_sha256;

  auto stopping = std::async(std::launch::async, [this] { return stop_daemon(); });
  if (stopping.wait_for(30s) != std::future_status::ready) {
    // A pass blocked on the FIFO never ends; the fixture could not stop the daemon either.
    std::fprintf(stderr, "FAILED: the daemon did not stop within 30 s of its stop request\n");
    std::fflush(stderr);
    std::_Exit(1);
  }
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
