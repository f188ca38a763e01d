#include "config/settings_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>

#include "config/env_file.h"
#include "config/setting_keys.h"
#include "model/problems.h"
#include "support/hostile_paths.h"
#include "support/temp_dir.h"

namespace tpslurm::config {
namespace {

using std::filesystem::perms;
using testing::TempDir;

LoadOptions options(uid_t uid = ::geteuid()) { return {uid, "Login01.cluster.example", "/home/alice"}; }

Result<LoadedSettings, model::Problems> load(const Environment& environment,
                                             const std::optional<std::string>& file = std::nullopt,
                                             uid_t uid = ::geteuid()) {
  return load_settings(environment, file, options(uid));
}

std::string refusal(const Environment& environment, const std::optional<std::string>& file = std::nullopt) {
  auto loaded = load(environment, file);
  return loaded.ok() ? "" : loaded.error().to_text();
}

TEST(SettingsLoaderTest, DefaultsAreTheDocumentedOnes) {
  const auto loaded = load({}, std::nullopt, 1000);
  ASSERT_TRUE(loaded.ok());
  const model::Settings& s = loaded->settings;
  EXPECT_EQ(s.rest_url, "http://127.0.0.1:6820");
  EXPECT_EQ(s.rest_api_version, "auto");
  EXPECT_EQ(s.jwt_lifespan, std::chrono::seconds(1800));
  EXPECT_EQ(s.poll_interval, std::chrono::seconds(10));
  EXPECT_EQ(s.runtime_profile, model::RuntimeProfile::enroot_pyxis);
  EXPECT_TRUE(s.tls_verify);
  EXPECT_EQ(s.instance, "login01");
  EXPECT_EQ(s.state_dir, "/home/alice/.local/state/tuneplane-slurm");
  EXPECT_EQ(s.journal_path, "/home/alice/.local/state/tuneplane-slurm/journal.db");
  EXPECT_EQ(s.log_format, model::LogFormat::text);
  EXPECT_TRUE(loaded->warnings.empty());
  EXPECT_EQ(loaded->sources.at("TUNEPLANE_POLL_INTERVAL"), "default");
}

TEST(SettingsLoaderTest, RootUsesVarLib) {
  EXPECT_EQ(load({}, std::nullopt, 0)->settings.state_dir, "/var/lib/tuneplane-slurm");
}

TEST(SettingsLoaderTest, ReadsEveryKey) {
  TempDir dir;
  testing::write_test_file(dir.file("jwt"), "SLURM_JWT=x\n");
  testing::write_test_file(dir.file("ca.pem"), "x");
  const auto loaded = load({{"TUNEPLANE_SLURM_REST_URL", "https://slurmrestd.internal:6820/"},
                            {"TUNEPLANE_SLURM_REST_API_VERSION", "v0.0.38"},
                            {"TUNEPLANE_SLURM_REST_USER", "starforge"},
                            {"TUNEPLANE_SLURM_JWT_FILE", dir.file("jwt")},
                            {"TUNEPLANE_SLURM_JWT_LIFESPAN", "1h"},
                            {"TUNEPLANE_SLURM_PARTITION", "gpu"},
                            {"TUNEPLANE_SLURM_ACCOUNT", "ml"},
                            {"TUNEPLANE_SLURM_QOS", "high"},
                            {"TUNEPLANE_SLURM_RESERVATION", "maint"},
                            {"TUNEPLANE_SLURM_WCKEY", "proj"},
                            {"TUNEPLANE_INSTANCE", "prod-a"},
                            {"TUNEPLANE_SLURM_RUNTIME_PROFILE", "apptainer"},
                            {"TUNEPLANE_STORAGE_ROOT", "/mnt/tp/"},
                            {"TUNEPLANE_SLURM_STORAGE_ROOT", "/lustre/tp"},
                            {"TUNEPLANE_SLURM_TLS_VERIFY", "0"},
                            {"TUNEPLANE_SLURM_CA_FILE", dir.file("ca.pem")},
                            {"TUNEPLANE_RUNTIME_REGISTRY_FILE", "/etc/tp/runtimes.json"},
                            {"TUNEPLANE_GPU_SERIES_FILE", "/etc/tp/gpus.json"},
                            {"TUNEPLANE_STATE_DIR", "/srv/tp"},
                            {"TUNEPLANE_POLL_INTERVAL", "30s"},
                            {"TUNEPLANE_LOG_LEVEL", "debug"},
                            {"TUNEPLANE_LOG_FORMAT", "json"}});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  const model::Settings& s = loaded->settings;
  EXPECT_EQ(s.rest_url, "https://slurmrestd.internal:6820");
  EXPECT_EQ(s.rest_api_version, "v0.0.38");
  EXPECT_EQ(s.rest_user, "starforge");
  EXPECT_EQ(s.jwt_file, dir.file("jwt"));
  EXPECT_EQ(s.jwt_lifespan, std::chrono::seconds(3600));
  EXPECT_EQ(s.partition, "gpu");
  EXPECT_EQ(s.cpu_partition, "gpu");
  EXPECT_EQ(s.account, "ml");
  EXPECT_EQ(s.instance, "prod-a");
  EXPECT_EQ(s.runtime_profile, model::RuntimeProfile::apptainer);
  EXPECT_EQ(s.storage_root, "/mnt/tp");
  EXPECT_EQ(s.slurm_storage_root, "/lustre/tp");
  EXPECT_FALSE(s.tls_verify);
  EXPECT_EQ(s.journal_path, "/srv/tp/journal.db");
  EXPECT_EQ(s.poll_interval, std::chrono::seconds(30));
  EXPECT_EQ(s.log_format, model::LogFormat::json);
}

TEST(SettingsLoaderTest, DerivedDefaultsFollowTheirSource) {
  const auto loaded = load({{"TUNEPLANE_SLURM_PARTITION", "gpu"}, {"TUNEPLANE_STORAGE_ROOT", "/lustre/tp"}});
  EXPECT_EQ(loaded->settings.cpu_partition, "gpu");
  EXPECT_EQ(loaded->settings.slurm_storage_root, "/lustre/tp");
}

TEST(SettingsLoaderTest, TheEnvironmentWinsOverTheFile) {
  TempDir dir;
  testing::write_test_file(dir.file("tp.env"), "TUNEPLANE_SLURM_PARTITION=from-file\nTUNEPLANE_SLURM_QOS=file-qos\n");
  const auto loaded = load({{"TUNEPLANE_SLURM_PARTITION", "from-env"}}, dir.file("tp.env"));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->settings.partition, "from-env");
  EXPECT_EQ(loaded->settings.qos, "file-qos");
  EXPECT_EQ(loaded->sources.at("TUNEPLANE_SLURM_PARTITION"), "environment");
  EXPECT_EQ(loaded->sources.at("TUNEPLANE_SLURM_QOS"), dir.file("tp.env") + ":2");
}

TEST(SettingsLoaderTest, OldForgeNamesWorkWithAWarning) {
  TempDir dir;
  testing::write_test_file(dir.file("tp.env"), "FORGE_SLURM_QOS=old\n");
  const auto loaded =
      load({{"FORGE_SLURM_PARTITION", "gpu"}, {"FORGE_DEFAULT_FLEET_KIND", "slurm"}}, dir.file("tp.env"));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->settings.partition, "gpu");
  EXPECT_EQ(loaded->settings.qos, "old");
  EXPECT_EQ(loaded->warnings,
            (std::vector<std::string>{
                "FORGE_SLURM_PARTITION (environment) is deprecated; use TUNEPLANE_SLURM_PARTITION",
                "FORGE_SLURM_QOS (" + dir.file("tp.env") + ":1) is deprecated; use TUNEPLANE_SLURM_QOS"}));
}

