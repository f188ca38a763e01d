#include "render/sbatch_directives.h"

#include "render/shell_quote.h"

namespace tpslurm::render {
namespace {

class Lines {
 public:
  void flag(std::string_view option) { m_text += "#SBATCH " + std::string(option) + "\n"; }

  void option(std::string_view option, std::string_view value) {
    if (!m_status.ok()) return;
    auto quoted = sbatch_quote(value);
    if (!quoted.ok()) {
      m_status = quoted.error().with_context("#SBATCH " + std::string(option));
      return;
    }
    m_text += "#SBATCH " + std::string(option) + "=" + *quoted + "\n";
  }

  void optional(std::string_view name, const std::string& value) {
    if (!value.empty()) option(name, value);
  }

  Result<std::string> finish() {
    if (!m_status.ok()) return m_status.error();
    return std::move(m_text);
  }

 private:
  std::string m_text;
  Status m_status;
};

}  // namespace

Result<std::string> sbatch_directives(const model::SubmitDescription& description) {
  Lines lines;
  for (std::size_t k = 0; k < description.components.size(); ++k) {
    const model::SubmitComponent& component = description.components[k];
    if (k > 0) lines.flag("hetjob");
    lines.option("--job-name", description.tag.name);
    lines.option("--comment", description.tag.comment);
    lines.option("--chdir", description.tag.working_directory);
    lines.option("--output", description.standard_output);
    lines.option("--error", description.standard_error);
    lines.flag("--no-requeue");
    // REST submits carry only the fixed environment; so does the script, which sets it itself.
    lines.option("--export", "NONE");
    lines.optional("--partition", component.partition);
    lines.optional("--account", description.account);
    lines.optional("--qos", description.qos);
    lines.optional("--reservation", description.reservation);
    lines.optional("--wckey", description.wckey);
    if (description.exclusive) lines.flag("--exclusive");
    if (description.time_limit_minutes) lines.option("--time", std::to_string(*description.time_limit_minutes));
    if (description.signal) {
      const model::WarningSignal& signal = *description.signal;
      lines.option("--signal", std::string(signal.batch_only ? "B:" : "") + signal.signal + "@" +
                                   std::to_string(signal.seconds_before));
    }
    lines.optional("--constraint", component.constraint);
    lines.option("--nodes", std::to_string(component.nodes));
    lines.option("--ntasks-per-node", std::to_string(component.tasks_per_node));
    lines.option("--cpus-per-task", std::to_string(component.cpus_per_task));
    if (component.memory_mb > 0) lines.option("--mem", std::to_string(component.memory_mb) + "M");
    lines.optional("--gres", component.gres_per_node);
    if (const auto& array = description.array) {
      lines.option("--array", array->text());
    }
  }
  return lines.finish();
}

}  // namespace tpslurm::render
