#include "api/user_map_file.h"

#include "base/file_system.h"
#include "config/logging.h"
#include "storage/artifact_hash.h"
#include "storage/unix_user.h"

namespace tpslurm::api {
namespace {

constexpr std::chrono::seconds kLookEvery{1};
constexpr std::size_t kMaxMapBytes = 4 << 20;  // as the catalogs (cli/inputs.cc)

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
  std::lock_guard lock(m_mutex);
  if (m_clock.steady() >= m_next_look) {
    m_next_look = m_clock.steady() + kLookEvery;
    look();
  }
  return m_current;
}

void UserMapFile::look() {
  const std::string keeps = "; the user map read before stays in force";
  auto identity = storage::file_identity(m_path);
  if (!identity.ok()) {
    if (!m_missing_reported) {
      config::log_error({}, "TUNEPLANE_USER_MAP_FILE: " + identity.error().message() + keeps);
    }
    m_missing_reported = true;
    m_seen.reset();
    return;
  }
  m_missing_reported = false;
  if (m_seen == *identity) return;
  m_seen = *identity;
  auto text = read_file(m_path, kMaxMapBytes);
  if (!text.ok()) {
    config::log_error({}, "TUNEPLANE_USER_MAP_FILE: " + text.error().message() + keeps);
    return;
  }
  auto parsed = model::UserMap::parse(*text, m_path);
  if (!parsed.ok()) {
    std::string problems;
    for (const auto& problem : parsed.error().list()) {
      problems += (problems.empty() ? "" : "; ") + problem.to_string();
    }
    config::log_error({}, "TUNEPLANE_USER_MAP_FILE: the changed map is refused (" + problems + ")" + keeps);
    return;
  }
  m_current = storage::judge_users(std::move(*parsed), m_first_user_id, m_service_uid);
  config::log_info({}, "TUNEPLANE_USER_MAP_FILE: read again, " + std::to_string(m_current->map.all().size()) +
                           " user(s), " + std::to_string(m_current->refused.size()) + " refused");
}

}  // namespace tpslurm::api