TEST(SettingsLoaderTest, NewNamesWinOverOldOnes) {
  const auto loaded = load({{"FORGE_SLURM_PARTITION", "old"}, {"TUNEPLANE_SLURM_PARTITION", "new"}});
  EXPECT_EQ(loaded->settings.partition, "new");
}

TEST(SettingsLoaderTest, UnknownKeysAreWarnedAboutWithTheClosestName) {
  TempDir dir;
  testing::write_test_file(dir.file("tp.env"), "PARTITION=gpu\n");
  const auto loaded =
      load({{"TUNEPLANE_SLURM_PARTITON", "gpu"}, {"TUNEPLANE_LOCAL_SLURM_CONF", "/x"}, {"HOME", "/root"}},
           dir.file("tp.env"));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->warnings,
            (std::vector<std::string>{"TUNEPLANE_SLURM_PARTITON (environment) is not a tuneplane-slurm setting; did "
                                      "you mean TUNEPLANE_SLURM_PARTITION?",
                                      "PARTITION (" + dir.file("tp.env") + ":1) is not a tuneplane-slurm setting"}));
}

TEST(SettingsLoaderTest, AJobPathIsAbsoluteDirectoriesOfPlainCharacters) {
  const auto loaded = load({{"TUNEPLANE_SLURM_JOB_PATH", "/opt/slurm-24.11/bin:/usr/bin:/bin"}});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  EXPECT_EQ(loaded->settings.job_path, "/opt/slurm-24.11/bin:/usr/bin:/bin");
  EXPECT_EQ(load({})->settings.job_path, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  for (const char* bad : {"", "bin:/usr/bin", "/usr/bin::/bin", "/usr/bin:", "/opt/$(id)/bin", "/opt/a b",
                          "/opt/../etc", "/usr/bin;rm"}) {
    EXPECT_NE(refusal({{"TUNEPLANE_SLURM_JOB_PATH", bad}}).find("TUNEPLANE_SLURM_JOB_PATH"), std::string::npos) << bad;
  }
}

TEST(SettingsLoaderTest, EveryBadValueIsOneLineWithKeyValueAndExpectation) {
  TempDir dir;
  testing::write_test_file(dir.file("tp.env"), "TUNEPLANE_POLL_INTERVAL=10\n");
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_REST_URL", "ftp://x"},
                     {"TUNEPLANE_SLURM_REST_API_VERSION", "v0.0.39"},
                     {"TUNEPLANE_SLURM_JWT_LIFESPAN", "10s"},
                     {"TUNEPLANE_SLURM_PARTITION", "gpu,cpu"},
                     {"TUNEPLANE_INSTANCE", "Prod_A"},
                     {"TUNEPLANE_SLURM_RUNTIME_PROFILE", "docker"},
                     {"TUNEPLANE_STORAGE_ROOT", "relative/path"},
                     {"TUNEPLANE_SLURM_TLS_VERIFY", "maybe"},
                     {"TUNEPLANE_LOG_LEVEL", "loud"},
                     {"TUNEPLANE_LOG_FORMAT", "xml"}},
                    dir.file("tp.env")),
            "TUNEPLANE_SLURM_REST_URL \"ftp://x\": expected http://HOST:PORT, https://HOST:PORT or "
            "unix:/PATH/TO/SOCKET\n"
            "TUNEPLANE_SLURM_REST_API_VERSION \"v0.0.39\": expected auto (the newest the server offers) or one of "
            "v0.0.45 v0.0.44 v0.0.43 v0.0.42 v0.0.41 v0.0.40 v0.0.38\n"
            "TUNEPLANE_SLURM_JWT_LIFESPAN \"10s\": expected a duration from 1m to 7d\n"
            "TUNEPLANE_SLURM_PARTITION \"gpu,cpu\": expected a value that must be one Slurm name, without blanks, "
            "commas, colons, quotes, shell or control characters\n"
            "TUNEPLANE_INSTANCE \"Prod_A\": expected 1-20 lower-case letters, digits or '-', not starting with '-'\n"
            "TUNEPLANE_SLURM_RUNTIME_PROFILE \"docker\": expected enroot-pyxis or apptainer\n"
            "TUNEPLANE_STORAGE_ROOT \"relative/path\": expected an absolute path\n"
            "TUNEPLANE_SLURM_TLS_VERIFY \"maybe\": expected 1 or 0\n"
            "TUNEPLANE_POLL_INTERVAL \"10\": expected a duration such as 10s, 5m, 1h or 1h30m (a unit is required) "
            "(set in " +
                dir.file("tp.env") +
                ":1)\n"
                "TUNEPLANE_LOG_LEVEL \"loud\": expected trace, debug, info, warn, error or off\n"
                "TUNEPLANE_LOG_FORMAT \"xml\": expected text or json\n");
}

