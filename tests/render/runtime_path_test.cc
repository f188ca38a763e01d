// The renderer holds every path it hands a container runtime to model/runtime_path.h's rule
// itself, whatever the validator, the registry or the settings loader let through: each of
// these tests builds its inputs directly, with one metacharacter class or one spelling other
// than the normal form in one field, and the attempt must be refused naming that field.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <tuple>

#include "render/render_request.h"
#include "render_fixtures.h"
#include "support/hostile_paths.h"

namespace tpslurm::render {
namespace {

namespace json = boost::json;
using model::Launcher;
using model::quote_value;
using tpslurm::testing::HostilePath;
using tpslurm::testing::kHostilePaths;
using tpslurm::testing::normal_form_words;

// The problems' text of an attempt that must be refused; "(rendered)" when it was rendered.
std::string refusal(const model::LaunchRequest& request, const model::Runtime& runtime, const model::Settings& settings,
                    const AttemptInputs& inputs) {
  const auto rendered = render_attempt(request, runtime, testing::gpu_series(), settings, inputs);
  return rendered.ok() ? "(rendered)" : rendered.error().to_text();
}

// One attempt with `edit` applied to its parts (the attempt's inputs are made from the settings
// before the edit, so that an edited setting is the only bad value).
std::string refusal_with(
    const std::function<void(model::LaunchRequest&, model::Runtime&, model::Settings&, AttemptInputs&)>& edit) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  model::Runtime runtime = *testing::runtimes().find(request.runtime_id);
  model::Settings settings = testing::settings();
  AttemptInputs inputs = testing::inputs(settings, request.job_id);
  edit(request, runtime, settings, inputs);
  return refusal(request, runtime, settings, inputs);
}

struct RenderedField {
  const char* name;  // for the test's name
  std::string base;  // a good value, which the hostile suffix extends
  bool relative;     // relative to the storage root
  std::function<std::string(const std::string& value)> refusal;
  std::function<std::string(const std::string& value, const std::string& words)> expected;
};

void PrintTo(const RenderedField& field, std::ostream* out) { *out << field.name; }

// `path "value": words`, as a problem reads.
std::function<std::string(const std::string&, const std::string&)> named(std::string path) {
  return [path](const std::string& value, const std::string& words) {
    return path + " " + quote_value(value) + ": " + words + "\n";
  };
}

std::vector<RenderedField> rendered_fields() {
  return {
      {"MountSource", "datasets", true,
       [](const std::string& value) {
         return refusal_with([&](auto& request, auto&, auto&, auto&) { request.mounts = {{value, "/data", true}}; });
       },
       named("spec.mounts[0].source")},
      {"MountTarget", "/data", false,
       [](const std::string& value) {
         return refusal_with([&](auto& request, auto&, auto&, auto&) {
           request.mounts = {{"datasets/imagenet", value, true}};
         });
       },
       named("spec.mounts[0].target")},
      {"WorkingDir", "/workspace", false,
       [](const std::string& value) {
         return refusal_with([&](auto& request, auto&, auto&, auto&) { request.working_dir = value; });
       },
       named("spec.working_dir")},
      {"ImagePath", "runtimes", true,
       [](const std::string& value) {
         return refusal_with([&](auto&, auto& runtime, auto&, auto&) { runtime.sqsh->path = value; });
       },
       [](const std::string& value, const std::string& words) {
         return "spec.framework.runtime_id \"custom-pytorch-2.5\": its image path " + quote_value(value) + " " + words +
                "\n";
       }},
      {"ClusterStorageRoot", "/lustre/tp", false,
       [](const std::string& value) {
         return refusal_with([&](auto&, auto&, auto& settings, auto&) { settings.slurm_storage_root = value; });
       },
       named("TUNEPLANE_SLURM_STORAGE_ROOT")},
      {"StorageRoot", "/srv/tp", false,
       [](const std::string& value) {
         return refusal_with([&](auto&, auto&, auto& settings, auto&) { settings.storage_root = value; });
       },
       named("TUNEPLANE_STORAGE_ROOT")},
      {"AttemptDirectory", "/lustre/tp/attempt", false,
       [](const std::string& value) {
         return refusal_with([&](auto&, auto&, auto&, auto& inputs) { inputs.cluster_attempt_dir = value; });
       },
       named("attempt directory")},
  };
}

class RenderedPathTest : public ::testing::TestWithParam<std::tuple<RenderedField, HostilePath>> {};

TEST_P(RenderedPathTest, IsRefusedNamingTheField) {
  const auto& [field, hostile] = GetParam();
  const std::string value = hostile.value(field.base);
  EXPECT_EQ(field.refusal(value), field.expected(value, refusal_words(hostile, field.base, field.relative)));
}

INSTANTIATE_TEST_SUITE_P(EveryClassEveryField, RenderedPathTest,
                         ::testing::Combine(::testing::ValuesIn(rendered_fields()), ::testing::ValuesIn(kHostilePaths)),
                         [](const ::testing::TestParamInfo<std::tuple<RenderedField, HostilePath>>& param_info) {
                           return std::string(std::get<0>(param_info.param).name) + "_" +
                                  std::get<1>(param_info.param).name;
                         });

TEST(RenderedPathTest, TheIssuesReproducerIsRefused) {
  const std::string target(tpslurm::testing::kCommandInTarget);
  EXPECT_EQ(refusal_with([&](auto& request, auto&, auto&, auto&) {
              request.mounts = {{"datasets/x", target, false}};
            }),
            "spec.mounts[0].target \"/data$(touch${IFS}/tmp/x)\": may hold only ASCII letters, digits, '.', '_', "
            "'-' and '/' (the container runtimes parse it on the nodes, Enroot in a shell); rename the path\n");
}

// The attempt directory is /srv/tuneplane/slurm/jobs/srun-one-pool/attempts/1, mounted at its own
// path: no spelling of a directory above it gets a mount over it.
TEST(RenderedPathTest, NoSpellingOfATargetCoversTheAttemptDirectory) {
  const auto target_refusal = [](const std::string& target) {
    return refusal_with([&](auto& request, auto&, auto&, auto&) { request.mounts = {{"data", target, false}}; });
  };
  EXPECT_EQ(target_refusal("/srv//tuneplane"),
            "spec.mounts[0].target \"/srv//tuneplane\": " + normal_form_words("/srv/tuneplane") + "\n");
  EXPECT_EQ(target_refusal("/srv/./tuneplane"),
            "spec.mounts[0].target \"/srv/./tuneplane\": " + normal_form_words("/srv/tuneplane") + "\n");
  EXPECT_EQ(target_refusal("//srv"), "spec.mounts[0].target \"//srv\": " + normal_form_words("/srv") + "\n");
  EXPECT_EQ(target_refusal("/srv/tuneplane/slurm/jobs/srun-one-pool/attempts/1/"),
            "spec.mounts[0].target \"/srv/tuneplane/slurm/jobs/srun-one-pool/attempts/1/\": " +
                normal_form_words("/srv/tuneplane/slurm/jobs/srun-one-pool/attempts/1") + "\n");
  EXPECT_EQ(target_refusal("/srv/tuneplane"),
            "spec.mounts[0].target \"/srv/tuneplane\": would cover the attempt directory "
            "\"/srv/tuneplane/slurm/jobs/srun-one-pool/attempts/1\"; pick another target\n");
  EXPECT_EQ(target_refusal("/"),
            "spec.mounts[0].target \"/\": would cover the attempt directory "
            "\"/srv/tuneplane/slurm/jobs/srun-one-pool/attempts/1\"; pick another target\n");
}

// The same spellings through the validator, as `render` and the API receive them: refused there
// first, and nothing rendered.
TEST(RenderedPathTest, TheValidatorRefusesThoseSpellingsFirst) {
  json::value request = json::parse(testing::example_request_json());
  request.at("spec").as_object()["mounts"] = json::parse(R"([
    {"source": "data", "target": "/srv//tuneplane"}, {"source": "data", "target": "/srv/./tuneplane"}])");
  const model::Settings settings = testing::settings();
  const auto rendered =
      render_request(json::serialize(request), testing::catalogs(), settings, testing::inputs(settings, "ft-7f3c2a"));
  ASSERT_FALSE(rendered.ok());
  EXPECT_EQ(rendered.error().to_text(),
            "spec.mounts[0].target \"/srv//tuneplane\": " + normal_form_words("/srv/tuneplane") +
                "\nspec.mounts[1].target \"/srv/./tuneplane\": " + normal_form_words("/srv/tuneplane") + "\n");
}

}  // namespace
}  // namespace tpslurm::render
