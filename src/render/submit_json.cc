#include "render/submit_json.h"

#include <boost/json.hpp>

#include "base/digest.h"

namespace tpslurm::render {
namespace {

namespace json = boost::json;

// Two-space indentation, one member or element per line, members in insertion order;
// scalars as Boost.JSON writes them. Empty containers stay on one line.
void pretty(const json::value& value, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  if (value.is_object() && !value.get_object().empty()) {
    out += "{";
    bool first = true;
    for (const auto& member : value.get_object()) {
      out += first ? "\n" : ",\n";
      first = false;
      out += pad + json::serialize(json::string(member.key())) + ": ";
      pretty(member.value(), indent + 2, out);
    }
    out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "}";
  } else if (value.is_array() && !value.get_array().empty()) {
    out += "[";
    bool first = true;
    for (const auto& element : value.get_array()) {
      out += first ? "\n" : ",\n";
      first = false;
      out += pad;
      pretty(element, indent + 2, out);
    }
    out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "]";
  } else {
    out += json::serialize(value);
  }
}

json::object component_json(const model::SubmitComponent& component) {
  return {{"partition", component.partition},
          {"constraint", component.constraint},
          {"nodes", component.nodes},
          {"tasks_per_node", component.tasks_per_node},
          {"cpus_per_task", component.cpus_per_task},
          {"memory_mb", component.memory_mb},
          {"gres_per_node", component.gres_per_node}};
}

}  // namespace

std::string submit_description_json(const model::SubmitDescription& description) {
  json::array environment;
  for (const auto& [name, value] : description.environment) environment.emplace_back(name + "=" + value);
  json::value signal = nullptr;
  if (description.signal) {
    signal = json::object{{"signal", description.signal->signal},
                          {"seconds_before", description.signal->seconds_before},
                          {"batch_only", description.signal->batch_only}};
  }
  json::array components;
  for (const auto& component : description.components) components.emplace_back(component_json(component));
  json::object out{
      {"name", description.tag.name},
      {"comment", description.tag.comment},
      {"working_directory", description.tag.working_directory},
      {"script_sha256", sha256_hex(description.script)},
      {"standard_output", description.standard_output},
      {"standard_error", description.standard_error},
      {"environment", std::move(environment)},
      {"account", description.account},
      {"qos", description.qos},
      {"reservation", description.reservation},
      {"wckey", description.wckey},
      {"exclusive", description.exclusive},
      {"time_limit_minutes",
       description.time_limit_minutes ? json::value(*description.time_limit_minutes) : json::value(nullptr)},
      {"signal", std::move(signal)},
      {"requeue", false},
      {"components", std::move(components)},
  };
  // Only for an array, so that the description of a single job reads as it always has.
  if (description.array) out["array"] = description.array->text();
  std::string text;
  pretty(out, 0, text);
  return text + "\n";
}

}  // namespace tpslurm::render