TEST(SettingsLoaderTest, ReadsTheConnectionSettings) {
  const auto defaults = load({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->settings.connect_timeout, std::chrono::seconds(5));
  EXPECT_EQ(defaults->settings.request_timeout, std::chrono::seconds(60));
  EXPECT_EQ(defaults->settings.low_speed_limit, 0);
  EXPECT_EQ(defaults->settings.low_speed_time, std::chrono::seconds(30));
  EXPECT_EQ(defaults->settings.proxy, "");
  EXPECT_FALSE(defaults->settings.allow_insecure_http);
  const auto loaded = load({{"TUNEPLANE_SLURM_CONNECT_TIMEOUT", "3s"},
                            {"TUNEPLANE_SLURM_REQUEST_TIMEOUT", "2m"},
                            {"TUNEPLANE_SLURM_LOW_SPEED_LIMIT", "100"},
                            {"TUNEPLANE_SLURM_LOW_SPEED_TIME", "45s"},
                            {"TUNEPLANE_SLURM_REST_URL", "https://slurmrestd.internal:6820"},
                            {"TUNEPLANE_SLURM_PROXY", "socks5h://127.0.0.1:1080"}});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  EXPECT_EQ(loaded->settings.connect_timeout, std::chrono::seconds(3));
  EXPECT_EQ(loaded->settings.request_timeout, std::chrono::seconds(120));
  EXPECT_EQ(loaded->settings.low_speed_limit, 100);
  EXPECT_EQ(loaded->settings.low_speed_time, std::chrono::seconds(45));
  EXPECT_EQ(loaded->settings.proxy, "socks5h://127.0.0.1:1080");
}

TEST(SettingsLoaderTest, EveryBadConnectionSettingIsOneLine) {
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_CONNECT_TIMEOUT", "0s"},
                     {"TUNEPLANE_SLURM_REQUEST_TIMEOUT", "2h"},
                     {"TUNEPLANE_SLURM_LOW_SPEED_LIMIT", "-1"},
                     {"TUNEPLANE_SLURM_LOW_SPEED_TIME", "fast"},
                     {"TUNEPLANE_SLURM_PROXY", "http://user:pw@proxy:3128"},
                     {"TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP", "maybe"}}),
            "TUNEPLANE_SLURM_CONNECT_TIMEOUT \"0s\": expected a duration from 1s to 5m\n"
            "TUNEPLANE_SLURM_REQUEST_TIMEOUT \"2h\": expected a duration from 1s to 1h\n"
            "TUNEPLANE_SLURM_LOW_SPEED_LIMIT \"-1\": expected bytes per second from 0 (off) to 1000000000\n"
            "TUNEPLANE_SLURM_LOW_SPEED_TIME \"fast\": expected a duration such as 10s, 5m, 1h or 1h30m\n"
            "TUNEPLANE_SLURM_PROXY \"http://user:pw@proxy:3128\": expected empty (no proxy) or SCHEME://HOST:PORT with "
            "SCHEME http, https, socks4, socks4a, socks5 or socks5h, without user or password\n"
            "TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP \"maybe\": expected 1 or 0\n");
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_CONNECT_TIMEOUT", "2m"}, {"TUNEPLANE_SLURM_REQUEST_TIMEOUT", "1m"}}),
            "TUNEPLANE_SLURM_CONNECT_TIMEOUT \"2m\": the connect timeout (2m) must not exceed the request timeout "
            "(1m), which includes connecting\n");
}

