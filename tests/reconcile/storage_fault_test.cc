// Real filesystems that fail under the real binary: the state directory (the journal) on a
// tiny tmpfs that fills up while a job runs under `serve`, and the storage root on a tmpfs that
// fills up while an attempt is prepared, turns read-only while a job ends, vanishes while one
// runs and another is prepared, or is unmounted (an empty mount point left). Each time:
// nothing reaches Slurm that the journal does not hold (no half-written attempt directory is
// sent), the condition is logged once, `journal check` is clean, and the work resumes when the
// filesystem is back. Mounting needs root (as here and in CI): a refused mount fails the test
// with the kernel's reason.
#include <chrono>
#include <filesystem>
#include <thread>

#include "binary_fixture.h"
#include "journal/journal.h"
#include "support/background_process.h"
#include "support/eventually.h"
#include "support/text_count.h"
#include "support/tmpfs_mount.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using tpslurm::testing::eventually;
using tpslurm::testing::read_test_file;
using tpslurm::testing::TmpfsMount;

constexpr std::string_view kJournalReport = "the journal cannot be written: nothing new is submitted until it clears";
constexpr std::string_view kStorageReport =
    "the storage root cannot be written: nothing new is submitted until it clears";

using tpslurm::testing::count_of;

class StorageFaultTest : public BinaryTest {
 protected:
  void SetUp() override { start_sim("26.05.3"); }

  // The job's only attempt: a second one would be a test failure here.
  std::optional<journal::AttemptRecord> attempt(const std::string& job_id) {
    auto attempts = tpslurm::testing::journaled_attempts(journal_of(m_env), job_id);
    if (attempts.size() != 1) return std::nullopt;
    return attempts.front();
  }

  void slurm_state(const std::optional<journal::AttemptRecord>& a, const std::string& body) {
    ASSERT_TRUE(a && a->slurm_job_id) << "no Slurm job to move";
    auto answer =
        m_sim->control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(*a->slurm_job_id) + "/state", body);
    ASSERT_TRUE(answer.ok()) << answer.error().message();
  }

  tpslurm::testing::ProcessResult serve_once() { return cli(m_env, {"serve", "--once"}); }

  void expect_journal_clean() {
    const auto check = cli(m_env, {"journal", "check"});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }

  tpslurm::testing::EnvironmentMap m_env;
};

TEST_F(StorageFaultTest, AFullJournalDiskPausesTheDaemonWithOneErrorAndItResumesWhenSpaceReturns) {
  TmpfsMount state(m_dir.file("deploy/state"));
  ASSERT_EQ(state.mount(4 << 20), "");
  m_env = environment(m_dir.file("deploy"));
  m_env["TUNEPLANE_POLL_INTERVAL"] = "1s";
  m_env["TUNEPLANE_LOG_LEVEL"] = "info";
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "j1")}).exit_code, 0);
  std::string error;
  auto serve = tpslurm::testing::BackgroundProcess::start({TP_BINARY, "serve"}, m_env, m_dir.file("serve.log"), error);
  ASSERT_TRUE(serve) << error;
  const auto log = [&] { return read_test_file(m_dir.file("serve.log")); };
  ASSERT_TRUE(eventually([&] {
    auto a = attempt("j1");
    return a && a->state == AttemptState::pending && !a->released_at.empty();
  })) << log();

  // The disk fills while j1 is in Slurm's hands; j1 starts and ends meanwhile.
  EXPECT_GT(state.fill("filler"), 0u);
  slurm_state(attempt("j1"), R"({"state": "RUNNING"})");
  EXPECT_TRUE(eventually([&] { return log().find(kJournalReport) != std::string::npos; })) << log();
  slurm_state(attempt("j1"), R"({"state": "COMPLETED"})");
  const auto refused = cli(m_env, {"submit", request_file(m_dir.path(), "j2")});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("the journal cannot be written"), std::string::npos) << refused.err;
  std::this_thread::sleep_for(std::chrono::seconds(3));  // cycles that find the disk still full
  EXPECT_EQ(attempt("j1")->state, AttemptState::pending) << "nothing journaled while the disk is full";
  EXPECT_EQ(count_of(log(), kJournalReport), 1) << log();

  std::filesystem::remove(state.dir() + "/filler");
  EXPECT_TRUE(eventually([&] {
    auto a = attempt("j1");
    return a && a->state == AttemptState::succeeded && a->cleanup == CleanupStep::closed;
  })) << log();
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "j2")}).exit_code, 0);
  EXPECT_TRUE(eventually([&] {
    auto a = attempt("j2");
    return a && !a->released_at.empty();
  })) << log();
  serve->signal(SIGTERM);
  EXPECT_EQ(serve->wait(), 0) << log();
  EXPECT_NE(log().find("the journal cannot be written cleared; submitting again"), std::string::npos) << log();
  EXPECT_EQ(count_of(log(), kJournalReport), 1) << log();
  EXPECT_EQ(m_sim->stat("submits_received"), 2) << "one submit per journaled attempt";
  expect_journal_clean();
}

