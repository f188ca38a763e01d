#include "base/uuid.h"

#include <gtest/gtest.h>

#include <set>

namespace tpslurm {
namespace {

TEST(UuidTest, IsVersion4AndWellFormed) {
  const std::string id = new_uuid();
  EXPECT_TRUE(is_uuid(id)) << id;
  EXPECT_EQ(id[14], '4');
  EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos);
}

TEST(UuidTest, AreDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(new_uuid());
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(UuidTest, RecognisesOnlyCanonicalForm) {
  EXPECT_TRUE(is_uuid("0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69"));
  EXPECT_FALSE(is_uuid("0B6F8C1E-4D2A-4C1F-9A7E-3F1D2C4B5A69"));
  EXPECT_FALSE(is_uuid("0b6f8c1e4d2a4c1f9a7e3f1d2c4b5a69"));
  EXPECT_FALSE(is_uuid(""));
}

}  // namespace
}  // namespace tpslurm
