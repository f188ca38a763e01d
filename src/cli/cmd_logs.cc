// tuneplane-slurm logs JOB [--attempt N] [--component K] [--stderr] [--offset BYTES] [--json]
//
// The scheduler logs of one attempt (default: the newest), read from its directory on the
// shared filesystem with the limits of storage/log_tail.h: per file the tail, or with
// --offset one page from that byte (the same offset for each file selected). Text output: per
// file a header, the text, and a marker wherever something is left out, saying how much and
// how to see it. A job without attempts, or an attempt without its directory, is reported,
// not an error (exit 0); an unknown job, attempt or component is (exit 2), as is a file that
// cannot be read (its kind's exit code, after every file was shown).
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "journal/journal.h"
#include "operations/job_logs.h"
#include "storage/attempt_logs.h"

namespace tpslurm::cli {
namespace {

namespace json = boost::json;

struct LogsOptions {
  std::string job;
  int attempt = 0;
  int component = 0;
  bool stderr_stream = false;
  std::uint64_t offset = 0;
  bool json = false;
  CLI::Option* attempt_option = nullptr;
  CLI::Option* component_option = nullptr;
  CLI::Option* offset_option = nullptr;
};

// 1234567 -> "1,234,567".
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string amount(std::uint64_t bytes, const std::optional<std::uint64_t>& lines) {
  std::string out = grouped(bytes) + (bytes == 1 ? " byte" : " bytes");
  if (lines) out += " (" + grouped(*lines) + (*lines == 1 ? " line)" : " lines)");
  return out;
}

void print_file(std::ostream& out, const storage::AttemptLogFile& file, bool paged) {
  out << "==> " << file.name << " " << storage::to_string(file.stream) << ": " << file.path;
  if (!file.content.ok()) {
    out << " <==\n(unreadable: " << file.content.error().message() << ")\n";
    return;
  }
  const storage::LogTail& log = *file.content;
  if (log.state == storage::LogFileState::missing) {
    out << " <==\n(missing: the job has not written it yet)\n";
    return;
  }
  if (log.state == storage::LogFileState::empty) {
    out << " (0 bytes) <==\n(empty)\n";
    return;
  }
  out << " (" << amount(log.file_size, std::nullopt) << ", ";
  if (log.begin == log.end) {
    out << "nothing shown from byte " << grouped(log.begin);
  } else {
    out << "showing bytes " << grouped(log.begin) << " to " << grouped(log.end);
  }
  out << ") <==\n";
  if (log.bytes_before > 0) {
    out << "[... " << amount(log.bytes_before, log.lines_before) << " before this "
        << (log.bytes_before == 1 ? "is" : "are") << " not shown";
    if (log.starts_mid_line) out << " (the first line shown is cut: it starts among them)";
    out << (paged ? "; this page starts at --offset " + std::to_string(log.begin)
                  : std::string("; --offset 0 pages from the start"))
        << " ...]\n";
  }
  out << log.text;
  if (log.ends_mid_line) out << "\n";
  if (log.bytes_after > 0) {
    out << "[... " << amount(log.bytes_after, log.lines_after) << " after this "
        << (log.bytes_after == 1 ? "is" : "are") << " not shown"
        << (log.partial_line_held ? ": the last line has no newline yet" : "") << "; next page: --offset "
        << log.next_offset << " ...]\n";
  }
}

int run_logs(Context& context, const LogsOptions& options) {
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::read, exit_code);
  if (!journal) return exit_code;
  operations::LogsQuery query{options.job, std::nullopt, std::nullopt,
                              options.stderr_stream ? storage::LogStream::err : storage::LogStream::out, std::nullopt};
  if (options.attempt_option->count() > 0) query.attempt = options.attempt;
  if (options.component_option->count() > 0) query.component = options.component;
  if (options.offset_option->count() > 0) query.offset = options.offset;
  auto logs = operations::read_job_logs(*journal, context.settings()->storage_root, query);
  if (!logs.ok()) {
    Error error = logs.error();
    if (error.kind() == ErrorKind::invalid_argument && query.component) {
      error = invalid_argument(error.message() + "; pick one with --component, or leave it out for every log");
    }
    return context.fail(error);
  }
  if (options.json) {
    context.out() << json::serialize(operations::logs_json(query, *logs)) << "\n";
  } else if (!logs->attempt) {
    context.out() << "job " << options.job << " has no attempt yet (" << model::to_string(logs->phase)
                  << "): nothing has written a log\n";
    return kExitOk;
  } else {
    context.out() << operations::logs_subject(query, *logs->attempt) << " (" << model::to_string(logs->attempt->state)
                  << ") in " << logs->dir << "\n";
    if (logs->no_directory) context.out() << logs->no_directory->message() << "\n";
    for (const auto& file : logs->files) {
      context.out() << "\n";
      print_file(context.out(), file, query.offset.has_value());
    }
  }
  for (const auto& file : logs->files) {
    if (!file.content.ok()) {
      return context.fail(file.content.error().with_context(operations::logs_subject(query, *logs->attempt)));
    }
  }
  return kExitOk;
}

}  // namespace

void add_logs_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<LogsOptions>();
  CLI::App* command = app.add_subcommand(
      "logs",
      "An attempt's scheduler logs from its directory: per file the last 64 KiB and at most 2,000 lines, "
      "cut on line and UTF-8 boundaries, with a marker naming what is left out");
  add_version_flag(*command);
  command->add_option("JOB", options->job, "A job id")->required();
  options->attempt_option =
      command->add_option("--attempt", options->attempt, "The attempt number (default: the newest)")->type_name("N");
  options->component_option =
      command
          ->add_option("--component", options->component,
                       "Only the logs of heterogeneous component K (-1: the job's own batch log); default: every log")
          ->type_name("K");
  command->add_flag("--stderr", options->stderr_stream, "The stderr files instead of stdout");
  options->offset_option =
      command
          ->add_option("--offset", options->offset,
                       "Page forward from this byte instead of showing the tail; applied to each file selected, so "
                       "it makes most sense with --component (each page names the next offset)")
          ->type_name("BYTES");
  command->add_flag("--json", options->json, "Print as JSON (invalid UTF-8 in the text becomes U+FFFD)");
  command->callback([&context, &exit_code, options] { exit_code = run_logs(context, *options); });
}

}  // namespace tpslurm::cli
