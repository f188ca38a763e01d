# Writes OUTPUT: a C++ source holding every TEMPLATE_DIR/*.mustache file, byte for byte, so
# the binary renders exactly the templates it was built and tested with.
# Usage: cmake -DTEMPLATE_DIR=... -DOUTPUT=... -P embed_templates.cmake
file(GLOB files RELATIVE "${TEMPLATE_DIR}" "${TEMPLATE_DIR}/*.mustache")
list(SORT files)
set(entries "")
foreach(file IN LISTS files)
  file(READ "${TEMPLATE_DIR}/${file}" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR length "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
  string(REGEX REPLACE "\\.mustache$" "" name "${file}")
  string(APPEND entries "      {\"${name}\", std::string(\"${escaped}\", ${length})},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "// Generated from templates/ by embed_templates.cmake; do not edit.
#include <map>
#include <string>

namespace tpslurm::render::detail {

const std::map<std::string, std::string, std::less<>>& builtin_template_texts() {
  static const std::map<std::string, std::string, std::less<>> texts{
${entries}  };
  return texts;
}

}  // namespace tpslurm::render::detail
")
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
