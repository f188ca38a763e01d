#include "simulator.h"

#include "auth.h"
#include "control_api.h"
#include "envelope.h"
#include "faults.h"
#include "job_store.h"
#include "json_writer.h"
#include "sim_clock.h"
#include "slurm_api.h"
#include "slurm_errors.h"
#include "stats.h"
#include "url.h"

namespace tpslurm::sim {

namespace {

SimClock make_clock(const SimOptions& options) {
  return options.manual_clock ? SimClock(options.manual_clock_start_ms) : SimClock();
}

// The body of an injected 5xx: a plausible slurmrestd error, never a job id.
std::string injected_error_body(const SimOptions& options, const Target& target, const HttpRequest& request,
                                const std::string& user, int status) {
  Dialect dialect = Dialect::v0045;
  if (target.segments.size() > 1) version_support(options.release, target.segments[1], &dialect);
  RequestContext ctx;
  ctx.release = options.release;
  ctx.dialect = dialect;
  ctx.slurmdbd = !target.segments.empty() && target.segments[0] == "slurmdb";
  ctx.user = user;
  ctx.group = group_of(user);
  ctx.client_source = request.client_source;
  ctx.cluster_name = options.cluster.cluster_name;
  ctx.accounting = options.cluster.accounting;
  int rc = status == 502 ? err::kCommunicationsConnection : status == 504 ? err::kSocketTimeout : err::kUnspecified;
  Diagnostics diag;
  diag.error(rc, "Failure processing request", "slurmrestd");
  JsonWriter out;
  out.begin_object();
  if (is_v4x(dialect)) {
    write_errors_first(out, ctx, diag);
  } else {
    write_tail(out, ctx, diag);
  }
  out.end_object();
  return out.take();
}

}  // namespace

struct Simulator::Impl {
  explicit Impl(SimOptions opts)
      : options(std::move(opts)),
        clock(make_clock(options)),
        store(clock, options.cluster, options.timing, options.min_job_age_s, options.first_job_id, options.cluster_id),
        api(options, clock, store, stats, faults),
        control(options, clock, store, faults, stats) {}

  SimOptions options;
  SimClock clock;
  JobStore store;
  FaultPlan faults;
  Stats stats;
  SlurmApi api;
  ControlApi control;
};

Simulator::Simulator(SimOptions options) : m_impl(std::make_unique<Impl>(std::move(options))) {}
Simulator::~Simulator() = default;

const SimOptions& Simulator::options() const { return m_impl->options; }

void Simulator::note_connection() { ++m_impl->stats.connections; }

void Simulator::note_bytes(std::uint64_t in, std::uint64_t out) {
  m_impl->stats.bytes_in += in;
  m_impl->stats.bytes_out += out;
}

bool Simulator::refusing_connections() {
  const FaultRule* outage = m_impl->faults.active_outage(m_impl->clock.now_ms());
  return outage && outage->refuse;
}

void Simulator::set_ports(std::uint16_t port, std::uint16_t control_port) { m_impl->control.set_ports(port, control_port); }

HttpReply Simulator::handle(const HttpRequest& request) {
  Impl& s = *m_impl;
  Target target = parse_target(request.target);
  ++s.stats.requests;
  ++s.stats.requests_by_route[SlurmApi::route_key(request.method, target)];
  if (!target.segments.empty() && target.segments[0] == "sim") return s.control.handle(request, target);

  const std::int64_t now_ms = s.clock.now_ms();
  if (s.faults.take_outage(now_ms)) {
    ++s.stats.faults_by_kind["outage"];
    HttpReply reply;
    reply.disposition = Disposition::drop;
    return reply;
  }

  Identity identity;
  if (!s.options.no_auth) {
    Credentials credentials;
    if (!read_credentials(s.options.release, request, credentials)) {
      ++s.stats.auth_failures;
      return text_reply(401, "Authentication failure", true);
    }
    TokenCheck check = verify_token(s.options.jwt_key, credentials, s.clock.now_s(), s.options.slurm_user);
    identity.token_ok = check.ok;
    if (check.ok) {
      identity.user = check.user;
    } else {
      ++s.stats.auth_failures;
      identity.user = credentials.user_header.empty() ? "nobody" : credentials.user_header;
    }
  }
  identity.uid = uid_of(identity.user);
  identity.privileged = identity.user == "root" || identity.user == s.options.slurm_user;

  HttpReply reply = s.api.handle(request, target, identity);

  if (auto fault = s.faults.take_response_fault(now_ms, request.method, target.path)) {
    ++s.stats.faults_by_kind[std::string(fault_kind_name(fault->kind))];
    switch (fault->kind) {
      case FaultKind::drop_response:
        reply.disposition = Disposition::drop;
        break;
      case FaultKind::error_response:
        reply.status = fault->status;
        reply.reason.clear();
        reply.content_type = "application/json";
        reply.body = injected_error_body(s.options, target, request, identity.user, fault->status);
        reply.close = true;
        break;
      case FaultKind::close_after_response:
        reply.close = false;
        reply.disposition = Disposition::close_after_answer;
        break;
      case FaultKind::delay:
        reply.delay_ms += fault->ms;
        break;
      case FaultKind::close_mid_body:
        if (reply.body.size() < 2) reply.body = "{\"jobs\": [], \"errors\": []}";
        reply.disposition = Disposition::close_mid_body;
        break;
      case FaultKind::garbage:
        reply.status = 200;
        reply.content_type = "application/json";
        reply.body = reply.body.substr(0, reply.body.size() / 2) + "\n\x01<html>502 upstream garbage";
        reply.close = false;
        break;
      default:
        break;
    }
  }
  reply.delay_ms += s.faults.controller_delay_ms(now_ms, request.method, target.path);
  return reply;
}

}  // namespace tpslurm::sim
