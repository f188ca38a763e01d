// Runs rendered batch scripts under bash, with stand-ins for srun and scontrol (bash
// functions), a stand-in for `ray`/`python3` on the tasks' PATH, and a stand-in program that
// records the argv and environment it received. Every value of the job's environment and
// command, and every Slurm name and site setting the script carries, is adversarial here —
// quotes, $, backticks, ;, newlines, tabs, control characters, UTF-8, leading dashes, empty
// strings — and must arrive byte for byte. The paths the container runtimes parse may hold only
// [A-Za-z0-9._/-] in normal form (runtime_path_test.cc refuses every other byte and spelling):
// here they are the most awkward that rule lets through (components that start with '-' or '.',
// dots inside names), from a storage root of the same kind.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <stdexcept>

#include "base/digest.h"
#include "bash_syntax.h"
#include "render/shell_quote.h"
#include "render_fixtures.h"
#include "sbatch_reader.h"
#include "storage/attempt_directory.h"
#include "storage/attempt_evidence.h"
#include "storage/job_credential.h"
#include "storage/layout.h"
#include "storage/memory_hash_cache.h"
#include "storage/mount_sources.h"
#include "support/run_process.h"
#include "support/temp_dir.h"
#include "support/tmpfs_mount.h"

namespace tpslurm::render {
namespace {

using tpslurm::testing::read_test_file;
using tpslurm::testing::TempDir;
using tpslurm::testing::TmpfsMount;
using tpslurm::testing::write_test_file;
namespace fs = std::filesystem;

const std::string kToken = "tok-s3cret-never-in-env";
const std::string kNothingStarted = "tuneplane: image verification failed on the batch host; nothing was started\n";

// The batch shell's own host name (the tasks' is the stand-in's).
std::string batch_host() {
  auto result = tpslurm::testing::run_process({"/bin/hostname"}, {{"PATH", "/usr/bin:/bin"}});
  std::string name = result.out;
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}
const std::string kImageBytes = "not really a squashfs image\n";

// A storage root as awkward as the runtimes' path rule allows.
const std::string kAwkwardDir = "-store_.x/..root-";
// Where the stand-in program lives: the command is not a path the runtimes parse, so its
// directory may hold everything a shell could trip over.
const std::string kHostileDir = "bin 'q\" $HOME `id` $(id) ;&|<>*?[]~{}\\#!ü €\t-x";

const std::vector<std::string> kHostileArgs = {"",
                                               "two words",
                                               "$HOME",
                                               "`id`",
                                               "$(id)",
                                               "'",
                                               "\"",
                                               "a\nb",
                                               "\t",
                                               "-e",
                                               "-n",
                                               "--",
                                               ";",
                                               "&& echo pwned",
                                               "|",
                                               "*",
                                               "~",
                                               "!",
                                               "\\",
                                               "ü€😀",
                                               "\x01\x1b[31m\x7f",
                                               "--flag=$(x)",
                                               "trailing\n\n",
                                               "=x=",
                                               "%s%n",
                                               "${IFS}"};

const std::vector<std::pair<std::string, std::string>> kHostileEnv = {{"A_EMPTY", ""},
                                                                      {"B_SPACES", "two  words "},
                                                                      {"C_DOLLAR", "$HOME ${PATH} $(id) `id`"},
                                                                      {"D_QUOTES", "a'b\"c"},
                                                                      {"E_NEWLINES", "line1\nline2\n"},
                                                                      {"F_TABS", "\tx\t"},
                                                                      {"G_DASH", "-e"},
                                                                      {"H_UTF8", "ü€😀"},
                                                                      {"I_CONTROL", "\x01\x02\x1b\x7f"},
                                                                      {"J_SEMICOLON", "; rm -rf /tmp/x &"},
                                                                      {"K_BACKSLASH", "\\\\n\\"},
                                                                      {"L_EQUALS", "=a=b="},
                                                                      {"STANDIN_EXIT", "0"}};

// The stand-in srun: records everything it was given, with the environment it inherits from the
// batch shell and the names of the batch shell's variables; skips its own options (and
// `apptainer exec` with its options and the image, as the runtimes consume them) and runs the
// task (the wrapper, as inside the container) once per --ntasks with
// SLURM_PROCID set, the tasks' PATH extended by the fake bin directory (where `hostname` says
// node<SLURM_PROCID + 1>, so each task is a node of its own). In the background, like srun, it
// outlives USR1 and TERM (a real one passes them on to the tasks). TP_FAKE_SRUN_FAIL fails the
// container steps; with TP_FAKE_SRUN_FAIL_VERIFY=1, the image checks' steps instead;
// TP_FAKE_SRUN_FAIL_STEP=WORD only the container steps that have WORD among their arguments
// (--het-group=1, tuneplane-ray-driver). TP_FAKE_SRUN_PARTIAL=1 writes the start of a line to
// the step's stderr before its tasks run, as another task's unfinished line would be.
// TP_FAKE_SRUN_HOLD_STDERR=1 passes the tasks' stderr on only once they have all ended, as
// lines still on their way to srun would be lost with it. TP_FAKE_SRUN_SKIP_RAY_CLEANUP=1 leaves
// out the steps that remove Ray's temp directories.
const char* const kFakeSrun = R"sh(() { local record; record=$(mktemp "$TP_FAKE_DIR/srun-XXXXXX"); printf '%s\0' "$@" > "$record";
  env -0 > "$TP_FAKE_SHELL_DIR/env.${record##*/}"; compgen -v > "$TP_FAKE_SHELL_DIR/vars.${record##*/}";
  local verify=0 chosen=0 arg; for arg in "$@"; do [ "$arg" = tuneplane-verify ] && verify=1; [ "$arg" = "${TP_FAKE_SRUN_FAIL_STEP:-}" ] && chosen=1; done;
  for arg in "$@"; do [ "$arg" = tuneplane-ray-cleanup ] && [ -n "${TP_FAKE_SRUN_SKIP_RAY_CLEANUP:-}" ] && return 0; done;
  if [ -n "${TP_FAKE_SRUN_FAIL:-}" ] && [ "$verify" = "${TP_FAKE_SRUN_FAIL_VERIFY:-0}" ]; then echo "pyxis: failed to create container" >&2; return 125; fi;
  if [ "$verify" = 0 ] && [ "$chosen" = 1 ]; then echo "pyxis: failed to create container" >&2; return 125; fi;
  if [ "$verify" = 0 ] && [ -n "${TP_FAKE_SRUN_PARTIAL:-}" ]; then printf 'srun: a line not ended yet, ' >&2; fi;
  local ntasks=1; while [ $# -gt 0 ]; do case $1 in --ntasks=*) ntasks=${1#--ntasks=} ;; -*) ;; *) break ;; esac; shift; done;
  if [ "$1" = apptainer ]; then shift 2; while [ $# -gt 0 ]; do case $1 in --contain|--nv|--no-home) shift ;; --bind|--no-mount|--pwd) shift 2 ;; *) break ;; esac; done; shift; fi;
  if [ "$BASHPID" != "$$" ]; then trap : USR1 TERM; fi;
  local held=/dev/stderr; if [ "$verify" = 0 ] && [ -n "${TP_FAKE_SRUN_HOLD_STDERR:-}" ]; then held=$(mktemp); fi;
  local i rc=0; for ((i = 0; i < ntasks; i++)); do PATH="$TP_FAKE_BIN:$PATH" SLURM_PROCID=$i "$@" 2>>"$held" || rc=$?; done;
  if [ "$held" != /dev/stderr ]; then cat "$held" >&2; rm -f "$held"; fi; return $rc; })sh";

const char* const kFakeScontrol =
    R"(() { if [ "$1 $2" = "show hostnames" ]; then case $3 in *b*) printf 'b1\n' ;; *c*) printf 'c1\n' ;; *) printf 'node1\nnode2\n' ;; esac; fi; })";

std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\0', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::map<std::string, std::string> parse_env(const std::string& text) {
  std::map<std::string, std::string> env;
  for (const auto& entry : split_nul(text)) {
    const auto eq = entry.find('=');
    env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

class ScriptRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = m_tmp.file(kAwkwardDir);
    m_fake_bin = m_tmp.file("fakebin");
    m_out = m_tmp.file("out");
    fs::create_directories(m_out);
    fs::create_directories(m_tmp.file("fake"));
    fs::create_directories(m_tmp.file("fake-shell"));
    // The hostile request's mount sources: the nodes check them before any container starts.
    fs::create_directories(m_root + "/-data.set/.x_y");
    fs::create_directories(m_root + "/out");
    write_test_file(m_root + "/runtimes/-hostile_image.sqsh", kImageBytes);
    write_test_file(m_root + "/runtimes/-hostile_image.sif", kImageBytes);
    // command[0] is a hostile path.
    m_standin = m_tmp.file(kHostileDir) + "/stand in 'x' $y";
    write_test_file(m_standin,
                    "#!/bin/bash\nprintf '%s\\0' \"$@\" > " + shell_quote(m_out) + "/argv.\"$NODE_RANK\"\nenv -0 > " +
                        shell_quote(m_out) + "/env.\"$NODE_RANK\"\nexit \"${STANDIN_EXIT:-0}\"\n",
                    fs::perms::owner_all);
    write_test_file(m_fake_bin + "/ray",
                    "#!/bin/bash\nprintf '%s\\0' \"$@\" > " + shell_quote(m_out) +
                        "/ray.\"$$\"\nprintf '%s' \"$RAY_TMPDIR\" > " + shell_quote(m_out) + "/raytmp.\"$$\"\n",
                    fs::perms::owner_all);
    write_test_file(m_fake_bin + "/python3", "#!/bin/bash\necho \"$TP_FAKE_RAY_NODES\"\n", fs::perms::owner_all);
    write_test_file(m_fake_bin + "/hostname", "#!/bin/bash\necho \"node$((${SLURM_PROCID:-0} + 1))\"\n",
                    fs::perms::owner_all);
    // A node whose view of the shared image differs (TP_FAKE_BAD_NODE); every hash is logged.
    write_test_file(m_fake_bin + "/sha256sum",
                    "#!/bin/bash\nnode=$(hostname)\necho \"$node\" >> " + shell_quote(m_out) +
                        "/hashed\nif [ \"$node\" = \"${TP_FAKE_BAD_NODE:-}\" ]; then echo \"" + std::string(64, '0') +
                        "  -\"; else exec /usr/bin/sha256sum \"$@\"; fi\n",
                    fs::perms::owner_all);
    const std::string sha = sha256_hex(kImageBytes);
    auto registry = model::RuntimeRegistry::parse(
        R"({ "runtimes": {
          "custom-hostile": { "framework": "custom", "launcher": "srun",
            "sqsh": { "path": "runtimes/-hostile_image.sqsh", "sha256": ")" +
            sha + R"(" },
            "sif": { "path": "runtimes/-hostile_image.sif", "sha256": ")" +
            sha + R"(" } },
          "custom-ray": { "framework": "custom", "launcher": "ray",
            "sqsh": { "path": "runtimes/-hostile_image.sqsh", "sha256": ")" +
            sha + R"(" },
            "sif": { "path": "runtimes/-hostile_image.sif", "sha256": ")" +
            sha + R"(" } } } })",
        "registry");
    ASSERT_TRUE(registry.ok()) << registry.error().to_text();
    m_registry = std::move(*registry);
  }

  model::LaunchRequest hostile_request(const std::string& runtime = "custom-hostile") {
    model::LaunchRequest request;
    request.job_id = "adv-hetjob-1";
    request.type = "custom";
    request.framework = "custom";
    request.runtime_id = runtime;
    request.command = {m_standin};
    request.command.insert(request.command.end(), kHostileArgs.begin(), kHostileArgs.end());
    request.working_dir = "/-work.dir/.q/x..y/-";
    request.env = kHostileEnv;
    request.pools = {{"main", "h100-80g", 2, 8, 16, 64 * 1024}};
    request.mounts = {{"-data.set/.x_y", "/mnt/-a..b_c.d", true}, {"out", "/out-put", false}};
    request.time_limit_minutes = 60;
    request.slurm.account = "acct \"q\" #not-a-comment 'x' \\";
    request.slurm.qos = "q\tos";
    request.ingest_token = kToken;
    return request;
  }

  model::Settings hostile_settings(model::RuntimeProfile profile = model::RuntimeProfile::enroot_pyxis) {
    model::Settings settings = testing::settings(profile);
    settings.storage_root = m_root;
    settings.partition = "gpu part";
    settings.instance = "inst 'x' \"y\" #z";
    settings.reservation = "res #1 \\ 'r'";
    settings.wckey = "wc\tkey";
    return settings;
  }

  // Renders, writes the attempt directory and returns the rendered attempt.
  RenderedAttempt prepare(const model::LaunchRequest& request, const model::Settings& settings) {
    m_inputs = testing::inputs(settings, request.job_id);
    auto credential = storage::write_job_credential(settings.storage_root, request.job_id, kToken, "hmac-key");
    EXPECT_TRUE(credential.ok()) << credential.error().message();
    m_inputs.job_credential_path = credential->path;
    const model::Runtime* runtime = m_registry.find(request.runtime_id);
    auto rendered = render_attempt(request, *runtime, testing::gpu_series(), settings, m_inputs);
    EXPECT_TRUE(rendered.ok()) << rendered.error().to_text();
    storage::MemoryHashCache cache;
    storage::ArtifactHasher hasher(cache);
    auto written = storage::write_attempt_directory(m_inputs.local_attempt_dir, rendered->layout, hasher);
    EXPECT_TRUE(written.ok()) << written.error().message();
    return std::move(*rendered);
  }

  // Runs the attempt's job.sh under bash with the stand-ins (`launcher` goes before bash).
  tpslurm::testing::ProcessResult run(const tpslurm::testing::EnvironmentMap& extra_env = {},
                                      const std::vector<std::string>& launcher = {}) {
    tpslurm::testing::EnvironmentMap env = {{"PATH", "/usr/bin:/bin"},
                                            {"SLURM_JOB_ID", "4242"},
                                            {"SLURM_JOB_NODELIST", "node[1-2]"},
                                            {"TP_FAKE_DIR", m_tmp.file("fake")},
                                            {"TP_FAKE_SHELL_DIR", m_tmp.file("fake-shell")},
                                            {"TP_FAKE_BIN", m_fake_bin},
                                            {"BASH_FUNC_srun%%", kFakeSrun},
                                            {"BASH_FUNC_scontrol%%", kFakeScontrol}};
    for (const auto& [name, value] : extra_env) env[name] = value;
    std::vector<std::string> argv = launcher;
    argv.insert(argv.end(), {"/bin/bash", m_inputs.local_attempt_dir + "/job.sh"});
    return tpslurm::testing::run_process(argv, env);
  }

  std::string attempt_file(const std::string& relative) const {
    return read_test_file(m_inputs.local_attempt_dir + "/" + relative);
  }

  // exit.json's failed phase as the reconciler reads it: "" for none, "<no exit.json>" when
  // there is no evidence it accepts.
  std::string failed_phase() const {
    const auto exit = storage::read_exit(m_inputs.local_attempt_dir);
    return exit ? exit->failed_phase : "<no exit.json>";
  }

  // A program of the request's own, a /bin/sh script under the hostile root, run instead of the
  // stand-in.
  std::string program(const std::string& name, const std::string& body) {
    const std::string path = m_root + "/bin dir/" + name;
    write_test_file(path, "#!/bin/sh\n" + body, fs::perms::owner_all);
    return path;
  }

  // The arguments of every srun call that starts containers (not the image checks' steps), in
  // no particular order.
  std::vector<std::vector<std::string>> srun_calls() const { return calls_where(false); }
  // The image checks' steps.
  std::vector<std::vector<std::string>> verify_calls() const { return calls_where(true); }

  std::vector<std::vector<std::string>> calls_where(bool verify) const {
    std::vector<std::vector<std::string>> calls;
    for (const auto& entry : fs::directory_iterator(m_tmp.file("fake"))) {
      auto call = split_nul(read_test_file(entry.path()));
      const bool is_verify = std::find(call.begin(), call.end(), "tuneplane-verify") != call.end();
      if (is_verify == verify) calls.push_back(std::move(call));
    }
    return calls;
  }

  std::string option_value(const std::vector<std::string>& call, const std::string& option) const {
    for (std::size_t i = 0; i < call.size(); ++i) {
      if (call[i].rfind(option + "=", 0) == 0) return call[i].substr(option.size() + 1);
      if (call[i] == option && i + 1 < call.size()) return call[i + 1];
    }
    return "<absent>";
  }

  std::string expected_binds(const model::LaunchRequest& request) const {
    const std::string& dir = m_inputs.cluster_attempt_dir;
    std::string binds = dir + ":" + dir + ":ro," + dir + "/scratch:" + dir + "/scratch";
    for (const auto& mount : request.mounts) {
      binds += "," + m_root + "/" + mount.source + ":" + mount.target + (mount.read_only ? ":ro" : "");
    }
    return binds;
  }

  void expect_program_received(const model::LaunchRequest& request, int rank, int nodes) {
    const std::string suffix = std::to_string(rank);
    ASSERT_TRUE(fs::exists(m_out + "/argv." + suffix)) << "rank " << rank << " did not run";
    EXPECT_EQ(split_nul(read_test_file(m_out + "/argv." + suffix)), kHostileArgs);
    const auto env = parse_env(read_test_file(m_out + "/env." + suffix));
    for (const auto& [name, value] : request.env) {
      ASSERT_TRUE(env.contains(name)) << name;
      EXPECT_EQ(env.at(name), value) << name;
    }
    const std::string& dir = m_inputs.cluster_attempt_dir;
    EXPECT_EQ(env.at("TUNEPLANE_JOB_ID"), request.job_id);
    EXPECT_EQ(env.at("TUNEPLANE_ATTEMPT"), "1");
    EXPECT_EQ(env.at("TUNEPLANE_ATTEMPT_DIR"), dir);
    EXPECT_EQ(env.at("TUNEPLANE_INGEST_TOKEN_FILE"), dir + "/credentials/ingest_token");
    EXPECT_EQ(read_test_file(env.at("TUNEPLANE_INGEST_TOKEN_FILE")), kToken);
    EXPECT_EQ(env.at("TMPDIR"), dir + "/scratch");
    EXPECT_EQ(env.at("NODE_RANK"), suffix);
    EXPECT_EQ(env.at("NNODES"), std::to_string(nodes));
    EXPECT_EQ(env.at("MASTER_ADDR"), "node1");
    EXPECT_EQ(env.at("MASTER_PORT"), "16242");
    for (const auto& [name, value] : env) EXPECT_EQ(value.find(kToken), std::string::npos) << name;
  }

  // Nothing of the request's environment or command is on the host: not in the batch shell's
  // variables, not in the environment any srun inherits, not in any srun's argv.
  void expect_host_holds_nothing_of(const model::LaunchRequest& request) const {
    int records = 0;
    for (const auto& entry : fs::directory_iterator(m_tmp.file("fake-shell"))) {
      ++records;
      const std::string name = entry.path().filename().string();
      const std::string text = read_test_file(entry.path());
      if (name.rfind("vars.", 0) == 0) {
        for (const auto& [variable, value] : request.env) {
          EXPECT_EQ(("\n" + text).find("\n" + variable + "\n"), std::string::npos) << variable << " in " << name;
        }
        continue;
      }
      for (const auto& [variable, value] : parse_env(text)) {
        for (const auto& [requested, requested_value] : request.env) {
          EXPECT_NE(variable, requested) << name;
          // Short values ("", "0", "-e") could be anything's; the rest are the request's alone.
          if (requested_value.size() >= 4) {
            EXPECT_EQ(value.find(requested_value), std::string::npos) << variable;
          }
        }
      }
    }
    EXPECT_GT(records, 0);
    for (const auto& call : calls_where(false)) {
      for (const auto& word : call) {
        EXPECT_EQ(word.find(m_standin), std::string::npos) << word;
        for (const auto& arg : kHostileArgs) {
          if (arg.size() >= 2) {
            EXPECT_NE(word, arg);
          }
        }
      }
    }
  }

  struct RayStart {
    std::vector<std::string> args;
    std::string ray_tmpdir;  // the environment's RAY_TMPDIR
  };
  // What every `ray` the tasks ran was given.
  std::vector<RayStart> ray_starts() const {
    std::vector<RayStart> starts;
    for (const auto& entry : fs::directory_iterator(m_out)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("ray.", 0) != 0) continue;
      starts.push_back({split_nul(read_test_file(entry.path())), read_test_file(m_out + "/raytmp." + name.substr(4))});
    }
    return starts;
  }

  TempDir m_tmp;
  std::string m_root;
  std::string m_fake_bin;
  std::string m_out;
  std::string m_standin;
  model::RuntimeRegistry m_registry;
  AttemptInputs m_inputs;
};

