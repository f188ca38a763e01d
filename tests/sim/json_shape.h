// JSON shape comparison for the conformance tests.
//
// shape_diff() compares the simulator's answer with a real one structurally: the same
// kind at every path (null, bool, integer, double, string, array, object), the same keys
// in the same order in every object, arrays of objects of equal length compared element
// by element, arrays of scalars compared by element kind only (their contents vary
// between runs). An object whose keys are all decimal numbers is a map (22.05 keys
// allocated cores by their index): only the shapes of its values are compared. Arrays at
// the paths named in `lists` (e.g. "/statistics/rpcs_by_message_type") are lists whose
// length depends on what the server saw: each simulated element is compared with the
// real list's first element. schema_diff() checks a value against a schema of Slurm's generated
// OpenAPI document: every property present and no other, kinds as declared, enum values
// respected (an object may be null, as slurmrestd dumps unset objects). Both return
// human-readable differences, empty when the shapes agree. Pure functions.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace tpslurm::sim::test {

std::vector<std::string> shape_diff(const boost::json::value& simulator, const boost::json::value& real,
                                    const std::vector<std::string>& lists = {});
std::vector<std::string> schema_diff(const boost::json::value& value, const boost::json::value& spec,
                                     const std::string& schema_name);

// errors[].error_number (or v0.0.38's error_code) in order; status[].error.code for DELETE.
std::vector<std::int64_t> error_numbers(const boost::json::value& body);
std::vector<std::int64_t> status_codes(const boost::json::value& body);
// "RUNNING" / "CANCELLED,COMPLETING" for each jobs[] entry (job_state or state).
std::vector<std::string> job_states(const boost::json::value& body);

std::string join(const std::vector<std::string>& lines);

}  // namespace tpslurm::sim::test
