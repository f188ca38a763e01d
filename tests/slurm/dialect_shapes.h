// Compares an encoded submit body with the body of a real 26.05.3 submit transcript: every key
// both share must hold the same JSON value, and the keys only one side has must be exactly the
// known alternatives (the client writes `nodes` + `tasks_per_node` where the recorded request
// wrote `minimum_nodes` + `tasks`).
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <set>
#include <string>

#include "slurm/dialect.h"
#include "test_support.h"

namespace tpslurm::slurm::testing {

// The description that says what transcripts 04, 39 and 42 sent.
inline model::SubmitDescription transcript_description() {
  model::SubmitDescription description;
  description.tag = model::JobTag{"sample-single", "submitted via slurmrestd v0.0.45", "/var/lib/slurm26/jobs"};
  description.script = "#!/bin/bash\necho \"hello from $SLURM_JOB_ID on $(hostname) FOO=$FOO\"\nsleep 120\n";
  description.standard_output = "/var/lib/slurm26/jobs/%x-%j.out";
  description.environment = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"LANG", "C"}, {"FOO", "bar"}};
  description.time_limit_minutes = 10;
  description.components = {model::SubmitComponent{"gpu", "h100", 1, 1, 1, 512, ""}};
  return description;
}

inline void expect_same_shape_as_transcript(const Dialect& dialect, const std::string& sample) {
  const auto request = boost::json::parse(fixture("samples-v0.0.45/" + sample + ".request.json"));
  const auto& recorded = request.at("body").at("job").as_object();
  auto encoded_text = dialect.encode_submit(transcript_description());
  ASSERT_TRUE(encoded_text.ok()) << encoded_text.error().message();
  const auto encoded = boost::json::parse(*encoded_text);
  ASSERT_TRUE(encoded.as_object().contains("job")) << *encoded_text;
  const auto& ours = encoded.at("job").as_object();
  std::set<std::string> only_ours;
  std::set<std::string> only_recorded;
  for (const auto& [key, value] : ours) {
    if (const auto* theirs = recorded.if_contains(key)) {
      EXPECT_EQ(value, *theirs) << "field \"" << std::string(key) << "\" differs from " << sample;
    } else {
      only_ours.insert(std::string(key));
    }
  }
  for (const auto& [key, value] : recorded) {
    if (!ours.contains(key)) only_recorded.insert(std::string(key));
  }
  EXPECT_EQ(only_ours, (std::set<std::string>{"nodes", "tasks_per_node"})) << *encoded_text;
  EXPECT_EQ(only_recorded, (std::set<std::string>{"minimum_nodes", "tasks"}));
  EXPECT_EQ(request.at("url").as_string().subview().find(dialect.submit_path()) != std::string::npos, true)
      << "the transcript is not a submit of " << dialect.version();
}

}  // namespace tpslurm::slurm::testing