// A directory for Ray's temp directories in these tests: the script's own choice, /tmp, is
// shared by every test run on the machine. Exactly `length` bytes long.
class RayBase {
 public:
  explicit RayBase(std::size_t length) {
    std::string pattern = "/tmp/tpr-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_top = pattern;
    m_path = m_top;
    if (length > m_path.size()) {
      m_path += "/" + std::string(length - m_path.size() - 1, 'b');
      fs::create_directory(m_path);
    }
  }
  ~RayBase() {
    std::error_code ignored;
    fs::remove_all(m_top, ignored);
  }
  const std::string& path() const { return m_path; }

 private:
  std::string m_top;
  std::string m_path;
};

TEST_F(ScriptRunTest, HostileValuesReachTheProgramByteForByteUnderEnrootPyxis) {
  const model::LaunchRequest request = hostile_request();
  const RenderedAttempt rendered = prepare(request, hostile_settings());
  EXPECT_EQ(testing::bash_syntax_errors(rendered.script), "");
  EXPECT_EQ(testing::posix_sh_syntax_errors(rendered.env_file), "");
  EXPECT_EQ(testing::posix_sh_syntax_errors(rendered.command_file), "");
  const auto result = run();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  expect_program_received(request, 0, 2);
  expect_program_received(request, 1, 2);
  const auto calls = srun_calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(option_value(calls[0], "--container-mounts"), expected_binds(request));
  EXPECT_EQ(option_value(calls[0], "--container-workdir"), request.working_dir);
  EXPECT_EQ(option_value(calls[0], "--container-image"), m_root + "/runtimes/-hostile_image.sqsh");
  EXPECT_EQ(option_value(calls[0], "--output"), m_inputs.cluster_attempt_dir + "/logs/component-0.out");
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 0, \"failed_phase\": null, \"program_started\": {\"component-0\": 2}}\n");
}

