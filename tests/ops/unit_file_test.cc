// etc/tuneplane-slurm.service: the settings the daemon's safety depends on stay in the file
// (hardening, readiness, stop and restart policy), its paths match the example env file,
// its stop timeout covers a pass with the default timeouts, its descriptor limit the API's
// connections and reserve, and `systemd-analyze verify`
// finds nothing to say about it — run on the real file with only ExecStart's path pointed at
// the built binary (verify checks that it exists). Needs no running systemd.
#include "unit_file.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "api/server.h"
#include "base/duration.h"
#include "cli/exit_codes.h"
#include "config/env_file.h"
#include "model/settings.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::ops::testing {
namespace {

using tpslurm::testing::read_test_file;

constexpr const char* kUnitPath = "etc/tuneplane-slurm.service";
constexpr const char* kInstalledBinary = "/usr/local/bin/tuneplane-slurm";

UnitFile shipped_unit() { return parse_unit_file(read_test_file(kUnitPath)); }

// The one value of Service.key; a test failure when there is none or more than one.
std::string service(const UnitFile& unit, const std::string& key) {
  const auto found = unit.values("Service", key);
  EXPECT_EQ(found.size(), 1u) << key << " should be set exactly once in [Service]";
  return found.empty() ? "<unset>" : found.front();
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while ((at = text.find_first_not_of(' ', at)) != std::string::npos) {
    const auto end = text.find(' ', at);
    out.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end;
  }
  return out;
}

// What `systemd-analyze verify --man=no` prints about `unit_text`, saved as
// tuneplane-slurm.service (verify names the unit after its file); exit code and output.
tpslurm::testing::ProcessResult verify(const std::string& unit_text) {
  tpslurm::testing::TempDir dir;
  const std::string path = dir.file("tuneplane-slurm.service");
  tpslurm::testing::write_test_file(path, unit_text);
  return tpslurm::testing::run_process({"systemd-analyze", "verify", "--man=no", path},
                                       tpslurm::testing::minimal_environment());
}

// The shipped unit with ExecStart's binary replaced by the built one; every other line kept.
std::string with_built_binary(const UnitFile& unit) {
  UnitFile copy = unit;
  int rewritten = 0;
  for (const auto& setting : unit.settings) {
    if (setting.key != "ExecStart") continue;
    std::string& line = copy.lines[static_cast<std::size_t>(setting.line - 1)];
    const auto at = line.find(kInstalledBinary);
    if (at == std::string::npos) continue;
    line.replace(at, std::string(kInstalledBinary).size(), TP_BINARY);
    ++rewritten;
  }
  EXPECT_EQ(rewritten, 1) << "one ExecStart= naming " << kInstalledBinary;
  return copy.text();
}

TEST(UnitFileTest, ParserKeepsLinesSectionsAndEveryValue) {
  const UnitFile unit =
      parse_unit_file("# head\n[Unit]\nAfter=a.target\n\n[Service]\n ReadWritePaths = /x /y \nReadWritePaths=/z\n");
  EXPECT_TRUE(unit.problems.empty());
  ASSERT_EQ(unit.lines.size(), 7u);
  EXPECT_EQ(unit.text(), "# head\n[Unit]\nAfter=a.target\n\n[Service]\n ReadWritePaths = /x /y \nReadWritePaths=/z\n");
  EXPECT_EQ(unit.values("Unit", "After"), std::vector<std::string>{"a.target"});
  EXPECT_EQ(unit.values("Service", "ReadWritePaths"), (std::vector<std::string>{"/x /y", "/z"}));
  EXPECT_TRUE(unit.values("Service", "After").empty());
  EXPECT_EQ(unit.settings[1].line, 6);

  const UnitFile bad = parse_unit_file("Orphan=1\n[Service]\nExecStart=/bin/a \\\n  b\nnonsense\n");
  EXPECT_EQ(bad.problems, (std::vector<std::string>{
                              "1: neither a section header nor KEY=VALUE in a section",
                              "3: a continued line; keep every setting on one line",
                              "4: neither a section header nor KEY=VALUE in a section",
                              "5: neither a section header nor KEY=VALUE in a section",
                          }));
}

TEST(UnitFileTest, TheShippedUnitKeepsItsReadinessStopAndHardeningSettings) {
  const UnitFile unit = shipped_unit();
  EXPECT_TRUE(unit.problems.empty()) << unit.problems.front();
  EXPECT_EQ(service(unit, "Type"), "notify");
  EXPECT_EQ(service(unit, "ExecStart"),
            std::string(kInstalledBinary) + " --config /etc/tuneplane-slurm/tuneplane-slurm.env serve");
  EXPECT_EQ(service(unit, "User"), "tuneplane");
  EXPECT_EQ(service(unit, "Group"), "tuneplane");
  EXPECT_EQ(service(unit, "Restart"), "on-failure");
  EXPECT_EQ(service(unit, "RestartPreventExitStatus"), std::to_string(cli::kExitBadInput));
  EXPECT_EQ(service(unit, "KillMode"), "mixed");
  EXPECT_EQ(service(unit, "UMask"), "0077");
  EXPECT_EQ(service(unit, "ProtectSystem"), "strict");
  EXPECT_EQ(service(unit, "ProtectHome"), "yes");
  EXPECT_EQ(service(unit, "PrivateTmp"), "yes");
  EXPECT_EQ(service(unit, "NoNewPrivileges"), "yes");
  EXPECT_EQ(service(unit, "CapabilityBoundingSet"), "");
  EXPECT_EQ(service(unit, "ProtectKernelTunables"), "yes");
  EXPECT_EQ(service(unit, "ProtectControlGroups"), "yes");
  EXPECT_EQ(service(unit, "LockPersonality"), "yes");
  EXPECT_EQ(service(unit, "RestrictAddressFamilies"), "AF_UNIX AF_INET AF_INET6");
  EXPECT_EQ(unit.values("Service", "ReadWritePaths").size(), 1u);
  EXPECT_EQ(unit.values("Service", "TimeoutStopSec").size(), 1u);
  EXPECT_TRUE(unit.values("Service", "EnvironmentFile").empty())
      << "the binary reads the env file itself (--config); a second reader would parse it differently";
  // Attempts' logs/ and scratch/ are set-group-id directories: this would refuse their chmod.
  EXPECT_TRUE(unit.values("Service", "RestrictSUIDSGID").empty());
}

// The API's connections and the descriptors it leaves free for the rest of the daemon
// (api/server.h's defaults) fit many times over, soft and hard limit one value.
TEST(UnitFileTest, LimitNOFILEHoldsTheApisConnectionsAndTheReserveManyTimesOver) {
  const UnitFile unit = shipped_unit();
  const std::string value = service(unit, "LimitNOFILE");
  ASSERT_EQ(value, "8192");
  const api::ServerLimits limits;
  EXPECT_GE(std::stoul(value), 8 * (limits.connections + limits.descriptor_reserve));
}

TEST(UnitFileTest, ItsWritablePathsAreTheExampleEnvFilesStateDirectoryAndStorageRoot) {
  const UnitFile unit = shipped_unit();
  auto env = config::parse_env_file(read_test_file("etc/tuneplane-slurm.env.example"), "env.example");
  ASSERT_TRUE(env.ok()) << env.error().to_text();
  std::string state_dir, storage_root;
  for (const auto& entry : *env) {
    if (entry.key == "TUNEPLANE_STATE_DIR") state_dir = entry.value;
    if (entry.key == "TUNEPLANE_STORAGE_ROOT") storage_root = entry.value;
  }
  ASSERT_FALSE(state_dir.empty());
  ASSERT_FALSE(storage_root.empty());
  const auto writable = words(service(unit, "ReadWritePaths"));
  EXPECT_EQ(writable, (std::vector<std::string>{state_dir, storage_root}));
  EXPECT_EQ("/var/lib/" + service(unit, "StateDirectory"), state_dir);
  EXPECT_EQ(service(unit, "StateDirectoryMode"), "0700");
}

TEST(UnitFileTest, TimeoutStopSecCoversAPassAndAFullListingWithTheDefaultTimeouts) {
  const UnitFile unit = shipped_unit();
  const auto timeout = parse_duration(service(unit, "TimeoutStopSec"));
  ASSERT_TRUE(timeout.ok()) << timeout.error().message();
  const model::Settings defaults;
  // A submit pass against a slow server: pre-flight, POST, identify, release.
  EXPECT_GT(*timeout, 4 * defaults.request_timeout);
  // A full job listing: the request timeout plus 2 ms per job, at 100,000 jobs.
  EXPECT_GT(*timeout, defaults.request_timeout + std::chrono::seconds(200));
}

TEST(UnitFileTest, SystemdAnalyzeVerifyReportsNothingAboutTheShippedUnit) {
  const UnitFile unit = shipped_unit();
  const std::string text = with_built_binary(unit);
  const UnitFile copy = parse_unit_file(text);
  ASSERT_EQ(copy.lines.size(), unit.lines.size());
  int differing = 0;
  for (std::size_t i = 0; i < unit.lines.size(); ++i) differing += copy.lines[i] != unit.lines[i];
  EXPECT_EQ(differing, 1) << "only ExecStart's path is rewritten";

  const auto verified = verify(text);
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  EXPECT_EQ(verified.err, "");
  EXPECT_EQ(verified.out, "");
}

TEST(UnitFileTest, SystemdAnalyzeVerifyReportsAMisspelledSettingAndAMissingBinary) {
  // What the test above relies on: verify speaks up (on stderr, even with exit code 0) about
  // a setting it does not know, and fails for an ExecStart that is not there.
  std::string text = with_built_binary(shipped_unit());
  const auto at = text.find("\nProtectSystem=strict\n");
  ASSERT_NE(at, std::string::npos);
  text.replace(at + 1, std::string("ProtectSystem").size(), "ProtectSytem");
  const auto misspelled = verify(text);
  EXPECT_NE(misspelled.err.find("Unknown key 'ProtectSytem'"), std::string::npos) << misspelled.err;

  std::string absent = read_test_file(kUnitPath);
  const auto binary = absent.find(kInstalledBinary);
  ASSERT_NE(binary, std::string::npos);
  absent.replace(binary, std::string(kInstalledBinary).size(), "/nonexistent/tuneplane-slurm");
  const auto missing = verify(absent);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("/nonexistent/tuneplane-slurm"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace tpslurm::ops::testing
