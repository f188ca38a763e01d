#include "api/user_map_file.h"

#include "base/operator_file.h"
#include "config/logging.h"
#include "storage/artifact_hash.h"
#include "storage/unix_user.h"

namespace tpslurm::api {
namespace {

constexpr std::chrono::seconds kLookEvery{1};

}  // namespace

UserMapFile::UserMapFile(std::string path, std::shared_ptr<const model::JudgedUserMap> loaded, long first_user_id,
                         uid_t service_uid, const Clock& clock)
    : m_path(std::move(path)),
      m_first_user_id(first_user_id),
      m_service_uid(service_uid),
      m_clock(clock),
      m_current(std::move(loaded)),
      m_next_look(clock.steady() + kLookEvery) {}

std::shared_ptr<const model::JudgedUserMap> UserMapFile::current() {
  {
    std::lock_guard lock(m_mutex);
    if (m_looking || m_clock.steady() < m_next_look) return m_current;
    m_next_look = m_clock.steady() + kLookEvery;
    m_looking = true;
  }
  // One caller looks, outside the lock: judging the users asks NSS (perhaps LDAP) about each,
  // and the requests meanwhile go on with the map in force.
  auto loaded = look();
  std::lock_guard lock(m_mutex);
  m_looking = false;
  if (loaded) m_current = std::move(loaded);
  return m_current;
}

std::shared_ptr<const model::JudgedUserMap> UserMapFile::look() {
  const std::string keeps = "; the user map read before stays in force";
  auto identity = storage::file_identity(m_path);
  if (!identity.ok()) {
    if (!m_missing_reported) {
      config::log_error({}, "TUNEPLANE_USER_MAP_FILE: " + identity.error().message() + keeps);
    }
    m_missing_reported = true;
    m_seen.reset();
    return nullptr;
  }
  m_missing_reported = false;
  if (m_seen == *identity) return nullptr;
  m_seen = *identity;
  auto text = read_operator_file(m_path, m_service_uid);
  if (!text.ok()) {
    config::log_error({}, "TUNEPLANE_USER_MAP_FILE: " + text.error().message() + keeps);
    return nullptr;
  }
  auto parsed = model::UserMap::parse(*text, m_path);
  if (!parsed.ok()) {
    std::string problems;
    for (const auto& problem : parsed.error().list()) {
      problems += (problems.empty() ? "" : "; ") + problem.to_string();
    }
    config::log_error({}, "TUNEPLANE_USER_MAP_FILE: the changed map is refused (" + problems + ")" + keeps);
    return nullptr;
  }
  auto judged = storage::judge_users(std::move(*parsed), m_first_user_id, m_service_uid);
  config::log_info({}, "TUNEPLANE_USER_MAP_FILE: read again, " + std::to_string(judged->map.all().size()) +
                           " user(s), " + std::to_string(judged->refused.size()) + " refused");
  return judged;
}

}  // namespace tpslurm::api
