#include "model/user_map.h"

#include <algorithm>

#include "model/detail/catalog_document.h"
#include "model/detail/json_fields.h"
#include "model/names.h"

namespace tpslurm::model {
namespace json = boost::json;
using detail::Fields;
using detail::Need;

namespace {

constexpr int kMostLiveJobs = 1000000;

bool in(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// A list of Slurm names; `required` also refuses an empty list. Duplicates are refused: the
// operator meant something else.
std::vector<std::string> slurm_names(Fields& fields, std::string_view key, Need need) {
  std::vector<std::string> names;
  const json::array* array = fields.array(key, need);
  if (array == nullptr) return names;
  const std::string path = fields.path_of(key);
  if (need == Need::required && array->empty()) {
    fields.problems().add(path, "[]", "must name at least one");
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string item_path = detail::index_path(path, i);
    auto name = detail::string_at((*array)[i], item_path, fields.problems());
    if (!name) continue;
    if (auto why = slurm_name_problem(*name)) {
      fields.problems().add(item_path, quote_value(*name), *why);
    } else if (in(names, *name)) {
      fields.problems().add(item_path, quote_value(*name), "is listed twice");
    } else {
      names.push_back(std::move(*name));
    }
  }
  return names;
}

}  // namespace

bool is_platform_user_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || !is_lower_alnum(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_lower_alnum(c) || c == '.' || c == '_' || c == '-'; });
}

bool is_unix_user_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return false;
  if (!(name.front() == '_' || (name.front() >= 'a' && name.front() <= 'z'))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_lower_alnum(c) || c == '_' || c == '-'; });
}

bool MappedUser::may_use_account(std::string_view account) const { return in(accounts, account); }
bool MappedUser::may_use_qos(std::string_view name) const { return in(qos, name); }
bool MappedUser::may_use_partition(std::string_view partition) const {
  return partitions.empty() || in(partitions, partition);
}

Result<UserMap, Problems> UserMap::parse(std::string_view text, std::string_view source) {
  UserMap map;
  std::map<std::string, std::string, std::less<>> owner_of_unix_user;
  Problems problems = detail::parse_catalog(text, source, "users", [&](const std::string& name, Fields& fields) {
    Problems& found = fields.problems();
    MappedUser user;
    user.platform_user = name;
    if (!is_platform_user_name(name)) {
      found.add(fields.path(), quote_value(name),
                "is not a platform user name: lower-case letters, digits, '.', '_' and '-', starting with a letter "
                "or digit, at most 64");
    }
    if (auto unix_user = fields.string("unix_user", Need::required)) {
      if (!is_unix_user_name(*unix_user)) {
        found.add(fields.path_of("unix_user"), quote_value(*unix_user),
                  "is not a Unix user name: lower-case letters, digits, '_' and '-', starting with a letter or '_', "
                  "at most 32");
      } else if (auto [it, fresh] = owner_of_unix_user.emplace(*unix_user, name); !fresh) {
        found.add(fields.path_of("unix_user"), quote_value(*unix_user),
                  "is already the Unix user of \"" + it->second +
                      "\": each platform user needs a Unix user of its own, or their jobs and files are one");
      }
      user.unix_user = std::move(*unix_user);
    }
    user.accounts = slurm_names(fields, "accounts", Need::required);
    user.qos = slurm_names(fields, "qos", Need::optional);
    user.partitions = slurm_names(fields, "partitions", Need::optional);
    if (auto limit = fields.integer("max_live_jobs", Need::optional, 1, kMostLiveJobs)) {
      user.max_live_jobs = static_cast<int>(*limit);
    }
    map.m_users.emplace(name, std::move(user));
  });
  if (!problems.empty()) return problems;
  return map;
}

const MappedUser* UserMap::find(std::string_view platform_user) const {
  const auto it = m_users.find(platform_user);
  return it == m_users.end() ? nullptr : &it->second;
}

}  // namespace tpslurm::model
