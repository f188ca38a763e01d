# Writes OUTPUT, a C++ file defining tpslurm::cli::kCommit: the source tree's git commit
# (12 hex digits, "-dirty" when tracked files differ from it), or "unknown" outside a git
# checkout. Run at every build (cmake -P); the file changes only when the commit does, so
# only it is recompiled.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" diff --quiet HEAD -- RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty)
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "// Generated at build time by cmake/write_commit.cmake.\n#include \"cli/version.h\"\n\nnamespace tpslurm::cli {\n\nconst char* const kCommit = \"${commit}\";\n\n}  // namespace tpslurm::cli\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
