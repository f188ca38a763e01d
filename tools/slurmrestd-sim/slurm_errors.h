// Slurm error numbers the simulator raises, and their slurm_strerror() text.
//
// Numbers and strings are those of slurm/slurm_errno.h and src/common/slurm_errno.c;
// only the ones a simulated slurmctld, slurmdbd or slurmrestd can return are listed.
#pragma once

#include <string_view>

namespace tpslurm::sim::err {

inline constexpr int kUnspecified = -1;  // SLURM_ERROR
inline constexpr int kCommunicationsConnection = 1001;
inline constexpr int kCommunicationsReceive = 1003;
inline constexpr int kCommunicationsShutdown = 1004;
inline constexpr int kProtocolAuthentication = 1007;
inline constexpr int kCtldCommunicationsConnection = 1800;
inline constexpr int kCtldCommunicationsHardDrop = 1805;
inline constexpr int kInvalidPartitionName = 2000;
inline constexpr int kAccessDenied = 2002;
inline constexpr int kJobScriptMissing = 2009;
inline constexpr int kUserIdMissing = 2010;
inline constexpr int kRequestedPartConfigUnavailable = 2015;
inline constexpr int kInvalidJobId = 2017;
inline constexpr int kTransitionStateNoUpdate = 2020;
inline constexpr int kAlreadyDone = 2021;
inline constexpr int kInvalidFeature = 2029;
inline constexpr int kJobHeld = 2042;
inline constexpr int kInvalidAccount = 2045;
inline constexpr int kInvalidTimeValue = 2054;
inline constexpr int kInvalidArray = 2081;
inline constexpr int kJobFinished = 2084;
inline constexpr int kInvalidQos = 2066;
inline constexpr int kNotWholeHetJob = 2108;
inline constexpr int kEnvironmentMissing = 2127;
inline constexpr int kInvalidSluid = 2185;
inline constexpr int kSocketTimeout = 5004;
inline constexpr int kAuthCredInvalid = 6000;
inline constexpr int kAuthExpired = 6001;
inline constexpr int kDbConnection = 7000;
inline constexpr int kNoRpcStats = 7013;
inline constexpr int kRestInvalidQuery = 9000;
inline constexpr int kDataConvFailed = 9202;  // ESLURM_DATA_CONV_FAILED
inline constexpr int kRestFailParsing = 9001;
inline constexpr int kRestInvalidJobsDesc = 9002;
inline constexpr int kRestEmptyResult = 9003;
inline constexpr int kRestAuthFail = 9008;

// slurm_strerror(): "Unknown error" for numbers not in the table above.
std::string_view strerror(int rc);

}  // namespace tpslurm::sim::err
