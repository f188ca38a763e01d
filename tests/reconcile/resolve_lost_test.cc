// `resolve --lost` (operations::resolve_lost) against the simulator without slurmdbd: the
// operator's answer is refused while Slurm still holds the job (another job that took its id
// does not count), while Slurm cannot be asked, while exit.json holds the end, and for an
// attempt Slurm never held; then the attempt ends lost, is not retried, and its cleanup closes.
#include <fstream>

#include "operations/resolution.h"
#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;
using operations::Refusal;

class ResolveLostTest : public ReconcileTest {
 protected:
  // j1 (two attempts allowed) released and seen running; returns its Slurm job id.
  std::uint32_t running() {
    add_job("j1", Shape::cpu_only, 2);
    once();
    const std::uint32_t id = attempt("j1").slurm_job_id.value_or(0);
    EXPECT_NE(id, 0u);
    post("/sim/jobs/" + std::to_string(id) + "/state", R"({"state": "RUNNING"})");
    once();
    EXPECT_EQ(attempt("j1").state, AttemptState::running);
    return id;
  }
  // slurmctld loses its state; its next job gets `id` again.
  void forget_all(std::uint32_t id) {
    post("/sim/ids/reset", R"({"next_id": )" + std::to_string(id) + R"(, "forget_jobs": true})");
  }
  void post(const std::string& path, const std::string& body) {
    auto answer = sim->control(slurm::HttpMethod::post, path, body);
    ASSERT_TRUE(answer.ok()) << path << ": " << answer.error().message();
  }
  Result<operations::Resolution> resolve(const std::string& job_id, int number = 1) {
    return operations::resolve_lost(journal(), slurm(), attempt(job_id, number), settings, "tester",
                                    "slurmctld lost its state; no accounting");
  }
  void forgotten_job_is_resolved_lost();
  static std::optional<Refusal> refused(const Result<operations::Resolution>& answer) {
    return answer.ok() ? answer->refused : std::nullopt;
  }
};

// On 26.05 the job is asked for by its SLUID, before by its id: the newcomer that took the old
// id must not count as the attempt's job either way. (The daemon's next poll would conclude the
// attempt by itself, reused_id_test.cc: the operator answers before it runs.)
void ResolveLostTest::forgotten_job_is_resolved_lost() {
  const std::uint32_t id = running();
  EXPECT_EQ(refused(resolve("j1")), Refusal::still_in_slurm) << "Slurm holds it";

  forget_all(id);
  post("/sim/jobs/bulk", R"({"count": 1, "name_prefix": "someone-"})");  // takes the old id
  auto answer = resolve("j1");
  ASSERT_TRUE(answer.ok()) << answer.error().message();
  EXPECT_FALSE(answer->refused) << answer->message;
  EXPECT_EQ(answer->resolution, "lost");
  const auto a = attempt("j1");
  EXPECT_EQ(a.state, AttemptState::lost);
  EXPECT_EQ(job("j1").phase, JobPhase::lost);
  EXPECT_NE(a.outcome_reason.find("resolved lost by tester"), std::string::npos) << a.outcome_reason;
  for (int i = 0; i < 3; ++i) once();
  EXPECT_EQ(attempt("j1").cleanup, CleanupStep::closed);
  EXPECT_EQ(journal().attempts("j1")->size(), 1u) << "an operator's lost is not retried";
  EXPECT_TRUE(sim_view(id).at("name").as_string().starts_with("someone-")) << "the newcomer was left alone";
  EXPECT_EQ(refused(resolve("j1")), Refusal::not_followed) << "a second answer finds it ended";
}

TEST_F(ResolveLostTest, AJobSlurmForgotIsResolvedLostOnlyOnceSlurmNoLongerHoldsIt) {
  start({"--no-accounting"});
  forgotten_job_is_resolved_lost();
}

TEST_F(ResolveLostTest, On2205AnIdSlurmGaveToAnotherJobIsNotTheAttemptsJob) {
  start({"--no-accounting", "--release", "22.05.8"}, "v0.0.38");
  forgotten_job_is_resolved_lost();
}

TEST_F(ResolveLostTest, NothingIsResolvedLostWhileSlurmCannotBeAskedOrExitJsonHoldsTheEnd) {
  start({"--no-accounting"});
  forget_all(running());
  fault(R"({"kind": "error_response", "status": 500, "method": "GET", "path_prefix": "/slurm/", "count": -1})");
  EXPECT_EQ(refused(resolve("j1")), Refusal::slurm_unreadable);
  ASSERT_TRUE(sim->control(slurm::HttpMethod::del, "/sim/faults").ok());

  std::ofstream(attempt("j1").attempt_dir + "/logs/exit.json") << R"({"exit_code": 0})";
  EXPECT_EQ(refused(resolve("j1")), Refusal::end_known);
  EXPECT_EQ(attempt("j1").state, AttemptState::running);
}

TEST_F(ResolveLostTest, OnlyAnAttemptSlurmHeldCanBeResolvedLost) {
  start({"--no-accounting"});
  fault(R"({"kind": "outage", "mode": "refuse", "seconds": 3600})");
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::prepared);
  EXPECT_EQ(refused(resolve("j1")), Refusal::not_followed);
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