TEST_F(ScriptRunTest, HostileValuesReachTheProgramByteForByteUnderApptainer) {
  const model::LaunchRequest request = hostile_request();
  const RenderedAttempt rendered = prepare(request, hostile_settings(model::RuntimeProfile::apptainer));
  const auto result = run();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  expect_program_received(request, 0, 2);
  expect_program_received(request, 1, 2);
  const auto calls = srun_calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(option_value(calls[0], "--bind"), expected_binds(request));
  EXPECT_EQ(option_value(calls[0], "--pwd"), request.working_dir);
  EXPECT_NE(std::find(calls[0].begin(), calls[0].end(), "--nv"), calls[0].end());
  // Isolated as with Pyxis: its own /tmp and /dev, no $HOME, no host filesystems.
  EXPECT_NE(std::find(calls[0].begin(), calls[0].end(), "--contain"), calls[0].end());
  EXPECT_NE(std::find(calls[0].begin(), calls[0].end(), "--no-home"), calls[0].end());
  EXPECT_EQ(option_value(calls[0], "--no-mount"), "hostfs");
  EXPECT_NE(std::find(calls[0].begin(), calls[0].end(), m_root + "/runtimes/-hostile_image.sif"), calls[0].end());
}

TEST_F(ScriptRunTest, StorageMountedElsewhereOnTheClusterIsSeenThroughTheClusterPath) {
  const std::string cluster_root = m_tmp.file("-cluster_view.x");
  fs::create_directory_symlink(m_root, cluster_root);
  model::Settings settings = hostile_settings();
  settings.slurm_storage_root = cluster_root;
  model::LaunchRequest request = hostile_request();
  prepare(request, settings);
  ASSERT_EQ(m_inputs.cluster_attempt_dir, cluster_root + "/slurm/jobs/adv-hetjob-1/attempts/1");
  const auto result = run();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto env = parse_env(read_test_file(m_out + "/env.0"));
  EXPECT_EQ(env.at("TUNEPLANE_ATTEMPT_DIR"), m_inputs.cluster_attempt_dir);
  EXPECT_EQ(env.at("TMPDIR"), m_inputs.cluster_attempt_dir + "/scratch");
  const auto calls = srun_calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(option_value(calls[0], "--container-image"), cluster_root + "/runtimes/-hostile_image.sqsh");
  const std::string& dir = m_inputs.cluster_attempt_dir;
  EXPECT_EQ(option_value(calls[0], "--container-mounts"),
            dir + ":" + dir + ":ro," + dir + "/scratch:" + dir + "/scratch," + cluster_root +
                "/-data.set/.x_y:/mnt/-a..b_c.d:ro," + cluster_root + "/out:/out-put");
}

