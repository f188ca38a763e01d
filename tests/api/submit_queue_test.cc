// SubmitQueue and operations::submit_jobs: the API's new jobs journaled together — one journal
// commit for a batch (counted by the fault VFS's syncs), a failed commit journals none of it,
// each submission answered once as if it came alone, and a stopped queue refuses at once.
#include "api/submit_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <future>

#include "api_fixture.h"
#include "base/digest.h"
#include "base/file_system.h"
#include "model/launch_request.h"
#include "storage/job_credential.h"
#include "storage/secret_key.h"
#include "support/fault_vfs.h"

namespace tpslurm::api::testing {
namespace {

using operations::Submission;
using operations::Submitted;
using tpslurm::testing::FaultMode;
using tpslurm::testing::FaultPlan;
using tpslurm::testing::FaultVfs;

class SubmitQueueTest : public ApiFixture {
 protected:
  void SetUp() override {
    start();
    auto gpu = model::GpuSeriesCatalog::parse(tpslurm::testing::read_test_file(settings.gpu_series_file), "gpu");
    auto runtimes =
        model::RuntimeRegistry::parse(tpslurm::testing::read_test_file(settings.runtime_registry_file), "runtimes");
    ASSERT_TRUE(gpu.ok() && runtimes.ok());
    m_catalogs = std::make_unique<model::Catalogs>(model::Catalogs{std::move(*gpu), std::move(*runtimes)});
    auto key = storage::load_state_key(settings.state_dir);
    ASSERT_TRUE(key.ok());
    m_key = *key;
  }

  // The example request under `job_id`, with `rate` as its learning rate (another request)
  // and `ingest` as its ingest token.
  Submission submission(const std::string& job_id, const std::string& rate = "3e-4",
                        const std::string& ingest = "example-ingest-token-replace-me") {
    const std::string text =
        replaced(replaced(replaced(example_request(), "\"ft-7f3c2a\"", "\"" + job_id + "\""), "3e-4", rate),
                 "example-ingest-token-replace-me", ingest);
    auto request =
        model::parse_launch_request(text, {m_catalogs->gpu_series, m_catalogs->runtimes, settings.runtime_profile});
    EXPECT_TRUE(request.ok()) << request.error().to_text();
    return {*request, {}, "alice"};
  }

  std::vector<Submission> batch(int jobs, const std::string& prefix) {
    std::vector<Submission> submissions;
    for (int i = 0; i < jobs; ++i) submissions.push_back(submission(prefix + std::to_string(i)));
    return submissions;
  }

