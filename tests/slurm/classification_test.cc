// The classification table (outcome.h), row by row, through the real client and the real
// transport against a test server on loopback — one test per way a submit can end.
#include <gtest/gtest.h>

#include "slurm/curl_transport.h"
#include "slurm/rest_client.h"
#include "test_http_server.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using testing::Action;
using testing::ReceivedRequest;
using testing::TestHttpServer;

constexpr char kSubmit45[] = "POST /slurm/v0.0.45/job/submit";
constexpr char kSubmit38[] = "POST /slurm/v0.0.38/job/submit";

class ClassificationTest : public ::testing::Test {
 protected:
  // Starts a server that gives `action` to every request and a client in `dialect` for it.
  void serve(std::function<Action(const ReceivedRequest&)> action, std::string dialect = "v0.0.45") {
    m_server = TestHttpServer::start_tcp(std::move(action));
    ASSERT_NE(m_server, nullptr) << "the test server could not start";
    connect(m_server->url(), std::move(dialect));
  }

  void connect(const std::string& url, std::string dialect = "v0.0.45",
               std::chrono::milliseconds total_timeout = std::chrono::milliseconds(3000)) {
    CurlTransportOptions options;
    options.url = url;
    options.connect_timeout = std::chrono::milliseconds(300);
    options.total_timeout = total_timeout;
    options.allow_insecure_http = true;  // the DNS test names a host that is not loopback
    auto transport = CurlTransport::create(options);
    ASSERT_TRUE(transport.ok()) << transport.error().message();
    m_transport = std::move(transport).value();
    auto client = RestClient::create(*m_transport, m_tokens, std::move(dialect));
    ASSERT_TRUE(client.ok()) << client.error().message();
    m_client = std::move(client).value();
  }

  SubmitResult submit() {
    SubmitResult result = m_client->submit(testing::cpu_description());
    EXPECT_EQ(result.message.find(m_tokens.token()), std::string::npos) << "the token leaked into a message";
    return result;
  }

  int posts() const {
    int count = 0;
    for (const auto& request : m_server->requests()) count += request.method == "POST" ? 1 : 0;
    return count;
  }

  testing::StaticTokenSource m_tokens;
  std::unique_ptr<TestHttpServer> m_server;
  std::unique_ptr<CurlTransport> m_transport;
  std::unique_ptr<RestClient> m_client;
};

Action reply(int status, std::string body) { return Action::reply(status, std::move(body)); }

TEST_F(ClassificationTest, JobIdInTheAnswerIsOk) {
  serve([](const ReceivedRequest&) { return reply(200, testing::response_v0045("04_submit_single")); });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_EQ(result.job_id, 12u);
  EXPECT_EQ(result.release, "26.05.3");
  EXPECT_EQ(result.message, "");
  EXPECT_EQ(posts(), 1);
}

TEST_F(ClassificationTest, JobIdIsOkWhateverTheStatusAndErrorsAreKept) {
  serve([](const ReceivedRequest&) {
    return reply(500, R"J({"job_id": 77, "errors": [{"error_number": 2050, "error": "Job violates accounting/QOS policy"}]})J");
  });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_EQ(result.job_id, 77u);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": Job violates accounting/QOS policy (error 2050)");
}

TEST_F(ClassificationTest, HeldJobOn2205IsOkWithSlurmsWarning) {
  const auto transcript = testing::transcript_v0038("submit_hold");
  serve([&](const ReceivedRequest&) { return reply(transcript.status, transcript.response_body); }, "v0.0.38");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_EQ(result.job_id, 11u);
  EXPECT_EQ(result.message, std::string(kSubmit38) + ": Job is in held state, pending scheduler release (error 2042)");
}

TEST_F(ClassificationTest, KnownValidationErrorIsRejected) {
  const auto transcript = testing::transcript_v0038("submit_badconstraint");
  serve([&](const ReceivedRequest&) { return reply(transcript.status, transcript.response_body); }, "v0.0.38");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_FALSE(result.job_id);
  EXPECT_EQ(result.message, std::string(kSubmit38) + ": Invalid feature specification (error 2029)");
}

TEST_F(ClassificationTest, ParseErrorsFrom2205AreRejected) {
  const auto transcript = testing::transcript_v0038("submit_noenv");
  serve([&](const ReceivedRequest&) { return reply(transcript.status, transcript.response_body); }, "v0.0.38");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_EQ(result.message, std::string(kSubmit38) +
                                ": environment must be set (error 2127); Failure during parsing (error 9001)");
}

