// The platform API's request handling (api/routes.h Routes::handle): the request line's
// target (path segments, percent-decoding, query parameters), the Authorization header and the
// body, for every route. The input is text:
//
//   METHOD TARGET\nAUTHORIZATION\nBODY       AUTHORIZATION "=" stands for a valid bearer token
//                                          with every scope, "r" for one with `read` alone
//
// The routes get a journal opened read-only (created empty at start in a private temporary
// directory, removed at exit) and a storage root that does not exist, so no request changes
// anything and every input is answered the same way each time. Checks: a status the API
// documents; a JSON body of the error shape for every error; 401 for a request without a
// valid token (but /healthz); 403 only for the reader, and never a 2xx to its POST; no token
// ever in a reply.
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <set>

#include "api/routes.h"
#include "config/logging.h"
#include "fuzz_support.h"
#include "render_fixtures.h"

using namespace tpslurm;

namespace {

constexpr std::string_view kToken = "fuzz-token-0123456789abcdef";
constexpr std::string_view kReader = "fuzz-reader-0123456789abcdef";

struct World {
  std::string dir;
  ManualClock clock{from_unix_seconds(1'800'000'000)};
  model::Settings settings;
  model::Catalogs catalogs{render::testing::gpu_series(), render::testing::runtimes()};
  std::unique_ptr<journal::Journal> journal;
  std::unique_ptr<api::TokenStore> tokens;
  std::unique_ptr<api::Routes> routes;
};

World& world() {
  static World* const w = [] {
    // The routes log their errors; the fuzzer reads none of them.
    static std::ostream discard(nullptr);
    if (!config::configure_logging("error", model::LogFormat::text, discard).ok()) fuzz::fail("logging");
    auto* out = new World;
    out->dir = (std::filesystem::temp_directory_path() / "tp-fuzz-api-XXXXXX").string();
    if (::mkdtemp(out->dir.data()) == nullptr) fuzz::fail("mkdtemp failed");
    static const std::string kept = out->dir;
    std::atexit([] { std::filesystem::remove_all(kept); });
    const std::string tokens_path = out->dir + "/api-tokens";
    std::ofstream(tokens_path) << "platform " << kToken << " read,submit,operate\nreader " << kReader << " read\n";
    ::chmod(tokens_path.c_str(), 0600);
    out->settings = render::testing::settings(model::RuntimeProfile::enroot_pyxis);
    out->settings.storage_root = out->dir + "/no-such-storage";
    out->settings.journal_path = out->dir + "/journal.db";
    if (!journal::Journal::open(out->settings.journal_path, out->clock).ok()) fuzz::fail("cannot create the journal");
    journal::OpenOptions read_only;
    read_only.mode = journal::OpenOptions::Mode::read_only;
    auto journal = journal::Journal::open(out->settings.journal_path, out->clock, read_only);
    if (!journal.ok()) fuzz::fail("cannot open the journal read-only", journal.error().message());
    out->journal = std::move(*journal);
    auto tokens = api::TokenStore::open(tokens_path, ::geteuid());
    if (!tokens.ok()) fuzz::fail("cannot open the tokens file", tokens.error().message());
    out->tokens = std::move(*tokens);
    out->routes =
        std::make_unique<api::Routes>(api::RouteContext{*out->journal, out->settings, out->catalogs, *out->tokens,
                                                        out->clock, nullptr, nullptr, nullptr, std::string(32, 'k')});
    return out;
  }();
  return *w;
}

std::string_view take_line(std::string_view& text) {
  const auto end = text.find('\n');
  const std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

enum class Holder { none, platform, reader };

void check_reply(const api::ApiRequest& request, const api::Reply& reply, Holder holder) {
  for (const std::string_view token : {kToken, kReader}) {
    const bool echoed =
        request.target.find(token) != std::string::npos || request.body.find(token) != std::string::npos;
    if (!echoed && reply.body.find(token) != std::string::npos) fuzz::fail("a reply holds a token", reply.body);
  }
  if (holder == Holder::reader && request.method == "POST" && reply.status < 300 && reply.status != 0) {
    fuzz::fail("a POST with a read-only token was let through", request.target);
  }
  if (reply.wait || reply.later) return;  // a long poll or a deferred call: answered later
  static const std::set<unsigned> kDocumented = {200, 201, 400, 401, 403, 404, 405, 409, 413, 422, 431, 500, 502, 503};
  if (kDocumented.count(reply.status) == 0) fuzz::fail("an undocumented status", std::to_string(reply.status));
  if (holder == Holder::none && reply.status != 401 && reply.status != 200 && reply.status != 405) {
    fuzz::fail("answered without the token", request.target);
  }
  if (reply.status == 403 && holder != Holder::reader) fuzz::fail("403 for a token with every scope", request.target);
  if (reply.authenticated && (holder == Holder::none || reply.status == 401)) {
    fuzz::fail("a reply that says a token was valid when none was", request.target);
  }
  if (reply.content_type != "application/json") return;
  boost::system::error_code error;
  const auto body = boost::json::parse(reply.body, error);
  if (error) fuzz::fail("a reply body that is not JSON", reply.body);
  if (reply.status >= 400 && (!body.is_object() || !body.as_object().contains("error"))) {
    fuzz::fail("an error reply without the error shape", reply.body);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  World& w = world();
  std::string_view text = fuzz::as_text(data, size);
  const std::string_view request_line = take_line(text);
  const auto space = request_line.find(' ');
  api::ApiRequest request;
  request.method = std::string(space == std::string_view::npos ? "GET" : request_line.substr(0, space));
  request.target = std::string(space == std::string_view::npos ? request_line : request_line.substr(space + 1));
  const std::string_view authorization = take_line(text);
  request.authorization = authorization == "="   ? "Bearer " + std::string(kToken)
                          : authorization == "r" ? "Bearer " + std::string(kReader)
                                                 : std::string(authorization);
  Holder holder = Holder::none;
  if (request.authorization.find(kToken) != std::string::npos) holder = Holder::platform;
  if (request.authorization.find(kReader) != std::string::npos) holder = Holder::reader;
  request.body = std::string(text);
  check_reply(request, w.routes->handle(request), holder);
  return 0;
}
