// reconcile_bench's fixture: the two template jobs through a Controller, the other jobs in
// Slurm through the control API, and their journal rows copied from the templates (see
// reconcile_bench_fixture.h).
#include "reconcile_bench_fixture.h"

#include <malloc.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "base/digest.h"
#include "base/uuid.h"
#include "journal/components.h"
#include "reconcile/attempt_tag.h"

namespace tpslurm::bench::reconcile_bench {

namespace {

using tpslurm::slurm::HttpMethod;

const std::string kPendingTemplate = "j0000000";
const std::string kRunningTemplate = "j0000001";

// A generated attempt: its job, token, template and Slurm job.
struct Clone {
  std::string job_id;
  std::string token;
  const std::string* from = nullptr;  // the template
  std::uint32_t slurm_job_id = 0;
};

// Creates `clones` in Slurm through the control API, each carrying its attempt's tag.
void create_in_slurm(World& world, std::vector<Clone>& clones, std::size_t first, std::size_t count,
                     const std::string& state) {
  constexpr std::size_t kChunk = 20000;
  for (std::size_t at = first; at < first + count; at += kChunk) {
    const std::size_t n = std::min(kChunk, first + count - at);
    boost::json::array names, comments, directories;
    for (std::size_t i = at; i < at + n; ++i) {
      journal::AttemptRecord a;
      a.job_id = clones[i].job_id;
      a.number = 1;
      a.submit_token = clones[i].token;
      const model::JobTag tag = reconcile::attempt_tag(world.settings, a);
      names.emplace_back(tag.name);
      comments.emplace_back(tag.comment);
      directories.emplace_back(tag.working_directory);
    }
    boost::json::object body{{"count", n},
                             {"state", state},
                             {"names", std::move(names)},
                             {"comments", std::move(comments)},
                             {"working_directories", std::move(directories)}};
    const std::string answer = world.sim.call(HttpMethod::post, "/sim/jobs/bulk", boost::json::serialize(body));
    auto id = static_cast<std::uint32_t>(number_after(answer, "first_job_id"));
    for (std::size_t i = at; i < at + n; ++i) clones[i].slurm_job_id = id++;
  }
}

// The two templates, through a Controller: both released and pending, the second running.
void make_templates(World& world) {
  world.add_job(kPendingTemplate);
  world.add_job(kRunningTemplate);
  auto client = world.client(0);
  auto controller = world.controller(*client);
  controller->run_once();
  const journal::AttemptRecord running = world.attempt(kRunningTemplate);
  if (!running.slurm_job_id) die("the template " + kRunningTemplate + " was not submitted");
  world.sim.call(HttpMethod::post, "/sim/jobs/" + std::to_string(*running.slurm_job_id) + "/state",
                 R"({"state": "RUNNING"})");
  controller->run_once();
  if (world.attempt(kPendingTemplate).state != model::AttemptState::pending ||
      world.attempt(kRunningTemplate).state != model::AttemptState::running) {
    die("the templates did not reach pending and running (run with --log info to see why)");
  }
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// FIXTURE GENERATION, not the product's way of writing: the clones' rows copied from their
// templates in one transaction (the insert trigger wants a new attempt in preparing; the
// state is set right after).
void write_clones(World& world, const std::vector<Clone>& clones,
                  const std::map<std::uint32_t, model::JobSnapshot>& records) {
  std::map<std::string, journal::JobRecord> templates;
  for (const auto& id : {kPendingTemplate, kRunningTemplate}) {
    auto job = world.journal->job(id);
    if (!job.ok() || !job->has_value()) die("no template job " + id);
    templates[id] = **job;
  }
  Db db(world.settings.journal_path);
  sqlite3_stmt* job = db.prepare(
      "INSERT INTO jobs (job_id, request_json, request_sha256, credential_path, credential_hmac, max_attempts, "
      "desire, desire_reason, phase, current_attempt, version, created_at, updated_at, cancel_grace_seconds) "
      "SELECT ?1, ?2, ?3, replace(credential_path, ?4, ?1), credential_hmac, max_attempts, desire, desire_reason, "
      "phase, current_attempt, version, created_at, updated_at, cancel_grace_seconds FROM jobs WHERE job_id = ?4");
  sqlite3_stmt* attempt = db.prepare(
      "INSERT INTO attempts (job_id, number, submit_token, state, input_sha256, attempt_dir, script_sha256, "
      "env_sha256, manifest_sha256, intent_at, slurm_job_id, sluid, het_job_id, components, server_release, "
      "dialect, receipt, slurm_state, slurm_reason, exit_code, exit_signal, failure_phase, outcome_reason, found_by, "
      "cleanup, logs_sha256, version, created_at, updated_at, submit_mode, identified_at, released_at, searched_at, "
      "complete_search_at, search_report, observed_at, signalled_at, cleanup_at) "
      "SELECT ?1, number, ?2, 'preparing', input_sha256, replace(attempt_dir, ?3, ?1), script_sha256, env_sha256, "
      "manifest_sha256, intent_at, ?4, ?5, het_job_id, ?6, server_release, dialect, receipt, slurm_state, ?7, "
      "exit_code, exit_signal, failure_phase, outcome_reason, found_by, cleanup, logs_sha256, version, created_at, "
      "updated_at, submit_mode, identified_at, released_at, searched_at, complete_search_at, search_report, "
      "observed_at, signalled_at, cleanup_at FROM attempts WHERE job_id = ?3");
  sqlite3_stmt* state =
      db.prepare("UPDATE attempts SET state = (SELECT state FROM attempts WHERE job_id = ?2) WHERE job_id = ?1");
  sqlite3_stmt* events = db.prepare(
      "INSERT INTO events (at, job_id, attempt, kind, from_state, to_state, detail) "
      "SELECT at, ?1, attempt, kind, from_state, to_state, detail FROM events WHERE job_id = ?2 ORDER BY seq");
  db.exec("BEGIN IMMEDIATE");
  for (const Clone& c : clones) {
    const auto record = records.find(c.slurm_job_id);
    if (record == records.end()) die("slurmctld does not list job " + std::to_string(c.slurm_job_id));
    const std::string& from = *c.from;
    const std::string request = replace_all(templates[from].request_json, from, c.job_id);
    bind_text(job, 1, c.job_id);
    bind_text(job, 2, request);
    bind_text(job, 3, sha256_hex(request));
    bind_text(job, 4, from);
    db.run(job);
    bind_text(attempt, 1, c.job_id);
    bind_text(attempt, 2, c.token);
    bind_text(attempt, 3, from);
    sqlite3_bind_int64(attempt, 4, c.slurm_job_id);
    bind_text(attempt, 5, record->second.sluid);
    bind_text(attempt, 6, journal::components_json({record->second}));
    bind_text(attempt, 7, record->second.state_reason);
    db.run(attempt);
    bind_text(state, 1, c.job_id);
    bind_text(state, 2, from);
    db.run(state);
    bind_text(events, 1, c.job_id);
    bind_text(events, 2, from);
    db.run(events);
  }
  db.exec("COMMIT");
  for (sqlite3_stmt* s : {job, attempt, state, events}) sqlite3_finalize(s);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

}  // namespace

std::string job_id_of(long long i) {
  char text[24];
  std::snprintf(text, sizeof text, "j%07lld", i);
  return text;
}

Built build_fixture(World& world, double pending_percent) {
  const auto start = Steady::now();
  make_templates(world);
  const long long n = world.size();
  Built built;
  built.pending = std::clamp<long long>(std::llround(static_cast<double>(n) * pending_percent / 100), 1, n - 1);
  std::vector<Clone> clones;
  for (long long i = 2; i < n; ++i) {
    clones.push_back({job_id_of(i), new_uuid(), i - 1 < built.pending ? &kPendingTemplate : &kRunningTemplate, 0});
  }
  const auto pending_clones = static_cast<std::size_t>(built.pending - 1);
  create_in_slurm(world, clones, 0, pending_clones, "PENDING");
  create_in_slurm(world, clones, pending_clones, clones.size() - pending_clones, "RUNNING");
  {
    // What identify would have read, for every clone at once.
    auto client = world.client(0);
    const double received = static_cast<double>(world.transport->bytes_received);
    const auto listed = Steady::now();
    slurm::JobsResult all = client->jobs_changed_since(std::nullopt);
    built.listing_ms = ms_between(listed, Steady::now());
    built.listing_bytes = static_cast<double>(world.transport->bytes_received) - received;
    if (!all.ok()) die("listing the fixture's jobs: " + all.message);
    std::map<std::uint32_t, model::JobSnapshot> records;
    for (auto& r : all.jobs) records.emplace(r.job_id, std::move(r));
    all.jobs.clear();
    write_clones(world, clones, records);
  }
  malloc_trim(0);
  Db db(world.settings.journal_path);
  built.journal_bytes = static_cast<double>(db.number("PRAGMA page_count") * db.number("PRAGMA page_size"));
  built.seconds = ms_between(start, Steady::now()) / 1000;
  return built;
}

}  // namespace tpslurm::bench::reconcile_bench