TEST_F(StorageFaultTest, AStorageRootThatFillsUpTurnsReadOnlyOrVanishesHoldsWorkUntilItReturns) {
  // The storage root is a directory inside the mount, so that it can vanish and come back.
  TmpfsMount storage(m_dir.file("shared"));
  ASSERT_EQ(storage.mount(2 << 20), "");
  const std::string root = storage.dir() + "/storage";
  m_env = environment(m_dir.file("deploy"));
  m_env["TUNEPLANE_STORAGE_ROOT"] = root;
  tpslurm::testing::write_test_file(root + "/runtimes/test.sqsh", kImage);
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "s1")}).exit_code, 0);

  // Full while the attempt is prepared: nothing is sent; once space returns the directory is
  // written whole and only then submitted.
  storage.fill("filler");
  auto full = serve_once();
  EXPECT_EQ(full.exit_code, 0) << full.err;
  EXPECT_EQ(count_of(full.err, kStorageReport), 1) << full.err;
  EXPECT_EQ(attempt("s1")->state, AttemptState::preparing);
  EXPECT_EQ(m_sim->stat("submits_received"), 0) << "a half-written attempt directory is never submitted";
  std::filesystem::remove(storage.dir() + "/filler");
  auto freed = serve_once();
  EXPECT_EQ(freed.exit_code, 0) << freed.err;
  auto s1 = attempt("s1");
  ASSERT_TRUE(s1 && s1->state == AttemptState::pending) << freed.err;
  EXPECT_TRUE(std::filesystem::exists(s1->attempt_dir + "/manifest.json"));
  EXPECT_EQ(m_sim->stat("submits_received"), 1);

  // Read-only while the job ends: the cleanup waits, reported once, and closes when it clears.
  slurm_state(s1, R"({"state": "RUNNING"})");
  ASSERT_EQ(serve_once().exit_code, 0);
  ASSERT_EQ(storage.remount(true), "");
  slurm_state(s1, R"({"state": "COMPLETED"})");
  auto read_only = serve_once();
  EXPECT_EQ(count_of(read_only.err, kStorageReport), 1) << read_only.err;
  EXPECT_NE(attempt("s1")->cleanup, CleanupStep::closed) << read_only.err;
  EXPECT_TRUE(std::filesystem::exists(s1->attempt_dir + "/credentials"));
  const auto refused = cli(m_env, {"submit", request_file(m_dir.path(), "s2")});
  EXPECT_NE(refused.exit_code, 0) << "no credential can be written";
  ASSERT_EQ(storage.remount(false), "");
  auto writable = serve_once();
  EXPECT_EQ(attempt("s1")->cleanup, CleanupStep::closed) << writable.err;
  EXPECT_FALSE(std::filesystem::exists(s1->attempt_dir + "/credentials"));

  // Vanishing while a job runs (renamed away; a lost automount leaves the same): the job is
  // followed to its end, but its cleanup does not claim what it cannot see.
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "s2")}).exit_code, 0);
  ASSERT_EQ(serve_once().exit_code, 0);
  auto s2 = attempt("s2");
  ASSERT_TRUE(s2 && s2->state == AttemptState::pending);
  slurm_state(s2, R"({"state": "RUNNING"})");
  ASSERT_EQ(serve_once().exit_code, 0);
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "s3")}).exit_code, 0);
  std::filesystem::rename(root, root + ".away");
  auto preparing = serve_once();
  auto s3 = attempt("s3");
  EXPECT_TRUE(s3 && s3->state == AttemptState::preparing) << "a vanished root fails no attempt\n" << preparing.err;
  EXPECT_EQ(count_of(preparing.err, kStorageReport), 1) << preparing.err;
  slurm_state(s2, R"({"state": "COMPLETED"})");
  auto vanished = serve_once();
  EXPECT_EQ(attempt("s2")->state, AttemptState::succeeded) << vanished.err;
  EXPECT_NE(attempt("s2")->cleanup, CleanupStep::closed) << "credentials/ is still on the vanished tree\n"
                                                         << vanished.err;
  EXPECT_LE(count_of(vanished.err, kStorageReport), 1) << vanished.err;
  EXPECT_FALSE(std::filesystem::exists(root)) << "the daemon never recreates a vanished root\n" << vanished.err;
  std::filesystem::remove_all(root);
  std::filesystem::rename(root + ".away", root);
  auto back = serve_once();
  EXPECT_EQ(attempt("s2")->cleanup, CleanupStep::closed) << back.err;
  EXPECT_FALSE(std::filesystem::exists(s2->attempt_dir + "/credentials"));
  s3 = attempt("s3");
  EXPECT_TRUE(s3 && s3->state == AttemptState::pending) << back.err;
  EXPECT_EQ(m_sim->stat("submits_received"), 3);
  expect_journal_clean();
}

TEST_F(StorageFaultTest, AnUnmountedStorageRootFailsNoAttemptAndNothingIsWrittenIntoTheMountPoint) {
  TmpfsMount storage(m_dir.file("nfs"));
  ASSERT_EQ(storage.mount(1 << 20), "");
  m_env = environment(m_dir.file("deploy"));
  m_env["TUNEPLANE_STORAGE_ROOT"] = storage.dir();
  tpslurm::testing::write_test_file(storage.dir() + "/runtimes/test.sqsh", kImage);
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "u1")}).exit_code, 0);
  ASSERT_EQ(storage.unmount(), "");  // what is left is the empty mount point

  auto run = serve_once();
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(count_of(run.err, kStorageReport), 1) << run.err;
  EXPECT_NE(run.err.find("is empty: is the shared filesystem mounted?"), std::string::npos) << run.err;
  auto u1 = attempt("u1");
  EXPECT_TRUE(u1 && u1->state == AttemptState::preparing) << run.err;
  EXPECT_TRUE(std::filesystem::is_empty(storage.dir())) << "nothing is written into the bare mount point";
  EXPECT_EQ(m_sim->stat("submits_received"), 0);
  expect_journal_clean();
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
