#include "model/slurm_state.h"

#include <array>
#include <utility>

#include "model/enum_names.h"

namespace tpslurm::model {
namespace {

constexpr std::array<std::pair<SlurmBaseState, std::string_view>, 12> kBaseNames{{
    {SlurmBaseState::pending, "PENDING"},
    {SlurmBaseState::running, "RUNNING"},
    {SlurmBaseState::suspended, "SUSPENDED"},
    {SlurmBaseState::completed, "COMPLETED"},
    {SlurmBaseState::cancelled, "CANCELLED"},
    {SlurmBaseState::failed, "FAILED"},
    {SlurmBaseState::timeout, "TIMEOUT"},
    {SlurmBaseState::node_fail, "NODE_FAIL"},
    {SlurmBaseState::preempted, "PREEMPTED"},
    {SlurmBaseState::boot_fail, "BOOT_FAIL"},
    {SlurmBaseState::deadline, "DEADLINE"},
    {SlurmBaseState::out_of_memory, "OUT_OF_MEMORY"},
}};

// In the order v0.0.38 lets a flag replace the base state (highest priority first), then
// the flags it never shows that way.
constexpr std::array<std::pair<SlurmStateFlag, std::string_view>, 17> kFlagNames{{
    {SlurmStateFlag::completing, "COMPLETING"},
    {SlurmStateFlag::stage_out, "STAGE_OUT"},
    {SlurmStateFlag::configuring, "CONFIGURING"},
    {SlurmStateFlag::resizing, "RESIZING"},
    {SlurmStateFlag::requeued, "REQUEUED"},
    {SlurmStateFlag::requeue_fed, "REQUEUE_FED"},
    {SlurmStateFlag::requeue_hold, "REQUEUE_HOLD"},
    {SlurmStateFlag::special_exit, "SPECIAL_EXIT"},
    {SlurmStateFlag::stopped, "STOPPED"},
    {SlurmStateFlag::revoked, "REVOKED"},
    {SlurmStateFlag::resv_del_hold, "RESV_DEL_HOLD"},
    {SlurmStateFlag::signaling, "SIGNALING"},
    {SlurmStateFlag::launch_failed, "LAUNCH_FAILED"},
    {SlurmStateFlag::reconfig_fail, "RECONFIG_FAIL"},
    {SlurmStateFlag::power_up_node, "POWER_UP_NODE"},
    {SlurmStateFlag::expediting, "EXPEDITING"},
    {SlurmStateFlag::update_db, "UPDATE_DB"},
}};

constexpr std::uint32_t bit(SlurmStateFlag flag) { return static_cast<std::uint32_t>(flag); }

constexpr std::uint32_t kPendingWork = bit(SlurmStateFlag::completing) | bit(SlurmStateFlag::stage_out) |
                                       bit(SlurmStateFlag::requeued) | bit(SlurmStateFlag::requeue_fed) |
                                       bit(SlurmStateFlag::requeue_hold) | bit(SlurmStateFlag::special_exit) |
                                       bit(SlurmStateFlag::resizing) | bit(SlurmStateFlag::signaling);

}  // namespace

std::string_view to_string(SlurmBaseState state) { return detail::name_of(kBaseNames, state, "UNKNOWN"); }
std::string_view to_string(SlurmStateFlag flag) { return detail::name_of(kFlagNames, flag, "UNKNOWN"); }

std::optional<SlurmBaseState> parse_base_state(std::string_view word) {
  return detail::value_of<SlurmBaseState>(kBaseNames, word);
}

std::optional<SlurmStateFlag> parse_state_flag(std::string_view word) {
  return detail::value_of<SlurmStateFlag>(kFlagNames, word);
}

bool SlurmState::base_is_final() const {
  return base_known && base != SlurmBaseState::pending && base != SlurmBaseState::running &&
         base != SlurmBaseState::suspended;
}

bool SlurmState::is_terminal() const { return base_is_final() && (flags & kPendingWork) == 0; }

bool SlurmState::holds_resources() const { return has(SlurmStateFlag::completing) || has(SlurmStateFlag::stage_out); }

SlurmState SlurmState::from_list(const std::vector<std::string>& words) {
  SlurmState state;
  state.base_known = false;
  for (const auto& word : words) {
    if (const auto base = parse_base_state(word); base && !state.base_known) {
      state.base = *base;
      state.base_known = true;
    } else if (const auto flag = parse_state_flag(word)) {
      state.flags |= bit(*flag);
    } else {
      state.unknown.push_back(word);
    }
  }
  return state;
}

SlurmState SlurmState::from_v0038(std::string_view word) {
  SlurmState state;
  if (const auto base = parse_base_state(word)) {
    state.base = *base;
  } else if (const auto flag = parse_state_flag(word)) {
    state.base_known = false;
    state.flags = bit(*flag);
  } else {
    state.base_known = false;
    state.unknown.emplace_back(word);
  }
  return state;
}

SlurmState SlurmState::from_text(std::string_view text) {
  std::vector<std::string> words;
  if (text.empty()) return from_list(words);
  std::size_t start = 0;
  while (true) {
    const std::size_t plus = text.find('+', start);
    words.emplace_back(text.substr(start, plus == std::string_view::npos ? std::string_view::npos : plus - start));
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  if (words.front() == "?") words.erase(words.begin());
  return from_list(words);
}

std::string SlurmState::to_string() const {
  std::string out = base_known ? std::string(model::to_string(base)) : "?";
  for (const auto& [flag, name] : kFlagNames) {
    if (has(flag)) {
      out += '+';
      out += name;
    }
  }
  for (const auto& word : unknown) {
    out += '+';
    out += word;
  }
  return out;
}

}  // namespace tpslurm::model
