// `serve` under systemd's notification protocol, the real binary against
// tools/slurmrestd-sim with the platform API on a unix socket: READY=1 comes only once the
// journal is open (held back while the test holds the journal directory's setup lock), and
// when it comes the API answers and the daemon's lock is held; SIGTERM brings STOPPING=1 and
// exit 0, and nothing else is sent. `serve --once` sends nothing.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>

#include "../api/http_client.h"
#include "base/unique_fd.h"
#include "notify_socket.h"
#include "reconcile/binary_fixture.h"
#include "support/background_process.h"
#include "support/eventually.h"

namespace tpslurm::ops::testing {
namespace {

using namespace std::chrono_literals;
using tpslurm::testing::eventually;

class ServeNotifyTest : public reconcile::testing::BinaryTest {
 protected:
  void SetUp() override {
    start_sim("26.05.3");
    m_api_socket = m_dir.file("api.sock");
    m_env = api_environment(m_dir.file("deploy"), m_api_socket, "tpcanary-platform-0123456789");
    m_env["NOTIFY_SOCKET"] = m_notify.path();
    ASSERT_TRUE(m_notify.bound()) << m_notify.error();
    ASSERT_EQ(cli(m_env, {"migrate"}).exit_code, 0);
  }

  std::string state_dir() const { return m_env.at("TUNEPLANE_STATE_DIR"); }
  std::string log() const { return tpslurm::testing::read_test_file(m_dir.file("serve.log")); }

  // Whether another process holds the journal's daemon lock (`<journal>.lock`, an flock);
  // only while serve holds it: a probe at the moment serve tries it would refuse serve.
  bool daemon_lock_held() const {
    UniqueFd fd(::open((state_dir() + "/journal.db.lock").c_str(), O_RDONLY | O_CLOEXEC));
    return fd.get() >= 0 && ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  }

  tpslurm::testing::EnvironmentMap m_env;
  std::string m_api_socket;
  NotifySocket m_notify{m_dir.file("notify.sock")};
};

TEST_F(ServeNotifyTest, ReadyOnlyOnceTheJournalIsOpenAndTheApiAnswersThenStoppingOnSigterm) {
  // The journal's setup lock (an flock on its directory) keeps serve waiting in the journal's
  // open, after it took the daemon lock and before the API starts.
  UniqueFd setup(::open(state_dir().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_GE(setup.get(), 0);
  ASSERT_EQ(::flock(setup.get(), LOCK_EX), 0);
  std::string error;
  auto serve = tpslurm::testing::BackgroundProcess::start({TP_BINARY, "serve"}, m_env, m_dir.file("serve.log"), error);
  ASSERT_TRUE(serve) << error;
  // Long enough for serve to reach the journal's open (milliseconds). Probing the daemon lock
  // now could make serve's own try at it fail, so it is checked only after READY=1.
  EXPECT_EQ(m_notify.receive(1500ms), std::nullopt) << "READY before the journal was open";
  struct stat info {};
  EXPECT_NE(::lstat(m_api_socket.c_str(), &info), 0) << "the API started before the journal was open";
  setup = UniqueFd();

  const auto ready = m_notify.receive(20s);
  ASSERT_TRUE(ready) << log();
  EXPECT_EQ(*ready, "READY=1");
  // At once, without retrying: whoever systemd starts after us finds the API answering.
  const auto health = api::testing::http({0, m_api_socket}, "GET", "/healthz");
  EXPECT_EQ(health.status, 200) << health.error;
  EXPECT_TRUE(daemon_lock_held());
  EXPECT_NE(log().find("API listening on unix:" + m_api_socket), std::string::npos) << log();

  // The controller logs "serving" once its signal handling is in place.
  ASSERT_TRUE(eventually([&] { return log().find("serving: poll interval") != std::string::npos; })) << log();
  EXPECT_EQ(m_notify.receive(0ms), std::nullopt) << "a second notification while serving";
  serve->signal(SIGTERM);
  const auto stopping = m_notify.receive(20s);
  ASSERT_TRUE(stopping) << log();
  EXPECT_EQ(*stopping, "STOPPING=1");
  EXPECT_EQ(serve->wait(), 0) << log();
  EXPECT_EQ(m_notify.receive(0ms), std::nullopt) << "a notification after STOPPING=1";
}

TEST_F(ServeNotifyTest, OnceNeverNotifies) {
  const auto once = cli(m_env, {"serve", "--once"});
  ASSERT_EQ(once.exit_code, 0) << once.err;
  EXPECT_NE(once.out.find("serve --once:"), std::string::npos) << once.out;
  // The process has exited: whatever it sent is already queued.
  EXPECT_EQ(m_notify.receive(0ms), std::nullopt);
}

}  // namespace
}  // namespace tpslurm::ops::testing