TEST_F(ClassificationTest, InvalidPartitionOn2605Is422AndRejected) {
  serve([](const ReceivedRequest&) {
    return reply(422, R"J({"errors":[{"description":"","error_number":2000,"error":"Invalid partition name specified","source":"slurm_submit_batch_job()"}],"warnings":[]})J");
  });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": Invalid partition name specified (error 2000)");
}

TEST_F(ClassificationTest, SubmitLimitIsRejectedTransient) {
  serve([](const ReceivedRequest&) {
    return reply(500, R"J({"errors":[{"error_number":2050,"error":"Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"}]})J");
  });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::rejected_transient);
  EXPECT_EQ(result.message, std::string(kSubmit45) +
                                ": Job violates accounting/QOS policy (job submit limit, user's size and/or time limits) (error 2050)");
}

TEST_F(ClassificationTest, AccountingUnavailableIsRejectedTransient) {
  serve([](const ReceivedRequest&) {
    return reply(500, R"J({"errors":[{"error_number":7000,"error":"Unable to connect to database"}]})J");
  });
  EXPECT_EQ(submit().outcome, Outcome::rejected_transient);
}

TEST_F(ClassificationTest, UnknownErrorNumberIsUncertain) {
  serve([](const ReceivedRequest&) {
    return reply(500, R"J({"errors":[{"error_number":2029,"error":"Invalid feature specification"},{"error_number":1001,"error":"Unable to contact slurm controller"}]})J");
  });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message, std::string(kSubmit45) +
                                ": HTTP 500: Invalid feature specification (error 2029); Unable to contact slurm "
                                "controller (error 1001) and no job_id");
}

TEST_F(ClassificationTest, MissingTokenHeaders401IsAuth) {
  serve([](const ReceivedRequest&) { return Action::reply(401, "Authentication failure", "text/plain"); });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::auth);
  EXPECT_EQ(result.message,
            std::string(kSubmit45) + ": authentication failed: HTTP 401 with a body that is not the expected JSON");
}

// 1007 is also what Slurm's client library reports when the reply's credential fails to verify,
// after slurmctld created the job.
TEST_F(ClassificationTest, ExpiredToken511With1007IsUncertain) {
  serve([](const ReceivedRequest&) {
    return reply(testing::status_v0045("34_auth_expired_token_submit"), testing::response_v0045("34_auth_expired_token_submit"));
  });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.http_status, 511);
  EXPECT_EQ(result.message.rfind(std::string(kSubmit45) +
                                     ": authentication failed after slurmrestd took the request, which may come after "
                                     "slurmctld created the job: HTTP 511: Protocol authentication error",
                                 0),
            0u)
      << result.message;
}

TEST_F(ClassificationTest, BadTokenOn2205ShowsAsAuthInThePreflight) {
  const auto transcript = testing::transcript_v0038("auth_badsig");
  serve([&](const ReceivedRequest&) { return reply(transcript.status, transcript.response_body); }, "v0.0.38");
  const CallResult result = m_client->preflight();
  EXPECT_EQ(result.outcome, Outcome::auth);
  EXPECT_EQ(result.message,
            "GET /slurm/v0.0.38/ping: authentication failed (Slurm 22.05 reports a bad token this way): HTTP 500: "
            "Unspecified error (slurmctld config is unable to load) (error -1)");
}

TEST_F(ClassificationTest, ConnectionRefusedIsNotSent) {
  const std::string url = "http://127.0.0.1:" + std::to_string(testing::unused_port());
  connect(url);
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::not_sent);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": not sent: connection refused (" + url + ")");
}

TEST_F(ClassificationTest, DnsFailureIsNotSent) {
  // A 70-character label cannot be put in a DNS query, so the resolver fails locally without
  // sending anything to a name server.
  const std::string url = "http://" + std::string(70, 'a') + ".invalid:6820";
  connect(url);
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::not_sent);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": not sent: could not resolve the host (" + url + ")");
}

TEST_F(ClassificationTest, ConnectTimeoutIsNotSent) {
  auto blackhole = testing::BlackholeListener::start();
  ASSERT_NE(blackhole, nullptr) << "the blackhole listener could not start";
  connect(blackhole->url());
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::not_sent);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": not sent: timed out connecting (" + blackhole->url() + ")");
}

