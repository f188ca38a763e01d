// tuneplane-slurm config [--json]: every setting's effective value and where it came from
// ("environment", "FILE:LINE" of the --config file, "default", or "journal" for an unset
// TUNEPLANE_INSTANCE the journal's deployment gives: cli/deployment.h), in the order of the
// settings table (config/setting_keys.h). A default the loader computes (the instance, the
// state directory, the journal, the CPU partition, the cluster-side storage root) is shown as
// computed; any other default as the table documents it. No setting holds a secret: the
// secrets are in the files the *_FILE settings name, which are shown as paths, never read.
// Exit 2 when the configuration has problems (they are printed, as for every command).
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

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

Effective effective(const config::SettingKey& key, const config::LoadedSettings& loaded) {
  const std::string name(key.name);
  const std::string source = loaded.sources.at(name);
  if (auto given = loaded.given.find(name); given != loaded.given.end()) return {given->second, source};
  const model::Settings& s = loaded.settings;
  if (name == "TUNEPLANE_INSTANCE") return {s.instance, source};
  if (name == "TUNEPLANE_STATE_DIR") return {s.state_dir, source};
  if (name == "TUNEPLANE_JOURNAL") return {s.journal_path, source};
  if (name == "TUNEPLANE_SLURM_CPU_PARTITION") return {s.cpu_partition, source};
  if (name == "TUNEPLANE_SLURM_STORAGE_ROOT") return {s.slurm_storage_root, source};
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
