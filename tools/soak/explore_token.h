// TokenFile: the daemon's Slurm token as a file (TUNEPLANE_SLURM_JWT_FILE, which serve re-reads
// when the file changes), kept by the explorer. good() writes a token for `user` signed with the
// simulator's key; bad() one of the same shape signed with a key the simulator does not know (so
// every call it carries is refused as slurmctld refuses a bad token). Each write goes to a
// temporary file renamed over the token file (mode 0600), so serve never reads half a token.
// Tokens live a day. Not thread-safe.
#pragma once

#include <string>

#include "base/result.h"

namespace tpslurm::soak {

class TokenFile {
 public:
  TokenFile(std::string path, std::string key_file, std::string user = "root")
      : m_path(std::move(path)), m_key_file(std::move(key_file)), m_user(std::move(user)) {}

  Status good();
  Status bad();
  const std::string& path() const { return m_path; }

 private:
  Status write(const std::string& key);
  std::string m_path;
  std::string m_key_file;
  std::string m_user;
};

}  // namespace tpslurm::soak
