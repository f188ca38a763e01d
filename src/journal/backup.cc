#include "journal/backup.h"

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/Database.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_system.h"
#include "journal/sqlite_error.h"

namespace tpslurm::journal {

Status copy_database(SQLite::Database& source, const std::string& source_path, const std::string& target) {
  struct stat info {};
  if (::stat(target.c_str(), &info) == 0) {
    return invalid_argument(target + " already exists; a backup never overwrites a file");
  }
  const std::string temp = target + ".partial";
  // Created empty (an empty file is an empty database to SQLite) with its mode set: SQLite
  // would create it with 0644 less the umask. A .partial left by an interrupted copy goes.
  ::unlink(temp.c_str());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return system_error("create", temp, errno);
  ::close(fd);
  try {
    {
      SQLite::Database copy(temp, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
      SQLite::Backup backup(copy, source);
      backup.executeStep(-1);
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) return system_error("rename to", target, errno);
    return ok_status();
  } catch (const SQLite::Exception& e) {
    ::unlink(temp.c_str());
    return sqlite_error(e, source_path, "back up to " + target);
  }
}

Status backup_journal_file(const std::string& path, const std::string& target) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return system_error("find the journal", path, errno);
  try {
    // Read and write, never create: a journal in WAL mode is read through its -shm file,
    // which a read-only connection could not make. Nothing is written.
    SQLite::Database source(path, SQLite::OPEN_READWRITE);
    source.setBusyTimeout(5000);
    return copy_database(source, path, target);
  } catch (const SQLite::Exception& e) {
    return sqlite_error(e, path, "open for a backup");
  }
}

}  // namespace tpslurm::journal