  std::unique_ptr<model::Catalogs> m_catalogs;
  std::string m_key;
};

TEST_F(SubmitQueueTest, ABatchOfNewJobsIsOneJournalCommitWhereOneByOneIsOneEach) {
  FaultVfs& vfs = FaultVfs::install();
  auto journal = open_journal();
  vfs.watch(settings.journal_path);
  vfs.reset();
  const auto results = operations::submit_jobs(*journal, settings, batch(10, "batch-"), m_key);
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.error().message();
    EXPECT_EQ(result->outcome, model::SubmitOutcome::created);
  }
  EXPECT_EQ(vfs.syncs(), 1) << "ten jobs, one commit";
  vfs.reset();
  for (const auto& one : batch(10, "alone-"))
    ASSERT_TRUE(operations::submit_job(*journal, settings, one, m_key).ok());
  EXPECT_EQ(vfs.syncs(), 10) << "one by one: a commit each";
  vfs.watch("");
}

TEST_F(SubmitQueueTest, AFailedCommitJournalsNoneOfTheBatchAndFailsEverySubmission) {
  FaultVfs& vfs = FaultVfs::install();
  auto journal = open_journal();
  vfs.watch(settings.journal_path);
  vfs.reset();
  ASSERT_EQ(operations::submit_jobs(*journal, settings, batch(5, "first-"), m_key).size(), 5u);
  vfs.reset();  // a batch like the failing one below, on a warm cache: the same calls
  ASSERT_EQ(operations::submit_jobs(*journal, settings, batch(5, "probe-"), m_key).size(), 5u);
  const std::int64_t calls = vfs.calls();  // the last of them is the commit's sync
  vfs.reset();
  vfs.arm(FaultPlan{calls, FaultMode::always});
  const auto results = operations::submit_jobs(*journal, settings, batch(5, "second-"), m_key);
  vfs.clear();
  vfs.watch("");
  ASSERT_GE(vfs.failures(), 1);
  for (const auto& result : results) EXPECT_FALSE(result.ok());
  auto reader = open_journal();
  for (int i = 0; i < 5; ++i) {
    auto job = reader->job("second-" + std::to_string(i));
    ASSERT_TRUE(job.ok());
    EXPECT_FALSE(job->has_value()) << "second-" << i;
    ASSERT_TRUE(reader->job("first-" + std::to_string(i))->has_value());
  }
  // Sent again, each is journaled: its credential, written before the commit failed, is the same.
  for (const auto& result : operations::submit_jobs(*journal, settings, batch(5, "second-"), m_key)) {
    ASSERT_TRUE(result.ok()) << result.error().message();
    EXPECT_EQ(result->outcome, model::SubmitOutcome::created);
  }
}

// A journal that cannot be written fails the submission with the journal's words; it is never
// answered as a conflict (which the platform would take as "another request holds this id").
TEST_F(SubmitQueueTest, AJournalThatCannotBeWrittenIsAnErrorNeverAConflict) {
  open_journal();  // created and migrated
  auto read_only = journal::Journal::open(settings.journal_path, clock(), {journal::OpenOptions::Mode::read_only});
  ASSERT_TRUE(read_only.ok()) << read_only.error().message();
  const auto result = operations::submit_job(**read_only, settings, submission("refused"), m_key);
  ASSERT_FALSE(result.ok()) << "outcome " << static_cast<int>(result->outcome) << ": " << result->refusal;
  EXPECT_TRUE(journal::is_unwritable(result.error())) << result.error().message();
}

TEST_F(SubmitQueueTest, EachSubmissionOfABatchIsAnsweredAsIfItCameAlone) {
  auto journal = open_journal();
  ASSERT_TRUE(operations::submit_job(*journal, settings, submission("known"), m_key).ok());
  const auto results = operations::submit_jobs(*journal, settings,
                                               {submission("new"), submission("new"), submission("known"),
                                                submission("new", "1e-3"), submission("known", "1e-3")},
                                               m_key);
  ASSERT_EQ(results.size(), 5u);
  for (const auto& result : results) ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(results[0]->outcome, model::SubmitOutcome::created);
  EXPECT_EQ(results[1]->outcome, model::SubmitOutcome::unchanged) << "the same job again in the same batch";
  EXPECT_EQ(results[2]->outcome, model::SubmitOutcome::unchanged);
  EXPECT_EQ(results[3]->outcome, model::SubmitOutcome::conflict) << "another request under a job id of the batch";
  EXPECT_EQ(results[4]->outcome, model::SubmitOutcome::conflict);
  EXPECT_EQ(results[3]->request_sha256, sha256_hex(submission("new", "1e-3").request.canonical_json));
}

// One new job id twice in a batch, each time with its own ingest token: the first is created
// with its credential, the others are answered as if they came after it (a different request:
// conflict, 409; the same request: unchanged), never an error, and no credential of theirs is
// left beside the job's.
TEST_F(SubmitQueueTest, OneNewJobIdTwiceInABatchWithDifferentIngestTokensIsCreatedThenAConflict) {
  auto journal = open_journal();
  const auto results = operations::submit_jobs(
      *journal, settings,
      {submission("dup", "3e-4", "ingest-token-first"), submission("dup", "1e-3", "ingest-token-second"),
       submission("dup", "3e-4", "ingest-token-third")},
      m_key);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& result : results) ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(results[0]->outcome, model::SubmitOutcome::created);
  EXPECT_EQ(results[1]->outcome, model::SubmitOutcome::conflict);
  EXPECT_EQ(results[2]->outcome, model::SubmitOutcome::unchanged);
  auto job = open_journal()->job("dup");
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ(tpslurm::testing::read_test_file((*job)->credential_path), "ingest-token-first");
  EXPECT_TRUE(storage::verify_job_credential({(*job)->credential_path, (*job)->credential_hmac}, m_key).ok());
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(parent_directory((*job)->credential_path))) {
    names.push_back(entry.path().filename());
  }
  EXPECT_EQ(names, std::vector<std::string>{"ingest_token"});
}

// A commit that failed leaves the new job's credential behind, and the journal no job: a later
// request for that id — the same one again, or one with another ingest token, or another
// request altogether — is journaled, its credential holding its own token.
TEST_F(SubmitQueueTest, ACredentialLeftByAFailedCommitDoesNotStopALaterRequestForThatId) {
  auto journal = open_journal();
  const operations::CommitThrough failing = [](const std::function<Status(journal::Journal&)>&,
                                               std::vector<std::string>) -> Status {
    return transient("the commit failed");
  };
  const Submission retries[] = {submission("again-same", "3e-4", "ingest-token-old"),
                                submission("again-token", "3e-4", "ingest-token-new"),
                                submission("again-request", "1e-3", "ingest-token-newer")};
  for (const Submission& retry : retries) {
    const std::string& id = retry.request.job_id;
    const auto failed =
        operations::submit_jobs(*journal, settings, {submission(id, "3e-4", "ingest-token-old")}, m_key, failing);
    ASSERT_FALSE(failed.front().ok()) << id;
    ASSERT_FALSE(journal->job(id)->has_value()) << id;
    const auto retried = operations::submit_jobs(*journal, settings, {retry}, m_key);
    ASSERT_TRUE(retried.front().ok()) << id << ": " << retried.front().error().message();
    EXPECT_EQ(retried.front()->outcome, model::SubmitOutcome::created) << id;
    auto job = open_journal()->job(id);
    ASSERT_TRUE(job.ok() && job->has_value()) << id;
    EXPECT_EQ(tpslurm::testing::read_test_file((*job)->credential_path), *retry.request.ingest_token) << id;
    EXPECT_TRUE(storage::verify_job_credential({(*job)->credential_path, (*job)->credential_hmac}, m_key).ok()) << id;
    const auto again = operations::submit_jobs(*journal, settings, {retry}, m_key);
    ASSERT_TRUE(again.front().ok()) << id << ": " << again.front().error().message();
    EXPECT_EQ(again.front()->outcome, model::SubmitOutcome::unchanged) << id;
  }
}