TEST_F(ScriptRunTest, HostileSiteSettingsSurviveTheSbatchLines) {
  const model::LaunchRequest request = hostile_request();
  const RenderedAttempt rendered = prepare(request, hostile_settings());
  auto read_back = testing::read_sbatch_directives(rendered.script);
  ASSERT_TRUE(read_back.ok()) << read_back.error().message();
  model::SubmitDescription sent = rendered.submit;
  sent.script.clear();
  sent.environment.clear();
  EXPECT_EQ(*read_back, sent);
  EXPECT_EQ(read_back->account, *request.slurm.account);
  EXPECT_EQ(read_back->reservation, "res #1 \\ 'r'");
  EXPECT_EQ(read_back->tag.name, "tp-inst 'x' \"y\" #z-adv-hetjob-1-1");
  EXPECT_EQ(read_back->tag.working_directory, m_inputs.cluster_attempt_dir);
}

TEST_F(ScriptRunTest, WritesJobEvidenceFirst) {
  prepare(hostile_request(), hostile_settings());
  ASSERT_EQ(run({{"SLURM_JOB_SLUID", "sEE9M8P5JF1X00"}}).exit_code, 0);
  const std::string evidence = attempt_file("logs/slurm-job.json");
  EXPECT_NE(evidence.find("{\"job_id\": 4242, \"het_job_id\": null, \"sluid\": \"sEE9M8P5JF1X00\", \"batch_host\": "),
            std::string::npos)
      << evidence;
  EXPECT_NE(evidence.find("\"components\": [{\"het_job_offset\": 0, \"job_id\": 4242, \"node_list\": \"node[1-2]\"}]}"),
            std::string::npos)
      << evidence;
}

TEST_F(ScriptRunTest, ImageThatChangedOnTheClusterFailsTheVerifyPhase) {
  prepare(hostile_request(), hostile_settings());
  write_test_file(m_root + "/runtimes/-hostile_image.sqsh", "tampered");
  const auto result = run();
  EXPECT_EQ(result.exit_code, 91);
  EXPECT_EQ(result.err, "tuneplane: image verification failed on " + batch_host() + ": " + m_root +
                            "/runtimes/-hostile_image.sqsh: expected sha256 " + sha256_hex(kImageBytes) + ", found " +
                            sha256_hex("tampered") + "\n" + kNothingStarted);
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 91, \"failed_phase\": \"verify\", \"program_started\": {}}\n");
  EXPECT_FALSE(fs::exists(m_out + "/argv.0"));
  EXPECT_TRUE(srun_calls().empty());
  EXPECT_TRUE(verify_calls().empty());
  EXPECT_TRUE(fs::exists(m_inputs.local_attempt_dir + "/logs/slurm-job.json"));
}

TEST_F(ScriptRunTest, MissingImageFailsTheVerifyPhase) {
  prepare(hostile_request(), hostile_settings());
  fs::remove(m_root + "/runtimes/-hostile_image.sqsh");
  const auto result = run();
  EXPECT_EQ(result.exit_code, 91);
  EXPECT_EQ(result.err, "tuneplane: image verification failed on " + batch_host() + ": " + m_root +
                            "/runtimes/-hostile_image.sqsh is missing\n" + kNothingStarted);
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 91, \"failed_phase\": \"verify\", \"program_started\": {}}\n");
}