TEST(SettingsLoaderTest, SubmitModeAndSlurmLimitsHaveTheirDefaults) {
  const auto loaded = load({});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  const model::Settings& s = loaded->settings;
  EXPECT_EQ(s.submit_mode, model::SubmitMode::held);
  EXPECT_EQ(s.request_rate, 1000);
  EXPECT_EQ(s.pass_threads, 16);
  EXPECT_EQ(s.request_rate_floor, 10);
  EXPECT_EQ(s.slow_answer, std::chrono::milliseconds(1000));
  EXPECT_EQ(s.slow_factor, 8);
  EXPECT_EQ(s.backoff_initial, std::chrono::milliseconds(1000));
  EXPECT_EQ(s.backoff_max, std::chrono::milliseconds(300000));
  EXPECT_EQ(s.bulk_max_ids, 500u);
  EXPECT_EQ(s.bulk_max_url_bytes, 8000u);
  EXPECT_EQ(s.resolve_quiet_period, std::chrono::seconds(1800));
  for (const char* key :
       {"TUNEPLANE_SUBMIT_MODE", "TUNEPLANE_SLURM_REQUEST_RATE", "TUNEPLANE_SLURM_REQUEST_RATE_FLOOR",
        "TUNEPLANE_SLURM_SLOW_ANSWER", "TUNEPLANE_SLURM_SLOW_FACTOR", "TUNEPLANE_SLURM_BACKOFF_INITIAL",
        "TUNEPLANE_SLURM_BACKOFF_MAX", "TUNEPLANE_SLURM_BULK_MAX_IDS", "TUNEPLANE_SLURM_BULK_MAX_URL_BYTES",
        "TUNEPLANE_RESOLVE_QUIET_PERIOD"}) {
    EXPECT_EQ(loaded->sources.at(key), "default") << key;
  }
}

TEST(SettingsLoaderTest, OneUserModeIsTheDefaultAndPerUserModeNeedsItsMap) {
  const auto defaults = load({});
  ASSERT_TRUE(defaults.ok()) << defaults.error().to_text();
  EXPECT_EQ(defaults->settings.identity_mode, model::IdentityMode::one_user);
  EXPECT_EQ(defaults->settings.user_map_file, "");
  EXPECT_EQ(defaults->settings.first_user_id, 1000);

  const auto per_user = load({{"TUNEPLANE_IDENTITY_MODE", "per-user"},
                              {"TUNEPLANE_USER_MAP_FILE", "/etc/tuneplane-slurm/user-map.json"},
                              {"TUNEPLANE_FIRST_USER_ID", "5000"}});
  ASSERT_TRUE(per_user.ok()) << per_user.error().to_text();
  EXPECT_EQ(per_user->settings.identity_mode, model::IdentityMode::per_user);
  EXPECT_EQ(per_user->settings.user_map_file, "/etc/tuneplane-slurm/user-map.json");
  EXPECT_EQ(per_user->settings.first_user_id, 5000);

  EXPECT_EQ(refusal({{"TUNEPLANE_IDENTITY_MODE", "per-user"}}),
            "TUNEPLANE_USER_MAP_FILE: is not set; per-user mode (TUNEPLANE_IDENTITY_MODE=per-user) needs the user "
            "map: the JSON file of platform users and their Unix users (docs/operators-guide.md, \"Running jobs as "
            "their users\")\n");
  EXPECT_EQ(refusal({{"TUNEPLANE_IDENTITY_MODE", "per_user"},
                     {"TUNEPLANE_USER_MAP_FILE", "users.json"},
                     {"TUNEPLANE_FIRST_USER_ID", "0"}}),
            "TUNEPLANE_IDENTITY_MODE \"per_user\": expected one-user or per-user\n"
            "TUNEPLANE_USER_MAP_FILE \"users.json\": expected an absolute path\n"
            "TUNEPLANE_FIRST_USER_ID \"0\": expected a uid from 1 to 2147483647\n");
}

// A group every user shares would undo per-user mode's files, whose ACLs name the job's user.
TEST(SettingsLoaderTest, PerUserModeRefusesASharedStorageGroup) {
  EXPECT_EQ(refusal({{"TUNEPLANE_IDENTITY_MODE", "per-user"},
                     {"TUNEPLANE_USER_MAP_FILE", "/etc/tuneplane-slurm/user-map.json"},
                     {"TUNEPLANE_STORAGE_GROUP", "root"}}),
            "TUNEPLANE_STORAGE_GROUP: is set (\"root\"); per-user mode gives each job's files to its own user by ACL, "
            "and a group shared by every user would let one user's job read another's: leave the setting out\n");
}

