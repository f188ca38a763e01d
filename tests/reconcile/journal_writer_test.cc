// JournalWriter: writes from many threads that wait while the writer thread is busy commit as
// one group; each returns only after that commit, with its own result.
#include "reconcile/journal_writer.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "support/eventually.h"
#include "support/fault_vfs.h"
#include "support/temp_dir.h"

namespace tpslurm::reconcile {
namespace {

class JournalWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tpslurm::testing::FaultVfs::install();  // counts the journal's syncs where a test watches it
    auto opened = journal::Journal::open(dir.file("journal.db"), clock);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    journal = std::move(*opened);
    writer = std::make_unique<JournalWriter>(*journal, io.get_executor());
    loop = std::thread([this] {
      writer->set_writer_thread(std::this_thread::get_id());
      io.run();
    });
  }
  void TearDown() override {
    work.reset();
    loop.join();
  }

  static journal::NewJob job(const std::string& id) { return {id, "{}", std::string(64, 'c'), "", "", 1}; }

  SystemClock clock;
  tpslurm::testing::TempDir dir;
  std::unique_ptr<journal::Journal> journal;
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::unique_ptr<JournalWriter> writer;
  std::thread loop;
};

TEST_F(JournalWriterTest, WritesThatWaitTogetherCommitAsOneGroupEachWithItsOwnResult) {
  // The writer thread is busy until released: every write below queues behind it.
  std::promise<void> release;
  boost::asio::post(io, [gate = release.get_future().share()] { gate.wait(); });
  constexpr int kWriters = 6;
  std::vector<std::future<Status>> results;
  for (int i = 0; i < kWriters; ++i) {
    results.push_back(std::async(std::launch::async, [this, i] {
      // Writer 3 adds a job twice with different requests: its second add is refused.
      if (i == 3) {
        return writer->write([](journal::Journal& j) -> Status {
          if (auto first = j.add_job(job("w3")); !first.ok()) return first.error();
          auto second = j.add_job({"w3", "{}", std::string(64, 'd'), "", "", 1});
          return second.ok() ? Status{} : Status(second.error());
        });
      }
      return writer->write([i](journal::Journal& j) -> Status {
        auto added = j.add_job(job("w" + std::to_string(i)));
        return added.ok() ? Status{} : Status(added.error());
      });
    }));
  }
  ASSERT_TRUE(tpslurm::testing::eventually([&] { return writer->queued() == kWriters; }));
  EXPECT_EQ(writer->commits(), 0);
  release.set_value();
  for (int i = 0; i < kWriters; ++i) {
    const Status s = results[static_cast<std::size_t>(i)].get();
    EXPECT_EQ(s.ok(), i != 3) << "writer " << i << ": " << (s.ok() ? "ok" : s.error().message());
  }
  EXPECT_EQ(writer->commits(), 1) << "one group commit for all six";
  EXPECT_EQ(writer->writes(), kWriters);
  auto jobs = journal->jobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), static_cast<std::size_t>(kWriters))
      << "w3's first add stands: a write is not undone by a later refusal in it";
}

TEST_F(JournalWriterTest, AWriteAloneIsItsOwnCommit) {
  auto s = std::async(std::launch::async, [this] {
    return writer->write([](journal::Journal& j) -> Status {
      auto added = j.add_job(job("solo"));
      return added.ok() ? Status{} : Status(added.error());
    });
  });
  ASSERT_TRUE(s.get().ok());
  EXPECT_EQ(writer->commits(), 1);
  EXPECT_EQ(writer->writes(), 1);
}

TEST_F(JournalWriterTest, AChangeOfSeveralWritesWaitingAloneIsOneCommit) {
  tpslurm::testing::FaultVfs& vfs = tpslurm::testing::FaultVfs::install();
  vfs.watch(dir.file("journal.db"));
  vfs.reset();
  auto s = std::async(std::launch::async, [this] {
    return writer->write([](journal::Journal& j) -> Status {
      for (const char* id : {"a", "b", "c"}) {
        if (auto added = j.add_job(job(id)); !added.ok()) return added.error();
      }
      return {};
    });
  });
  ASSERT_TRUE(s.get().ok());
  EXPECT_EQ(writer->commits(), 1);
  EXPECT_EQ(vfs.syncs(), 1) << "SQLite's view: one transaction wrote the three (a savepoint each)";
  vfs.watch("");
  auto jobs = journal->jobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), 3U);
}

