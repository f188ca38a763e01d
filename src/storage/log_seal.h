// Sealing an attempt's logs/ at the end of its cleanup (docs/architecture.md §5): each regular
// file in it hashed (SHA-256) and made read-only, then logs/ itself made read-only, which stops
// new files. The hashes go to the journal, so a log changed later can be told.
//
// The job wrote logs/, so everything goes through attempt_tree.h: logs/ and each file are
// opened beneath the attempt directory without following a link, each file is hashed and
// chmod-ed through the one descriptor it was opened with, and only regular files are. Anything
// else (a symbolic link, a FIFO, a socket, a device, a directory) is neither opened for
// reading, hashed nor chmod-ed: it gets a note ("evil: a symbolic link, not sealed"); so does
// logs/ when it is not a directory ("logs: a symbolic link, not sealed"), and a file the service
// account cannot chmod because the job user owns it ("batch.out: owned by the job user, mode
// kept"). A missing logs/ seals nothing and is no error.
//
// Errors: a log that cannot be read or hashed (e.g. transient when it changes while it is
// hashed): the seal is tried again later. Thread-safe; one seal of an attempt at a time.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace tpslurm::storage {

struct SealedLog {
  std::string name;  // in logs/
  std::string sha256;
};

struct LogSeal {
  std::vector<SealedLog> files;  // by name
  std::vector<std::string> notes;
};

Result<LogSeal> seal_logs(const std::string& attempt_dir);

}  // namespace tpslurm::storage
