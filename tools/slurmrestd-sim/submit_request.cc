#include "submit_request.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cctype>
#include <optional>

#include "array_spec.h"
#include "slurm_errors.h"
#include "submit_fields.h"
#include "submit_values.h"

namespace tpslurm::sim {

using namespace submit_detail;

SubmitParse parse_submit(std::string_view body, Dialect dialect, const SubmitDefaults& defaults) {
  boost::system::error_code ec;
  json::value root = json::parse(body, ec);
  if (ec) {
    SubmitParse out;
    out.unparsable_body = true;
    out.rc = err::kRestFailParsing;
    return out;
  }
  SubmitParse out = is_v4x(dialect) ? parse_v4x(root, dialect, defaults) : parse_v38(root, defaults);
  for (auto& rec : out.components) rec.planned_exit = planned_exit_code(out.components.front().script);
  return out;
}

SubmitCheck check_submit(std::vector<JobRecord>& components, const ClusterConfig& cluster, Dialect dialect) {
  SubmitCheck out;
  for (std::size_t i = 0; i < components.size(); ++i) {
    JobRecord& rec = components[i];
    if (rec.partition.empty()) {
      rec.partition = cluster.default_partition;
      rec.partition_defaulted = true;
    } else if (!cluster.has_partition(rec.partition)) {
      out.rc = err::kInvalidPartitionName;
      return out;
    }
    if (!rec.constraints.empty() && !cluster.constraint_satisfiable(rec.constraints)) {
      out.rc = err::kInvalidFeature;
      return out;
    }
    // slurmctld checks the batch component's environment (_copy_job_desc_to_file);
    // v0.0.38 has already demanded one in every component.
    if (i == 0 && is_v4x(dialect) && rec.environment.empty()) {
      out.rc = err::kEnvironmentMissing;
      return out;
    }
    if (!cluster.accounts.empty() && !rec.account.empty() && !cluster.accounts.count(rec.account)) {
      out.rc = err::kInvalidAccount;
      return out;
    }
    if (!cluster.accounts.empty() && rec.account.empty()) rec.account = *cluster.accounts.begin();
    if (!cluster.qos.empty() && !rec.qos.empty() && !cluster.qos.count(rec.qos)) {
      out.rc = err::kInvalidQos;
      return out;
    }
  }
  // _valid_array_inx(): an array needs a batch script and a spec within the site's limits.
  // `array` on a het job is not modelled: it is submitted as a plain het job.
  JobRecord& batch = components.front();
  if (components.size() == 1 && !batch.array_spec.empty()) {
    const ArrayLimits limits{cluster.max_array_size, cluster.max_array_tasks};
    auto spec = parse_array_spec(batch.array_spec, limits);
    if (!spec || batch.script.empty()) {
      out.rc = err::kInvalidArray;
      return out;
    }
    batch.array_pending = std::move(spec->tasks);
    batch.array_max_tasks = spec->max_run;
  }
  for (auto& rec : components) {
    if (rec.hold) {
      out.nonfatal = err::kJobHeld;
    } else if (rec.total_cpus() > cluster.cpus_per_node || rec.min_nodes > cluster.nodes.size()) {
      // Created, but never schedulable here: it stays pending.
      rec.auto_progress = false;
      rec.state_reason = "PartitionConfig";
      if (!out.nonfatal) out.nonfatal = err::kRequestedPartConfigUnavailable;
    }
  }
  return out;
}

int planned_exit_code(std::string_view script) {
  int code = 0;
  std::size_t pos = 0;
  while ((pos = script.find("exit", pos)) != std::string_view::npos) {
    bool word_start =
        pos == 0 || !(std::isalnum(static_cast<unsigned char>(script[pos - 1])) || script[pos - 1] == '_');
    std::size_t i = pos + 4;
    pos = i;
    if (!word_start || i >= script.size() || (script[i] != ' ' && script[i] != '\t')) continue;
    while (i < script.size() && (script[i] == ' ' || script[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < script.size() && std::isdigit(static_cast<unsigned char>(script[i])) && i - start < 3) ++i;
    if (i > start) code = std::stoi(std::string(script.substr(start, i - start))) & 0xff;
  }
  return code;
}

}  // namespace tpslurm::sim