TEST(SettingsLoaderTest, ReadsSubmitModeAndSlurmLimits) {
  const auto loaded = load({{"TUNEPLANE_SUBMIT_MODE", "direct"},
                            {"TUNEPLANE_PASS_THREADS", "64"},
                            {"TUNEPLANE_SLURM_REQUEST_RATE", "100000"},
                            {"TUNEPLANE_SLURM_REQUEST_RATE_FLOOR", "100000"},
                            {"TUNEPLANE_SLURM_SLOW_ANSWER", "10m"},
                            {"TUNEPLANE_SLURM_SLOW_FACTOR", "0"},
                            {"TUNEPLANE_SLURM_BACKOFF_INITIAL", "2s"},
                            {"TUNEPLANE_SLURM_BACKOFF_MAX", "1h"},
                            {"TUNEPLANE_SLURM_BULK_MAX_IDS", "1"},
                            {"TUNEPLANE_SLURM_BULK_MAX_URL_BYTES", "65536"},
                            {"TUNEPLANE_RESOLVE_QUIET_PERIOD", "7d"}});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  const model::Settings& s = loaded->settings;
  EXPECT_EQ(s.submit_mode, model::SubmitMode::direct);
  EXPECT_EQ(s.request_rate, 100000);
  EXPECT_EQ(s.pass_threads, 64);
  EXPECT_EQ(s.request_rate_floor, 100000);
  EXPECT_EQ(s.slow_answer, std::chrono::minutes(10));
  EXPECT_EQ(s.slow_factor, 0);
  EXPECT_EQ(s.backoff_initial, std::chrono::milliseconds(2000));
  EXPECT_EQ(s.backoff_max, std::chrono::milliseconds(3600000));
  EXPECT_EQ(s.bulk_max_ids, 1u);
  EXPECT_EQ(s.bulk_max_url_bytes, 65536u);
  EXPECT_EQ(s.resolve_quiet_period, std::chrono::hours(24 * 7));
  EXPECT_EQ(load({{"TUNEPLANE_SUBMIT_MODE", "held"}})->settings.submit_mode, model::SubmitMode::held);
  EXPECT_EQ(load({{"TUNEPLANE_RESOLVE_QUIET_PERIOD", "1s"}})->settings.resolve_quiet_period, std::chrono::seconds(1));
  EXPECT_EQ(load({{"TUNEPLANE_SLURM_SLOW_FACTOR", "1000"}})->settings.slow_factor, 1000);
}

TEST(SettingsLoaderTest, EveryBadSubmitModeOrLimitIsOneLine) {
  TempDir dir;
  testing::write_test_file(dir.file("tp.env"), "TUNEPLANE_SLURM_BULK_MAX_URL_BYTES=999\n");
  EXPECT_EQ(
      refusal({{"TUNEPLANE_SUBMIT_MODE", "Held"},
               {"TUNEPLANE_SLURM_REQUEST_RATE", "0"},
               {"TUNEPLANE_SLURM_SLOW_ANSWER", "0s"},
               {"TUNEPLANE_SLURM_SLOW_FACTOR", "1"},
               {"TUNEPLANE_SLURM_BACKOFF_INITIAL", "500ms"},
               {"TUNEPLANE_SLURM_BACKOFF_MAX", "2h"},
               {"TUNEPLANE_SLURM_BULK_MAX_IDS", "5001"},
               {"TUNEPLANE_RESOLVE_QUIET_PERIOD", "8d"}},
              dir.file("tp.env")),
      "TUNEPLANE_SLURM_REQUEST_RATE \"0\": expected calls per second from 1 to 100000\n"
      "TUNEPLANE_SLURM_SLOW_ANSWER \"0s\": expected a duration from 1s to 10m\n"
      "TUNEPLANE_SLURM_SLOW_FACTOR \"1\": expected 0 (off) or a factor from 2 to 1000\n"
      "TUNEPLANE_SLURM_BACKOFF_INITIAL \"500ms\": expected a duration such as 10s, 5m, 1h or 1h30m\n"
      "TUNEPLANE_SLURM_BACKOFF_MAX \"2h\": expected a duration from 1s to 1h\n"
      "TUNEPLANE_SLURM_BULK_MAX_IDS \"5001\": expected job ids per bulk query from 1 to 5000\n"
      "TUNEPLANE_SLURM_BULK_MAX_URL_BYTES \"999\": expected bytes per bulk query target from 1000 to 65536 "
      "(set in " +
          dir.file("tp.env") +
          ":1)\n"
          "TUNEPLANE_SUBMIT_MODE \"Held\": expected held (every job is released only after its identity check) or "
          "direct\n"
          "TUNEPLANE_RESOLVE_QUIET_PERIOD \"8d\": expected a duration from 1s to 7d\n");
  for (const char* count : {"", "-1", "+5", "1.5", "12abc", " 7", "99999999999999999999"}) {
    EXPECT_EQ(
        refusal({{"TUNEPLANE_SLURM_REQUEST_RATE", count}}),
        "TUNEPLANE_SLURM_REQUEST_RATE " + model::quote_value(count) + ": expected calls per second from 1 to 100000\n")
        << count;
  }
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_BACKOFF_INITIAL", "0s"}, {"TUNEPLANE_RESOLVE_QUIET_PERIOD", "0s"}}),
            "TUNEPLANE_SLURM_BACKOFF_INITIAL \"0s\": expected a duration from 1s to 10m\n"
            "TUNEPLANE_RESOLVE_QUIET_PERIOD \"0s\": expected a duration from 1s to 7d\n");
}

// The floor of the adaptive rate is at most its ceiling: a ceiling set below the default floor
// takes the floor down with it; a floor set above the ceiling is refused.
TEST(SettingsLoaderTest, TheRateFloorIsNeverAboveTheCeiling) {
  const auto low = load({{"TUNEPLANE_SLURM_REQUEST_RATE", "4"}});
  ASSERT_TRUE(low.ok()) << low.error().to_text();
  EXPECT_EQ(low->settings.request_rate, 4);
  EXPECT_EQ(low->settings.request_rate_floor, 4);
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_REQUEST_RATE", "50"}, {"TUNEPLANE_SLURM_REQUEST_RATE_FLOOR", "60"}}),
            "TUNEPLANE_SLURM_REQUEST_RATE_FLOOR \"60\": the floor is above the ceiling (TUNEPLANE_SLURM_REQUEST_RATE "
            "50); lower it or raise the ceiling\n");
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_REQUEST_RATE_FLOOR", "1001"}}),
            "TUNEPLANE_SLURM_REQUEST_RATE_FLOOR \"1001\": the floor is above the ceiling (TUNEPLANE_SLURM_REQUEST_RATE "
            "1000); lower it or raise the ceiling\n");
}

