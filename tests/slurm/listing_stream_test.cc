// Job lists read as their body arrives (RestCaller::send_listing, a JobsDecoder under the
// CurlTransport) must come out exactly as the same answer read whole (the FakeTransport, which
// does not stream): the records, the outcome, the status, the message and the errors — for a
// listing far larger than what a response keeps, for error answers with and without JSON, and
// for 22.05's empty 304.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fake_transport.h"
#include "slurm/curl_transport.h"
#include "slurm/rest_client.h"
#include "test_http_server.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

namespace bj = boost::json;
using testing::Action;
using testing::ReceivedRequest;
using testing::TestHttpServer;

// 26.05.3's answer for one job, its record repeated `count` times with ids 1000, 1001, ...
std::string listing_of(int count) {
  bj::value answer = bj::parse(testing::response_v0045("05_get_job_by_id"));
  bj::array& jobs = answer.as_object().at("jobs").as_array();
  const bj::value record = jobs.at(0);
  jobs.clear();
  for (int i = 0; i < count; ++i) {
    bj::value copy = record;
    copy.as_object()["job_id"] = 1000 + i;
    copy.as_object()["name"] = "tp-stream-job-" + std::to_string(i);
    jobs.push_back(std::move(copy));
  }
  return bj::serialize(answer);
}

struct Answer {
  std::string name;
  std::string version;
  int status;
  std::string body;
};

JobsResult list_through(Transport& transport, const std::string& version) {
  testing::StaticTokenSource tokens;
  auto client = RestClient::create(transport, tokens, version);
  EXPECT_TRUE(client.ok());
  return (*client)->jobs_changed_since(std::nullopt);
}

void expect_same(const JobsResult& streamed, const JobsResult& whole) {
  EXPECT_EQ(streamed.outcome, whole.outcome);
  EXPECT_EQ(streamed.http_status, whole.http_status);
  EXPECT_EQ(streamed.message, whole.message);
  EXPECT_EQ(streamed.release, whole.release);
  EXPECT_EQ(streamed.errors.size(), whole.errors.size());
  EXPECT_EQ(streamed.unchanged, whole.unchanged);
  ASSERT_EQ(streamed.jobs.size(), whole.jobs.size());
  for (std::size_t i = 0; i < whole.jobs.size(); ++i) {
    EXPECT_EQ(streamed.jobs[i].job_id, whole.jobs[i].job_id) << i;
    EXPECT_EQ(streamed.jobs[i].name, whole.jobs[i].name) << i;
    EXPECT_EQ(streamed.jobs[i].sluid, whole.jobs[i].sluid) << i;
    EXPECT_EQ(streamed.jobs[i].state.base, whole.jobs[i].state.base) << i;
  }
}

TEST(ListingStreamTest, AJobListReadAsItArrivesIsTheListReadWhole) {
  const std::string large = listing_of(600);
  ASSERT_GT(large.size(), 4 * kKeptBodyBytes) << "the listing must be larger than what a response keeps";
  const std::vector<Answer> answers = {
      {"a listing of 600 jobs", "v0.0.45", 200, large},
      {"an empty listing", "v0.0.45", 200, listing_of(0)},
      {"an error answer", "v0.0.45", 500,
       R"({"jobs": [], "errors": [{"error": "Unable to query jobs", "error_number": 1007}], "warnings": []})"},
      {"an error answer without its list", "v0.0.45", 500,
       R"({"errors": [{"error": "Zero Bytes were transmitted or received", "error_number": 1007}]})"},
      {"a proxy's page larger than what is kept", "v0.0.45", 502, "<html>" + std::string(3 * kKeptBodyBytes, 'x')},
      {"a listing cut by its server", "v0.0.45", 200, large.substr(0, large.size() / 2)},
      {"nothing changed on 22.05", "v0.0.38", 304, ""},
  };
  for (const auto& answer : answers) {
    SCOPED_TRACE(answer.name);
    auto server =
        TestHttpServer::start_tcp([&](const ReceivedRequest&) { return Action::reply(answer.status, answer.body); });
    ASSERT_NE(server, nullptr) << "the test server could not start";
    CurlTransportOptions options;
    options.url = server->url();
    auto curl = CurlTransport::create(options);
    ASSERT_TRUE(curl.ok());
    testing::FakeTransport fake;
    fake.answer("/slurm/" + answer.version + "/jobs", answer.status, answer.body);

    const JobsResult streamed = list_through(**curl, answer.version);
    const JobsResult whole = list_through(fake, answer.version);
    expect_same(streamed, whole);
  }
}

// The records of a large listing all arrive, and the response holds only its first bytes.
TEST(ListingStreamTest, ALargeListingIsNeverHeldWhole) {
  const std::string large = listing_of(600);
  auto server = TestHttpServer::start_tcp([&](const ReceivedRequest&) { return Action::reply(200, large); });
  ASSERT_NE(server, nullptr) << "the test server could not start";
  CurlTransportOptions options;
  options.url = server->url();
  auto curl = CurlTransport::create(options);
  ASSERT_TRUE(curl.ok());

  // The transport under the client, watched: what each exchange kept of its body.
  struct Watched final : Transport {
    explicit Watched(Transport& wrapped) : inner(wrapped) {}
    HttpExchange perform(const HttpRequest& request) override {
      HttpExchange exchange = inner.perform(request);
      kept = exchange.response.body.size();
      total = exchange.response.body_size();
      return exchange;
    }
    std::string endpoint() const override { return inner.endpoint(); }
    Transport& inner;
    std::size_t kept = 0;
    std::size_t total = 0;
  } watched(**curl);

  const JobsResult listed = list_through(watched, "v0.0.45");
  ASSERT_TRUE(listed.ok()) << listed.message;
  ASSERT_EQ(listed.jobs.size(), 600u);
  EXPECT_EQ(listed.jobs.back().job_id, 1599u);
  EXPECT_EQ(listed.jobs.back().name, "tp-stream-job-599");
  EXPECT_EQ(watched.kept, kKeptBodyBytes);
  EXPECT_EQ(watched.total, large.size());
}

}  // namespace
}  // namespace tpslurm::slurm
