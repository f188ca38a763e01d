// A job that turns its attempt directory against the daemon. What it leaves in logs/ and
// scratch/ is data, never a cost without bound: a FIFO as logs/exit.json, a sparse log of a TiB,
// thousands of entries, a tree hundreds of directories deep, links out of the tree, a log that
// keeps growing, names of any bytes — none may stop the daemon from following its jobs, hold
// its pass threads, keep it from stopping, reach outside the tree, or break the journal's JSON.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <optional>
#include <thread>

#include "base/unique_fd.h"
#include "operations/record_json.h"
#include "reconcile_fixture.h"
#include "support/eventually.h"
#include "support/planted_files.h"
#include "support/temp_dir.h"

namespace tpslurm::reconcile::testing {
namespace {

using namespace std::chrono_literals;
using tpslurm::testing::eventually;
using tpslurm::testing::make_chain;
using tpslurm::testing::make_empty_files;
using tpslurm::testing::make_sparse;
using tpslurm::testing::read_test_file;
using tpslurm::testing::write_test_file;
using model::AttemptState;
using model::CleanupStep;

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

class HostileJobTest : public ReconcileTest {
 protected:
  // The job's first attempt once the daemon journaled it (attempt() fails the test before).
  std::optional<journal::AttemptRecord> first_attempt(const std::string& job_id) {
    auto attempts = journal().attempts(job_id);
    if (!attempts.ok() || attempts->empty()) return std::nullopt;
    return attempts->front();
  }

  // Whether the running daemon released each of `jobs` within a minute.
  bool daemon_released(const std::vector<std::string>& jobs) {
    return eventually([&] {
      for (const auto& id : jobs) {
        const auto a = first_attempt(id);
        if (!a || a->released_at.empty()) return false;
      }
      return true;
    }, 60s);
  }

  // In once mode: the job journaled and run until Slurm released it; returns its directory.
  std::string released(const std::string& job_id) {
    add_job(job_id, Shape::cpu_only);
    once();
    EXPECT_FALSE(attempt(job_id).released_at.empty());
    return attempt(job_id).attempt_dir;
  }

  // In once mode: Slurm ends the job and the daemon takes its cleanup as far as it goes.
  void run_to_the_end(const std::string& job_id) {
    for (int i = 0; i < 4 && attempt(job_id).cleanup != CleanupStep::closed; ++i) {
      advance_slurm(job_id);
      once();
    }
  }

  // The detail (JSON) of the attempt's cleanup event into `to`; empty when none.
  std::string cleanup_detail(const std::string& job_id, CleanupStep to) {
    auto timeline = journal().timeline(job_id);
    if (!timeline.ok()) return "";
    for (const auto& e : *timeline) {
      if (e.kind == "cleanup" && e.to_state == model::to_string(to)) return e.detail;
    }
    return "";
  }

  // The attempt's journaled seal, parsed (strictly: the text must be valid UTF-8 JSON).
  boost::json::object seal_of(const std::string& job_id) {
    boost::system::error_code error;
    boost::json::value seal = boost::json::parse(attempt(job_id).logs_sha256, error);
    EXPECT_FALSE(error) << "logs_sha256 is not valid JSON: " << error.message();
    return error || !seal.is_object() ? boost::json::object() : seal.as_object();
  }