// The calls per poll cycle of before are not read any more: set, in the environment or a file,
// under the current name or the old prefix, they are refused with what replaced them, never
// dropped quietly (they were a site's limit on slurmctld's load).
TEST(SettingsLoaderTest, TheRetiredRequestBudgetIsRefusedWithWhatReplacedIt) {
  const std::string why =
      ": is no longer read: the calls per poll cycle became TUNEPLANE_SLURM_REQUEST_RATE, calls per second; set "
      "that to this value divided by the poll interval in seconds, and remove this line";
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_REQUEST_BUDGET", "300"}}),
            "TUNEPLANE_SLURM_REQUEST_BUDGET \"300\"" + why + "\n");
  EXPECT_EQ(refusal({{"FORGE_SLURM_REQUEST_BUDGET", "300"}}), "FORGE_SLURM_REQUEST_BUDGET \"300\"" + why + "\n");
  TempDir dir;
  testing::write_test_file(dir.file("tp.env"), "TUNEPLANE_POLL_INTERVAL=10s\nTUNEPLANE_SLURM_REQUEST_BUDGET=300\n");
  EXPECT_EQ(refusal({}, dir.file("tp.env")),
            "TUNEPLANE_SLURM_REQUEST_BUDGET \"300\"" + why + " (set in " + dir.file("tp.env") + ":2)\n");
}

TEST(SettingsLoaderTest, TheMaximumBackOffMustNotBeShorterThanTheInitialOne) {
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_BACKOFF_INITIAL", "10s"}, {"TUNEPLANE_SLURM_BACKOFF_MAX", "5s"}}),
            "TUNEPLANE_SLURM_BACKOFF_MAX \"5s\": the maximum back-off (5s) must not be shorter than the initial one "
            "(10s); raise TUNEPLANE_SLURM_BACKOFF_MAX or lower TUNEPLANE_SLURM_BACKOFF_INITIAL\n");
  // Against the default maximum, the key that was set is the one named.
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_BACKOFF_INITIAL", "6m"}}),
            "TUNEPLANE_SLURM_BACKOFF_INITIAL \"6m\": the maximum back-off (5m) must not be shorter than the initial "
            "one (6m); raise TUNEPLANE_SLURM_BACKOFF_MAX or lower TUNEPLANE_SLURM_BACKOFF_INITIAL\n");
  // A value refused on its own gets its one line and no second one.
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_BACKOFF_INITIAL", "6m"}, {"TUNEPLANE_SLURM_BACKOFF_MAX", "0s"}}),
            "TUNEPLANE_SLURM_BACKOFF_MAX \"0s\": expected a duration from 1s to 1h\n");
  const auto equal = load({{"TUNEPLANE_SLURM_BACKOFF_INITIAL", "30s"}, {"TUNEPLANE_SLURM_BACKOFF_MAX", "30s"}});
  ASSERT_TRUE(equal.ok()) << equal.error().to_text();
  EXPECT_EQ(equal->settings.backoff_max, std::chrono::seconds(30));
}

TEST(SettingsLoaderTest, PlainHttpToARemoteHostNeedsAnExplicitYes) {
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_REST_URL", "http://slurmrestd.internal:6820"}}),
            "TUNEPLANE_SLURM_REST_URL \"http://slurmrestd.internal:6820\": would send the JWT unencrypted over http:// "
            "to slurmrestd.internal; use https:// or a unix: socket, or set TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1 to "
            "allow it\n");
  EXPECT_EQ(
      refusal({{"TUNEPLANE_SLURM_PROXY", "http://proxy.example:3128"}}),
      "TUNEPLANE_SLURM_PROXY \"http://proxy.example:3128\": would send the JWT unencrypted over http:// to "
      "proxy.example; use https:// or a unix: socket, or set TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1 to allow it\n");
  const auto allowed = load(
      {{"TUNEPLANE_SLURM_REST_URL", "http://slurmrestd.internal:6820"}, {"TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP", "1"}});
  ASSERT_TRUE(allowed.ok());
  EXPECT_TRUE(allowed->settings.allow_insecure_http);
  for (const char* url : {"http://127.0.0.1:6820", "http://127.5.0.1:6820", "http://localhost:6820",
                          "http://[::1]:6820", "https://slurmrestd.internal:6820", "unix:/run/slurmrestd.sock"}) {
    EXPECT_TRUE(load({{"TUNEPLANE_SLURM_REST_URL", url}}).ok()) << url;
  }
}

TEST(SettingsLoaderTest, AcceptsUnixSocketUrls) {
  EXPECT_EQ(load({{"TUNEPLANE_SLURM_REST_URL", "unix:/run/slurmrestd.sock"}})->settings.rest_url,
            "unix:/run/slurmrestd.sock");
  EXPECT_NE(refusal({{"TUNEPLANE_SLURM_REST_URL", "unix:relative.sock"}}), "");
}

TEST(SettingsLoaderTest, RefusesSecretFilesOthersCanWrite) {
  TempDir dir;
  testing::write_test_file(dir.file("jwt"), "t", perms::owner_read | perms::owner_write | perms::group_write);
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_JWT_FILE", dir.file("jwt")}}),
            "TUNEPLANE_SLURM_JWT_FILE \"" + dir.file("jwt") +
                "\": is writable by group or others (mode 0620); run: "
                "chmod 600 " +
                dir.file("jwt") + "\n");
}

