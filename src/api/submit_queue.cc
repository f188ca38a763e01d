#include "api/submit_queue.h"

#include <utility>
#include <vector>

namespace tpslurm::api {

Result<std::unique_ptr<SubmitQueue>> SubmitQueue::start(const model::Settings& settings, const Clock& clock,
                                                        std::string hmac_key, operations::CommitThrough through) {
  auto journal = journal::Journal::open(settings.journal_path, clock);
  if (!journal.ok()) return journal.error();
  return std::unique_ptr<SubmitQueue>(
      new SubmitQueue(settings, std::move(*journal), std::move(hmac_key), std::move(through)));
}

SubmitQueue::SubmitQueue(const model::Settings& settings, std::unique_ptr<journal::Journal> journal,
                         std::string hmac_key, operations::CommitThrough through)
    : m_settings(settings),
      m_journal(std::move(journal)),
      m_key(std::move(hmac_key)),
      m_through(std::move(through)),
      m_thread([this] { run(); }) {}

SubmitQueue::~SubmitQueue() { stop(); }

void SubmitQueue::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

void SubmitQueue::submit(operations::Submission submission, Done done) {
  {
    std::lock_guard lock(m_mutex);
    if (!m_stopping) {
      m_waiting.push_back({std::move(submission), std::move(done)});
      m_wake.notify_one();
      return;
    }
  }
  done(transient("the API is stopping; nothing was journaled"));
}

void SubmitQueue::submit_sweep(operations::SweepSubmission sweep, SweepDone done) {
  {
    std::lock_guard lock(m_mutex);
    if (!m_stopping) {
      m_sweeps.push_back({std::move(sweep), std::move(done)});
      m_wake.notify_one();
      return;
    }
  }
  done(transient("the API is stopping; nothing was journaled"));
}

void SubmitQueue::run() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_wake.wait(lock, [this] { return m_stopping || !m_waiting.empty() || !m_sweeps.empty(); });
    if (m_waiting.empty() && m_sweeps.empty()) return;  // stopping, and everything queued is journaled
    if (!m_sweeps.empty()) {
      WaitingSweep sweep = std::move(m_sweeps.front());
      m_sweeps.pop_front();
      lock.unlock();
      sweep.done(operations::submit_sweep(*m_journal, m_settings, sweep.sweep, m_key, m_through));
      lock.lock();
      continue;
    }
    std::deque<Waiting> batch;
    while (!m_waiting.empty() && batch.size() < kMaxBatch) {
      batch.push_back(std::move(m_waiting.front()));
      m_waiting.pop_front();
    }
    lock.unlock();
    journal_batch(batch);
    lock.lock();
  }
}

void SubmitQueue::journal_batch(std::deque<Waiting>& batch) {
  std::vector<operations::Submission> submissions;
  submissions.reserve(batch.size());
  for (auto& waiting : batch) submissions.push_back(std::move(waiting.submission));
  std::vector<Result<operations::Submitted>> results =
      operations::submit_jobs(*m_journal, m_settings, submissions, m_key, m_through);
  {
    std::lock_guard lock(m_mutex);
    ++m_batches;
    m_submissions += batch.size();
  }
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(results[i]));
}

std::size_t SubmitQueue::batches() const {
  std::lock_guard lock(m_mutex);
  return m_batches;
}

std::size_t SubmitQueue::submissions() const {
  std::lock_guard lock(m_mutex);
  return m_submissions;
}

}  // namespace tpslurm::api
