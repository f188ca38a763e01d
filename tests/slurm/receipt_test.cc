// A submit receipt's job id: every dialect decodes it through one check (receipt.h), and only
// a whole number from 1 to Slurm's MAX_JOB_ID becomes a receipt.
#include <gtest/gtest.h>

#include "slurm/dialect.h"

namespace tpslurm::slurm {
namespace {

class ReceiptTest : public ::testing::TestWithParam<std::string> {
 protected:
  SubmitReply decode(const std::string& job_id) {
    const auto dialect = make_dialect(GetParam());
    auto reply = dialect->decode_submit(R"({"errors":[],"job_id":)" + job_id + R"(,"step_id":"batch"})");
    EXPECT_TRUE(reply.ok()) << job_id;
    return reply.ok() ? std::move(reply).value() : SubmitReply{};
  }
};

TEST_P(ReceiptTest, AWholeNumberInSlurmsRangeIsAReceipt) {
  EXPECT_EQ(decode("12").job_id, 12u);
  EXPECT_EQ(decode("1").job_id, 1u);
  EXPECT_EQ(decode("67108863").job_id, 67108863u);  // MAX_JOB_ID
  EXPECT_EQ(decode("12.0").job_id, 12u);
  EXPECT_TRUE(decode("12").job_id_problem.empty());
}

TEST_P(ReceiptTest, AnythingElseIsAProblemNotAReceipt) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1.5", "1.5 is not a whole number"},
      {"-3", "-3 is outside Slurm's job id range 1..67108863"},
      {"0", "0 is outside Slurm's job id range 1..67108863"},
      {"67108864", "67108864 is outside Slurm's job id range 1..67108863"},
      {"4294967296", "4294967296 is outside Slurm's job id range 1..67108863"},
      {"18446744073709551615", "18446744073709551615 is outside Slurm's job id range 1..67108863"},
      {"1e300", "1e+300 is outside Slurm's job id range 1..67108863"},
      {R"("12")", "a string, not a number"},
      {"null", "null"},
      {"true", "a boolean, not a number"},
      {"[12]", "an array, not a number"},
  };
  for (const auto& [value, problem] : cases) {
    const SubmitReply reply = decode(value);
    EXPECT_FALSE(reply.job_id.has_value()) << value;
    EXPECT_EQ(reply.job_id_problem, problem) << value;
  }
}

TEST_P(ReceiptTest, AnAnswerWithoutJobIdHasNeither) {
  const auto dialect = make_dialect(GetParam());
  auto reply = dialect->decode_submit(R"({"errors":[{"error_number":2029,"error":"Invalid feature specification"}]})");
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->job_id.has_value());
  EXPECT_TRUE(reply->job_id_problem.empty());
}

INSTANTIATE_TEST_SUITE_P(EveryDialect, ReceiptTest, ::testing::Values("v0.0.45", "v0.0.44", "v0.0.43", "v0.0.38"));

// The path escaping (Boost.URL) keeps RFC 3986's unreserved characters and writes every other
// byte as %XX with upper-case hex, as slurmrestd needs.
TEST(DialectPathsTest, EscapeEverythingButUnreservedCharacters) {
  const auto dialect = make_dialect("v0.0.45");
  EXPECT_EQ(dialect->job_path("14+1"), "/slurm/v0.0.45/job/14%2B1");
  EXPECT_EQ(dialect->job_path("aZ09-._~"), "/slurm/v0.0.45/job/aZ09-._~");
  EXPECT_EQ(dialect->job_path("a b/c?d&e=f%g#h"), "/slurm/v0.0.45/job/a%20b%2Fc%3Fd%26e%3Df%25g%23h");
  EXPECT_EQ(dialect->job_path("\xc3\xa9\x7f"), "/slurm/v0.0.45/job/%C3%A9%7F");
  EXPECT_EQ(dialect->cancel_path("12", "SIG USR1"), "/slurm/v0.0.45/job/12?signal=SIG%20USR1");
  EXPECT_EQ(dialect->db_jobs_path("tp-a+b", 1796000000),
            "/slurmdb/v0.0.45/jobs?job_name=tp-a%2Bb&start_time=1796000000");
  EXPECT_EQ(make_dialect("v0.0.38")->db_jobs_path("x y", 5), "/slurmdb/v0.0.38/jobs?job_name=x%20y&start_time=uts5");
}

}  // namespace
}  // namespace tpslurm::slurm
