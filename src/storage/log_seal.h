// Sealing an attempt's logs/ at the end of its cleanup (docs/architecture.md §5): each regular
// file in it hashed (SHA-256) and made read-only, then logs/ itself made read-only, which stops
// new files. The hashes go to the journal, so a log changed later can be told.
//
// The job wrote logs/, so everything goes through attempt_tree.h: logs/ and each file are
// opened beneath the attempt directory without following a link, each file is hashed and
// chmod-ed through a descriptor it was opened with, and only regular files are. Anything else
// (a symbolic link, a FIFO, a socket, a device, a directory) is neither opened for reading,
// hashed nor chmod-ed: it gets a note ("evil: a symbolic link, not sealed"); so does logs/ when
// it is not a directory ("logs: a symbolic link, not sealed"), and a file the service account
// cannot chmod because the job user owns it ("batch.out: owned by the job user, mode kept"). A
// missing logs/ seals nothing and is no error. Names are shown through printable()
// (base/printable.h), in `files` and in the notes alike.
//
// The job also decides how much there is to seal, so the work is bounded, by fixed limits
// (SealLimits; docs/reliability.md says what the seal proves where they cut it):
//   - per file, at most 16 MiB are hashed: a larger file gets the SHA-256 of its first 8 MiB
//     followed by its last 8 MiB, with its size (`edge_bytes` set, and a note);
//   - per attempt, at most 1 GiB is hashed: a file that would go past it is not hashed at all
//     (a note);
//   - per attempt, at most 1,000 entries of logs/ are read: the rest are not read, not sealed,
//     and one note says so;
//   - a file that changes while it is hashed (its size, times or inode differ from when its
//     hash began) is not sealed and gets a note; it is not hashed again, so a file something
//     keeps writing cannot keep the seal going.
// And the work is done a slice at a time (work_slice.h): LogSealer::seal_some() returns when
// its slice is spent, keeping where it was (the listing, the file it was hashing and the hash
// so far), and the next call goes on from there; a file hashed across calls is opened again by
// name and must still be the same file. A sealer lives in memory only: after a restart the
// seal begins again, within the same bounds.
//
// Errors: a log that cannot be opened, read or stat-ed for another reason than the job's doing
// (a system error): the seal is tried again later. One sealer per attempt, used by one thread
// at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "storage/work_slice.h"

namespace tpslurm::storage {

// The daemon seals with the defaults; tests pass smaller ones.
struct SealLimits {
  std::uint64_t file_bytes = std::uint64_t{16} << 20;  // a larger file: its first and last half of this
  std::uint64_t attempt_bytes = std::uint64_t{1} << 30;
  std::size_t entries = 1000;
};

struct SealedLog {
  std::string name;  // in logs/, through printable()
  std::string sha256;
  std::uint64_t size = 0;
  std::uint64_t edge_bytes = 0;  // 0: hashed whole; else the hash is of its first, then its last, this many bytes

  bool whole() const { return edge_bytes == 0; }
};

struct LogSeal {
  std::vector<SealedLog> files;  // by name
  std::vector<std::string> notes;
};

class LogSealer {
 public:
  explicit LogSealer(std::string attempt_dir, SealLimits limits = {});
  ~LogSealer();
  LogSealer(LogSealer&&) noexcept;
  LogSealer& operator=(LogSealer&&) noexcept;

  // Seals on until the seal is complete (true: seal() holds it) or `slice` is spent (false:
  // call again with a new slice).
  Result<bool> seal_some(WorkSlice& slice);
  const LogSeal& seal() const;

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

// The whole seal in one call, without a slice's limits (the seal's own still hold).
Result<LogSeal> seal_logs(const std::string& attempt_dir, SealLimits limits = {});

}  // namespace tpslurm::storage