TEST(SettingsLoaderTest, RefusesSecretFilesOfAnotherUser) {
  TempDir dir;
  testing::write_test_file(dir.file("key"), "k");
  const auto loaded = load({{"TUNEPLANE_SLURM_JWT_KEY_FILE", dir.file("key")}}, std::nullopt, ::geteuid() + 1);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().to_text(), "TUNEPLANE_SLURM_JWT_KEY_FILE \"" + dir.file("key") + "\": is owned by uid " +
                                          std::to_string(::geteuid()) + ", not by this process's user (uid " +
                                          std::to_string(::geteuid() + 1) +
                                          "); a secret must belong to the user that reads it: chown it\n");
}

TEST(SettingsLoaderTest, WarnsAboutReadableSecretFiles) {
  TempDir dir;
  testing::write_test_file(dir.file("jwt"), "t", perms::owner_read | perms::group_read | perms::others_read);
  const auto loaded = load({{"TUNEPLANE_SLURM_JWT_FILE", dir.file("jwt")}});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  EXPECT_EQ(loaded->warnings, std::vector<std::string>{"TUNEPLANE_SLURM_JWT_FILE: " + dir.file("jwt") +
                                                       " is readable by group or others (mode 0444); chmod 600 it "
                                                       "unless it is a mounted read-only secret"});
}

// The cluster's key signs tokens for every user: readable by group or others is refused, not
// warned about as a token file is.
TEST(SettingsLoaderTest, RefusesAJwtKeyOthersCanRead) {
  TempDir dir;
  testing::write_test_file(dir.file("key"), "k", perms::owner_read | perms::group_read);
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_JWT_KEY_FILE", dir.file("key")}}),
            "TUNEPLANE_SLURM_JWT_KEY_FILE \"" + dir.file("key") +
                "\": is readable by group or others (mode 0440): it signs Slurm tokens for any user; run: chmod 400 " +
                dir.file("key") + "\n");
  testing::write_test_file(dir.file("own"), "k", perms::owner_read);
  const auto loaded = load({{"TUNEPLANE_SLURM_JWT_KEY_FILE", dir.file("own")}});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  EXPECT_TRUE(loaded->warnings.empty());
}

TEST(SettingsLoaderTest, RefusesMissingSecretFilesAndBothKinds) {
  TempDir dir;
  testing::write_test_file(dir.file("jwt"), "t");
  testing::write_test_file(dir.file("key"), "k");
  EXPECT_EQ(refusal({{"TUNEPLANE_SLURM_JWT_FILE", dir.file("missing")}}),
            "TUNEPLANE_SLURM_JWT_FILE \"" + dir.file("missing") + "\": cannot be read: No such file or directory\n");
  EXPECT_EQ(
      refusal({{"TUNEPLANE_SLURM_JWT_FILE", dir.file("jwt")}, {"TUNEPLANE_SLURM_JWT_KEY_FILE", dir.file("key")}}),
      "TUNEPLANE_SLURM_JWT_KEY_FILE \"" + dir.file("key") +
          "\": cannot be combined with "
          "TUNEPLANE_SLURM_JWT_FILE; set one of them (a token file is the default, minting from the key is opt-in)\n");
}

