// One HTTP exchange of the platform API as the routes see it: the request the server read
// (method, target, the Authorization header, the body) and the reply it writes back. Beast's
// types stay in the server; the routes and their tests deal only in these values.
//
// Every error reply has the one shape the platform reads:
//   {"error": CODE, "message": TEXT, "problems": [{"field": PATH, "value": VALUE, "fix": TEXT}]}
// with `problems` empty when the error is not about fields of the input.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/problems.h"

namespace tpslurm::api {

struct ApiRequest {
  std::string method;         // "GET", "POST", ...
  std::string target;         // "/v1/jobs/j1?x=y" as sent
  std::string authorization;  // the Authorization header's value; a secret, never logged
  std::string body;
};

struct Reply;

// A reply that waits for the journal (the change feed's long poll): the server asks `poll`
// again each time the journal changes, until it gives a reply or `until` passes; then
// `poll(true)` (the last call) must give one. No thread waits meanwhile.
struct LongPoll {
  std::chrono::steady_clock::time_point until;
  std::function<std::optional<Reply>(bool last)> poll;
};

// A reply that must wait for something slow outside the journal (a call to Slurm): the
// server runs `work` on its worker thread, one at a time, and answers with what it returns;
// the other clients are served meanwhile. `work` may use what the routes were given that is
// thread-safe (the journal, the Slurm client), nothing else. Or, with `start` set instead,
// work that something else does, many at once (the new jobs of SubmitQueue): `start` is called
// on the server's thread and must return at once; it hands its `done` to that work, which
// calls it exactly once, on any thread, with the reply. No thread of the server waits.
struct Deferred {
  std::function<Reply()> work;
  std::function<void(std::function<void(Reply)> done)> start;
};

struct Reply {
  unsigned status = 200;
  std::string body;                                          // JSON text ending in a newline
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type and Content-Length
  std::shared_ptr<LongPoll> wait;                            // set: not ready yet (status and body unused)
  std::shared_ptr<Deferred> later;                           // set: not ready yet; asked before `wait`
  std::string content_type = "application/json";             // /metrics: Prometheus' text format
  bool authenticated = false;  // the request held a valid token (whatever the answer): server.h's pools
};

// A reply that runs `work` on the server's worker thread (Deferred).
Reply deferred_reply(std::function<Reply()> work);
// A reply that `start` hands to work done elsewhere (Deferred::start).
Reply started_reply(std::function<void(std::function<void(Reply)> done)> start);

// `body` as text (with the newline the CLI's --json output ends in).
Reply json_reply(unsigned status, const boost::json::value& body);

// The error shape above. `code` is a short snake_case word ("invalid_request", "not_found").
Reply error_reply(unsigned status, std::string_view code, std::string_view message,
                  const model::Problems& problems = {});

}  // namespace tpslurm::api
