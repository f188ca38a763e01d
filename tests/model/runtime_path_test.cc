// Every path of a request or of the runtime registry that a container runtime parses is held
// to one rule (model/runtime_path.h) by the validator: each metacharacter class and each
// spelling other than the normal form is refused, for each field, naming the field.
#include "model/runtime_path.h"

#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "support/hostile_paths.h"
#include "test_catalogs.h"

namespace tpslurm::model {
namespace {

namespace json = boost::json;
using tpslurm::testing::HostilePath;
using tpslurm::testing::kHostilePaths;
using tpslurm::testing::normal_form_words;

constexpr const char* kNulWords = "contains a NUL byte, which no program can receive; remove it";

json::object& spec(json::value& request) { return request.at("spec").as_object(); }
json::object& first_mount(json::value& request) { return spec(request)["mounts"].as_array()[0].as_object(); }

struct RequestField {
  const char* name;  // for the test's name
  std::string path;  // as the problem names it
  std::string base;  // a good value, which the hostile suffix extends
  bool relative;     // relative to the storage root
  std::function<void(json::value&, const std::string&)> set;
};

void PrintTo(const RequestField& field, std::ostream* out) { *out << field.path; }

std::vector<RequestField> request_fields() {
  return {
      {"MountSource", "spec.mounts[0].source", "datasets", true,
       [](json::value& request, const std::string& value) { first_mount(request)["source"] = value; }},
      {"MountTarget", "spec.mounts[0].target", "/data", false,
       [](json::value& request, const std::string& value) { first_mount(request)["target"] = value; }},
      {"WorkingDir", "spec.working_dir", "/workspace", false,
       [](json::value& request, const std::string& value) { spec(request)["working_dir"] = value; }},
  };
}

class RequestPathTest : public ::testing::TestWithParam<std::tuple<RequestField, HostilePath>> {};

TEST_P(RequestPathTest, IsRefusedNamingTheField) {
  const auto& [field, hostile] = GetParam();
  json::value request = testing::valid_request();
  const std::string value = hostile.value(field.base);
  field.set(request, value);
  // JSON strings are checked for NUL bytes before any field's own rule.
  const std::string words = hostile.has_nul() ? kNulWords : refusal_words(hostile, field.base, field.relative);
  EXPECT_EQ(testing::refusal(request), field.path + " " + quote_value(value) + ": " + words + "\n");
}

INSTANTIATE_TEST_SUITE_P(EveryClassEveryField, RequestPathTest,
                         ::testing::Combine(::testing::ValuesIn(request_fields()), ::testing::ValuesIn(kHostilePaths)),
                         [](const ::testing::TestParamInfo<std::tuple<RequestField, HostilePath>>& param_info) {
                           return std::string(std::get<0>(param_info.param).name) + "_" +
                                  std::get<1>(param_info.param).name;
                         });

// The registry is the operator's, but its image paths reach the runtimes all the same.
class RegistryPathTest : public ::testing::TestWithParam<HostilePath> {};

TEST_P(RegistryPathTest, IsRefusedNamingTheFileAndTheEntry) {
  const HostilePath& hostile = GetParam();
  const std::string value = hostile.value("runtimes");
  const json::object registry{{"runtimes",
                               {{"custom-x",
                                 {{"framework", "custom"},
                                  {"launcher", "srun"},
                                  {"sqsh", {{"path", value}, {"sha256", std::string(64, '1')}}}}}}}};
  const auto parsed = RuntimeRegistry::parse(json::serialize(registry), "reg.json");
  ASSERT_FALSE(parsed.ok());
  const std::string words = hostile.has_nul() ? kNulWords : refusal_words(hostile, "runtimes", true);
  EXPECT_EQ(parsed.error().to_text(),
            "reg.json.runtimes.custom-x.sqsh.path " + quote_value(value) + ": " + words + "\n");
}

INSTANTIATE_TEST_SUITE_P(EveryClass, RegistryPathTest, ::testing::ValuesIn(kHostilePaths),
                         [](const ::testing::TestParamInfo<HostilePath>& param_info) { return param_info.param.name; });

TEST(RuntimePathTest, TheIssuesReproducerIsRefused) {
  json::value request = testing::valid_request();
  first_mount(request)["target"] = tpslurm::testing::kCommandInTarget;
  EXPECT_EQ(testing::refusal(request),
            "spec.mounts[0].target \"/data$(touch${IFS}/tmp/x)\": may hold only ASCII letters, digits, '.', '_', "
            "'-' and '/' (the container runtimes parse it on the nodes, Enroot in a shell); rename the path\n");
}

// Every byte of the alphabet, and dots inside names, are a normal path.
TEST(RuntimePathTest, AcceptsTheWholeAlphabetAndDotsInsideNames) {
  json::value request = testing::valid_request();
  first_mount(request)["source"] = "datasets/ABCXYZ-abcxyz_0189/.hidden/a..b/...";
  first_mount(request)["target"] = "/Data-set_1.0/..x/x..";
  spec(request)["working_dir"] = "/";
  const auto parsed = testing::parse(request);
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_text();
  EXPECT_EQ(parsed->mounts[0].target, "/Data-set_1.0/..x/x..");
  EXPECT_EQ(parsed->working_dir, "/");
}

// "/" is the root's normal form and a working directory, but no mount target: a mount there
// would cover the whole container, the attempt directory included.
TEST(RuntimePathTest, TheRootIsNoMountTarget) {
  json::value request = testing::valid_request();
  first_mount(request)["target"] = "/";
  EXPECT_EQ(testing::refusal(request),
            "spec.mounts[0].target \"/\": would cover the container's whole filesystem, the attempt directory "
            "included; pick a directory\n");
}

// A target is unique, and reserved, in its one spelling: another spelling is refused as such.
TEST(RuntimePathTest, ReservedAndRepeatedTargetsCannotBeSpelledAroundTheirChecks) {
  json::value request = testing::valid_request();
  spec(request)["mounts"] = json::parse(R"([
    {"source": "a", "target": "/data"}, {"source": "b", "target": "/data/"},
    {"source": "c", "target": "//tuneplane"}, {"source": "d", "target": "/./tuneplane/x"}])");
  EXPECT_EQ(testing::refusal(request),
            "spec.mounts[1].target \"/data/\": " + normal_form_words("/data") +
                "\nspec.mounts[2].target \"//tuneplane\": " + normal_form_words("/tuneplane") +
                "\nspec.mounts[3].target \"/./tuneplane/x\": " + normal_form_words("/tuneplane/x") + "\n");
}

// The program's tree and the images are compared with the source as written: no spelling
// reaches them unrefused.
TEST(RuntimePathTest, SourcesCannotBeSpelledIntoTheProgramsTree) {
  json::value request = testing::valid_request();
  spec(request)["mounts"] = json::parse(R"([
    {"source": "slurm/", "target": "/a"}, {"source": "./slurm", "target": "/b"},
    {"source": "runtimes//verl-0.4.sqsh", "target": "/c"}])");
  EXPECT_EQ(testing::refusal(request), "spec.mounts[0].source \"slurm/\": " + normal_form_words("slurm") +
                                           "\nspec.mounts[1].source \"./slurm\": " + normal_form_words("slurm") +
                                           "\nspec.mounts[2].source \"runtimes//verl-0.4.sqsh\": " +
                                           normal_form_words("runtimes/verl-0.4.sqsh") + "\n");
}

TEST(RuntimePathTest, PathsHoldOnlyWholeComponents) {
  EXPECT_TRUE(path_holds("/", "/srv"));
  EXPECT_TRUE(path_holds("/srv", "/srv"));
  EXPECT_TRUE(path_holds("/srv", "/srv/tuneplane"));
  EXPECT_FALSE(path_holds("/srv", "/srvx"));
  EXPECT_FALSE(path_holds("/srv/tuneplane", "/srv"));
  EXPECT_TRUE(path_holds("slurm", "slurm/jobs"));
  EXPECT_FALSE(path_holds("slurm", "slurmdata"));
  EXPECT_TRUE(paths_overlap("/srv/tuneplane", "/srv"));
  EXPECT_FALSE(paths_overlap("/data", "/srv"));
}

}  // namespace
}  // namespace tpslurm::model
