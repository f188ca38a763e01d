// Clock: the seam for reading the time.
//
// Production code asks a Clock for the time instead of calling system_clock::now(),
// so tests can drive time by hand (ManualClock) and never sleep or read the wall clock.
// SystemClock is stateless and thread-safe; ManualClock is for single-threaded tests;
// SteppedClock, the system's clocks moved by hand, for tests and benches that run real threads.
//
// Two readings: now() is the wall clock (what the journal records; an NTP step or `date -s`
// moves it either way), steady() the monotonic clock (never stepped, meaningful only within
// one process): how long something lasted while the daemon watched it is measured on steady().
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tpslurm {

using TimePoint = std::chrono::system_clock::time_point;
using SteadyPoint = std::chrono::steady_clock::time_point;
using Seconds = std::chrono::seconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
  virtual SteadyPoint steady() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
  SteadyPoint steady() const override { return std::chrono::steady_clock::now(); }
};

// advance() is time passing (both readings move); set() is a step of the wall clock alone.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint start) : m_now(start) {}
  TimePoint now() const override { return m_now; }
  SteadyPoint steady() const override { return m_steady; }
  void advance(std::chrono::milliseconds by) {
    m_now += by;
    m_steady += by;
  }
  void set(TimePoint to) { m_now = to; }

 private:
  TimePoint m_now;
  SteadyPoint m_steady{};
};

// The system's clocks, moved by hand: step() is what an NTP step or an operator's `date -s` does
// to the wall clock (the monotonic clock does not move); pass() is time going by (both move).
// Thread-safe.
class SteppedClock final : public Clock {
 public:
  TimePoint now() const override {
    return std::chrono::system_clock::now() + std::chrono::milliseconds(m_stepped_ms + m_passed_ms);
  }
  SteadyPoint steady() const override {
    return std::chrono::steady_clock::now() + std::chrono::milliseconds(m_passed_ms);
  }
  void step(std::chrono::milliseconds by) { m_stepped_ms += by.count(); }
  void pass(std::chrono::milliseconds by) { m_passed_ms += by.count(); }

 private:
  std::atomic<std::int64_t> m_stepped_ms{0};
  std::atomic<std::int64_t> m_passed_ms{0};
};

// Seconds since the Unix epoch.
std::int64_t unix_seconds(TimePoint t);
// Saturates about 146 years either side of 1970 (half TimePoint's range, so that the
// difference of two times is always representable).
TimePoint from_unix_seconds(std::int64_t seconds);

// "2026-11-30T12:51:08Z" (UTC, second resolution): the journal's time format.
std::string format_utc(TimePoint t);
// The inverse of format_utc; empty for any other text.
std::optional<TimePoint> parse_utc(std::string_view text);

}  // namespace tpslurm
