#include "metrics/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <initializer_list>
#include <limits>
#include <mutex>
#include <sstream>

namespace tpslurm::metrics {
namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;
using prometheus::MetricFamily;
using prometheus::MetricType;

constexpr std::int64_t kNoExpiry = std::numeric_limits<std::int64_t>::min();

// A REST call takes milliseconds; a full listing of many jobs, seconds; the longest timeout
// is minutes.
const Histogram::BucketBoundaries kRestBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120};
// A journal write is one transaction with an fsync: a millisecond on a good disk.
const Histogram::BucketBoundaries kCommitBuckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                 0.05,   0.1,   0.25,   0.5,   1,    2.5};

Family<Counter>& counter(prometheus::Registry& registry, const std::string& name, const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

// A counter family with a series for each of `values`, so that each shows from the start.
Family<Counter>& with_labels(Family<Counter>& family, const std::string& label,
                             std::initializer_list<const char*> values) {
  for (const char* value : values) family.Add({{label, value}});
  return family;
}

MetricFamily gauge_family(std::string name, std::string help) {
  MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = MetricType::Gauge;
  return family;
}

void add_sample(MetricFamily& family, double value, std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric sample;
  sample.label = std::move(labels);
  sample.gauge.value = value;
  family.metric.push_back(std::move(sample));
}

MetricFamily labelled(std::string name, std::string help, const std::string& label,
                      const std::vector<std::pair<std::string, std::int64_t>>& values) {
  MetricFamily family = gauge_family(std::move(name), std::move(help));
  for (const auto& [key, count] : values) add_sample(family, static_cast<double>(count), {{label, key}});
  return family;
}

}  // namespace

struct Metrics::Impl {
  explicit Impl(const Clock& clock_in) : clock(clock_in) {}

  const Clock& clock;
  prometheus::Registry registry;
  Family<Counter>& rest_calls =
      counter(registry, "tuneplane_slurm_rest_calls_total", "HTTP calls to slurmrestd, by endpoint and method");
  Family<Counter>& rest_errors =
      counter(registry, "tuneplane_slurm_rest_errors_total",
              "slurmrestd calls that failed: not_sent, uncertain (no answer) or http_4xx, http_5xx");
  Family<Counter>& rest_sent =
      counter(registry, "tuneplane_slurm_rest_sent_bytes_total", "request body bytes sent to slurmrestd, by endpoint");
  Family<Counter>& rest_received = counter(registry, "tuneplane_slurm_rest_received_bytes_total",
                                           "answer body bytes received from slurmrestd, by endpoint");
  Family<Histogram>& rest_duration = prometheus::BuildHistogram()
                                         .Name("tuneplane_slurm_rest_call_duration_seconds")
                                         .Help("time of one slurmrestd call, by endpoint")
                                         .Register(registry);
  Family<Counter>& submit_outcomes =
      counter(registry, "tuneplane_submit_outcomes_total", "job submissions (POST job/submit) by their classification");
  Family<Counter>& gpu_hours = counter(registry, "tuneplane_gpu_hours_total",
                                       "GPU-hours ended attempts used, as slurmdbd recorded them, by partition and GPU "
                                       "series (counted when `serve` journals them)");
  Family<Counter>& cpu_hours = counter(registry, "tuneplane_cpu_hours_total",
                                       "CPU-hours ended attempts used, as slurmdbd recorded them, by partition "
                                       "(counted when `serve` journals them)");
  Gauge& poll_lag = prometheus::BuildGauge()
                        .Name("tuneplane_status_poll_lag_seconds")
                        .Help("the longest time since the status poll last saw a followed attempt, after each poll")
                        .Register(registry)
                        .Add({});
  Gauge& request_rate = prometheus::BuildGauge()
                            .Name("tuneplane_slurm_request_rate")
                            .Help("the calls per second the request budget allows slurmrestd now (the adaptive rate)")
                            .Register(registry)
                            .Add({});
  Histogram& journal_commit = prometheus::BuildHistogram()
                                  .Name("tuneplane_journal_commit_duration_seconds")
                                  .Help(
                                      "time of the journal commit that served a write (the group of writes and its "
                                      "commit) on the writer thread")
                                  .Register(registry)
                                  .Add({}, kCommitBuckets);
  Family<Counter>& api_refused =
      with_labels(counter(registry, "tuneplane_api_connections_refused_total",
                          "platform API connections refused, or closed to make room for newer ones, by reason"),
                  "reason", {"connections", "descriptors", "peer", "unauthenticated"});
  Family<Counter>& api_timeouts =
      with_labels(counter(registry, "tuneplane_api_connection_timeouts_total",
                          "platform API connections closed when a time limit ran out, by what they were doing"),
                  "phase", {"handshake", "first_request", "idle", "request"});
  Family<Gauge>& api_open = prometheus::BuildGauge()
                                .Name("tuneplane_api_connections")
                                .Help(
                                    "platform API connections open now, by whether one of their requests held a "
                                    "valid token")
                                .Register(registry);
  std::atomic<std::int64_t> token_expiry{kNoExpiry};
  mutable std::mutex server_mutex;
  std::string slurm_release;  // empty until set_slurm_server()
  std::string rest_version;
};

Metrics::Metrics(const Clock& clock) : m_impl(std::make_unique<Impl>(clock)) {}
Metrics::~Metrics() = default;

