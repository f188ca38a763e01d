#include "faults.h"

#include <algorithm>

namespace tpslurm::sim {

namespace {

struct KindName {
  FaultKind kind;
  std::string_view name;
};

constexpr KindName kKinds[] = {
    {FaultKind::drop_response, "drop_response"},
    {FaultKind::error_response, "error_response"},
    {FaultKind::close_after_response, "close_after_response"},
    {FaultKind::delay, "delay"},
    {FaultKind::close_mid_body, "close_mid_body"},
    {FaultKind::garbage, "garbage"},
    {FaultKind::outage, "outage"},
    {FaultKind::slow_controller, "slow_controller"},
    {FaultKind::accounting_outage, "accounting_outage"},
    {FaultKind::accounting_lag, "accounting_lag"},
};

// splitmix64: a generator whose sequence depends on nothing but the seed.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::string_view fault_kind_name(FaultKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "";
}

std::optional<FaultKind> parse_fault_kind(std::string_view name) {
  for (const auto& k : kKinds) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

bool is_response_fault(FaultKind kind) {
  return kind != FaultKind::outage && kind != FaultKind::slow_controller && kind != FaultKind::accounting_outage &&
         kind != FaultKind::accounting_lag;
}

std::uint64_t FaultPlan::add(FaultRule rule) {
  rule.id = m_next_id++;
  rule.hits = 0;
  m_rules.push_back(rule);
  return rule.id;
}

bool FaultPlan::remove(std::uint64_t id) {
  auto it = std::find_if(m_rules.begin(), m_rules.end(), [&](const FaultRule& r) { return r.id == id; });
  if (it == m_rules.end()) return false;
  m_rules.erase(it);
  return true;
}

void FaultPlan::clear() { m_rules.clear(); }

void FaultPlan::set_random(RandomFaults random) {
  random.state = random.seed;
  random.hits = 0;
  m_random = std::move(random);
}

bool FaultPlan::live(const FaultRule& rule, std::int64_t now_ms) const {
  return rule.remaining != 0 && (rule.until_ms < 0 || now_ms < rule.until_ms);
}

bool FaultPlan::matches(const FaultRule& rule, std::string_view method, std::string_view path) {
  if (!rule.method.empty() && rule.method != method) return false;
  return path.substr(0, rule.path_prefix.size()) == rule.path_prefix;
}

void FaultPlan::consume(FaultRule& rule) {
  ++rule.hits;
  if (rule.remaining > 0) --rule.remaining;
}

void FaultPlan::prune(std::int64_t now_ms) {
  m_rules.erase(std::remove_if(m_rules.begin(), m_rules.end(), [&](const FaultRule& r) { return !live(r, now_ms); }),
                m_rules.end());
}

const FaultRule* FaultPlan::active_outage(std::int64_t now_ms) {
  prune(now_ms);
  for (const auto& rule : m_rules) {
    if (rule.kind == FaultKind::outage) return &rule;
  }
  return nullptr;
}

std::optional<FaultRule> FaultPlan::take_outage(std::int64_t now_ms) {
  prune(now_ms);
  for (auto& rule : m_rules) {
    if (rule.kind == FaultKind::outage) {
      consume(rule);
      FaultRule hit = rule;
      prune(now_ms);  // a used-up outage ends here, so the next request gets through
      return hit;
    }
  }
  return std::nullopt;
}

const FaultRule* FaultPlan::accounting_outage(std::int64_t now_ms, std::string_view method, std::string_view path) {
  prune(now_ms);
  for (auto& rule : m_rules) {
    if (rule.kind == FaultKind::accounting_outage && matches(rule, method, path)) {
      consume(rule);
      return &rule;
    }
  }
  return nullptr;
}

std::int64_t FaultPlan::controller_delay_ms(std::int64_t now_ms, std::string_view method, std::string_view path) {
  prune(now_ms);
  std::int64_t delay = 0;
  for (auto& rule : m_rules) {
    if (rule.kind == FaultKind::slow_controller && matches(rule, method, path)) {
      consume(rule);
      delay += rule.ms;
    }
  }
  return delay;
}

std::optional<std::int64_t> FaultPlan::accounting_lag_since(std::int64_t now_ms) {
  prune(now_ms);
  std::optional<std::int64_t> since;
  for (const auto& rule : m_rules) {
    if (rule.kind == FaultKind::accounting_lag && (!since || rule.since_ms < *since)) since = rule.since_ms;
  }
  return since;
}

std::optional<FaultRule> FaultPlan::take_response_fault(std::int64_t now_ms, std::string_view method,
                                                        std::string_view path) {
  prune(now_ms);
  for (auto& rule : m_rules) {
    if (is_response_fault(rule.kind) && matches(rule, method, path)) {
      consume(rule);
      FaultRule hit = rule;
      prune(now_ms);
      return hit;
    }
  }
  if (m_random && !m_random->kinds.empty()) {
    FaultRule probe;
    probe.method = m_random->method;
    probe.path_prefix = m_random->path_prefix;
    if (matches(probe, method, path)) {
      const double draw = static_cast<double>(next_random(m_random->state) >> 11) * 0x1.0p-53;
      const std::uint64_t pick = next_random(m_random->state);
      if (draw < m_random->probability) {
        FaultRule hit;
        hit.kind = m_random->kinds[pick % m_random->kinds.size()];
        hit.ms = m_random->ms;
        hit.status = m_random->status;
        ++m_random->hits;
        return hit;
      }
    }
  }
  return std::nullopt;
}

}  // namespace tpslurm::sim