TEST_F(ScriptRunTest, EveryNodeVerifiesTheImageOnceBeforeAnyContainerStarts) {
  model::LaunchRequest request = hostile_request();
  request.pools = {
      {"a", "h100-80g", 2, 8, 16, 1024}, {"b", "a100-80g", 1, 8, 16, 1024}, {"c", "h100-80g", 1, 8, 16, 1024}};
  prepare(request, hostile_settings());
  const auto result = run({{"SLURM_JOB_NODELIST_HET_GROUP_0", "node[1-2]"},
                           {"SLURM_JOB_NODELIST_HET_GROUP_1", "b1"},
                           {"SLURM_JOB_NODELIST_HET_GROUP_2", "c1"}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // One step per component checks its nodes; node1 is in all three, yet hashes the image once.
  std::set<std::string> groups;
  for (const auto& call : verify_calls()) {
    groups.insert(option_value(call, "--het-group"));
    EXPECT_EQ(option_value(call, "--ntasks-per-node"), "1");
    EXPECT_EQ(std::find(call.begin(), call.end(), "--container-image=" + m_root + "/runtimes/-hostile_image.sqsh"),
              call.end());
  }
  EXPECT_EQ(groups, (std::set<std::string>{"0", "1", "2"}));
  EXPECT_EQ(read_test_file(m_out + "/hashed"), "node1\nnode2\n");
  for (const auto& node : {batch_host(), std::string("node1"), std::string("node2")}) {
    EXPECT_TRUE(fs::exists(m_inputs.local_attempt_dir + "/scratch/.tuneplane-verified/" + node)) << node;
  }
}

TEST_F(ScriptRunTest, ANodeWhoseImageDiffersFailsTheVerifyPhaseBeforeAnyContainerStarts) {
  prepare(hostile_request(), hostile_settings());
  const auto result = run({{"TP_FAKE_BAD_NODE", "node2"}});
  EXPECT_EQ(result.exit_code, 91);
  EXPECT_EQ(result.err, "tuneplane: image verification failed on node2: " + m_root +
                            "/runtimes/-hostile_image.sqsh: expected sha256 " + sha256_hex(kImageBytes) + ", found " +
                            std::string(64, '0') +
                            "\ntuneplane: image verification failed on a node of component 0; nothing was started\n");
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 91, \"failed_phase\": \"verify\", \"program_started\": {}}\n");
  EXPECT_TRUE(srun_calls().empty());
  EXPECT_FALSE(fs::exists(m_out + "/argv.0"));
  EXPECT_FALSE(fs::exists(m_inputs.local_attempt_dir + "/scratch/.tuneplane-verified/node2"));
}

TEST_F(ScriptRunTest, AnImageCheckThatCannotStartOnTheNodesIsTheContainerPhase) {
  prepare(hostile_request(), hostile_settings());
  const auto result = run({{"TP_FAKE_SRUN_FAIL", "1"}, {"TP_FAKE_SRUN_FAIL_VERIFY", "1"}});
  EXPECT_EQ(result.exit_code, 92);
  EXPECT_NE(result.err.find("cannot check the mounts and the image on the nodes of component 0 (srun status 125)"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 92, \"failed_phase\": \"container\", \"program_started\": {}}\n");
  EXPECT_TRUE(srun_calls().empty());
}

// The request's environment and command are in the attempt's env and command files, which only
// the wrapper inside the container reads: under both runtimes and both launchers the host holds
// nothing of them, and the program still receives every value byte for byte.
TEST_F(ScriptRunTest, TheRequestsEnvironmentAndCommandReachOnlyTheContainer) {
  const std::pair<const char*, model::RuntimeProfile> cases[] = {{"custom-hostile", model::RuntimeProfile::enroot_pyxis},
                                                                 {"custom-hostile", model::RuntimeProfile::apptainer},
                                                                 {"custom-ray", model::RuntimeProfile::enroot_pyxis},
                                                                 {"custom-ray", model::RuntimeProfile::apptainer}};
  int n = 0;
  for (const auto& [runtime, profile] : cases) {
    SCOPED_TRACE(std::string(runtime) + " " + std::string(model::to_string(profile)));
    for (const char* dir : {"fake", "fake-shell", "out"}) {
      fs::remove_all(m_tmp.file(dir));
      fs::create_directories(m_tmp.file(dir));
    }
    model::LaunchRequest request = hostile_request(runtime);
    request.job_id = "isolated-" + std::to_string(++n);
    prepare(request, hostile_settings(profile));
    const RayBase base(15);
    const auto result = run({{"TP_FAKE_RAY_NODES", "2"}, {"TMPDIR", base.path()}});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    expect_host_holds_nothing_of(request);
    if (std::string(runtime) == "custom-ray") {
      EXPECT_EQ(split_nul(read_test_file(m_out + "/argv.")), kHostileArgs);
      const auto env = parse_env(read_test_file(m_out + "/env."));
      for (const auto& [name, value] : request.env) EXPECT_EQ(env.at(name), value) << name;
    } else {
      expect_program_received(request, 0, 2);
      expect_program_received(request, 1, 2);
    }
  }
}

// A mount source that a job replaced with a symbolic link after the attempt was written (here:
// the writable mount `out` now leads into another job's attempt) stops the job before any
// container starts; the batch host finds it first.
TEST_F(ScriptRunTest, AMountSourceSwappedForALinkAfterRenderingStopsTheJobBeforeAnyContainer) {
  prepare(hostile_request(), hostile_settings());
  const std::string other = m_root + "/slurm/jobs/other/attempts/1";
  fs::create_directories(other);
  fs::remove(m_root + "/out");
  fs::create_directory_symlink("slurm/jobs/other/attempts/1", m_root + "/out");
  const auto result = run();
  EXPECT_EQ(result.exit_code, 92);
  EXPECT_EQ(result.err, "tuneplane: mount check failed on " + batch_host() + ": spec.mounts[1]: " + m_root +
                            "/out now leads to " + other + ", not to " + m_root +
                            "/out as when the attempt was written\n"
                            "tuneplane: a mount source changed on the batch host; nothing was started\n");
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 92, \"failed_phase\": \"container\", \"program_started\": {}}\n");
  EXPECT_TRUE(srun_calls().empty());
  EXPECT_TRUE(verify_calls().empty());
  EXPECT_FALSE(fs::exists(m_out + "/argv.0"));
}

// Each node resolves the mounts itself, right before its containers start: a node whose view
// differs (a stand-in realpath on node2 says `out` leads elsewhere) stops the job.
TEST_F(ScriptRunTest, ANodeOnWhichAMountLeadsElsewhereStopsTheJobBeforeAnyContainer) {
  prepare(hostile_request(), hostile_settings());
  write_test_file(m_fake_bin + "/realpath",
                  "#!/bin/bash\nif [ \"$(hostname)\" = node2 ] && [ \"${*: -1}\" = " + shell_quote(m_root + "/out") +
                      " ]; then echo /elsewhere; else exec /usr/bin/realpath \"$@\"; fi\n",
                  fs::perms::owner_all);
  const auto result = run();
  EXPECT_EQ(result.exit_code, 92);
  EXPECT_EQ(result.err, "tuneplane: mount check failed on node2: spec.mounts[1]: " + m_root +
                            "/out now leads to /elsewhere, not to " + m_root +
                            "/out as when the attempt was written\n"
                            "tuneplane: a mount source changed on a node of component 0; nothing was started\n");
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 92, \"failed_phase\": \"container\", \"program_started\": {}}\n");
  EXPECT_EQ(verify_calls().size(), 1u);
  EXPECT_TRUE(srun_calls().empty());
  EXPECT_FALSE(fs::exists(m_out + "/argv.0"));
}

TEST_F(ScriptRunTest, AMountSourceRemovedAfterRenderingStopsTheJobBeforeAnyContainer) {
  prepare(hostile_request(), hostile_settings());
  fs::remove_all(m_root + "/-data.set");
  const auto result = run();
  EXPECT_EQ(result.exit_code, 92);
  EXPECT_EQ(result.err, "tuneplane: mount check failed on " + batch_host() + ": spec.mounts[0]: " + m_root +
                            "/-data.set/.x_y is missing\n"
                            "tuneplane: a mount source changed on the batch host; nothing was started\n");
  EXPECT_TRUE(srun_calls().empty());
}

// A source that is a link when the attempt is written is bound as what it leads to then
// (storage::resolve_mount_sources): the job runs, and changing the link afterwards changes
// nothing that is bound or checked.
TEST_F(ScriptRunTest, AMountSourceIsBoundAsItWasResolvedNeverThroughTheRequestsLink) {
  fs::create_directories(m_root + "/links");
  fs::create_directory_symlink("../-data.set/.x_y", m_root + "/links/data");
  model::LaunchRequest request = hostile_request();
  request.mounts = {{"links/data", "/data", true}};
  auto resolved = storage::resolve_mount_sources(m_root, request.mounts, {});
  ASSERT_TRUE(resolved.ok()) << resolved.error().to_text();
  request.mounts = std::move(*resolved);
  ASSERT_EQ(request.mounts[0].source, "-data.set/.x_y");
  prepare(request, hostile_settings());
  fs::remove(m_root + "/links/data");
  fs::create_directory_symlink("../slurm", m_root + "/links/data");
  const auto result = run();
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto calls = srun_calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(option_value(calls[0], "--container-mounts"), expected_binds(request));
  EXPECT_NE(expected_binds(request).find(m_root + "/-data.set/.x_y:/data:ro"), std::string::npos);
}

