#include "base/secret_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "base/file_system.h"

namespace tpslurm {

SecretFileCheck check_secret_file(const std::string& path, uid_t reader_uid, Readers readers) {
  SecretFileCheck check;
  if (path.empty() || path.front() != '/') {
    check.refusal = "expected an absolute path to a file";
    return check;
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    check.refusal = std::string("cannot be read: ") + std::strerror(errno);
    return check;
  }
  if (!S_ISREG(info.st_mode)) {
    check.refusal = "expected a regular file";
    return check;
  }
  const std::string mode = mode_text(info.st_mode);
  if (info.st_uid != reader_uid) {
    check.refusal = "is owned by uid " + std::to_string(info.st_uid) + ", not by this process's user (uid " +
                    std::to_string(reader_uid) + "); a secret must belong to the user that reads it: chown it";
  } else if ((info.st_mode & 022) != 0) {
    check.refusal = std::string("is writable by group or others (mode ") + mode + "); run: chmod 600 " + path;
  } else if ((info.st_mode & 044) != 0 && readers == Readers::owner_only) {
    check.refusal = std::string("is readable by group or others (mode ") + mode +
                    "): it signs Slurm tokens for any user; run: chmod 400 " + path;
  } else if ((info.st_mode & 044) != 0) {
    check.warning = path + " is readable by group or others (mode " + mode +
                    "); chmod 600 it unless it is a mounted read-only secret";
  }
  return check;
}

}  // namespace tpslurm
