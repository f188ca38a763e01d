#include <boost/json.hpp>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/sweep_commands.h"
#include "cli/table.h"
#include "journal/journal.h"
#include "operations/sweep_submission.h"
#include "operations/sweep_view.h"
#include "storage/secret_key.h"

namespace tpslurm::cli {

int run_submit_sweep(Context& context, const std::string& path, bool json) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  auto catalogs = load_catalogs(*settings, "submit");
  if (!catalogs.ok()) return context.fail(catalogs.error());
  auto sweep = load_sweep(path, *catalogs, *settings);
  if (!sweep.ok()) return context.fail(sweep.error(), path);
  if (settings->storage_root.empty()) {
    return context.fail(
        invalid_argument("TUNEPLANE_STORAGE_ROOT is not set; `submit` stores each run's ingest credential under it"));
  }
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  auto key = storage::load_state_key(settings->state_dir);
  if (!key.ok()) return context.fail(key.error());
  const model::JobOwner owner = model::owner_of(sweep->runs.front(), catalogs->users.get());
  auto submitted = operations::submit_sweep(*journal, *settings, {*sweep, owner, ""}, *key);
  if (!submitted.ok()) return context.fail(submitted.error());
  if (submitted->outcome == model::SubmitOutcome::conflict ||
      submitted->outcome == model::SubmitOutcome::over_limit) {
    return context.fail(invalid_argument(submitted->refusal));
  }
  const bool created = submitted->outcome == model::SubmitOutcome::created;
  if (json) {
    boost::json::array ids;
    for (const std::string& id : submitted->job_ids) ids.emplace_back(id);
    context.out() << boost::json::serialize(boost::json::object{{"sweep_id", sweep->sweep_id},
                                                                {"outcome", created ? "created" : "unchanged"},
                                                                {"request_sha256", submitted->request_sha256},
                                                                {"job_ids", std::move(ids)}})
                  << "\n";
  } else if (created) {
    context.out() << "sweep " << sweep->sweep_id << ": submitted " << submitted->job_ids.size()
                  << " runs (queued); request sha256 " << submitted->request_sha256 << "\n";
  } else {
    context.out() << "sweep " << sweep->sweep_id << ": already submitted with this request; nothing changed\n";
  }
  return kExitOk;
}

int show_sweep_status(Context& context, journal::Journal& journal, const std::string& sweep_id, bool json) {
  auto view = operations::sweep_status(journal, sweep_id);
  if (!view.ok()) return context.fail(view.error());
  if (!view->has_value()) return context.fail(not_found("no sweep " + sweep_id + " in " + journal.path()));
  const boost::json::object& sweep = **view;
  if (json) {
    context.out() << boost::json::serialize(sweep) << "\n";
    return kExitOk;
  }
  context.out() << "sweep " << sweep_id << ": " << sweep.at("run_count").as_int64() << " runs";
  if (sweep.at("max_running").is_int64()) {
    context.out() << ", at most " << sweep.at("max_running").as_int64() << " at once";
  }
  context.out() << ", submitted " << sweep.at("created_at").as_string().c_str() << "\n";
  std::string counts;
  for (const auto& [phase, count] : sweep.at("phases").as_object()) {
    counts += (counts.empty() ? "" : ", ") + std::to_string(count.as_int64()) + " " + std::string(phase);
  }
  context.out() << "runs: " << counts << "\n\n";
  Table table({"RUN", "JOB", "PHASE"});
  for (const auto& run : sweep.at("runs").as_array()) {
    const auto& object = run.as_object();
    table.add({std::to_string(object.at("index").as_int64()), std::string(object.at("job_id").as_string()),
               std::string(object.at("phase").as_string())});
  }
  table.print(context.out());
  return kExitOk;
}

}  // namespace tpslurm::cli