TEST_F(ScriptRunTest, WhatTheJobWritesStaysInItsGroupAndFromOthers) {
  prepare(hostile_request(), hostile_settings());
  ASSERT_EQ(run().exit_code, 0);
  for (const auto& file : {"logs/exit.json", "logs/slurm-job.json", "scratch/.tuneplane-verified/node1"}) {
    const auto perms = fs::status(m_inputs.local_attempt_dir + "/" + file).permissions();
    EXPECT_EQ(perms & fs::perms::others_all, fs::perms::none) << file;
    EXPECT_EQ(perms & fs::perms::group_read, fs::perms::group_read) << file;
  }
}

TEST_F(ScriptRunTest, ProgramFailureIsReportedAsTheProgramPhase) {
  model::LaunchRequest request = hostile_request();
  request.env.back().second = "3";  // STANDIN_EXIT
  prepare(request, hostile_settings());
  const auto result = run();
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 3, \"failed_phase\": \"program\", \"program_started\": {\"component-0\": 2}}\n");
}

TEST_F(ScriptRunTest, ContainerThatNeverStartedIsReportedAsTheContainerPhase) {
  prepare(hostile_request(), hostile_settings());
  const auto result = run({{"TP_FAKE_SRUN_FAIL", "1"}});
  EXPECT_EQ(result.exit_code, 125);
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 125, \"failed_phase\": \"container\", \"program_started\": {\"component-0\": 0}}\n");
  EXPECT_FALSE(fs::exists(m_out + "/argv.0"));
  // srun's own words are in the step's stream, and so in the component's log.
  EXPECT_EQ(attempt_file("logs/component-0.err"), "pyxis: failed to create container\n");
}

// The Ray driver's container fails (the head's and the workers' came up): no program started.
TEST_F(ScriptRunTest, ARayDriverWhoseContainerNeverStartedIsReportedAsTheContainerPhase) {
  prepare(hostile_request("custom-ray"), hostile_settings());
  const RayBase base(15);
  const auto result =
      run({{"TP_FAKE_RAY_NODES", "2"}, {"TMPDIR", base.path()}, {"TP_FAKE_SRUN_FAIL_STEP", "tuneplane-ray-driver"}});
  EXPECT_EQ(result.exit_code, 125);
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 125, \"failed_phase\": \"container\", \"program_started\": {\"program\": 0}}\n");
  EXPECT_FALSE(fs::exists(m_out + "/argv."));
}

// The program runs as the same user as the job's script and owns its scratch/ (TMPDIR): what it
// removes there says nothing about whether it started. Under both launchers.
TEST_F(ScriptRunTest, AProgramThatEmptiesItsScratchAndFailsIsTheProgramsFailure) {
  for (const char* runtime : {"custom-hostile", "custom-ray"}) {
    SCOPED_TRACE(runtime);
    fs::remove_all(m_out);
    fs::create_directories(m_out);
    model::LaunchRequest request = hostile_request(runtime);
    request.job_id = std::string("wipes-") + runtime;
    request.command = {program("wipes scratch", "rm -rf \"$TMPDIR\"/* \"$TMPDIR\"/.[!.]*\nexit 3\n")};
    prepare(request, hostile_settings());
    const RayBase base(15);
    const auto result = run({{"TP_FAKE_RAY_NODES", "2"}, {"TMPDIR", base.path()}});
    EXPECT_EQ(result.exit_code, 3) << result.err;
    EXPECT_EQ(failed_phase(), "program");
    EXPECT_TRUE(fs::is_empty(m_inputs.local_attempt_dir + "/scratch")) << "the program emptied it";
  }
}

// A scratch/ that is full, or where nothing can be written (a quota, a read-only mount): the
// program that started there and failed is still the program's failure.
TEST_F(ScriptRunTest, AProgramWhoseScratchCannotBeWrittenAndFailsIsTheProgramsFailure) {
  model::LaunchRequest request = hostile_request();
  request.command = {program("writes scratch",
                             "echo data > \"$TMPDIR/data\" || echo 'scratch is full' >&2\n"
                             "echo > \"$TMPDIR/.tuneplane/mine\" || echo 'and read-only' >&2\nexit 3\n")};
  prepare(request, hostile_settings());
  const std::string scratch = m_inputs.local_attempt_dir + "/scratch";
  TmpfsMount full(scratch);
  ASSERT_EQ(full.mount(64 * 1024), "");
  ASSERT_GT(full.fill("ballast"), 0u);
  TmpfsMount read_only(scratch + "/.tuneplane");
  ASSERT_EQ(read_only.mount(4096), "");
  ASSERT_EQ(read_only.remount(true), "");
  const auto result = run();
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(failed_phase(), "program");
  const std::string log = attempt_file("logs/component-0.err");
  EXPECT_NE(log.find("scratch is full"), std::string::npos) << log;
  EXPECT_NE(log.find("and read-only"), std::string::npos) << log;
}

// Each task says on its stderr that the program starts, before it does; srun brings that stream
// to the batch host, where the script keeps it in the component's log and counts those lines.
// What the program then does to its own stderr cannot take them back.
TEST_F(ScriptRunTest, AProgramThatTruncatesItsOwnStderrAndFailsIsTheProgramsFailure) {
  model::LaunchRequest request = hostile_request();
  request.command = {program("truncates stderr",
                             "echo 'about to fail' >&2\n: > /proc/self/fd/2\n"
                             "truncate -s 0 /proc/self/fd/2 2>/dev/null\nexit 3\n")};
  prepare(request, hostile_settings());
  const auto result = run();
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(failed_phase(), "program");
  EXPECT_NE(attempt_file("logs/exit.json").find("\"program_started\": {\"component-0\": 2}"), std::string::npos)
      << attempt_file("logs/exit.json");
  const std::string log = attempt_file("logs/component-0.err");
  EXPECT_NE(log.find("tuneplane: task 0 starts the program\n"), std::string::npos) << log;
  EXPECT_NE(log.find("tuneplane: task 1 starts the program\n"), std::string::npos) << log;
  EXPECT_NE(log.find("about to fail"), std::string::npos) << log;
}

// Tasks' lines reach srun interleaved: a start line need not begin a line of the stream.
TEST_F(ScriptRunTest, AStartLineInTheMiddleOfAnotherLineStillCounts) {
  model::LaunchRequest request = hostile_request();
  request.env.back().second = "3";  // STANDIN_EXIT
  prepare(request, hostile_settings());
  const auto result = run({{"TP_FAKE_SRUN_PARTIAL", "1"}});
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(failed_phase(), "program");
  EXPECT_NE(attempt_file("logs/component-0.err").find("srun: a line not ended yet, tuneplane: task 0 starts"),
            std::string::npos)
      << attempt_file("logs/component-0.err");
}

// The count does not depend on the log: a component log that cannot be written (here a
// directory in its place) loses the text, not the evidence.
TEST_F(ScriptRunTest, TheStartLinesAreCountedWhenTheComponentLogCannotBeWritten) {
  model::LaunchRequest request = hostile_request();
  request.env.back().second = "3";  // STANDIN_EXIT
  prepare(request, hostile_settings());
  fs::create_directories(m_inputs.local_attempt_dir + "/logs/component-0.err");
  EXPECT_EQ(run().exit_code, 3);
  EXPECT_EQ(failed_phase(), "program");
  fs::remove(m_inputs.local_attempt_dir + "/logs/exit.json");
  EXPECT_EQ(run({{"TP_FAKE_SRUN_FAIL", "1"}}).exit_code, 125);
  EXPECT_EQ(failed_phase(), "container");
}