  // Stops the daemon; a stop that does not come within 30 s fails the run (a pass that never
  // ends keeps the fixture from stopping the daemon too).
  void stop_or_fail(const char* what) {
    auto stopping = std::async(std::launch::async, [this] { return stop_daemon(); });
    if (stopping.wait_for(30s) != std::future_status::ready) {
      std::fprintf(stderr, "FAILED: the daemon did not stop within 30 s of its stop request (%s)\n", what);
      std::fflush(stderr);
      std::_Exit(1);
    }
  }
};

bool has_note(const boost::json::object& seal, std::string_view note) {
  const auto* notes = seal.if_contains("notes");
  if (notes == nullptr || !notes->is_array()) return false;
  for (const auto& n : notes->as_array()) {
    if (n.is_string() && n.as_string() == note) return true;
  }
  return false;
}

TEST_F(HostileJobTest, AFifoAsExitJsonNeitherStopsTheFollowNorTheDaemon) {
  settings.poll_interval = 1s;
  start();
  add_job("j1", Shape::cpu_only);
  start_daemon();
  ASSERT_TRUE(daemon_released({"j1"})) << "never released";
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

  stop_or_fail("a pass blocked on the FIFO");
}

// Size: a sparse log of a TiB costs the job no disk; hashed whole it held a pass thread for
// many minutes and SIGTERM waited for it. Its seal hashes its first and last 8 MiB with its
// size, says so, and a stop request is answered while the cleanup is at work.
TEST_F(HostileJobTest, ASparseTebibyteLogIsHashedInPartAndAStopIsAnsweredMeanwhile) {
  settings.poll_interval = 1s;
  start();
  add_job("j1", Shape::cpu_only);
  start_daemon();
  ASSERT_TRUE(daemon_released({"j1"})) << "never released";
  const std::string at = attempt("j1").attempt_dir;
  make_sparse(at + "/logs/huge.log", 1024 * kGiB);
  write_test_file(at + "/logs/batch.out", "done\n");
  ASSERT_TRUE(eventually([&] {
    advance_slurm("j1");
    const CleanupStep step = attempt("j1").cleanup;
    return step == CleanupStep::sealing || step == CleanupStep::closed;
  }, 30s)) << "the cleanup never reached its seal";
  stop_or_fail("while the cleanup sealed a log of a TiB");

  for (int i = 0; i < 3 && attempt("j1").cleanup != CleanupStep::closed; ++i) once();
  ASSERT_EQ(attempt("j1").cleanup, CleanupStep::closed);
  const boost::json::object seal = seal_of("j1");
  ASSERT_TRUE(seal.contains("partly")) << attempt("j1").logs_sha256;
  const boost::json::object& huge = seal.at("partly").at("huge.log").as_object();
  EXPECT_EQ(huge.at("size").to_number<std::uint64_t>(), 1024 * kGiB);
  EXPECT_EQ(huge.at("first").to_number<std::uint64_t>(), std::uint64_t{8} << 20);
  EXPECT_EQ(huge.at("last").to_number<std::uint64_t>(), std::uint64_t{8} << 20);
  EXPECT_EQ(huge.at("sha256").as_string().size(), 64u);
  EXPECT_FALSE(seal.at("files").as_object().contains("huge.log")) << "a partial hash is not the file's hash";
  EXPECT_TRUE(seal.at("files").as_object().contains("batch.out"));
  EXPECT_TRUE(has_note(seal, "huge.log: hashed in part, its first and last 8 MiB of 1099511627776 bytes"))
      << attempt("j1").logs_sha256;
}

// Count: thousands of entries in logs/ and scratch/. The seal reads the first 1,000 and says
// so; the removal of scratch/ goes a slice (10,000 entries) at a time, and its event says how
// many slices it took.
TEST_F(HostileJobTest, ThousandsOfEntriesAreSealedAndRemovedWithinBounds) {
  start();
  const std::string at = released("j1");
  make_empty_files(at + "/logs", 3000);
  make_empty_files(at + "/scratch", 25000);
  run_to_the_end("j1");
  ASSERT_EQ(attempt("j1").cleanup, CleanupStep::closed);
  EXPECT_FALSE(std::filesystem::exists(at + "/scratch"));
  const boost::json::object seal = seal_of("j1");
  EXPECT_EQ(seal.at("files").as_object().size(), 1000u);
  EXPECT_TRUE(has_note(seal, "logs: more than 1000 entries; only 1000 were read, the others are not sealed"));
  // 10,000 entries a slice at most (fewer when a slice's time ran out first).
  const std::string removal = cleanup_detail("j1", CleanupStep::sealing);
  boost::system::error_code error;
  const boost::json::value detail = boost::json::parse(removal, error);
  ASSERT_FALSE(error) << removal;
  ASSERT_TRUE(detail.as_object().contains("slices")) << removal;
  EXPECT_GE(std::stoi(std::string(detail.at("slices").as_string())), 3) << removal;
  EXPECT_GE(std::stoi(std::string(detail.at("entries_removed").as_string())), 25001) << removal;
}

// Names of any bytes: control characters, DEL, invalid UTF-8, quotes, backslashes and
// newlines reach the journal escaped, so its JSON, and the API's view of the attempt, stay
// valid UTF-8 JSON with one line per note.
TEST_F(HostileJobTest, FileNamesOfAnyBytesReachTheJournalEscaped) {
  start();
  const std::string at = released("j1");
  std::vector<std::string> names;
  for (int c = 1; c < 0x20; ++c) names.push_back("c" + std::string(1, static_cast<char>(c)) + "x");
  for (const char* odd : {"del\x7f", "bad\xff", "cut\xc3\x28", "quote\"", "back\\slash", "new\nline\r\n"}) {
    names.emplace_back(odd);
  }
  for (const auto& name : names) write_test_file(at + "/logs/" + name, "x\n");
  ASSERT_EQ(::symlink("/etc/passwd", (at + "/logs/link\n\xfe").c_str()), 0);
  for (const auto& name : names) write_test_file(at + "/scratch/" + name, "x\n");
  run_to_the_end("j1");
  ASSERT_EQ(attempt("j1").cleanup, CleanupStep::closed);

  const boost::json::object seal = seal_of("j1");
  const boost::json::object files = seal.at("files").as_object();
  EXPECT_EQ(files.size(), names.size());
  for (const char* shown : {"c\\x01x", "c\\x0ax", "c\\x1fx", "del\\x7f", "bad\\xff", "cut\\xc3(", "quote\\\"",
                            "back\\\\slash", "new\\x0aline\\x0d\\x0a"}) {
    EXPECT_TRUE(files.contains(shown)) << shown << " in " << attempt("j1").logs_sha256;
  }
  EXPECT_TRUE(has_note(seal, "link\\x0a\\xfe: a symbolic link, not sealed")) << attempt("j1").logs_sha256;
  for (const auto& note : seal.at("notes").as_array()) {
    for (const char c : std::string(note.as_string())) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << note;
  }
  boost::system::error_code error;
  (void)boost::json::parse(boost::json::serialize(operations::to_json(attempt("j1"))), error);
  EXPECT_FALSE(error) << "the API's view of the attempt is not valid JSON";
  // A seal journaled before names were escaped, with one that is not UTF-8.
  journal::AttemptRecord old_seal = attempt("j1");
  old_seal.logs_sha256 = "{\"files\":{\"bad\xff\":\"00\"},\"notes\":[]}";
  (void)boost::json::parse(boost::json::serialize(operations::to_json(old_seal)), error);
  EXPECT_FALSE(error) << "the API's view of an old seal is not valid JSON";
}

// Depth: a chain of 600 directories in scratch/ (deeper than the 256 the removal once refused,
// leaving the attempt holding its resources until an operator came) is removed.
TEST_F(HostileJobTest, ADeepTreeIsRemoved) {
  start();
  const std::string at = released("j1");
  UniqueFd deepest(make_chain(at + "/scratch", 600));
  ASSERT_GE(deepest.get(), 0);
  ASSERT_EQ(::close(::openat(deepest.get(), "leaf", O_WRONLY | O_CREAT | O_CLOEXEC, 0660)), 0);
  run_to_the_end("j1");
  EXPECT_EQ(attempt("j1").cleanup, CleanupStep::closed) << "the removal stopped at the tree's depth";
  EXPECT_FALSE(std::filesystem::exists(at + "/scratch"));
  EXPECT_EQ(count_events("j1", "cleanup.blocked"), 0);
}

// Links out of the tree, at the top of scratch/ and 300 directories down (where the removal
// moves subtrees up): each link is removed, nothing it points to is touched.
TEST_F(HostileJobTest, LinksOutOfATreeAreRemovedAndNotFollowed) {
  start();
  const std::string at = released("j1");
  const std::string outside = dir.file("outside");
  write_test_file(outside + "/kept", "kept\n");
  write_test_file(outside + "/sub/deeper", "kept too\n");
  ASSERT_EQ(::symlink(outside.c_str(), (at + "/scratch/top-link").c_str()), 0);
  UniqueFd deepest(make_chain(at + "/scratch", 300));
  ASSERT_GE(deepest.get(), 0);
  ASSERT_EQ(::symlinkat(outside.c_str(), deepest.get(), "deep-link"), 0);
  ASSERT_EQ(::symlinkat((outside + "/kept").c_str(), deepest.get(), "file-link"), 0);
  run_to_the_end("j1");
  EXPECT_EQ(attempt("j1").cleanup, CleanupStep::closed);
  EXPECT_FALSE(std::filesystem::exists(at + "/scratch"));
  EXPECT_EQ(read_test_file(outside + "/kept"), "kept\n");
  EXPECT_EQ(read_test_file(outside + "/sub/deeper"), "kept too\n");
}

// A log something keeps writing: hashed whole it changed under every try, and the seal was
// tried again, spaced, for ever. Now it is noted (or sealed, had it held still) and the
// cleanup closes.
TEST_F(HostileJobTest, ALogThatKeepsGrowingDoesNotKeepTheSealGoing) {
  start();
  const std::string at = released("j1");
  const std::string path = at + "/logs/growing.log";
  make_sparse(path, std::uint64_t{32} << 20);
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    const std::string line(4096, 'x');
    while (writing && fd.get() >= 0) {
      (void)!::write(fd.get(), line.data(), line.size());
      std::this_thread::sleep_for(200us);
    }
  });
  run_to_the_end("j1");
  for (int i = 0; i < 6 && attempt("j1").cleanup != CleanupStep::closed; ++i) {
    pass_local_time(10min);  // a spaced retry is due
    once();
  }
  writing = false;
  writer.join();
  ASSERT_EQ(attempt("j1").cleanup, CleanupStep::closed) << "the seal kept failing on the growing log";
  const boost::json::object seal = seal_of("j1");
  const bool sealed = seal.at("files").as_object().contains("growing.log") ||
                      (seal.contains("partly") && seal.at("partly").as_object().contains("growing.log"));
  EXPECT_TRUE(sealed || has_note(seal, "growing.log: changed while it was hashed, not sealed"))
      << attempt("j1").logs_sha256;
}