TEST_F(SubmitQueueTest, SubmissionsThatArriveTogetherShareBatchesAndEachIsAnsweredOnce) {
  auto queue = SubmitQueue::start(settings, clock(), m_key);
  ASSERT_TRUE(queue.ok());
  constexpr int kJobs = 64;
  std::vector<std::promise<Result<Submitted>>> answers(kJobs);
  std::atomic<int> calls = 0;
  for (int i = 0; i < kJobs; ++i) {
    (*queue)->submit(submission("q-" + std::to_string(i)), [&, i](Result<Submitted> result) {
      ++calls;
      answers[i].set_value(std::move(result));
    });
  }
  for (int i = 0; i < kJobs; ++i) {
    auto result = answers[i].get_future().get();
    ASSERT_TRUE(result.ok()) << result.error().message();
    EXPECT_EQ(result->outcome, model::SubmitOutcome::created);
  }
  EXPECT_EQ(calls.load(), kJobs);
  EXPECT_EQ((*queue)->submissions(), static_cast<std::size_t>(kJobs));
  EXPECT_LT((*queue)->batches(), static_cast<std::size_t>(kJobs / 4)) << "64 handed over at once";
  auto reader = open_journal();
  for (int i = 0; i < kJobs; ++i) EXPECT_TRUE(reader->job("q-" + std::to_string(i))->has_value()) << i;
}

TEST_F(SubmitQueueTest, AStoppedQueueJournalsWhatItHeldAndRefusesTheRestAtOnce) {
  auto queue = SubmitQueue::start(settings, clock(), m_key);
  ASSERT_TRUE(queue.ok());
  std::promise<Result<Submitted>> held;
  (*queue)->submit(submission("held"), [&](Result<Submitted> result) { held.set_value(std::move(result)); });
  (*queue)->stop();
  ASSERT_TRUE(held.get_future().get().ok());
  std::optional<Result<Submitted>> late;
  (*queue)->submit(submission("late"), [&](Result<Submitted> result) { late = std::move(result); });
  ASSERT_TRUE(late.has_value()) << "answered at once, on the caller's thread";
  ASSERT_FALSE(late->ok());
  EXPECT_EQ(late->error().kind(), ErrorKind::transient);
  EXPECT_FALSE(open_journal()->job("late")->has_value());
}

TEST_F(SubmitQueueTest, ABatchCommittedThroughAnotherWriterIsOneCallAndItsFailureFailsEverySubmission) {
  // `through` stands for the daemon's journal writer: a connection of its own that commits.
  auto writer = open_journal();
  auto reads = open_journal();
  int commits = 0;
  bool fail = false;
  std::vector<std::string> named;
  const operations::CommitThrough through = [&](const std::function<Status(journal::Journal&)>& change,
                                                std::vector<std::string> job_ids) -> Status {
    named.insert(named.end(), job_ids.begin(), job_ids.end());
    ++commits;
    if (Status began = writer->begin_group(); !began.ok()) return began;
    Status changed = change(*writer);
    Status committed = writer->end_group();
    if (fail) return transient("the commit failed");  // as a failed fsync reports it, after the fact
    return changed.ok() ? committed : changed;
  };
  for (const auto& result : operations::submit_jobs(*reads, settings, batch(8, "through-"), m_key, through)) {
    ASSERT_TRUE(result.ok()) << result.error().message();
    EXPECT_EQ(result->outcome, model::SubmitOutcome::created);
  }
  EXPECT_EQ(commits, 1) << "eight jobs, one commit through the writer";
  EXPECT_EQ(named, (std::vector<std::string>{"through-0", "through-1", "through-2", "through-3", "through-4",
                                             "through-5", "through-6", "through-7"}))
      << "the commit names the jobs it writes, for the daemon to wake";
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(reads->job("through-" + std::to_string(i))->has_value()) << i;

  fail = true;
  for (const auto& result : operations::submit_jobs(*reads, settings, batch(3, "lost-"), m_key, through)) {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().kind(), ErrorKind::transient);
  }
  EXPECT_EQ(commits, 2);
}

}  // namespace
}  // namespace tpslurm::api::testing
