// `resolve --adopt` against the simulator (the real binary): a job an operator found is
// adopted only when it carries the attempt's tag, then identified and released by the daemon.
#include "binary_fixture.h"
#include "journal/journal.h"

namespace tpslurm::reconcile::testing {
namespace {

class ResolveAdoptTest : public BinaryTest {};

TEST_F(ResolveAdoptTest, AFoundJobIsAdoptedOnlyWithTheAttemptsTag) {
  start_sim("22.05.8");
  auto env = environment(m_dir.file("deploy"));
  ASSERT_EQ(cli(env, {"submit", request_file(m_dir.path(), "a1")}).exit_code, 0);
  ASSERT_EQ(cli(env, {"submit", request_file(m_dir.path(), "other")}).exit_code, 0);
  ASSERT_EQ(cli(env, {"cancel", "other"}).exit_code, 0);  // never sent
  // The answer is lost and every search fails: a1 stays blocked.
  fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.38/job/submit"})");
  fault(
      R"({"kind": "error_response", "status": 500, "method": "GET", "path_prefix": "/slurm/v0.0.38/jobs", "count": -1})");
  fault(R"({"kind": "accounting_outage"})");
  ASSERT_EQ(cli(env, {"serve", "--once"}).exit_code, 0);
  ASSERT_TRUE(m_sim->control(slurm::HttpMethod::del, "/sim/faults").ok());

  // A job Slurm does not know, or one without the tag, is refused; nothing changes.
  const auto unknown = cli(env, {"resolve", "a1/1", "--adopt", "999"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("cannot read Slurm job 999"), std::string::npos) << unknown.err;
  ASSERT_TRUE(
      m_sim->control(slurm::HttpMethod::post, "/sim/jobs/bulk", R"({"count": 1, "name_prefix": "someone-"})").ok());
  const auto stranger = cli(env, {"resolve", "a1/1", "--adopt", "2"});
  EXPECT_NE(stranger.exit_code, 0);
  EXPECT_NE(stranger.err.find("does not carry the tag of a1/1"), std::string::npos) << stranger.err;
  const auto first_job = m_sim->control(slurm::HttpMethod::get, "/sim/jobs/1");
  ASSERT_TRUE(first_job.ok());
  EXPECT_EQ(first_job->at("name").as_string(), "tp-cm-a1-1");

  const auto adopted = cli(env, {"resolve", "a1/1", "--adopt", "1", "--reason", "found in squeue"});
  ASSERT_EQ(adopted.exit_code, 0) << adopted.err;
  EXPECT_EQ(adopted.out, "a1/1: adopted Slurm job 1\n");
  ASSERT_EQ(cli(env, {"serve", "--once"}).exit_code, 0);

  const auto found = tpslurm::testing::first_attempt(journal_of(env), "a1");
  ASSERT_TRUE(found);
  const auto& a = *found;
  EXPECT_EQ(a.state, model::AttemptState::pending);
  EXPECT_EQ(a.found_by, "operator");
  EXPECT_FALSE(a.released_at.empty());
  EXPECT_EQ(m_sim->stat("submits_received"), 1);
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
