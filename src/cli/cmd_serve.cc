// tuneplane-slurm serve [--once]
//
// The daemon: takes the journal's exclusive lock (a second `serve` is refused with the
// holder's pid), resumes every job from whatever the journal holds and reconciles until
// SIGTERM/SIGINT (reconcile/controller.h). --once runs passes until nothing is runnable now,
// then exits. Logs go to stderr (TUNEPLANE_LOG_FORMAT, TUNEPLANE_LOG_LEVEL). With
// TUNEPLANE_API_TOKENS_FILE set (and not --once) it also serves the platform API (api/) and
// its GET /metrics, recorded by the Slurm connections and the controller (metrics/).
//
// Under systemd (Type=notify, NOTIFY_SOCKET set; etc/tuneplane-slurm.service) the daemon says
// READY=1 once the journal's lock is held, the journal open, the API listening and SIGTERM
// handled (the controller's loop is about to run), and STOPPING=1 when that loop has returned. Without
// NOTIFY_SOCKET libsystemd's sd_notify() sends nothing; --once never notifies.
//
// The daemon holds SIGINT and SIGTERM blocked from its first step until the controller's
// handler is installed: one that comes during a slow start (a journal to open, a server that
// answers late) waits, and then stops the daemon as any other does, with exit 0.
#include <signal.h>
#include <systemd/sd-daemon.h>

#include <CLI/CLI.hpp>
#include <cstring>

#include "api/api_service.h"
#include "base/file_system.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/deployment.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/mint_journal.h"
#include "cli/slurm_connection.h"
#include "config/logging.h"
#include "journal/daemon_lock.h"
#include "journal/journal.h"
#include "reconcile/controller.h"
#include "storage/secret_key.h"

