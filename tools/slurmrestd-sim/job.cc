#include "job.h"

#include <cctype>
#include <cstdlib>

#include "sluid.h"

namespace tpslurm::sim {

namespace {

struct FlagName {
  std::uint32_t bit;
  std::string_view name;
};

// Slurm's flag table order (JOB_STATE parser, v0.0.45).
constexpr FlagName kFlagOrder[] = {
    {state_flag::update_db, "UPDATE_DB"},
    {state_flag::requeued, "REQUEUED"},
    {state_flag::configuring, "CONFIGURING"},
    {state_flag::completing, "COMPLETING"},
    {state_flag::stage_out, "STAGE_OUT"},
};

constexpr std::string_view kBaseNames[] = {
    "PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
    "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY",
};

struct SignalName {
  int number;
  std::string_view name;
};

constexpr SignalName kSignals[] = {
    {1, "HUP"},   {2, "INT"},   {3, "QUIT"},  {4, "ILL"},   {5, "TRAP"},   {6, "ABRT"},
    {7, "BUS"},   {8, "FPE"},   {9, "KILL"},  {10, "USR1"}, {11, "SEGV"},  {12, "USR2"},
    {13, "PIPE"}, {14, "ALRM"}, {15, "TERM"}, {17, "CHLD"}, {18, "CONT"},  {19, "STOP"},
    {20, "TSTP"}, {21, "TTIN"}, {22, "TTOU"}, {23, "URG"},  {24, "XCPU"},  {25, "XFSZ"},
};

}  // namespace

std::string_view base_state_name(BaseState state) { return kBaseNames[static_cast<int>(state)]; }

std::optional<BaseState> parse_base_state(std::string_view name) {
  for (int i = 0; i < static_cast<int>(std::size(kBaseNames)); ++i) {
    if (kBaseNames[i] == name) return static_cast<BaseState>(i);
  }
  return std::nullopt;
}

bool is_finished(BaseState state) {
  return state != BaseState::pending && state != BaseState::running && state != BaseState::suspended;
}

std::vector<std::string_view> state_array(BaseState state, std::uint32_t flags) {
  return state_array(state, flags, Dialect::v0045);
}

std::vector<std::string_view> state_array(BaseState state, std::uint32_t flags, Dialect dialect) {
  if (dialect != Dialect::v0040 && dialect != Dialect::v0041) flags &= ~state_flag::update_db;
  std::vector<std::string_view> out{base_state_name(state)};
  for (const auto& f : kFlagOrder) {
    if (flags & f.bit) out.push_back(f.name);
  }
  return out;
}

std::string_view state_string_v38(BaseState state, std::uint32_t flags) {
  // job_state_string()@22.05: COMPLETING > STAGE_OUT > CONFIGURING > ... > REQUEUED > base.
  if (flags & state_flag::completing) return "COMPLETING";
  if (flags & state_flag::stage_out) return "STAGE_OUT";
  if (flags & state_flag::configuring) return "CONFIGURING";
  if (flags & state_flag::requeued) return "REQUEUED";
  return base_state_name(state);
}

std::string_view signal_name(int signal) {
  for (const auto& s : kSignals) {
    if (s.number == signal) return s.name;
  }
  return "";
}

int parse_signal(std::string_view text) {
  if (text.empty()) return 0;
  bool digits = true;
  for (char c : text) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits) {
    if (text.size() > 3) return 0;
    return std::atoi(std::string(text).c_str());
  }
  std::string upper;
  for (char c : text) upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  std::string_view name = upper;
  if (name.substr(0, 3) == "SIG") name.remove_prefix(3);
  for (const auto& s : kSignals) {
    if (s.name == name) return s.number;
  }
  return 0;
}

std::uint64_t JobRecord::allocated_mem_mb(std::uint64_t def_mem_per_cpu_mb) const {
  if (mem_per_node_mb) return mem_per_node_mb;
  std::uint64_t per_cpu = mem_per_cpu_mb ? mem_per_cpu_mb : def_mem_per_cpu_mb;
  return per_cpu * total_cpus();
}

std::string JobRecord::tres_string(std::uint64_t def_mem_per_cpu_mb) const {
  std::string out = "cpu=" + std::to_string(total_cpus()) + ",mem=" +
                    std::to_string(allocated_mem_mb(def_mem_per_cpu_mb)) + "M,node=" +
                    std::to_string(min_nodes) + ",billing=" + std::to_string(total_cpus());
  if (gpus) out += ",gres/gpu=" + std::to_string(gpus * min_nodes);
  return out;
}

std::string JobRecord::expand_path(const std::string& pattern, bool sluid_patterns) const {
  if (pattern.empty()) return "";
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c != '%' || i + 1 == pattern.size()) {
      out.push_back(c);
      continue;
    }
    char p = pattern[++i];
    switch (p) {
      case 'j': out += std::to_string(job_id); break;
      // An array task: the master's id and its task id; NO_VAL on a meta record or a plain job.
      case 'A': out += std::to_string(array_job_id ? array_job_id : job_id); break;
      case 'a': out += array_task_id ? std::to_string(*array_task_id) : "4294967294"; break;
      case 'x': out += name; break;
      case 'u': out += user_name; break;
      case 'S':
        if (sluid_patterns) {
          out += format_sluid(sluid);
        } else {
          out += "%S";
        }
        break;
      case '%': out.push_back('%'); break;
      default:
        out.push_back('%');
        out.push_back(p);
    }
  }
  if (out.front() != '/' && !cwd.empty()) out = cwd + "/" + out;
  return out;
}

}  // namespace tpslurm::sim
