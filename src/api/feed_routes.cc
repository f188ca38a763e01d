// The change feed's route: GET /v1/events?after=SEQ&wait=SECONDS&limit=N, a long poll on the
// journal's events (operations/change_feed.h).
#include <boost/url/parse.hpp>
#include <charconv>
#include <limits>

#include "api/job_routes.h"
#include "operations/change_feed.h"

namespace tpslurm::api {
namespace {

constexpr std::int64_t kMaxWaitSeconds = 60;
constexpr std::int64_t kMaxItems = 1000;
constexpr std::int64_t kDefaultItems = 100;

// A decimal integer from `min` to `max`, or nothing; "30s" is read as 30 when `seconds`.
std::optional<std::int64_t> number_in(std::string_view text, std::int64_t min, std::int64_t max, bool seconds) {
  if (seconds && !text.empty() && text.back() == 's') text.remove_suffix(1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) return std::nullopt;
  return value;
}

struct FeedQuery {
  std::int64_t after = 0;
  std::int64_t wait_seconds = 0;
  std::int64_t limit = kDefaultItems;
};

}  // namespace

Reply follow_events(RouteContext& context, std::string_view target) {
  auto url = boost::urls::parse_origin_form(target);
  if (!url) return error_reply(400, "malformed_request", "the request target does not parse");
  FeedQuery query;
  model::Problems problems;
  for (const auto& param : url->params()) {
    const std::string shown = model::quote_value(param.value);
    if (param.key == "after") {
      auto n = number_in(param.value, 0, std::numeric_limits<std::int64_t>::max(), false);
      if (n) query.after = *n;
      if (!n) problems.add("after", shown, "expected a sequence number (0 or more): the `next` of the last page");
    } else if (param.key == "wait") {
      auto n = number_in(param.value, 0, kMaxWaitSeconds, true);
      if (n) query.wait_seconds = *n;
      if (!n) problems.add("wait", shown, "expected seconds from 0 to 60, e.g. 30s");
    } else if (param.key == "limit") {
      auto n = number_in(param.value, 1, kMaxItems, false);
      if (n) query.limit = *n;
      if (!n) problems.add("limit", shown, "expected 1 to 1000");
    } else {
      problems.add(param.key, shown, "unknown parameter; known: after, wait, limit");
    }
  }
  if (!problems.empty()) return error_reply(422, "invalid_request", "the query has invalid parameters", problems);

  journal::Journal& journal = context.journal;
  auto page = [&journal, query](bool last) -> std::optional<Reply> {
    auto answer = operations::feed_page(journal, query.after, static_cast<std::size_t>(query.limit));
    if (!answer.ok()) return error_from(answer.error());
    if (answer->at("events").as_array().empty() && !last) return std::nullopt;
    return json_reply(200, *answer);
  };
  std::optional<Reply> now = page(query.wait_seconds == 0);
  if (now) return std::move(*now);
  Reply waiting;
  waiting.wait = std::make_shared<LongPoll>(
      LongPoll{std::chrono::steady_clock::now() + std::chrono::seconds(query.wait_seconds), page});
  return waiting;
}

}  // namespace tpslurm::api
