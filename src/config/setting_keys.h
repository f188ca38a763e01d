// The table of settings: every TUNEPLANE_ key, its default as documented and what it means.
// The loader, the unknown-key check and `tuneplane-slurm config` come from this one list;
// docs/configuration.md is held to it by a test (every key documented, no other key).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace tpslurm::config {

struct SettingKey {
  std::string_view name;           // "TUNEPLANE_SLURM_REST_URL"
  std::string_view default_value;  // as documented ("" = unset)
  std::string_view meaning;
  bool secret_path = false;  // names a secret file (checked for ownership and mode)
};

std::span<const SettingKey> setting_keys();

// The REST versions TUNEPLANE_SLURM_REST_API_VERSION accepts besides "auto", newest first: the
// dialects src/slurm/ speaks (a test holds the two lists equal).
std::span<const std::string_view> rest_api_versions();
const SettingKey* find_setting_key(std::string_view name);

// The known key nearest to `name` by edit distance, if it is close enough to be a typo.
std::optional<std::string_view> closest_setting_key(std::string_view name);

}  // namespace tpslurm::config