void Metrics::count_rest_call(const RestCall& call) {
  try {
    const std::string endpoint(call.endpoint);
    const std::string method(call.method);
    m_impl->rest_calls.Add({{"endpoint", endpoint}, {"method", method}}).Increment();
    if (!call.error.empty()) {
      m_impl->rest_errors.Add({{"endpoint", endpoint}, {"method", method}, {"error", std::string(call.error)}})
          .Increment();
    }
    m_impl->rest_sent.Add({{"endpoint", endpoint}}).Increment(static_cast<double>(call.bytes_sent));
    m_impl->rest_received.Add({{"endpoint", endpoint}}).Increment(static_cast<double>(call.bytes_received));
    m_impl->rest_duration.Add({{"endpoint", endpoint}}, kRestBuckets)
        .Observe(std::chrono::duration<double>(call.elapsed).count());
  } catch (const std::exception&) {
    // A refused sample is dropped: metrics never stop the work they measure.
  }
}

void Metrics::count_submit_outcome(std::string_view outcome_class) {
  try {
    m_impl->submit_outcomes.Add({{"class", std::string(outcome_class)}}).Increment();
  } catch (const std::exception&) {
  }
}

void Metrics::count_usage(const std::string& partition, const std::string& gpu_series, double gpu_hours,
                          double cpu_hours) {
  try {
    if (gpu_hours > 0)
      m_impl->gpu_hours.Add({{"partition", partition}, {"gpu_series", gpu_series}}).Increment(gpu_hours);
    if (cpu_hours > 0) m_impl->cpu_hours.Add({{"partition", partition}}).Increment(cpu_hours);
  } catch (const std::exception&) {
  }
}

void Metrics::set_poll_lag(std::chrono::seconds lag) { m_impl->poll_lag.Set(static_cast<double>(lag.count())); }

void Metrics::set_request_rate(int calls_per_second) {
  m_impl->request_rate.Set(static_cast<double>(calls_per_second));
}

void Metrics::observe_journal_commit(std::chrono::nanoseconds took) {
  m_impl->journal_commit.Observe(std::chrono::duration<double>(took).count());
}

void Metrics::set_token_expiry(std::optional<TimePoint> expires_at) {
  m_impl->token_expiry.store(expires_at ? unix_seconds(*expires_at) : kNoExpiry);
}

void Metrics::set_slurm_server(std::string release, std::string rest_version) {
  std::lock_guard lock(m_impl->server_mutex);
  m_impl->slurm_release = std::move(release);
  m_impl->rest_version = std::move(rest_version);
}

void Metrics::count_api_connection_refused(std::string_view reason) {
  try {
    m_impl->api_refused.Add({{"reason", std::string(reason)}}).Increment();
  } catch (const std::exception&) {
  }
}

void Metrics::count_api_connection_timeout(std::string_view phase) {
  try {
    m_impl->api_timeouts.Add({{"phase", std::string(phase)}}).Increment();
  } catch (const std::exception&) {
  }
}

void Metrics::set_api_connections(std::size_t unauthenticated, std::size_t authenticated) {
  try {
    m_impl->api_open.Add({{"state", "unauthenticated"}}).Set(static_cast<double>(unauthenticated));
    m_impl->api_open.Add({{"state", "authenticated"}}).Set(static_cast<double>(authenticated));
  } catch (const std::exception&) {
  }
}

Result<std::string> Metrics::render(const ScrapeGauges& gauges) const {
  try {
    std::vector<MetricFamily> families = m_impl->registry.Collect();
    {
      std::lock_guard lock(m_impl->server_mutex);
      if (!m_impl->rest_version.empty()) {
        MetricFamily family =
            gauge_family("tuneplane_slurm_server_info",
                         "the Slurm release slurmrestd reported at start and the REST version in use");
        add_sample(family, 1, {{"release", m_impl->slurm_release}, {"rest_version", m_impl->rest_version}});
        families.push_back(std::move(family));
      }
    }
    if (const std::int64_t expiry = m_impl->token_expiry.load(); expiry != kNoExpiry) {
      MetricFamily family = gauge_family("tuneplane_slurm_token_expiry_timestamp_seconds",
                                         "when the Slurm JWT in use expires (its exp), in seconds since the epoch");
      add_sample(family, static_cast<double>(expiry));
      families.push_back(std::move(family));
    }
    families.push_back(labelled("tuneplane_attempts", "attempts whose cleanup is not closed, by state", "state",
                                gauges.attempts_by_state));
    families.push_back(labelled("tuneplane_cleanup_backlog", "ended attempts whose cleanup is not closed, by step",
                                "step", gauges.cleanup_backlog));
    if (!gauges.live_jobs_by_user.empty()) {
      families.push_back(labelled("tuneplane_live_jobs", "jobs not yet ended, by platform user (per-user mode)",
                                  "user", gauges.live_jobs_by_user));
    }
    MetricFamily blocked = gauge_family("tuneplane_blocked_submissions",
                                        "submissions whose answer was lost (submit_unknown): nothing more is sent for "
                                        "their jobs until they are found or resolved");
    add_sample(blocked, static_cast<double>(gauges.blocked_submissions));
    families.push_back(std::move(blocked));
    if (gauges.oldest_blocked_intent) {
      MetricFamily age = gauge_family("tuneplane_oldest_blocked_submission_age_seconds",
                                      "time since the intent of the oldest blocked submission");
      const auto since = std::max(m_impl->clock.now() - *gauges.oldest_blocked_intent, TimePoint::duration::zero());
      add_sample(age, std::chrono::duration<double>(since).count());
      families.push_back(std::move(age));
    }
    MetricFamily size = gauge_family("tuneplane_journal_size_bytes", "the journal's file and its write-ahead log");
    add_sample(size, static_cast<double>(gauges.journal_bytes));
    families.push_back(std::move(size));
    std::ostringstream out;
    prometheus::TextSerializer().Serialize(out, families);
    return out.str();
  } catch (const std::exception& e) {
    return permanent(std::string("render the metrics: ") + e.what());
  }
}

}  // namespace tpslurm::metrics
