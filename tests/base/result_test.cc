#include "base/result.h"

#include <gtest/gtest.h>

#include <string>

namespace tpslurm {
namespace {

Result<int> half(int n) {
  if (n % 2 != 0) return invalid_argument(std::to_string(n) + " is odd");
  return n / 2;
}

TEST(ResultTest, CarriesAValue) {
  const auto result = half(8);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, 4);
}

TEST(ResultTest, CarriesAnErrorWithItsKind) {
  const auto result = half(3);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(result.error().message(), "3 is odd");
}

TEST(ResultTest, ContextIsPrefixed) {
  const Error error = transient("connection refused").with_context("GET /slurm/v0.0.45/ping");
  EXPECT_EQ(error.message(), "GET /slurm/v0.0.45/ping: connection refused");
  EXPECT_EQ(error.kind(), ErrorKind::transient);
}

TEST(ResultTest, StatusIsOkByDefault) {
  Status status;
  EXPECT_TRUE(status.ok());
  Status failed = transient("later");
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message(), "later");
}

TEST(ResultTest, AccessingTheWrongSideAborts) {
  const Result<int> failed = half(1);
  EXPECT_DEATH((void)failed.value(), "");
  const Result<int> good = half(2);
  EXPECT_DEATH((void)good.error(), "");
}

TEST(ResultTest, ErrorKindsHaveNames) {
  EXPECT_EQ(to_string(ErrorKind::transient), "transient");
  EXPECT_EQ(to_string(ErrorKind::corrupt), "corrupt");
}

}  // namespace
}  // namespace tpslurm
