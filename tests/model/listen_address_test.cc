#include "model/listen_address.h"

#include <gtest/gtest.h>

namespace tpslurm::model {
namespace {

TEST(ListenAddressTest, ReadsIpv4Ipv6AndUnixSockets) {
  auto v4 = parse_listen_address("127.0.0.1:8740");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8740);
  EXPECT_FALSE(v4->is_unix());
  auto v6 = parse_listen_address("[::1]:0");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  auto local = parse_listen_address("unix:/run/tuneplane/api.sock");
  ASSERT_TRUE(local);
  EXPECT_TRUE(local->is_unix());
  EXPECT_EQ(local->unix_path, "/run/tuneplane/api.sock");
}

TEST(ListenAddressTest, RefusesNamesBadPortsAndRelativeSockets) {
  for (const char* text : {"localhost:8740", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1",
                           "127.0.0.1:80x", "::1:8740", "[::1]", "[]:1", "unix:", "unix:api.sock", "unix:/run/", ""}) {
    std::string expected;
    EXPECT_FALSE(parse_listen_address(text, &expected)) << text;
    EXPECT_NE(expected.find("expected IPV4:PORT"), std::string::npos) << text;
  }
  EXPECT_FALSE(parse_listen_address("unix:/" + std::string(107, 'a')));
}

}  // namespace
}  // namespace tpslurm::model
