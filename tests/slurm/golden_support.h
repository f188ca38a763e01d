// Golden JSON comparison for encoded submit bodies: parsed and compared as JSON values, printed
// pretty on mismatch. TP_UPDATE_GOLDEN=1 rewrites the file instead (review the diff!).
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cstdlib>
#include <fstream>

#include "test_support.h"

namespace tpslurm::slurm::testing {

inline void expect_golden_json(const std::string& actual, const std::string& name) {
  const std::string path = golden_path(name);
  boost::system::error_code ec;
  const boost::json::value actual_value = boost::json::parse(actual, ec);
  ASSERT_FALSE(ec) << "the encoder wrote invalid JSON: " << actual;
  if (std::getenv("TP_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::trunc) << boost::json::serialize(actual_value) << "\n";
  }
  const boost::json::value expected = boost::json::parse(read_file(path), ec);
  ASSERT_FALSE(ec) << "golden file " << path << " is not JSON";
  EXPECT_EQ(actual_value, expected) << "golden " << path << "\nactual:   " << boost::json::serialize(actual_value)
                                    << "\nexpected: " << boost::json::serialize(expected);
}

}  // namespace tpslurm::slurm::testing
