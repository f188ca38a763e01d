// Rendering (render/render_request.h) with hostile values. The input is read as choices and
// strings (fuzz_support.h ByteReader) that build a LaunchRequest: quotes, $(), backticks,
// newlines, NULs and any other bytes in every free-text field — command arguments, env
// values, the working directory, mount targets, the Slurm overrides, the ingest token. Fields
// the validator refuses are dropped once (by the problems' paths) and the request is tried
// again. A request that is accepted and rendered must:
//   - carry no NUL (the validator refuses them);
//   - hand every env value to the env file byte for byte (read back as a shell reads it);
//   - hand the command to the command file's `set --` byte for byte;
//   - hand the working directory and every mount target to the script's tp_* assignments
//     byte for byte;
//   - give the container runtimes only paths of [A-Za-z0-9._/-]: the image, the working
//     directory and the bind list (whose entries ',' and ':' join) as the script assigns them;
//   - give #SBATCH lines that sbatch reads back (tests/render/sbatch_reader.h) as the submit
//     description, whose Slurm overrides are the request's;
//   - never write the ingest token into the script, the env file or the command file.
#include <boost/json.hpp>
#include <cstdint>

#include "fuzz_support.h"
#include "render/render_request.h"
#include "render_fixtures.h"
#include "sbatch_reader.h"
#include "shell_words.h"
#include "storage/layout.h"

using namespace tpslurm;
namespace json = boost::json;