// Starvation: attempts whose logs cost a whole seal many seconds each once held a pass thread
// for all of it, and as many of them as threads stopped the daemon for every other job (and
// its SIGTERM). With two pass threads and eight such attempts sealing, a new job is submitted
// and released, and a stop request ends their seals at a slice, not at their end.
TEST_F(HostileJobTest, AttemptsWithHugeLogsDoNotHoldEveryPassThread) {
  settings.poll_interval = 1s;
  start();
  const std::vector<std::string> hostile{"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"};
  for (const auto& id : hostile) add_job(id, Shape::cpu_only);
  start_daemon({}, 2);
  ASSERT_TRUE(daemon_released(hostile)) << "the hostile jobs were never released";
  // 80 files of 1 GiB: the seal hashes 16 MiB of each, up to its 1 GiB for the attempt.
  for (const auto& id : hostile) {
    for (int n = 0; n < 80; ++n) make_sparse(attempt(id).attempt_dir + "/logs/big" + std::to_string(n), kGiB);
  }
  for (int i = 0; i < 3; ++i) {
    for (const auto& id : hostile) advance_slurm(id);
  }
  ASSERT_TRUE(eventually([&] {
    for (const auto& id : hostile) {
      if (attempt(id).cleanup == CleanupStep::sealing) return true;
    }
    return false;
  }, 30s)) << "no hostile attempt reached its seal";

  add_job_through_daemon("normal", Shape::cpu_only);
  EXPECT_TRUE(daemon_released({"normal"})) << "the hostile seals held every pass thread";
  stop_or_fail("while hostile attempts were sealing");
  int unsealed = 0;
  for (const auto& id : hostile) unsealed += attempt(id).cleanup != CleanupStep::closed ? 1 : 0;
  EXPECT_GT(unsealed, 0) << "every hostile seal was over before the new job was released: nothing was shown";
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