namespace tpslurm::cli {
namespace {

// A notification that cannot be sent is logged, never fatal: the daemon works without it,
// and under Type=notify systemd's start timeout reports the missing READY=1.
void notify_systemd(const char* state) {
  const int sent = sd_notify(0, state);
  if (sent < 0) {
    config::log(config::LogLevel::warn, {}, std::string("sd_notify ") + state + ": " + std::strerror(-sent));
  }
}

// Every thread started after this (the controller's pool, the API's) inherits the mask, so the
// stop signals reach only the thread that unblocks them: the controller's, once it handles them.
void set_stop_signals(int how) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(how, &stop_signals, nullptr);
}

int run_daemon(reconcile::Controller& controller) {
  const int exit_code = controller.run([] {
    set_stop_signals(SIG_UNBLOCK);  // a signal held since the start is handled now
    notify_systemd("READY=1");
  });
  notify_systemd("STOPPING=1");
  return exit_code;
}

// Whether the cluster keeps accounting that slurmrestd serves, journaled for `status` and the
// operator; each search finds out again for itself (slurm/tag_search.h).
void note_accounting(journal::Journal& journal, slurm::SlurmClient& slurm, const Clock& clock) {
  const slurm::AccountingResult found = slurm.accounting();
  if (!found.ok()) {
    config::log(config::LogLevel::warn, {}, "accounting: not known at start (" + found.message + ")");
    return;
  }
  const std::string value = found.present ? "present" : "absent";
  (void)journal.set_meta("accounting", value);
  (void)journal.set_meta("accounting_checked_at", format_utc(clock.now()));
  config::log_info({}, found.present ? "accounting: slurmdbd answers through slurmrestd"
                                     : "accounting: absent (" + found.message +
                                           "): a job slurmctld has purged is known only from its attempt's evidence");
}

// Which Slurm answers and the REST version chosen for it (the configured one, or with auto the
// newest it offers), journaled for `status`, logged and shown in /metrics. A server that
// answers but speaks none of this build's versions stops serve here with detect()'s one line;
// one that does not answer yet is detected again by the first call that needs it.
Status note_server(journal::Journal& journal, slurm::SlurmClient& slurm, const model::Settings& settings,
                   metrics::Metrics* metrics, const Clock& clock) {
  const slurm::ServerResult server = slurm.detect();
  if (server.outcome == slurm::Outcome::rejected) return invalid_argument(server.message);
  if (!server.ok()) {
    config::log(config::LogLevel::warn, {}, "Slurm's REST versions: not known at start (" + server.message + ")");
    return ok_status();
  }
  (void)journal.set_meta("slurm_release", server.release);
  (void)journal.set_meta("rest_version", server.dialect);
  (void)journal.set_meta("rest_version_setting", settings.rest_api_version);
  (void)journal.set_meta("slurm_checked_at", format_utc(clock.now()));
  if (metrics != nullptr) metrics->set_slurm_server(server.release, server.dialect);
  config::log_info({}, "Slurm " + (server.release.empty() ? std::string("(release not named)") : server.release) +
                           ": REST " + server.dialect + " (" + settings.rest_api_version + "; offered " +
                           slurm::join_versions(server.offered) + ")");
  return ok_status();
}

// Said once at start when TUNEPLANE_INSTANCE is not set and this host's name no longer gives the
// journal's instance (a renamed host): the journal's stands, as the jobs it named carry it.
void note_instance(Context& context) {
  const config::LoadedSettings& loaded = *context.loaded_settings();
  const std::string& instance = loaded.settings.instance;
  const std::string host = context.host_instance();
  if (loaded.sources.at("TUNEPLANE_INSTANCE") != "journal" || host == instance) return;
  config::log_info({}, "instance " + instance +
                           ": the journal's (TUNEPLANE_INSTANCE is not set; this host's name gives " + host +
                           "). To rename it: set TUNEPLANE_INSTANCE, then `journal move-deployment`");
}

int run_serve(Context& context, bool once) {
  if (!once) set_stop_signals(SIG_BLOCK);
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  if (Status logging = config::configure_logging(settings->log_level, settings->log_format); !logging.ok()) {
    return context.fail(logging.error());
  }
  if (settings->storage_root.empty()) {
    return context.fail(invalid_argument("TUNEPLANE_STORAGE_ROOT is not set; attempts are written under it"));
  }
  auto catalogs = load_catalogs(*settings, "serve");
  if (!catalogs.ok()) return context.fail(catalogs.error());
  if (Status made = make_directories(settings->state_dir, 0700); !made.ok()) return context.fail(made.error());
  auto lock = journal::DaemonLock::acquire(settings->journal_path);
  if (!lock.ok()) return context.fail(lock.error());
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  if (Status same = check_deployment(*journal, *settings); !same.ok()) return context.fail(same.error());
  note_instance(context);
  auto key = storage::load_state_key(settings->state_dir);
  if (!key.ok()) return context.fail(key.error());
  // The platform API, when its tokens are configured: it answers beside the reconciler and
  // stops after it, and serves the metrics the Slurm connection and the controller record.
  const bool api = !once && !settings->api_tokens_file.empty();
  std::unique_ptr<metrics::Metrics> metrics;
  if (api) metrics = std::make_unique<metrics::Metrics>(context.clock());
  // Every token minted from the cluster's key is journaled, the API's too.
  auto mints = MintJournal::open(*settings, context.clock());
  if (!mints.ok()) return context.fail(mints.error());
  auto slurm = connect_slurm(*settings, context.clock(), metrics.get(), Budget::limited, (*mints)->listener());
  if (!slurm.ok()) return context.fail(slurm.error());
  if (Status known = note_server(*journal, *slurm->client, *settings, metrics.get(), context.clock()); !known.ok()) {
    return context.fail(known.error());
  }
  note_accounting(*journal, *slurm->client, context.clock());

  reconcile::Controller controller({*journal,
                                    *slurm->client,
                                    *settings,
                                    *catalogs,
                                    context.clock(),
                                    *key,
                                    slurm->budget.get(),
                                    settings->pass_threads,
                                    reconcile::kSweepEvery,
                                    {},
                                    metrics.get()});
  // Its Slurm client (resolve's adopt, /readyz) is its own, outside the daemon's request budget.
  // Its new jobs are committed through the controller's journal writer; declared after the
  // controller, the service stops first, and its queue's last jobs are still journaled.
  std::optional<SlurmConnection> api_slurm;
  std::unique_ptr<api::ApiService> service;
  if (api) {
    auto connected = connect_slurm(*settings, context.clock(), metrics.get(), Budget::none, (*mints)->listener());
    if (!connected.ok()) return context.fail(connected.error());
    api_slurm = std::move(*connected);
    auto through = [&controller](const std::function<Status(journal::Journal&)>& change,
                                 std::vector<std::string> job_ids) {
      return controller.commit_from_outside(change, std::move(job_ids));
    };
    auto started = api::ApiService::start(*settings, *catalogs, context.clock(), {}, api_slurm->client.get(),
                                          metrics.get(), through);
    if (!started.ok()) return context.fail(started.error());
    service = std::move(*started);
    config::log_info({}, "API listening on " + service->server().where());
  }
  if (!once) return run_daemon(controller);
  const reconcile::CycleReport report = controller.run_once();
  context.out() << "serve --once: " << report.cycles << " cycles, " << report.passes << " passes, " << report.progressed
                << " with progress\n";
  return kExitOk;
}

}  // namespace

void add_serve_command(CLI::App& app, Context& context, int& exit_code) {
  auto once = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("serve", "Run the reconciler: submit, follow and cancel every journaled job");
  add_version_flag(*command);
  command->add_flag("--once", *once, "Run passes until nothing is runnable now, then exit");
  command->callback([&context, &exit_code, once] { exit_code = run_serve(context, *once); });
}

}  // namespace tpslurm::cli
