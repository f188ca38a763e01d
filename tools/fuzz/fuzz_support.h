// What the fuzz targets share: the input as text, a loud failure for a broken invariant
// (abort(), which both libFuzzer and the replay count as a crash), and a reader that turns
// the input's bytes into choices and strings for the targets that build structured values.
// Header-only; no I/O but the failure message on stderr.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tpslurm::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A broken invariant: says which and aborts.
[[noreturn]] inline void fail(std::string_view what, std::string_view detail = {}) {
  const std::string message = "fuzz invariant broken: " + std::string(what) + "\n" + std::string(detail) + "\n";
  std::fwrite(message.data(), 1, message.size(), stderr);
  std::abort();
}

// Consumes the input front to back; once it is used up every read gives 0 or "".
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : m_rest(bytes) {}

  std::uint8_t byte() {
    if (m_rest.empty()) return 0;
    const auto b = static_cast<std::uint8_t>(m_rest.front());
    m_rest.remove_prefix(1);
    return b;
  }
  // 0 .. count-1.
  std::size_t choice(std::size_t count) { return count == 0 ? 0 : byte() % count; }
  // A string of up to `max` bytes: a length byte, then that many bytes.
  std::string text(std::size_t max = 64) {
    std::size_t length = std::min<std::size_t>(byte(), max);
    length = std::min(length, m_rest.size());
    std::string out(m_rest.substr(0, length));
    m_rest.remove_prefix(length);
    return out;
  }
  bool empty() const { return m_rest.empty(); }

 private:
  std::string_view m_rest;
};

}  // namespace tpslurm::fuzz
