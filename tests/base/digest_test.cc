#include "base/digest.h"

#include <gtest/gtest.h>

#include <string>

namespace tpslurm {
namespace {

TEST(DigestTest, Sha256OfKnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(DigestTest, StreamingEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data += static_cast<char>(i * 31);
  Sha256 hash;
  for (std::size_t at = 0; at < data.size(); at += 777) hash.update(std::string_view(data).substr(at, 777));
  EXPECT_EQ(hash.hex_digest(), sha256_hex(data));
}

TEST(DigestTest, HmacSha256OfRfc4231Case2) {
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(DigestTest, ConstantTimeEqual) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "abcd"));
}

}  // namespace
}  // namespace tpslurm