// srun runs on the batch host as the job's user, where a program of the job (one that shares
// the host's process IDs, as under Pyxis) can kill it before the start lines on their way to it
// arrive. A step a signal ended is no evidence that nothing started.
TEST_F(ScriptRunTest, AProgramThatKillsItsSrunIsTheProgramsFailure) {
  model::LaunchRequest request = hostile_request();
  request.command = {program("kills srun", "kill -KILL \"$PPID\"\nexit 3\n")};
  prepare(request, hostile_settings());
  const auto result = run({{"TP_FAKE_SRUN_HOLD_STDERR", "1"}});
  EXPECT_EQ(result.exit_code, 137) << result.err;
  EXPECT_EQ(failed_phase(), "program");
  EXPECT_NE(attempt_file("logs/exit.json").find("\"program_started\": {\"component-0\": 0}"), std::string::npos)
      << attempt_file("logs/exit.json") << "the start lines were lost with srun";
}

// One component's program started, another component's container failed: a program that has
// started shares the scratch, the mounts and the nodes with the others and may have caused
// their failure, so the attempt is the program's.
TEST_F(ScriptRunTest, AContainerFailureAfterAnotherComponentsProgramStartedIsTheProgramsFailure) {
  model::LaunchRequest request = hostile_request();
  request.pools = {{"a", "h100-80g", 2, 8, 16, 1024}, {"b", "a100-80g", 1, 8, 16, 1024}};
  prepare(request, hostile_settings());
  const auto result = run({{"TP_FAKE_SRUN_FAIL_STEP", "--het-group=1"},
                           {"SLURM_JOB_NODELIST_HET_GROUP_0", "node[1-2]"},
                           {"SLURM_JOB_NODELIST_HET_GROUP_1", "b1"}});
  EXPECT_EQ(result.exit_code, 125);
  EXPECT_EQ(failed_phase(), "program");
  EXPECT_NE(attempt_file("logs/exit.json").find("\"program_started\": {\"component-0\": 2, \"component-1\": 0}"),
            std::string::npos)
      << attempt_file("logs/exit.json");
  EXPECT_NE(attempt_file("logs/component-1.err").find("pyxis: failed to create container"), std::string::npos);
}

// When the script cannot write exit.json (logs/ is full), no exit.json is left behind that is not
// the script's own last word: without one, the reconciler takes the failure as final.
TEST_F(ScriptRunTest, AnExitJsonTheScriptCannotWriteLeavesNoOtherInItsPlace) {
  model::LaunchRequest request = hostile_request();
  request.env.back().second = "3";  // STANDIN_EXIT
  prepare(request, hostile_settings());
  TmpfsMount logs(m_inputs.local_attempt_dir + "/logs");
  ASSERT_EQ(logs.mount(64 * 1024), "");
  write_test_file(logs.dir() + "/exit.json", "{\"exit_status\": 92, \"failed_phase\": \"container\"}\n");
  ASSERT_GT(logs.fill("ballast"), 0u);
  const auto result = run();
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(failed_phase(), "<no exit.json>");
  EXPECT_FALSE(fs::exists(logs.dir() + "/exit.json"));
}

// Slurm signals every process of the batch step on some paths (a cancel's TERM; from 23.11 a
// checkpoint signal sent with the job's DELETE), not just its shell. The program sends both to
// every process of the batch step, then fails: its own status is the job's.
TEST_F(ScriptRunTest, SignalsToTheWholeBatchStepAreNoStepsEnd) {
  model::LaunchRequest request = hostile_request();
  request.command = {program("signals the batch step",
                             "trap 'echo got-usr1 >&2' USR1\ntrap 'echo got-term >&2' TERM\n"
                             "kill -USR1 0\nkill -TERM 0\nsleep 0.2\necho still-here >&2\nexit 3\n")};
  prepare(request, hostile_settings());
  // Its own session, as the batch step is: the signals stay inside it.
  const auto result = run({}, {"/usr/bin/setsid"});
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 3, \"failed_phase\": \"program\", \"program_started\": {\"component-0\": 2}}\n");
  // What carries the steps' stderr to their logs, and counts the start lines, outlives them.
  const std::string log = attempt_file("logs/component-0.err");
  EXPECT_NE(log.find("tuneplane: task 1 starts the program"), std::string::npos) << log;
  EXPECT_NE(log.find("got-usr1"), std::string::npos) << log;
  EXPECT_NE(log.find("still-here"), std::string::npos) << log;
}