TEST_F(ClassificationTest, TlsHandshakeFailureIsNotSent) {
  m_server = TestHttpServer::start_tcp([](const ReceivedRequest&) { return reply(200, "{}"); });
  ASSERT_NE(m_server, nullptr) << "the test server could not start";
  const std::string url = "https://" + m_server->url().substr(7);
  connect(url);
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::not_sent);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": not sent: TLS handshake failed (" + url + ")");
  EXPECT_EQ(posts(), 0);
}

TEST_F(ClassificationTest, TimeoutAfterTheRequestLeftIsUncertain) {
  m_server = TestHttpServer::start_tcp([](const ReceivedRequest&) { return Action::hang(); });
  ASSERT_NE(m_server, nullptr) << "the test server could not start";
  connect(m_server->url(), "v0.0.45", std::chrono::milliseconds(400));
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message,
            std::string(kSubmit45) + ": may have been received: timed out waiting for the answer (" + m_server->url() + ")");
  EXPECT_EQ(posts(), 1);
}

TEST_F(ClassificationTest, ResetAfterTheRequestIsUncertain) {
  serve([](const ReceivedRequest&) { return Action::reset(); });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": may have been received: connection reset (" + m_server->url() + ")");
  EXPECT_EQ(posts(), 1);
}

TEST_F(ClassificationTest, EmptyReplyIsUncertain) {
  serve([](const ReceivedRequest&) { return Action::close_without_reply(); });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message,
            std::string(kSubmit45) + ": may have been received: connection closed with no answer (" + m_server->url() + ")");
  EXPECT_EQ(posts(), 1);
}

TEST_F(ClassificationTest, BadGatewayWithoutJobIdIsUncertain) {
  serve([](const ReceivedRequest&) {
    return reply(502, R"J({"errors":[{"error_number":1800,"error":"Communication connection failure"}]})J");
  });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": HTTP 502: Communication connection failure (error 1800) and no job_id");
}

TEST_F(ClassificationTest, GatewayTimeoutWithEmptyBodyIsUncertain) {
  serve([](const ReceivedRequest&) { return reply(504, ""); });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": HTTP 504 with an empty body and no job_id");
}

TEST_F(ClassificationTest, TruncatedBodyIsUncertain) {
  serve([](const ReceivedRequest&) { return Action::truncated(200, R"({"job_id": 12, "st)", 603); });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": may have been received: answer cut short (" + m_server->url() + ")");
}

TEST_F(ClassificationTest, UnparsableBodyIsUncertain) {
  serve([](const ReceivedRequest&) { return reply(200, "<html>proxy error</html>"); });
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": HTTP 200 with a body that is not the expected JSON and no job_id");
}

TEST_F(ClassificationTest, ServerErrorWithoutJobIdIsUncertain) {
  serve([](const ReceivedRequest&) {
    return reply(500, R"J({"errors":[{"error_number":-1,"error":"Unspecified error","source":"slurm_submit_batch_job"}]})J");
  });
  EXPECT_EQ(submit().outcome, Outcome::uncertain);
}

TEST_F(ClassificationTest, UnusableTokenIsAuthAndNothingIsSent) {
  class NoToken final : public TokenSource {
   public:
    Result<Credentials> credentials() override { return permanent("token file /etc/tp/jwt: cannot be read"); }
    std::string describe() const override { return "none"; }
  } no_token;
  m_server = TestHttpServer::start_tcp([](const ReceivedRequest&) { return reply(200, "{}"); });
  ASSERT_NE(m_server, nullptr) << "the test server could not start";
  CurlTransportOptions options;
  options.url = m_server->url();
  auto transport = CurlTransport::create(options);
  ASSERT_TRUE(transport.ok());
  auto client = RestClient::create(**transport, no_token, "v0.0.45");
  ASSERT_TRUE(client.ok());
  const SubmitResult result = (*client)->submit(testing::cpu_description());
  EXPECT_EQ(result.outcome, Outcome::auth);
  EXPECT_EQ(result.message, std::string(kSubmit45) + ": not sent: token file /etc/tp/jwt: cannot be read");
  EXPECT_TRUE(m_server->requests().empty());
}

}  // namespace
}  // namespace tpslurm::slurm
