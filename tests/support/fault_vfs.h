// FaultVfs: a SQLite VFS for tests that wraps the default one and fails chosen I/O calls, the
// way SQLite's own I/O-error tests do (test_vfs.c, "ioerr" loops).
//
// install() registers it once per process as SQLite's default VFS, so every database opened
// afterwards (Journal::open included, with no option) goes through it. Only files whose name
// starts with the watched prefix (checked at each call) are counted (the journal, its -wal
// and -journal files);
// every other file passes straight through. Counted calls are xRead, xWrite, xSync and
// xTruncate, numbered from 1 since the last reset(). An armed plan fails the call numbered
// `at` (FaultMode::once), or that one and every later one (FaultMode::always) until clear():
// reads with SQLITE_IOERR_READ, writes with SQLITE_IOERR_WRITE or SQLITE_FULL, syncs with
// SQLITE_IOERR_FSYNC, truncates with SQLITE_IOERR_TRUNCATE. A failed call does nothing.
//
// Thread-safe: SQLite may call it from any thread; the plan and counters sit behind a mutex.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

namespace tpslurm::testing {

enum class FaultMode { once, always };
enum class WriteFault { io_error, disk_full };

struct FaultPlan {
  std::int64_t at = 0;  // the counted call that fails first (1-based); 0: nothing fails
  FaultMode mode = FaultMode::once;
  WriteFault write = WriteFault::io_error;
};

class FaultVfs {
 public:
  // Registers the VFS as the default on the first call; later calls return the same object.
  static FaultVfs& install();

  // Counts (and fails) only files whose path starts with `prefix`; empty: none.
  void watch(const std::string& prefix);
  void arm(const FaultPlan& plan);
  // Disarms; counters stay.
  void clear();
  // Sets the call counter and the failure count back to zero (the plan's `at` counts from here).
  void reset();

  std::int64_t calls() const;
  std::int64_t failures() const;
  // The counted calls that were syncs (each commit of a WAL journal with synchronous=FULL syncs
  // once, so fewer syncs than writes shows writes sharing commits).
  std::int64_t syncs() const;

  // For the VFS's callbacks: whether `path` is watched, and the result the next counted call
  // of a file gets (SQLITE_OK: go on to the real file). `kind` is the call's SQLite error code
  // for a failure (SQLITE_IOERR_READ, ...; a write passes SQLITE_IOERR_WRITE).
  bool watches(const char* path) const;
  int next_call(int failure_code);

 private:
  FaultVfs() = default;

  mutable std::mutex m_mutex;
  std::string m_prefix;
  FaultPlan m_plan;
  std::int64_t m_calls = 0;
  std::int64_t m_failures = 0;
  std::int64_t m_syncs = 0;
};

}  // namespace tpslurm::testing
