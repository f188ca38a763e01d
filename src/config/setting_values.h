// The parsers of one setting's value, shared by the settings loader's groups of settings.
//
// Each takes the value as written and the field it sets: on a valid value it sets the field and
// returns nothing; otherwise it leaves the field as it is (absolute_path and runtime_root may have
// written the value already) and returns what is expected, e.g. "expected 1 or 0", which the
// loader reports beside the key, the value and where it was set.
#pragma once

#include <charconv>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace tpslurm::config::setting_values {

// An absolute path; trailing '/' are dropped.
std::optional<std::string> absolute_path(const std::string& value, std::string& target);

// The storage root as the nodes see it: joined into the container runtimes' image paths and
// bind lists, so it is held to their path rule. A trailing '/' is put right, as for every path.
std::optional<std::string> runtime_root(const std::string& value, std::string& target);

// A job's PATH: absolute directories joined by ':', each of letters, digits and ._+-/ only (it
// is written into the batch script and the REST environment; no shell character, no "..").
std::optional<std::string> job_path(const std::string& value, std::string& target);

// Partition, account, QoS, reservation and wckey names: one word, no separators Slurm splits on.
std::optional<std::string> slurm_name(const std::string& value, std::string& target);

// A duration (base/duration.h) in [min, max].
std::optional<std::string> duration_between(const std::string& value, std::chrono::seconds& target,
                                            std::chrono::seconds min, std::chrono::seconds max);

// The back-off delays are kept in milliseconds for the request budget, but are written with the
// duration parser's units, so a whole second is the finest step.
std::optional<std::string> duration_between(const std::string& value, std::chrono::milliseconds& target,
                                            std::chrono::seconds min, std::chrono::seconds max);

// A whole number in [min, max]; `what` says what it counts ("calls per poll cycle").
template <class Integer>
std::optional<std::string> integer_between(const std::string& value, Integer& target, std::string_view what,
                                           long long min, long long max) {
  long long parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || value.front() == '-' || ec != std::errc() || end != value.data() + value.size() ||
      parsed < min || parsed > max) {
    return "expected " + std::string(what) + " from " + std::to_string(min) + " to " + std::to_string(max);
  }
  target = static_cast<Integer>(parsed);
  return std::nullopt;
}

// slurmrestd's address: http://HOST:PORT, https://HOST:PORT or unix:/PATH; trailing '/' dropped.
std::optional<std::string> rest_url(const std::string& value, std::string& target);

// 1, true, yes or 0, false, no.
std::optional<std::string> flag(const std::string& value, bool& target);

// Empty (no proxy) or SCHEME://HOST:PORT with a scheme libcurl knows, without user or password.
std::optional<std::string> proxy_url(const std::string& value, std::string& target);

}  // namespace tpslurm::config::setting_values