namespace {

constexpr std::string_view kTokenMark = "tok-secret-";
const char* const kOverrides[] = {"account", "qos", "reservation", "wckey"};

json::object build_spec(fuzz::ByteReader& in) {
  static const char* const kRuntimes[] = {"custom-pytorch-2.5", "custom-ray-2.40", "verl-0.4"};
  const std::string runtime = kRuntimes[in.choice(3)];
  json::object spec;
  spec["framework"] = {{"name", runtime == "verl-0.4" ? "verl" : "custom"}, {"runtime_id", runtime}};
  json::array command{json::string("prog" + in.text())};
  for (std::size_t n = in.choice(5); n > 0; --n) command.emplace_back(in.text());
  spec["command"] = std::move(command);
  json::object env;
  for (std::size_t n = in.choice(5); n > 0; --n) env["FUZZ_VAR_" + std::to_string(n)] = in.text();
  spec["env"] = std::move(env);
  if (in.byte() % 2 != 0) spec["working_dir"] = "/" + in.text();
  json::array mounts;
  for (std::size_t n = in.choice(3); n > 0; --n) {
    mounts.push_back({{"source", "datasets/d" + std::to_string(n)},
                      {"target", "/mnt/" + std::to_string(n) + in.text()},
                      {"read_only", in.byte() % 2 == 0}});
  }
  spec["mounts"] = std::move(mounts);
  json::object slurm;
  for (const char* key : kOverrides) {
    if (in.byte() % 2 != 0) slurm[key] = in.text(24);
  }
  spec["slurm"] = std::move(slurm);
  spec["pools"] = {{{"name", "trainer"},
                    {"gpu_series", "h100-80g"},
                    {"nodes", 1 + in.choice(3)},
                    {"gpus_per_node", 8},
                    {"cpus", 16},
                    {"memory_gb", 64}}};
  return spec;
}

// Drops what a problem names: a hostile field the validator refused.
void drop_refused(json::object& request, const model::Problems& problems) {
  json::object& spec = request["spec"].as_object();
  for (const auto& problem : problems.list()) {
    const std::string& path = problem.path;
    if (path.starts_with("spec.command")) spec["command"] = {"prog"};
    if (path.starts_with("spec.env")) spec["env"] = json::object();
    if (path.starts_with("spec.working_dir")) spec.erase("working_dir");
    if (path.starts_with("spec.mounts")) spec["mounts"] = json::array();
    if (path.starts_with("spec.slurm")) spec["slurm"] = json::object();
    if (path.starts_with("credentials")) request.erase("credentials");
  }
}

void expect_equal(std::string_view what, const std::optional<std::string>& got, std::string_view want,
                  std::string_view text) {
  if (!got || *got != want) fuzz::fail(what, std::string(want) + "\n--- rendered:\n" + std::string(text));
}

// The block of tp_* assignments at the script's top.
std::string_view assignment_block(std::string_view script) {
  const auto start = script.find("\ntp_job_id=");
  const auto end = script.find("\nreadonly ", start == std::string_view::npos ? 0 : start);
  if (start == std::string_view::npos || end == std::string_view::npos) fuzz::fail("no tp_* block", script);
  return script.substr(start + 1, end - start);
}

void check_command(const model::LaunchRequest& request, const render::RenderedAttempt& attempt) {
  const std::string_view file = attempt.command_file;
  const auto at = file.find("\nset --");
  if (at == std::string_view::npos) fuzz::fail("no `set --` in the command file", file);
  std::string_view rest = file.substr(at + 7);
  auto words = fuzz::take_words(rest);
  if (!words || *words != request.command || rest != "\n") fuzz::fail("the command file differs", file);
}

// `value` holds nothing but the runtimes' path alphabet and `joiners`.
void expect_path_bytes(std::string_view what, const std::optional<std::string>& value, std::string_view joiners,
                       std::string_view block) {
  const std::string allowed =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/" + std::string(joiners);
  if (!value || value->find_first_not_of(allowed) != std::string::npos) fuzz::fail(what, block);
}

void check_script(const model::LaunchRequest& request, const render::RenderedAttempt& attempt) {
  const std::string_view block = assignment_block(attempt.script);
  expect_path_bytes("tp_image holds a byte beyond the path alphabet", fuzz::assigned_value(block, "tp_image"), "",
                    block);
  expect_path_bytes("tp_workdir holds a byte beyond the path alphabet", fuzz::assigned_value(block, "tp_workdir"), "",
                    block);
  expect_path_bytes("tp_mounts holds a byte beyond the path alphabet", fuzz::assigned_value(block, "tp_mounts"),
                    ",:", block);
  if (!request.working_dir.empty()) {
    expect_equal("tp_workdir differs", fuzz::assigned_value(block, "tp_workdir"), request.working_dir, block);
  }
  const auto mounts = fuzz::assigned_value(block, "tp_mounts");
  if (!mounts) fuzz::fail("tp_mounts is not one word", block);
  for (const auto& mount : request.mounts) {
    const std::string bound = ":" + mount.target;
    const auto found = mounts->find(bound);
    if (found == std::string::npos) fuzz::fail("a mount target is not in tp_mounts", mount.target);
  }
}

void check_sbatch(const model::LaunchRequest& request, const model::SubmitDescription& submit,
                  const std::string& script) {
  auto read = render::testing::read_sbatch_directives(script);
  if (!read.ok()) fuzz::fail("sbatch cannot read the #SBATCH lines", read.error().message());
  const std::pair<const std::optional<std::string>&, const std::string&> overrides[] = {
      {request.slurm.account, submit.account},
      {request.slurm.qos, submit.qos},
      {request.slurm.reservation, submit.reservation},
      {request.slurm.wckey, submit.wckey}};
  for (const auto& [wanted, given] : overrides) {
    if (given != wanted.value_or("")) fuzz::fail("a Slurm override differs in the submit description", given);
  }
  if (read->account != submit.account || read->qos != submit.qos || read->reservation != submit.reservation ||
      read->wckey != submit.wckey || read->tag.name != submit.tag.name || read->tag.comment != submit.tag.comment) {
    fuzz::fail("the #SBATCH lines say other than the submit description", script);
  }
}

void check_rendered(const model::LaunchRequest& request, const render::RenderedAttempt& attempt) {
  for (const auto& [name, value] : request.env) {
    expect_equal("an env value differs", fuzz::assigned_value(attempt.env_file, name), value, attempt.env_file);
  }
  check_command(request, attempt);
  check_script(request, attempt);
  check_sbatch(request, attempt.submit, attempt.script);
  if (request.ingest_token) {
    const bool elsewhere = request.canonical_json.find(kTokenMark.substr(0, 10)) != std::string::npos;
    if (!elsewhere && (attempt.script.find(*request.ingest_token) != std::string::npos ||
                       attempt.env_file.find(*request.ingest_token) != std::string::npos ||
                       attempt.command_file.find(*request.ingest_token) != std::string::npos)) {
      fuzz::fail("the ingest token is rendered");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::ByteReader in(fuzz::as_text(data, size));
  const auto profile = in.byte() % 2 == 0 ? model::RuntimeProfile::enroot_pyxis : model::RuntimeProfile::apptainer;
  json::object request{{"job_id", "fuzz-job"}, {"type", "custom"}};
  request["spec"] = build_spec(in);
  request["credentials"] = {{"ingest_token", std::string(kTokenMark) + in.text()}};
  if (request["spec"].at("framework").at("name") == "verl") request["type"] = "training";

  const model::Settings settings = render::testing::settings(profile);
  const render::RenderCatalogs catalogs{render::testing::gpu_series(), render::testing::runtimes()};
  auto parsed = render::parse_request(json::serialize(request), catalogs, settings);
  if (!parsed.ok()) {
    drop_refused(request, parsed.error());
    parsed = render::parse_request(json::serialize(request), catalogs, settings);
    if (!parsed.ok()) return 0;
  }
  const std::string text = json::serialize(request);
  if (text.find("\\u0000") != std::string::npos) fuzz::fail("a request with a NUL is accepted", text);

  render::AttemptInputs inputs;
  inputs.submit_token = "0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69";
  inputs.local_attempt_dir = storage::attempt_dir(settings.storage_root, parsed->job_id, 1);
  inputs.cluster_attempt_dir = inputs.local_attempt_dir;
  inputs.job_credential_path = storage::job_credential_path(settings.storage_root, parsed->job_id);
  auto rendered = render::render_parsed(*parsed, catalogs, settings, inputs);
  if (rendered.ok()) check_rendered(*parsed, *rendered);
  return 0;
}
