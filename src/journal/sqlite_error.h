// SQLite failures as Errors that tell the operator what is wrong with the journal file.
// Internal to journal/.
#pragma once

#include <SQLiteCpp/Exception.h>

#include <string>
#include <string_view>

#include "base/error.h"

namespace tpslurm::journal {

// Busy/locked -> transient, read-only -> invalid_argument, corrupt/not a database -> corrupt,
// disk full / I/O -> transient, anything else -> permanent; the message names `path`.
Error sqlite_error(const SQLite::Exception& e, const std::string& path, std::string_view doing);

}  // namespace tpslurm::journal
