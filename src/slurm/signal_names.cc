#include "slurm/signal_names.h"

#include <algorithm>
#include <array>

#include "base/printable.h"

namespace tpslurm::slurm {
namespace {

constexpr std::array<std::string_view, 6> kSendable{"SIGHUP", "SIGINT", "SIGKILL", "SIGTERM", "SIGUSR1", "SIGUSR2"};

}  // namespace

std::span<const std::string_view> sendable_signals() { return kSendable; }

bool is_sendable_signal(std::string_view name) {
  return std::find(kSendable.begin(), kSendable.end(), name) != kSendable.end();
}

std::string unsendable_signal_message(std::string_view name) {
  std::string names;
  for (std::size_t i = 0; i < kSendable.size(); ++i) {
    if (i > 0) names += i + 1 == kSendable.size() ? " or " : ", ";
    names += kSendable[i];
  }
  return "signal \"" + printable(name) +
         "\" is not one this client sends (slurmrestd 25.05-26.05 kill the job on a name they cannot parse); use " +
         names + ", or no signal for Slurm's default kill";
}

bool is_kill_signal(std::string_view name) { return name.empty() || name == "SIGKILL"; }

}  // namespace tpslurm::slurm
