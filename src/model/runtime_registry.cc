#include "model/runtime_registry.h"

#include "model/detail/json_fields.h"
#include "model/detail/catalog_document.h"
#include "model/enum_names.h"
#include "model/runtime_path.h"

namespace tpslurm::model {
namespace json = boost::json;
using detail::Fields;
using detail::Need;

namespace {

constexpr std::pair<RuntimeProfile, std::string_view> kProfileNames[] = {
    {RuntimeProfile::enroot_pyxis, "enroot-pyxis"},
    {RuntimeProfile::apptainer, "apptainer"},
};

constexpr std::pair<Launcher, std::string_view> kLauncherNames[] = {
    {Launcher::srun, "srun"},
    {Launcher::ray, "ray"},
};

bool is_sha256(std::string_view text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::optional<Artifact> parse_artifact(Fields& runtime, std::string_view key) {
  const json::object* object = runtime.object(key, Need::optional);
  if (object == nullptr) return std::nullopt;
  Fields fields(*object, runtime.path_of(key), runtime.problems());
  Artifact artifact;
  bool good = true;
  if (auto path = fields.string("path", Need::required)) {
    // The operator's, but the container runtimes parse it all the same.
    if (auto why = runtime_path_problem(*path, PathKind::storage)) {
      runtime.problems().add(fields.path_of("path"), quote_value(*path), *why);
      good = false;
    }
    artifact.path = std::move(*path);
  } else {
    good = false;
  }
  if (auto sha = fields.string("sha256", Need::required)) {
    if (!is_sha256(*sha)) {
      runtime.problems().add(fields.path_of("sha256"), quote_value(*sha), "must be 64 lower-case hex digits");
      good = false;
    }
    artifact.sha256 = std::move(*sha);
  } else {
    good = false;
  }
  fields.reject_unknown();
  if (!good) return std::nullopt;
  return artifact;
}

}  // namespace

std::string_view to_string(Launcher launcher) { return detail::name_of(kLauncherNames, launcher); }
std::string_view to_string(RuntimeProfile profile) { return detail::name_of(kProfileNames, profile); }
std::optional<RuntimeProfile> parse_runtime_profile(std::string_view text) {
  return detail::value_of<RuntimeProfile>(kProfileNames, text);
}

const std::optional<Artifact>& Runtime::artifact_for(RuntimeProfile profile) const {
  return profile == RuntimeProfile::apptainer ? sif : sqsh;
}

Result<RuntimeRegistry, Problems> RuntimeRegistry::parse(std::string_view text, std::string_view source) {
  RuntimeRegistry registry;
  Problems problems = detail::parse_catalog(text, source, "runtimes", [&](const std::string& id, Fields& fields) {
    Problems& found = fields.problems();
    Runtime runtime;
    runtime.id = id;
    if (auto framework = fields.string("framework", Need::required)) {
      runtime.framework = std::move(*framework);
      if (runtime.framework == "custom" && id.rfind("custom-", 0) != 0) {
        found.add(fields.path(), "a runtime of framework \"custom\" must be named custom-…; rename it to \"custom-" + id +
                                     "\"");
      }
    }
    if (auto launcher = fields.string("launcher", Need::required)) {
      if (auto value = detail::value_of<Launcher>(kLauncherNames, *launcher)) {
        runtime.launcher = *value;
      } else {
        found.add(fields.path_of("launcher"), quote_value(*launcher), "must be \"srun\" or \"ray\"");
      }
    }
    runtime.sqsh = parse_artifact(fields, "sqsh");
    runtime.sif = parse_artifact(fields, "sif");
    if (!fields.has("sqsh") && !fields.has("sif")) {
      found.add(fields.path(), "needs a \"sqsh\" (Enroot/Pyxis) or \"sif\" (Apptainer) artifact");
    }
    registry.m_runtimes.emplace(id, std::move(runtime));
  });
  if (!problems.empty()) return problems;
  return registry;
}

const Runtime* RuntimeRegistry::find(std::string_view id) const {
  const auto it = m_runtimes.find(id);
  return it == m_runtimes.end() ? nullptr : &it->second;
}

}  // namespace tpslurm::model
