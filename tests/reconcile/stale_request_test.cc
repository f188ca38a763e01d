// A job journaled before a rule of the request tightened: here a mount target an older release
// let through, which the path rule of model/runtime_path.h now refuses. The journal keeps the
// request as it was accepted, and each attempt reads it again: the next attempt fails in
// `prepare` with the validator's words, journaled, and nothing is sent. The job ends there,
// once: no other attempt is begun for it, and the daemon goes on.
#include <filesystem>

#include "base/digest.h"
#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

class StaleRequestTest : public ReconcileTest {
 protected:
  // Journals `job_id` with a request text as an older release accepted it (no ingest token).
  void add_journaled(const std::string& job_id, const std::string& target, int max_attempts) {
    const std::string request =
        R"({"job_id":")" + job_id +
        R"(","spec":{"command":["python","train.py"],"framework":{"name":"custom","runtime_id":"custom-test"},)"
        R"("mounts":[{"read_only":true,"source":"data","target":")" +
        target +
        R"("}],"pools":[{"cpus":1,"gpus_per_node":0,"memory_gb":1,"name":"main","nodes":1}],"retry":{"max_attempts":)" +
        std::to_string(max_attempts) + R"(},"time_limit_minutes":10},"type":"custom"})";
    auto added = journal().add_job({job_id, request, sha256_hex(request), "", "", max_attempts});
    ASSERT_TRUE(added.ok()) << added.error().message();
  }
};

TEST_F(StaleRequestTest, ARequestThatNoLongerValidatesFailsItsNextAttemptInPrepare) {
  start();
  std::filesystem::create_directories(settings.storage_root + "/data");
  add_journaled("j1", "/data$(touch${IFS}/tmp/x)", 3);
  add_job("j2", Shape::cpu_only);
  once();
  once();

  const journal::AttemptRecord first = attempt("j1", 1);
  EXPECT_EQ(first.state, AttemptState::failed);
  EXPECT_EQ(first.failure_phase, "prepare");
  EXPECT_EQ(first.outcome_reason,
            "the journaled request no longer validates: spec.mounts[0].target \"/data$(touch${IFS}/tmp/x)\": may "
            "hold only ASCII letters, digits, '.', '_', '-' and '/' (the container runtimes parse it on the nodes, "
            "Enroot in a shell); rename the path");
  EXPECT_EQ(job("j1").phase, JobPhase::failed);
  auto attempts = journal().attempts("j1");
  ASSERT_TRUE(attempts.ok());
  EXPECT_EQ(attempts->size(), 1u) << "a request that cannot render is not tried again";
  EXPECT_EQ(slurm_jobs("j1").size(), 0u) << "nothing was sent for it";
  EXPECT_FALSE(std::filesystem::exists(settings.storage_root + "/slurm/jobs/j1/attempts/1")) << "nothing was written";
  // The daemon went on with the other job.
  EXPECT_EQ(attempt("j2").state, AttemptState::pending);
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
