// SubmitQueue: the API's new jobs, journaled together. POST /v1/jobs hands its validated
// request here and its connection waits (Deferred::start); one thread of the queue's own takes
// every submission waiting (up to kMaxBatch) and journals them with operations::submit_jobs:
// their credentials with two filesystem flushes for the lot and their jobs in one journal
// group, one commit. Each submission's `done` is called once that commit is made (or has
// failed), so the 201 still comes only once the job is durable; the ones that arrive meanwhile
// go together in the next batch. A fast client alone waits as long as it did before; many at
// once share the flushes.
//
// The queue has a journal connection of its own: it reads which jobs are new there, and
// without a `through` it commits there too, a group invisible to the API's reads, which never
// see a job before it is committed. Under `serve` it commits through the reconciler's journal
// writer instead (operations::CommitThrough): one writer, the API's jobs sharing the commits of
// the reconciler's own writes, and no wait for SQLite's write lock. stop() (and the destructor)
// journals what is queued, then ends the thread; a submission after it is answered at once
// with a transient error. A sweep (POST /v1/sweeps) goes through the same thread and the same
// commit path as a batch of its own (operations::submit_sweep), before the next batch of jobs.
// Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/result.h"
#include "journal/journal.h"
#include "model/settings.h"
#include "operations/submission.h"
#include "operations/sweep_submission.h"

namespace tpslurm::api {

class SubmitQueue {
 public:
  using Done = std::function<void(Result<operations::Submitted>)>;
  static constexpr std::size_t kMaxBatch = 256;

  // Opens the queue's journal connection (an error when it cannot) and starts its thread.
  // `settings` and `clock` must outlive the queue, and `through` (when given) what it calls;
  // `hmac_key` signs the credentials.
  static Result<std::unique_ptr<SubmitQueue>> start(const model::Settings& settings, const Clock& clock,
                                                    std::string hmac_key, operations::CommitThrough through = {});
  ~SubmitQueue();
  SubmitQueue(const SubmitQueue&) = delete;
  SubmitQueue& operator=(const SubmitQueue&) = delete;

  void submit(operations::Submission submission, Done done);
  using SweepDone = std::function<void(Result<operations::SweepSubmitted>)>;
  void submit_sweep(operations::SweepSubmission sweep, SweepDone done);
  void stop();

  // Batches journaled so far (each one group, one commit), and the submissions they held.
  std::size_t batches() const;
  std::size_t submissions() const;

 private:
  struct Waiting {
    operations::Submission submission;
    Done done;
  };
  struct WaitingSweep {
    operations::SweepSubmission sweep;
    SweepDone done;
  };
  SubmitQueue(const model::Settings& settings, std::unique_ptr<journal::Journal> journal, std::string hmac_key,
              operations::CommitThrough through);
  void run();
  void journal_batch(std::deque<Waiting>& batch);

  const model::Settings& m_settings;
  std::unique_ptr<journal::Journal> m_journal;
  const std::string m_key;
  const operations::CommitThrough m_through;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  std::deque<Waiting> m_waiting;
  std::deque<WaitingSweep> m_sweeps;
  bool m_stopping = false;
  std::size_t m_batches = 0;
  std::size_t m_submissions = 0;
  std::thread m_thread;  // last: started when the rest is ready
};

}  // namespace tpslurm::api
