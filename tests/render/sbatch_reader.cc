#include "sbatch_reader.h"

#include <cctype>
#include <map>
#include <sstream>
#include <vector>

namespace tpslurm::render::testing {
namespace {

std::vector<std::string> split_arguments(const std::string& line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::string arg;
    char quote = 0;
    bool comment = false;
    while (i < line.size() && (quote != 0 || !std::isspace(static_cast<unsigned char>(line[i])))) {
      const char c = line[i];
      if (c == '\\' && i + 1 < line.size()) {
        arg += line[i + 1];
        i += 2;
      } else if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          arg += c;
        }
        ++i;
      } else if (c == '"' || c == '\'') {
        quote = c;
        ++i;
      } else if (c == '#') {
        comment = true;
        break;
      } else {
        arg += c;
        ++i;
      }
    }
    if (!arg.empty()) out.push_back(arg);
    if (comment) break;
  }
  return out;
}

using Options = std::multimap<std::string, std::string>;

Result<int> to_int(const std::string& text) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used != text.size()) return invalid_argument("not a number: " + text);
    return value;
  } catch (...) {
    return invalid_argument("not a number: " + text);
  }
}

// The #SBATCH options of each component, component 0 first; "--name=value" as {name, value}.
Result<std::vector<Options>> read_components(const std::string& script) {
  std::vector<Options> components(1);
  std::istringstream lines(script);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("#SBATCH", 0) == 0) {
      // sbatch's own test: a directive line containing either word separates components.
      std::string lower = line;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find("hetjob") != std::string::npos || lower.find("packjob") != std::string::npos) {
        if (split_arguments(line.substr(7)) != std::vector<std::string>{"hetjob"}) {
          return invalid_argument("a directive line would split the job: " + line);
        }
        components.emplace_back();
        continue;
      }
      for (const auto& arg : split_arguments(line.substr(7))) {
        const auto eq = arg.find('=');
        components.back().emplace(arg.substr(0, eq), eq == std::string::npos ? "" : arg.substr(eq + 1));
      }
      continue;
    }
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] != '#') break;  // sbatch stops at the first command
  }
  return components;
}

// The value of option `name`; "" when absent.
std::string single(const Options& options, const std::string& name) {
  const auto range = options.equal_range(name);
  return range.first == range.second ? "" : range.first->second;
}

// Options every component must give alike.
const char* const kJobLevel[] = {"--job-name", "--comment",     "--chdir", "--output",    "--error", "--account",
                                 "--qos",      "--reservation", "--wckey", "--exclusive", "--time",  "--signal",
                                 "--array"};

// Component `k`: its sizes and placement, after checking its options (each once, the required
// ones, the job-level ones as in component 0, none unknown).
Result<model::SubmitComponent> read_component(const std::vector<Options>& components, std::size_t k) {
  const Options& options = components[k];
  for (const auto& [name, value] : options) {
    if (options.count(name) != 1) return invalid_argument("component " + std::to_string(k) + " repeats " + name);
  }
  if (!options.contains("--no-requeue")) {
    return invalid_argument("component " + std::to_string(k) + " lacks --no-requeue");
  }
  if (single(options, "--export") != "NONE") {
    return invalid_argument("component " + std::to_string(k) + " lacks --export=NONE");
  }
  for (const char* name : kJobLevel) {
    if (options.contains(name) != components[0].contains(name) ||
        single(options, name) != single(components[0], name)) {
      return invalid_argument(std::string(name) + " differs in component " + std::to_string(k));
    }
  }
  model::SubmitComponent component;
  component.partition = single(options, "--partition");
  component.constraint = single(options, "--constraint");
  auto nodes = to_int(single(options, "--nodes"));
  auto tasks = to_int(single(options, "--ntasks-per-node"));
  auto cpus = to_int(single(options, "--cpus-per-task"));
  if (!nodes.ok() || !tasks.ok() || !cpus.ok()) return invalid_argument("component " + std::to_string(k) + " sizes");
  component.nodes = *nodes;
  component.tasks_per_node = *tasks;
  component.cpus_per_task = *cpus;
  std::string mem = single(options, "--mem");
  if (!mem.empty()) {
    if (mem.back() != 'M') return invalid_argument("--mem without M: " + mem);
    component.memory_mb = std::stoll(mem.substr(0, mem.size() - 1));
  }
  component.gres_per_node = single(options, "--gres");
  std::size_t known = 0;
  for (const char* name : {"--partition", "--constraint", "--nodes", "--ntasks-per-node", "--cpus-per-task", "--mem",
                           "--gres", "--no-requeue", "--export"}) {
    known += options.count(name);
  }
  for (const char* name : kJobLevel) known += options.count(name);
  if (known != options.size()) return invalid_argument("component " + std::to_string(k) + " has unknown options");
  return component;
}

