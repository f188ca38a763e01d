// The sendable signal names: a fixed list of names both 22.05's and 26.05's sig_name2num read
// (see signal_names.h), matched exactly, and the refusal that names the value and the list.
#include "slurm/signal_names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace tpslurm::slurm {
namespace {

// sig_name2num's table at slurm-22-05-8-1 (src/common/proc_args.c signals_mapping); 26.05.3's
// holds these and CHLD and PIPE.
const std::vector<std::string_view> kTable2205 = {"HUP",  "INT", "QUIT", "ABRT", "KILL", "ALRM", "TERM", "USR1",
                                                  "USR2", "URG", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "XCPU"};

TEST(SignalNamesTest, EveryNameIsInTheOlderTableWithThePrefix) {
  ASSERT_FALSE(sendable_signals().empty());
  for (std::string_view name : sendable_signals()) {
    ASSERT_EQ(name.substr(0, 3), "SIG") << name;
    EXPECT_NE(std::find(kTable2205.begin(), kTable2205.end(), name.substr(3)), kTable2205.end()) << name;
    EXPECT_TRUE(is_sendable_signal(name)) << name;
  }
  EXPECT_EQ(std::vector<std::string_view>(sendable_signals().begin(), sendable_signals().end()),
            (std::vector<std::string_view>{"SIGHUP", "SIGINT", "SIGKILL", "SIGTERM", "SIGUSR1", "SIGUSR2"}));
}

TEST(SignalNamesTest, OnlyTheExactSpellingIsSendable) {
  for (std::string_view name : {"USR1", "sigusr1", "SigUsr1", "SIGUSR1 ", " SIGUSR1", "10", "SIGSTOP", "SIGCONT",
                                "SIGCHLD", "SIGSEGV", "SIGRTMIN", ""}) {
    EXPECT_FALSE(is_sendable_signal(name)) << name;
  }
}

TEST(SignalNamesTest, TheRefusalNamesTheValueAndTheAllowedNames) {
  EXPECT_EQ(unsendable_signal_message("SIG\"X\"\n"),
            "signal \"SIG\\\"X\\\"\\x0a\" is not one this client sends (slurmrestd 25.05-26.05 kill the job on a "
            "name they cannot parse); use SIGHUP, SIGINT, SIGKILL, SIGTERM, SIGUSR1 or SIGUSR2, or no signal for "
            "Slurm's default kill");
}

TEST(SignalNamesTest, TheKillIsTheDefaultOrSigkill) {
  EXPECT_TRUE(is_kill_signal(""));
  EXPECT_TRUE(is_kill_signal("SIGKILL"));
  EXPECT_FALSE(is_kill_signal("SIGTERM"));
  EXPECT_FALSE(is_kill_signal("SIGUSR1"));
}

}  // namespace
}  // namespace tpslurm::slurm