TEST_F(ScriptRunTest, HeterogeneousComponentsGetConsecutiveNodeRanks) {
  model::LaunchRequest request = hostile_request();
  request.pools = {
      {"a", "h100-80g", 2, 8, 16, 1024}, {"b", "a100-80g", 1, 8, 16, 1024}, {"c", "h100-80g", 1, 8, 16, 1024}};
  prepare(request, hostile_settings());
  const auto result = run({{"SLURM_JOB_ID_HET_GROUP_0", "4242"},
                           {"SLURM_JOB_ID_HET_GROUP_1", "4243"},
                           {"SLURM_JOB_ID_HET_GROUP_2", "4244"},
                           {"SLURM_JOB_NODELIST_HET_GROUP_0", "node[1-2]"},
                           {"SLURM_JOB_NODELIST_HET_GROUP_1", "b1"},
                           {"SLURM_JOB_NODELIST_HET_GROUP_2", "c1"}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (int rank = 0; rank < 4; ++rank) expect_program_received(request, rank, 4);
  const auto calls = srun_calls();
  ASSERT_EQ(calls.size(), 3u);
  std::set<std::string> outputs;
  for (const auto& call : calls)
    outputs.insert(option_value(call, "--het-group") + " " + option_value(call, "--output"));
  const std::string logs = m_inputs.cluster_attempt_dir + "/logs/";
  EXPECT_EQ(outputs, (std::set<std::string>{"0 " + logs + "component-0.out", "1 " + logs + "component-1.out",
                                            "2 " + logs + "component-2.out"}));
  const std::string evidence = attempt_file("logs/slurm-job.json");
  EXPECT_NE(evidence.find("\"het_job_id\": 4242"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("{\"het_job_offset\": 2, \"job_id\": 4244, \"node_list\": \"c1\"}"), std::string::npos)
      << evidence;
}

TEST_F(ScriptRunTest, RayStartsAHeadAndWorkersThenRunsTheCommandOnce) {
  model::LaunchRequest request = hostile_request("custom-ray");
  request.pools = {{"a", "h100-80g", 2, 8, 16, 1024}, {"b", "a100-80g", 1, 8, 16, 1024}};
  prepare(request, hostile_settings());
  const RayBase base(15);
  const auto result = run({{"TP_FAKE_RAY_NODES", "3"},
                           {"TMPDIR", base.path()},
                           {"SLURM_JOB_NODELIST_HET_GROUP_0", "node[1-2]"},
                           {"SLURM_JOB_NODELIST_HET_GROUP_1", "b1"}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // The driver runs once, without a node rank.
  ASSERT_TRUE(fs::exists(m_out + "/argv."));
  EXPECT_EQ(split_nul(read_test_file(m_out + "/argv.")), kHostileArgs);
  EXPECT_FALSE(fs::exists(m_out + "/argv.0"));
  const auto env = parse_env(read_test_file(m_out + "/env."));
  EXPECT_EQ(env.at("RAY_ADDRESS"), "node1:16242");
  EXPECT_EQ(env.at("E_NEWLINES"), "line1\nline2\n");
  // Every node's Ray temp directory is the same node-local path, outside the attempt directory.
  const std::string ray_tmp = base.path() + "/tp-ray-4242";
  EXPECT_EQ(env.at("RAY_TMPDIR"), ray_tmp);
  int heads = 0;
  int workers = 0;
  for (const auto& start : ray_starts()) {
    const auto& args = start.args;
    if (std::find(args.begin(), args.end(), "--head") != args.end()) {
      ++heads;
    } else {
      ++workers;
      EXPECT_NE(std::find(args.begin(), args.end(), "--address=node1:16242"), args.end());
    }
    EXPECT_NE(std::find(args.begin(), args.end(), "--temp-dir=" + ray_tmp), args.end());
    EXPECT_EQ(start.ray_tmpdir, ray_tmp);
  }
  EXPECT_EQ(heads, 1);
  EXPECT_EQ(workers, 2);
  // Every container of a Ray step binds it at its own path.
  int containers = 0;
  for (const auto& call : srun_calls()) {
    if (option_value(call, "--container-image") == "<absent>") continue;
    ++containers;
    EXPECT_EQ(option_value(call, "--container-mounts"), expected_binds(request) + "," + ray_tmp + ":" + ray_tmp);
  }
  EXPECT_EQ(containers, 4) << "head, workers of two components, driver";
  EXPECT_FALSE(fs::exists(ray_tmp)) << "removed at the end";
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 0, \"failed_phase\": null, \"program_started\": {\"program\": 1}}\n");
}

TEST_F(ScriptRunTest, RayTempDirectoryIsMadePrivateOnEveryNodeAndEmptiedWhenRayStops) {
  model::LaunchRequest request = hostile_request("custom-ray");
  prepare(request, hostile_settings(model::RuntimeProfile::apptainer));
  const RayBase base(15);
  const std::string ray_tmp = base.path() + "/tp-ray-4242";
  // The stand-in ray leaves a session behind, as a Ray killed before cleaning up would.
  write_test_file(
      m_fake_bin + "/ray",
      "#!/bin/bash\nmkdir -p \"$RAY_TMPDIR/session_x/sockets\" && : > \"$RAY_TMPDIR/session_x/sockets/raylet\"\n"
      "ls -ld \"$RAY_TMPDIR\" > " +
          shell_quote(m_out) + "/mode.\"$$\"\n",
      fs::perms::owner_all);
  const auto result =
      run({{"TP_FAKE_RAY_NODES", "2"}, {"TMPDIR", base.path()}, {"TP_FAKE_SRUN_SKIP_RAY_CLEANUP", "1"}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Without the steps at the end, what is left is what the node tasks left: an empty directory.
  ASSERT_TRUE(fs::is_directory(ray_tmp));
  EXPECT_TRUE(fs::is_empty(ray_tmp));
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(m_out)) {
    if (entry.path().filename().string().rfind("mode.", 0) != 0) continue;
    ++seen;
    EXPECT_EQ(read_test_file(entry.path()).substr(0, 10), "drwx------");
  }
  EXPECT_EQ(seen, 2);
  int containers = 0;
  for (const auto& call : srun_calls()) {
    if (std::find(call.begin(), call.end(), "apptainer") == call.end()) continue;
    ++containers;
    EXPECT_EQ(option_value(call, "--bind"), expected_binds(request) + "," + ray_tmp + ":" + ray_tmp);
  }
  EXPECT_EQ(containers, 3) << "head, worker, driver";
}

TEST_F(ScriptRunTest, RayTempDirectoryOwnedBySomethingElseFailsTheContainerPhase) {
  prepare(hostile_request("custom-ray"), hostile_settings());
  const RayBase base(15);
  const std::string ray_tmp = base.path() + "/tp-ray-4242";
  fs::create_directory_symlink(base.path(), ray_tmp);
  const auto result = run({{"TP_FAKE_RAY_NODES", "2"}, {"TMPDIR", base.path()}});
  EXPECT_EQ(result.exit_code, 92);
  EXPECT_NE(result.err.find("tuneplane: cannot make the Ray temp directory " + ray_tmp +
                            " on node1: it exists and is not a directory of this user"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(attempt_file("logs/exit.json"),
            "{\"exit_status\": 92, \"failed_phase\": \"container\", \"program_started\": {}}\n");
  EXPECT_TRUE(ray_starts().empty());
}

// Ray refuses a socket path longer than sun_path holds (107 bytes and the NUL). Its sockets
// are <temp>/session_<26-character time>_<pid>/sockets/plasma_store (or raylet), with ".N" for
// a second one on the host: the longest, for a 7-digit pid and a two-digit suffix, is checked
// under every temp directory the script gives Ray, with the longest storage root the settings
// take (they take any; PATH_MAX bounds it), the longest TunePlane job id, a 10-digit Slurm job
// id and the longest base the script keeps (22 bytes); a longer base is replaced by /tmp.
TEST_F(ScriptRunTest, RaySocketPathsFitSunPathWhateverTheStorageRootAndNames) {
  const std::string tail = "/session_2026-11-30_12-00-00_123456_4194304/sockets/plasma_store.99";
  std::string long_root = m_root;
  for (char c : std::string("abcd")) long_root += "/" + std::string(250, c);
  ASSERT_GT(long_root.size(), 1000u);
  write_test_file(long_root + "/runtimes/-hostile_image.sqsh", kImageBytes);
  fs::create_directories(long_root + "/-data.set/.x_y");
  fs::create_directories(long_root + "/out");
  model::Settings settings = hostile_settings();
  settings.storage_root = long_root;
  model::LaunchRequest request = hostile_request("custom-ray");
  request.job_id = std::string(63, 'j');
  request.pools = {{"a", "h100-80g", 2, 8, 16, 1024}, {"b", "a100-80g", 1, 8, 16, 1024}};
  prepare(request, settings);

  const auto check = [&](const std::string& tmpdir, const std::string& slurm_job_id, const std::string& expected) {
    fs::remove_all(m_out);
    fs::create_directories(m_out);
    const auto result = run({{"TP_FAKE_RAY_NODES", "3"},
                             {"TMPDIR", tmpdir},
                             {"SLURM_JOB_ID", slurm_job_id},
                             {"SLURM_JOB_NODELIST_HET_GROUP_0", "node[1-2]"},
                             {"SLURM_JOB_NODELIST_HET_GROUP_1", "b1"}});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto starts = ray_starts();
    ASSERT_EQ(starts.size(), 3u);
    for (const auto& start : starts) {
      std::vector<std::string> paths = {start.ray_tmpdir};
      for (const auto& arg : start.args) {
        if (arg.find('/') != std::string::npos) paths.push_back(arg.substr(arg.find('=') + 1));
      }
      ASSERT_EQ(paths.size(), 2u) << "RAY_TMPDIR and --temp-dir are the only paths Ray is given";
      for (const auto& path : paths) {
        EXPECT_EQ(path, expected);
        EXPECT_LE((path + tail).size(), 107u) << path + tail;
      }
    }
    EXPECT_FALSE(fs::exists(expected));
  };
  const RayBase longest(22);
  check(longest.path(), "4294967294", longest.path() + "/tp-ray-4294967294");
  EXPECT_EQ((longest.path() + "/tp-ray-4294967294" + tail).size(), 107u) << "the bound is exact";
  // A base one byte too long, or a relative one, gives way to /tmp (an id of this process's
  // own, so that runs elsewhere on the machine do not meet it).
  const RayBase too_long(23);
  const std::string own_id = std::to_string(4000000000u + static_cast<unsigned>(::getpid()) % 100000000u);
  check(too_long.path(), own_id, "/tmp/tp-ray-" + own_id);
  check("relative/dir", own_id, "/tmp/tp-ray-" + own_id);
}

}  // namespace
}  // namespace tpslurm::render
