#include "slurm_errors.h"

namespace tpslurm::sim::err {

std::string_view strerror(int rc) {
  switch (rc) {
    case 0: return "No error";
    case kUnspecified: return "Unspecified error";
    case kCommunicationsConnection: return "Communication connection failure";
    case kCommunicationsReceive: return "Message receive failure";
    case kCommunicationsShutdown: return "Communication shutdown failure";
    case kProtocolAuthentication: return "Protocol authentication error";
    case kCtldCommunicationsConnection: return "Unable to contact slurm controller (connect failure)";
    case kInvalidPartitionName: return "Invalid partition name specified";
    case kAccessDenied: return "Access/permission denied";
    case kJobScriptMissing: return "Job script not specified";
    case kUserIdMissing: return "Invalid user id";
    case kRequestedPartConfigUnavailable: return "Requested partition configuration not available now";
    case kInvalidJobId: return "Invalid job id specified";
    case kTransitionStateNoUpdate: return "Job can not be altered now, try again later";
    case kAlreadyDone: return "Job/step already completing or completed";
    case kInvalidFeature: return "Invalid feature specification";
    case kJobHeld: return "Job is in held state, pending scheduler release";
    case kInvalidArray: return "Invalid job array specification";
    case kInvalidAccount: return "Invalid account or account/partition combination specified";
    case kInvalidTimeValue: return "Invalid time specified";
    case kJobFinished: return "Job has already finished";
    case kInvalidQos: return "Invalid qos specification";
    case kNotWholeHetJob: return "Het job component cannot be signalled while pending";
    case kEnvironmentMissing: return "Environment is missing in job";
    case kInvalidSluid: return "Invalid SLUID";
    case kSocketTimeout: return "Socket timed out on send/recv operation";
    case kAuthCredInvalid: return "Invalid authentication credential";
    case kAuthExpired: return "Authentication credential expired";
    case kDbConnection: return "Unable to connect to database";
    case kRestInvalidQuery: return "Query empty or not RFC7320 compliant";
    case kDataConvFailed: return "Unable to convert Data type";
    case kRestFailParsing: return "Failure during parsing";
    case kRestInvalidJobsDesc: return "Jobs description entry not found, empty or not dictionary or list";
    case kRestEmptyResult: return "Nothing found with query";
    case kRestAuthFail: return "Authentication failure";
    default: return "Unknown error";
  }
}

}  // namespace tpslurm::sim::err
