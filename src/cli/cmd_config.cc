// tuneplane-slurm config [--json]: every setting's effective value and where it came from
// ("environment", "FILE:LINE" of the --config file, "default", or "journal" for an unset
// TUNEPLANE_INSTANCE the journal's deployment gives: cli/deployment.h), in the order of the
// settings table (config/setting_keys.h). The value is the one the loaded settings hold, not
// the text as written, wherever the loader makes them differ: a path or the REST URL without
// its trailing '/', a flag as 1 or 0, a default the loader computes (the instance, the state
// directory, the journal, the CPU partition, the cluster-side storage root) as computed, and
// the call rate's floor lowered to the ceiling when only the ceiling is set below the default
// floor (its source then says so). Any other value is shown as written (a duration or a number
// means the same in any spelling the loader takes), any other default as the table documents
// it. No setting holds a secret: the secrets are in the files the *_FILE settings name, which
// are shown as paths, never read. Exit 2 when the configuration has problems (they are
// printed, as for every command).
#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <functional>
#include <map>
#include <optional>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/table.h"
#include "config/setting_keys.h"

namespace tpslurm::cli {
namespace {

struct Effective {
  std::string value;  // empty: unset
  std::string source;
};

// The value the loaded settings hold for the keys whose text the loader changes or whose
// default it computes; nothing for the others.
std::optional<std::string> held_value(std::string_view name, const model::Settings& s) {
  const auto flag = [](bool on) { return std::string(on ? "1" : "0"); };
  static const std::map<std::string_view, std::function<std::string(const model::Settings&)>, std::less<>> kHeld{
      {"TUNEPLANE_SLURM_REST_URL", [](const model::Settings& v) { return v.rest_url; }},
      {"TUNEPLANE_SLURM_CPU_PARTITION", [](const model::Settings& v) { return v.cpu_partition; }},
      {"TUNEPLANE_INSTANCE", [](const model::Settings& v) { return v.instance; }},
      {"TUNEPLANE_STORAGE_ROOT", [](const model::Settings& v) { return v.storage_root; }},
      {"TUNEPLANE_SLURM_STORAGE_ROOT", [](const model::Settings& v) { return v.slurm_storage_root; }},
      {"TUNEPLANE_USER_MAP_FILE", [](const model::Settings& v) { return v.user_map_file; }},
      {"TUNEPLANE_SLURM_CA_FILE", [](const model::Settings& v) { return v.ca_file; }},
      {"TUNEPLANE_RUNTIME_REGISTRY_FILE", [](const model::Settings& v) { return v.runtime_registry_file; }},
      {"TUNEPLANE_GPU_SERIES_FILE", [](const model::Settings& v) { return v.gpu_series_file; }},
      {"TUNEPLANE_JOURNAL", [](const model::Settings& v) { return v.journal_path; }},
      {"TUNEPLANE_STATE_DIR", [](const model::Settings& v) { return v.state_dir; }},
      {"TUNEPLANE_API_TLS_CERT", [](const model::Settings& v) { return v.api_tls_cert; }},
      {"TUNEPLANE_SLURM_PROXY", [](const model::Settings& v) { return v.proxy; }},
      {"TUNEPLANE_STORAGE_GROUP", [](const model::Settings& v) { return v.storage_group; }},
      {"TUNEPLANE_SLURM_REQUEST_RATE_FLOOR",
       [](const model::Settings& v) { return std::to_string(v.request_rate_floor); }},
  };
  if (name == "TUNEPLANE_SLURM_TLS_VERIFY") return flag(s.tls_verify);
  if (name == "TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP") return flag(s.allow_insecure_http);
  if (auto it = kHeld.find(name); it != kHeld.end()) return it->second(s);
  return std::nullopt;
}

Effective effective(const config::SettingKey& key, const config::LoadedSettings& loaded) {
  const std::string name(key.name);
  const std::string source = loaded.sources.at(name);
  const auto given = loaded.given.find(name);
  if (auto held = held_value(name, loaded.settings)) {
    // The floor is the one default the loader moves after another setting.
    if (given == loaded.given.end() && name == "TUNEPLANE_SLURM_REQUEST_RATE_FLOOR" && *held != key.default_value) {
      return {*held, "default, lowered to TUNEPLANE_SLURM_REQUEST_RATE"};
    }
    return {*held, source};
  }
  if (given != loaded.given.end()) return {given->second, source};
  return {std::string(key.default_value), source};
}

int run_config(Context& context, bool json) {
  const config::LoadedSettings* loaded = context.loaded_settings();
  if (loaded == nullptr) return kExitBadInput;
  boost::json::array rows;
  Table table({"SETTING", "VALUE", "FROM"});
  for (const auto& key : config::setting_keys()) {
    const Effective e = effective(key, *loaded);
    if (json) {
      boost::json::object row{{"key", key.name}, {"source", e.source}};
      row["value"] = e.value.empty() ? boost::json::value(nullptr) : boost::json::value(e.value);
      rows.push_back(std::move(row));
    } else {
      table.add({std::string(key.name), e.value, e.source});  // an unset value prints "-"
    }
  }
  if (json) {
    context.out() << boost::json::serialize(rows) << "\n";
  } else {
    table.print(context.out());
  }
  return kExitOk;
}

}  // namespace

void add_config_command(CLI::App& app, Context& context, int& exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command =
      app.add_subcommand("config", "Print every setting's effective value and where it came from (no secrets)");
  add_version_flag(*command);
  command->add_flag("--json", *json, "Print the settings as JSON");
  command->callback([&context, &exit_code, json] { exit_code = run_config(context, *json); });
}

}  // namespace tpslurm::cli
