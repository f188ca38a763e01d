#include "render/submit_json.h"

#include "base/digest.h"
#include "render/shell_quote.h"

namespace tpslurm::render {
namespace {

// Writes one object member per line at a fixed indentation.
class Members {
 public:
  Members(std::string& out, int indent) : m_out(out), m_indent(indent) {}

  void raw(std::string_view key, const std::string& json) {
    m_out += m_first ? "\n" : ",\n";
    m_first = false;
    m_out.append(static_cast<std::size_t>(m_indent), ' ');
    m_out += json_quote(key) + ": " + json;
  }
  void text(std::string_view key, const std::string& value) { raw(key, json_quote(value)); }
  void number(std::string_view key, std::int64_t value) { raw(key, std::to_string(value)); }
  void boolean(std::string_view key, bool value) { raw(key, value ? "true" : "false"); }
  void close() {
    m_out += "\n";
    m_out.append(static_cast<std::size_t>(m_indent - 2), ' ');
    m_out += "}";
  }

 private:
  std::string& m_out;
  int m_indent;
  bool m_first = true;
};

std::string component_json(const model::SubmitComponent& component, int indent) {
  std::string out = "{";
  Members members(out, indent);
  members.text("partition", component.partition);
  members.text("constraint", component.constraint);
  members.number("nodes", component.nodes);
  members.number("tasks_per_node", component.tasks_per_node);
  members.number("cpus_per_task", component.cpus_per_task);
  members.number("memory_mb", component.memory_mb);
  members.text("gres_per_node", component.gres_per_node);
  members.close();
  return out;
}

}  // namespace

std::string submit_description_json(const model::SubmitDescription& description) {
  std::string out = "{";
  Members members(out, 2);
  members.text("name", description.tag.name);
  members.text("comment", description.tag.comment);
  members.text("working_directory", description.tag.working_directory);
  members.text("script_sha256", sha256_hex(description.script));
  members.text("standard_output", description.standard_output);
  members.text("standard_error", description.standard_error);
  std::string environment = "[";
  for (std::size_t i = 0; i < description.environment.size(); ++i) {
    const auto& [name, value] = description.environment[i];
    environment += (i == 0 ? "\n    " : ",\n    ") + json_quote(name + "=" + value);
  }
  environment += description.environment.empty() ? "]" : "\n  ]";
  members.raw("environment", environment);
  members.text("account", description.account);
  members.text("qos", description.qos);
  members.text("reservation", description.reservation);
  members.text("wckey", description.wckey);
  members.boolean("exclusive", description.exclusive);
  members.raw("time_limit_minutes",
              description.time_limit_minutes ? std::to_string(*description.time_limit_minutes) : "null");
  if (description.signal) {
    std::string signal = "{";
    Members fields(signal, 4);
    fields.text("signal", description.signal->signal);
    fields.number("seconds_before", description.signal->seconds_before);
    fields.boolean("batch_only", description.signal->batch_only);
    fields.close();
    members.raw("signal", signal);
  } else {
    members.raw("signal", "null");
  }
  members.boolean("requeue", false);
  std::string components = "[";
  for (std::size_t k = 0; k < description.components.size(); ++k) {
    components += (k == 0 ? "\n    " : ",\n    ") + component_json(description.components[k], 6);
  }
  components += description.components.empty() ? "]" : "\n  ]";
  members.raw("components", components);
  members.close();
  out += "\n";
  return out;
}

}  // namespace tpslurm::render
