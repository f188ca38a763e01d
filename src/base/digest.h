// SHA-256 and HMAC-SHA-256, backed by OpenSSL's EVP and HMAC APIs.
//
// Sha256 hashes a stream in pieces (constant memory: images are many GiB); the free
// functions hash one buffer. Results are lower-case hex. OpenSSL types stay in the .cc.
// A Sha256 object is not thread-safe; distinct objects may be used from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tpslurm {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;

  void update(const void* data, std::size_t size);
  void update(std::string_view data) { update(data.data(), data.size()); }
  // Finishes the hash; the object must not be updated afterwards.
  std::string hex_digest();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

std::string sha256_hex(std::string_view data);

// Raw 32-byte MAC and its hex form.
std::array<std::uint8_t, 32> hmac_sha256(std::string_view key, std::string_view data);
std::string hmac_sha256_hex(std::string_view key, std::string_view data);

std::string to_hex(const std::uint8_t* data, std::size_t size);

// Compares in time independent of where the inputs differ (for MACs).
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace tpslurm