TEST(SettingsLoaderTest, ReadsTheApiSettings) {
  TempDir dir;
  testing::write_test_file(dir.file("tokens"), "alice 0123456789abcdef\n");
  const auto defaults = load({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->settings.api_listen, "127.0.0.1:8740");
  EXPECT_EQ(defaults->settings.api_tokens_file, "");
  const auto loaded = load(
      {{"TUNEPLANE_API_LISTEN", "unix:/run/tuneplane/api.sock"}, {"TUNEPLANE_API_TOKENS_FILE", dir.file("tokens")}});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  EXPECT_EQ(loaded->settings.api_listen, "unix:/run/tuneplane/api.sock");
  EXPECT_EQ(loaded->settings.api_tokens_file, dir.file("tokens"));
  EXPECT_TRUE(load({{"TUNEPLANE_API_LISTEN", "[::1]:0"}}).ok());
}

TEST(SettingsLoaderTest, EveryBadApiSettingIsOneLine) {
  TempDir dir;
  testing::write_test_file(dir.file("tokens"), "t", perms::owner_read | perms::owner_write | perms::others_write);
  EXPECT_EQ(refusal({{"TUNEPLANE_API_LISTEN", "localhost:8740"}, {"TUNEPLANE_API_TOKENS_FILE", dir.file("tokens")}}),
            "TUNEPLANE_API_LISTEN \"localhost:8740\": expected IPV4:PORT (e.g. 127.0.0.1:8740), [IPV6]:PORT or "
            "unix:/PATH/TO/SOCKET, with a port from 0 to 65535\n"
            "TUNEPLANE_API_TOKENS_FILE \"" +
                dir.file("tokens") + "\": is writable by group or others (mode 0602); run: chmod 600 " +
                dir.file("tokens") + "\n");
}

TEST(SettingsLoaderTest, AnUnreadableConfigFileIsAProblem) {
  EXPECT_EQ(refusal({}, "/nonexistent/tp.env"),
            "--config \"/nonexistent/tp.env\": cannot be read: open /nonexistent/tp.env: No such file or directory\n");
}

TEST(SettingsLoaderTest, InstanceFromHostName) {
  EXPECT_EQ(instance_from_host("Login01.cluster.example"), "login01");
  EXPECT_EQ(instance_from_host("gpu_head_node_with_a_long_name"), "gpu-head-node-with-a");
  EXPECT_EQ(instance_from_host(""), "tp");
  EXPECT_EQ(instance_from_host("--"), "tp");
}

TEST(EnvExampleTest, TheShippedExampleUsesOnlyKnownKeys) {
  const std::string path = std::string(TP_SOURCE_DIR) + "/etc/tuneplane-slurm.env.example";
  const auto entries = parse_env_file(testing::read_test_file(path), path);
  ASSERT_TRUE(entries.ok()) << entries.error().to_text();
  EXPECT_GE(entries->size(), 10u);
  for (const auto& entry : *entries) EXPECT_NE(find_setting_key(entry.key), nullptr) << entry.key;
  // Every setting is at least mentioned, so the example documents them all.
  const std::string text = testing::read_test_file(path);
  for (const auto& key : setting_keys()) EXPECT_NE(text.find(key.name), std::string::npos) << key.name;
}

// docs/configuration.md is the settings' reference: every key of the table has a row there
// (the site settings share one: TUNEPLANE_SLURM_ACCOUNT, `_QOS`, `_RESERVATION`, `_WCKEY`), and
// every TUNEPLANE_ key it names is a setting.
TEST(ConfigurationReferenceTest, DocumentsEverySettingAndNoOther) {
  const std::string doc = testing::read_test_file(std::string(TP_SOURCE_DIR) + "/docs/configuration.md");
  for (const auto& key : setting_keys()) {
    const std::string_view name = key.name;
    const std::string suffix = "`_" + std::string(name.substr(name.rfind('_') + 1)) + "`";
    EXPECT_TRUE(doc.find("| `" + std::string(name) + "`") != std::string::npos ||
                (name.starts_with("TUNEPLANE_SLURM_") && doc.find(suffix) != std::string::npos))
        << name << " has no row in docs/configuration.md";
  }
  std::size_t named = 0;
  for (std::size_t at = doc.find("TUNEPLANE_"); at != std::string::npos; at = doc.find("TUNEPLANE_", at + 1)) {
    std::size_t end = at;
    while (end < doc.size() && (std::isupper(static_cast<unsigned char>(doc[end])) || doc[end] == '_' ||
                                std::isdigit(static_cast<unsigned char>(doc[end])))) {
      ++end;
    }
    const std::string name = doc.substr(at, end - at);
    if (name.ends_with("_")) continue;  // a family: TUNEPLANE_* or TUNEPLANE_SLURM_
    ++named;
    EXPECT_NE(find_setting_key(name), nullptr) << name << " is in docs/configuration.md but is no setting";
  }
  EXPECT_GE(named, setting_keys().size() - 3) << "the reference names the settings";
}

TEST(SettingKeysTest, SuggestsOnlyNearNames) {
  EXPECT_EQ(closest_setting_key("TUNEPLANE_SLURM_PARTITON"), "TUNEPLANE_SLURM_PARTITION");
  EXPECT_EQ(closest_setting_key("TUNEPLANE_SOMETHING_ELSE_ENTIRELY"), std::nullopt);
}

// The storage root as the nodes see it is joined into the container runtimes' bind lists and
// image paths, so it is held to their path rule (model/runtime_path.h): TUNEPLANE_SLURM_STORAGE_ROOT,
// or TUNEPLANE_STORAGE_ROOT when the nodes see the storage where this host does. A trailing '/'
// is the one spelling the loader puts right itself, as it does for every path setting.
class StorageRootPathTest : public ::testing::TestWithParam<std::tuple<const char*, testing::HostilePath>> {};

TEST_P(StorageRootPathTest, IsRefusedNamingTheKey) {
  const auto& [key, hostile] = GetParam();
  const std::string base = "/lustre/tp";
  const std::string value = hostile.value(base);
  Environment environment{{key, value}};
  if (std::string_view(key) == "TUNEPLANE_SLURM_STORAGE_ROOT") environment["TUNEPLANE_STORAGE_ROOT"] = "/srv/tp";
  const auto loaded = load(environment);
  if (value.back() == '/') {
    ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
    EXPECT_EQ(loaded->settings.slurm_storage_root, base + "/in");
    return;
  }
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().to_text(),
            std::string(key) + " " + model::quote_value(value) + ": " + refusal_words(hostile, base, false) + "\n");
}

INSTANTIATE_TEST_SUITE_P(EveryClass, StorageRootPathTest,
                         ::testing::Combine(::testing::Values("TUNEPLANE_SLURM_STORAGE_ROOT", "TUNEPLANE_STORAGE_ROOT"),
                                            ::testing::ValuesIn(testing::kHostilePaths)),
                         [](const ::testing::TestParamInfo<std::tuple<const char*, testing::HostilePath>>& param_info) {
                           return std::string(std::get<0>(param_info.param)) + "_" + std::get<1>(param_info.param).name;
                         });

// The storage root as this host sees it reaches no runtime when the nodes see it elsewhere.
TEST(SettingsLoaderTest, TheLocalStorageRootIsFreeWhenTheNodesSeeTheStorageElsewhere) {
  const auto loaded =
      load({{"TUNEPLANE_STORAGE_ROOT", "/mnt/shared storage"}, {"TUNEPLANE_SLURM_STORAGE_ROOT", "/lustre/tp"}});
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_text();
  EXPECT_EQ(loaded->settings.storage_root, "/mnt/shared storage");
}

}  // namespace
}  // namespace tpslurm::config