TEST_F(JournalWriterTest, WritesWithinTheGatherTimeOfTheFirstShareItsCommitThoughTheWriterIsIdle) {
  JournalWriter gathering(*journal, io.get_executor(), nullptr, std::chrono::milliseconds(500));
  const auto add = [&gathering](const std::string& id) {
    return gathering.write([id](journal::Journal& j) -> Status {
      auto added = j.add_job(job(id));
      return added.ok() ? Status{} : Status(added.error());
    });
  };
  auto first = std::async(std::launch::async, [&] { return add("first"); });
  ASSERT_TRUE(tpslurm::testing::eventually([&] { return gathering.queued() == 1; }));
  auto second = std::async(std::launch::async, [&] { return add("second"); });
  ASSERT_TRUE(first.get().ok());
  ASSERT_TRUE(second.get().ok());
  EXPECT_EQ(gathering.commits(), 1) << "the second came within the first's 500 ms";
  EXPECT_EQ(gathering.writes(), 2);
}

TEST_F(JournalWriterTest, AWriteThatAsksForItsCommitNowTakesTheGatheredOnesWithIt) {
  // An hour's gather: only the write that asks `now` can end it within the test.
  JournalWriter gathering(*journal, io.get_executor(), nullptr, std::chrono::hours(1));
  const auto add = [&gathering](const std::string& id, JournalWriter::Urgency urgency) {
    return gathering.write(
        [id](journal::Journal& j) -> Status {
          auto added = j.add_job(job(id));
          return added.ok() ? Status{} : Status(added.error());
        },
        urgency);
  };
  auto gathered = std::async(std::launch::async, [&] { return add("gathered", JournalWriter::Urgency::gather); });
  ASSERT_TRUE(tpslurm::testing::eventually([&] { return gathering.queued() == 1; }));
  auto now = std::async(std::launch::async, [&] { return add("now", JournalWriter::Urgency::now); });
  ASSERT_EQ(now.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "the `now` write waited";
  ASSERT_EQ(gathered.wait_for(std::chrono::seconds(20)), std::future_status::ready)
      << "the gathered write was left for the hour";
  EXPECT_TRUE(now.get().ok());
  EXPECT_TRUE(gathered.get().ok());
  EXPECT_EQ(gathering.commits(), 1);
  io.stop();  // the hour's timer: never fired
}

TEST_F(JournalWriterTest, CloseCommitsWhatWaitsAndLaterWritesRunOnTheirCallersThread) {
  // The writer thread's loop ends with a write waiting: its drain never runs there.
  std::promise<void> release;
  boost::asio::post(io, [this, gate = release.get_future().share()] {
    gate.wait();
    io.stop();
  });
  auto waiting = std::async(std::launch::async, [this] {
    return writer->write([](journal::Journal& j) -> Status {
      auto added = j.add_job(job("waiting"));
      return added.ok() ? Status{} : Status(added.error());
    });
  });
  ASSERT_TRUE(tpslurm::testing::eventually([&] { return writer->queued() == 1; }));
  release.set_value();
  work.reset();
  loop.join();
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout)
      << "nothing serves the write before close()";
  writer->close();
  ASSERT_TRUE(waiting.get().ok());
  std::thread::id ran_on;
  const Status later = writer->write([&ran_on](journal::Journal& j) -> Status {
    ran_on = std::this_thread::get_id();
    auto added = j.add_job(job("later"));
    return added.ok() ? Status{} : Status(added.error());
  });
  ASSERT_TRUE(later.ok()) << later.error().message();
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(writer->commits(), 2);
  auto jobs = journal->jobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), 2U);
  loop = std::thread([] {});  // TearDown joins it
}

}  // namespace
}  // namespace tpslurm::reconcile