// --signal=[B:]SIGNAL@SECONDS.
Result<model::WarningSignal> read_signal(std::string text) {
  model::WarningSignal signal;
  signal.batch_only = text.rfind("B:", 0) == 0;
  if (signal.batch_only) text = text.substr(2);
  const auto at = text.find('@');
  if (at == std::string::npos) return invalid_argument("--signal without @");
  signal.signal = text.substr(0, at);
  auto seconds = to_int(text.substr(at + 1));
  if (!seconds.ok()) return seconds.error();
  signal.seconds_before = *seconds;
  return signal;
}

// --array=FIRST[-LAST][%MAX_RUNNING], the only forms the generator writes.
Result<model::ArraySpec> read_array(const std::string& text) {
  model::ArraySpec array;
  const auto percent = text.find('%');
  const std::string range = text.substr(0, percent);
  const auto dash = range.find('-');
  auto first = to_int(range.substr(0, dash));
  auto last = to_int(dash == std::string::npos ? range : range.substr(dash + 1));
  if (!first.ok() || !last.ok()) return invalid_argument("--array range: " + text);
  array.first = static_cast<std::uint32_t>(*first);
  array.last = static_cast<std::uint32_t>(*last);
  if (percent != std::string::npos) {
    auto limit = to_int(text.substr(percent + 1));
    if (!limit.ok()) return invalid_argument("--array limit: " + text);
    array.max_running = static_cast<std::uint32_t>(*limit);
  }
  return array;
}

// The job-level fields of `out`, from component 0's options.
Status read_job_level(const Options& job, model::SubmitDescription& out) {
  out.tag.name = single(job, "--job-name");
  out.tag.comment = single(job, "--comment");
  out.tag.working_directory = single(job, "--chdir");
  out.standard_output = single(job, "--output");
  out.standard_error = single(job, "--error");
  out.account = single(job, "--account");
  out.qos = single(job, "--qos");
  out.reservation = single(job, "--reservation");
  out.wckey = single(job, "--wckey");
  out.exclusive = job.contains("--exclusive");
  if (job.contains("--time")) {
    auto minutes = to_int(single(job, "--time"));
    if (!minutes.ok()) return minutes.error();
    out.time_limit_minutes = *minutes;
  }
  if (job.contains("--signal")) {
    auto signal = read_signal(single(job, "--signal"));
    if (!signal.ok()) return signal.error();
    out.signal = *signal;
  }
  if (job.contains("--array")) {
    auto array = read_array(single(job, "--array"));
    if (!array.ok()) return array.error();
    out.array = *array;
  }
  return ok_status();
}

}  // namespace

Result<model::SubmitDescription> read_sbatch_directives(const std::string& script) {
  auto components = read_components(script);
  if (!components.ok()) return components.error();
  model::SubmitDescription out;
  for (std::size_t k = 0; k < components->size(); ++k) {
    auto component = read_component(*components, k);
    if (!component.ok()) return component.error();
    out.components.push_back(*component);
  }
  if (Status job = read_job_level(components->front(), out); !job.ok()) return job.error();
  return out;
}

}  // namespace tpslurm::render::testing
