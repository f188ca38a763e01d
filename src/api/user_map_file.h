// UserMapFile: the user map (per-user mode, TUNEPLANE_USER_MAP_FILE) as the platform API judges
// requests by it, read again when it changes, as the tokens file is. current() looks at the
// file's identity (one stat(2)) at most once a second; a version not seen before is read, parsed
// and its users judged (storage::judge_users) once. A version that does not load — gone,
// unreadable, or with a problem — leaves the last good map in force and is logged once, with
// every problem and its fix; so does one the operator's rule refuses (base/operator_file.h: a
// file others may write, or of another user). The users are judged outside the lock, by the one
// caller that looks; the others go on with the map in force. A job already accepted keeps the Unix user and account it was
// given (journaled), whatever the map says later. Thread-safe.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "model/hash_cache.h"
#include "model/user_map.h"

namespace tpslurm::api {

class UserMapFile {
 public:
  // `loaded`: the map as read at start (cli::load_catalogs); the first look reads the file again.
  UserMapFile(std::string path, std::shared_ptr<const model::JudgedUserMap> loaded, long first_user_id,
              uid_t service_uid, const Clock& clock);

  std::shared_ptr<const model::JudgedUserMap> current();

 private:
  // A map newly loaded from the file, or nullptr (nothing new, or a version that does not load).
  // Called by one caller at a time (m_looking), without the mutex: m_seen and
  // m_missing_reported are the looker's alone.
  std::shared_ptr<const model::JudgedUserMap> look();

  std::string m_path;
  long m_first_user_id;
  uid_t m_service_uid;
  const Clock& m_clock;
  std::mutex m_mutex;
  std::shared_ptr<const model::JudgedUserMap> m_current;
  bool m_looking = false;                     // a caller is in look()
  std::optional<model::FileIdentity> m_seen;  // the version last looked at, loaded or not
  bool m_missing_reported = false;            // the file was gone at the last look, and said so
  SteadyPoint m_next_look{};
};

}  // namespace tpslurm::api
