# Writes a man page per command into OUT_DIR, gzipped: tuneplane-slurm.1 from the program's
# --help, and tuneplane-slurm-COMMAND.1 for each command its --help lists under "Subcommands:"
# (journal's own subcommands are on its page). help2man reads each command's --help and
# --version, so the pages say what the binary does. Run as `cmake -DBINARY=… -DOUT_DIR=… -P`.
find_program(HELP2MAN help2man REQUIRED)
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")

execute_process(COMMAND "${BINARY}" --help OUTPUT_VARIABLE help RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${BINARY} --help failed")
endif()
string(REGEX REPLACE ".*\nSubcommands:\n" "\n" listed "${help}")
# The names only: a summary may hold a ";", which a CMake list would split on.
string(REGEX MATCHALL "\n  [a-z][a-z-]* " names "${listed}")
list(TRANSFORM names STRIP)

# "tuneplane-slurm 0.2.0 (commit …)": help2man names each page after the first word of its
# version string, so each command's page gets its own name (tuneplane-slurm-doctor, …).
execute_process(COMMAND "${BINARY}" --version OUTPUT_VARIABLE version_line OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX REPLACE "^tuneplane-slurm " "" version "${version_line}")

function(write_page page program summary)
  execute_process(
    COMMAND "${HELP2MAN}" --no-info --no-discard-stderr --section=1 --source=tuneplane-slurm
            "--version-string=${page} ${version}" "--name=${summary}" "--output=${OUT_DIR}/${page}.1" "${program}"
    RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "help2man failed for ${page}")
  endif()
  execute_process(COMMAND gzip -9nf "${OUT_DIR}/${page}.1" RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "gzip failed for ${page}.1")
  endif()
endfunction()

write_page(tuneplane-slurm "${BINARY}" "the Slurm backend of the TunePlane training platform")
set(count 1)
foreach(command IN LISTS names)
  string(REGEX MATCH "\n  ${command} +([^\n]*)" _ "${listed}")
  # help2man runs "PROGRAM --help" through the shell: the command is a word of it.
  write_page("tuneplane-slurm-${command}" "${BINARY} ${command}" "${CMAKE_MATCH_1}")
  math(EXPR count "${count} + 1")
endforeach()
if(count LESS 10)
  message(FATAL_ERROR "only ${count} man pages: did --help's \"Subcommands:\" section change?")
endif()
message(STATUS "${count} man pages in ${OUT_DIR}")
