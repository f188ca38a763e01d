// Shared by the doctor tests against the simulator: one line of a doctor run.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/settings.h"
#include "slurm/curl_transport.h"
#include "slurm/doctor.h"

namespace tpslurm::slurm::testing {

// Calls `run` with a transport to `settings.rest_url` (it runs doctor and returns the checks)
// and returns the line named `name`: an empty check, and a test failure showing the whole
// report, when there is none. `all_passed`, when given, says whether every line passed.
template <class Run>
DoctorCheck doctor_line(const model::Settings& settings, const std::string& name, Run run,
                        bool* all_passed = nullptr) {
  CurlTransportOptions options;
  options.url = settings.rest_url;
  auto transport = CurlTransport::create(options);
  EXPECT_TRUE(transport.ok());
  if (!transport.ok()) return {};
  const std::vector<DoctorCheck> checks = run(**transport);
  if (all_passed != nullptr) *all_passed = all_ok(checks);
  const auto line = std::find_if(checks.begin(), checks.end(), [&](const auto& c) { return c.name == name; });
  EXPECT_NE(line, checks.end()) << format_report(checks);
  return line == checks.end() ? DoctorCheck{} : *line;
}

}  // namespace tpslurm::slurm::testing
