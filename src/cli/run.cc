#include "cli/run.h"

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/version.h"

namespace tpslurm::cli {

void add_version_flag(CLI::App& command) {
  command.set_version_flag("--version", std::string("tuneplane-slurm ") + kVersion + " (commit " + kCommit + ")",
                           "Print the release and the commit it was built from, and exit");
}

namespace {

// The first word that is not an option (or --config's value), if it names no command.
std::optional<std::string> unknown_command(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--config") {
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    for (const CLI::App* command : app.get_subcommands({})) {
      if (command->get_name() == arg) return std::nullopt;
    }
    return arg;
  }
  return std::nullopt;
}

}  // namespace

int run(int argc, char** argv) {
  try {
    Context context(std::cout, std::cerr, config::process_environment(), config::current_process_options());
    CLI::App app{"tuneplane-slurm: the Slurm backend of the TunePlane training platform", "tuneplane-slurm"};
    app.require_subcommand(1);
    app.fallthrough();
    add_version_flag(app);
    app.add_option("--config", context.config_file,
                   "Env file with TUNEPLANE_* settings (systemd EnvironmentFile syntax); the environment wins")
        ->type_name("FILE");
    int exit_code = kExitOk;
    add_validate_command(app, context, exit_code);
    add_config_command(app, context, exit_code);
    add_render_command(app, context, exit_code);
    add_submit_command(app, context, exit_code);
    add_status_command(app, context, exit_code);
    add_serve_command(app, context, exit_code);
    add_cancel_command(app, context, exit_code);
    add_cleanup_command(app, context, exit_code);
    add_resolve_command(app, context, exit_code);
    add_control_commands(app, context, exit_code);
    add_audit_command(app, context, exit_code);
    add_logs_command(app, context, exit_code);
    add_doctor_command(app, context, exit_code);
    add_migrate_command(app, context, exit_code);
    add_journal_command(app, context, exit_code);
    if (auto unknown = unknown_command(app, argc, argv)) {
      std::cerr << "tuneplane-slurm: unknown command \"" << *unknown << "\"; run tuneplane-slurm --help\n";
      return kExitBadInput;
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::Success& e) {
      return app.exit(e);  // --help, --version
    } catch (const CLI::ParseError& e) {
      app.exit(e);
      return kExitBadInput;
    }
    return exit_code;
  } catch (const std::exception& e) {
    std::cerr << "tuneplane-slurm: unexpected error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace tpslurm::cli
