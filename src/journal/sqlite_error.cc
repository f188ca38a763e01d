#include "journal/sqlite_error.h"

#include <sqlite3.h>

#include "journal/journal.h"

namespace tpslurm::journal {

bool is_unwritable(const Error& error) { return error.message().starts_with(kJournalUnwritable); }

Error sqlite_error(const SQLite::Exception& e, const std::string& path, std::string_view doing) {
  const std::string what = "journal " + path + ": " + std::string(doing) + ": " + e.what();
  switch (e.getErrorCode() & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return transient(what + " (another process holds the journal locked; it is retried after 5 s of waiting)");
    case SQLITE_READONLY:
      return invalid_argument(std::string(kJournalUnwritable) + ": " + what +
                              " (the file or its directory is read-only; fix the permissions or use "
                              "TUNEPLANE_JOURNAL to point elsewhere)");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return corrupt(what +
                     " (the file is damaged or not a tuneplane-slurm journal; it was not modified: run "
                     "`tuneplane-slurm journal check` and restore a backup)");
    case SQLITE_FULL:
    case SQLITE_IOERR: return transient(std::string(kJournalUnwritable) + ": " + what);
    default: return permanent(what);
  }
}

}  // namespace tpslurm::journal
