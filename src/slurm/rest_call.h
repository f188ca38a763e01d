// RestCaller: one slurmrestd call from request to classified result (internal to src/slurm/;
// RestClient, bulk_state and tag_search use it, nothing else should).
//
// send() asks the request budget for admission, fetches credentials and performs the
// exchange; read() decodes the answer with the dialect, classifies it (outcome.h), records
// the outcome and the answer's time with the budget, remembers the server release from `meta`, and fills the
// caller's result. A call refused before sending (no budget: `not_sent`; no credentials:
// `auth`) sends nothing. Owns nothing it is given; thread-safe (the release is guarded).
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "slurm/dialect.h"
#include "slurm/jwt_source.h"
#include "slurm/request_budget.h"
#include "slurm/server_info.h"
#include "slurm/slurm_client.h"
#include "slurm/transport.h"

namespace tpslurm::slurm {

class RestCaller {
 public:
  // `budget` may be null (no limit). Everything given must outlive the caller.
  RestCaller(Transport& transport, TokenSource& tokens, const Clock& clock, RequestBudget* budget)
      : m_transport(transport), m_tokens(tokens), m_clock(clock), m_budget(budget) {}

  struct Sent {
    HttpExchange exchange;
    std::string label;                 // "GET /slurm/v0.0.45/job/12"
    std::optional<Outcome> refused;    // set when nothing was sent: not_sent or auth
    std::string refusal;               // why, for the message (never a secret)
    TimePoint received_at;             // local clock, when the exchange ended
    std::chrono::milliseconds took{};  // how long the exchange took (a steady clock's)
    // A call about one job names its kind ("submit", "read", "release", "cancel"), set by its
    // caller: the budget compares its answer's time with its kind's quickest of late.
    std::string_view one_job_kind;
  };

  // `timeout` empty: the transport's own (HttpRequest::timeout). `reserved` held: the call
  // taken from the budget already (RequestBudget::reserve_submit), spent here.
  // `as_user` (per-user mode): the job's user, whose credentials the call carries
  // (TokenSource::credentials_for); empty: the service identity's.
  Sent send(HttpMethod method, std::string target, std::string body = {}, Reuse reuse = Reuse::allowed,
            std::optional<std::chrono::milliseconds> timeout = std::nullopt, Reservation reserved = {},
            std::string_view as_user = {});
  // A GET whose answer is a job list: its body goes to `decoder` as it arrives, never held
  // whole (a transport that does not stream leaves it to read() below).
  Sent send_listing(std::string target, JobsDecoder& decoder,
                    std::optional<std::chrono::milliseconds> timeout = std::nullopt, std::string_view as_user = {});

  // Fills `result` for a call refused before sending; false when `sent` went out.
  bool refused(CallResult& result, const Sent& sent, std::string_view dialect) const;

  // Decodes with `decode`, classifies as a read, records the outcome and fills `result`.
  // Returns the reply when the body decoded, whatever the outcome.
  template <class Reply>
  std::optional<Reply> read(CallResult& result, const Sent& sent, const Dialect& codec,
                            Result<Reply> (Dialect::*decode)(std::string_view) const) {
    return read_with<Reply>(result, sent, codec, [&](std::string_view body) { return (codec.*decode)(body); });
  }
  // The same for an answer of send_listing(), from what `decoder` took.
  std::optional<JobsReply> read(CallResult& result, const Sent& sent, const Dialect& codec, JobsDecoder& decoder) {
    return read_with<JobsReply>(result, sent, codec, [&](std::string_view body) {
      if (!sent.exchange.response.streamed) decoder.take(body);
      return decoder.finish();
    });
  }

  // Sets outcome, status, message, release, errors and warnings of `result`. Does not record.
  void fill(CallResult& result, const Sent& sent, const Classification& classification, const ReplyBase* base,
            std::string_view dialect) const;
  // Tells the budget what a sent call amounted to, and how long its answer took.
  void record(const Sent& sent, Outcome outcome);
  void remember_release(const std::string& release);
  std::optional<SlurmRelease> release() const;

  std::string endpoint() const { return m_transport.endpoint(); }
  const Clock& clock() const { return m_clock; }
  RequestBudget* budget() const { return m_budget; }

 private:
  // `decode(body)` runs only for a complete answer. A body that did not decode may still be an
  // error answer: its envelope is read from what the response kept (all of a small one).
  template <class Reply, class Decode>
  std::optional<Reply> read_with(CallResult& result, const Sent& sent, const Dialect& codec, Decode&& decode) {
    DecodedFacts facts;
    std::optional<Reply> reply;
    std::optional<ReplyBase> base;
    if (sent.exchange.delivery == Delivery::answered) {
      if (auto decoded = decode(sent.exchange.response.body); decoded.ok()) {
        reply = std::move(decoded).value();
        facts = {true, false, reply->errors, {}};
      } else if (auto decoded_base = codec.decode_base(sent.exchange.response.body); decoded_base.ok()) {
        // Error answers without the expected list still carry errors (2017, 1007) to classify.
        base = std::move(decoded_base).value();
        facts = {false, false, base->errors, {}};
      }
    }
    const Classification classification = classify_read(sent.exchange, facts);
    record(sent, classification.outcome);
    const ReplyBase* envelope = reply ? static_cast<const ReplyBase*>(&*reply) : (base ? &*base : nullptr);
    fill(result, sent, classification, envelope, codec.version());
    if (envelope != nullptr) remember_release(envelope->release);
    return reply;
  }

  Sent perform(HttpRequest request, Reservation reserved = {}, std::string_view as_user = {});

  Transport& m_transport;
  TokenSource& m_tokens;
  const Clock& m_clock;
  RequestBudget* m_budget;
  mutable std::mutex m_mutex;
  std::optional<SlurmRelease> m_release;
};

}  // namespace tpslurm::slurm
