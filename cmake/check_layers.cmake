# The build's check of the layering (docs/architecture.md §2) and of the files' lengths.
#
#   cmake -DROOT=<folder of layer folders> -DEDGES=<edge table> [-DGENERATED=<folder>]
#         [-DLENGTH_ROOTS=<dir>:<dir>...] [-DMAX_LINES=600]
#         [-DSTAMP=<file>] -P check_layers.cmake
#
# EDGES holds one line per layer: its name, then the layers it may use, e.g. "slurm metrics model
# base". src/CMakeLists.txt writes that table from each layer's target_link_libraries, so the link
# lists are the only place the edges are written. Every `#include "X/..."` in ROOT/<layer>/ (sources,
# headers and the `.in` templates configure_file turns into sources) and in GENERATED/<layer>/ (the
# files the build generates for that layer) where X is a layer must name the layer itself or one of
# its edges. Every code file under LENGTH_ROOTS (C and C++ sources and headers, CMake files, `.in`
# templates, and scripts: files starting with "#!") has at most MAX_LINES lines; the fuzz corpus is
# data and is not counted. On any breach the script fails naming each file, line and rule; on
# success it touches STAMP.
cmake_minimum_required(VERSION 3.25)

if(NOT ROOT OR NOT EDGES)
  message(FATAL_ERROR "check_layers: ROOT and EDGES are required")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)
if(NOT MAX_LINES)
  set(MAX_LINES 600)
endif()

# The table: LAYERS lists the layers, ALLOWED_<layer> the layers each may include.
file(STRINGS "${EDGES}" edge_lines)
set(layers "")
foreach(line IN LISTS edge_lines)
  string(REGEX MATCHALL "[A-Za-z0-9_]+" words "${line}")
  if(NOT words)
    continue()
  endif()
  list(POP_FRONT words layer)
  list(APPEND layers ${layer})
  set(ALLOWED_${layer} ${words})
endforeach()

set(problems "")

# The line of `text` in `file` (the first match), for the message.
function(line_of file text out)
  file(READ "${file}" content)
  string(FIND "${content}" "${text}" at)
  string(SUBSTRING "${content}" 0 ${at} before)
  string(REGEX REPLACE "[^\n]" "" newlines "${before}")
  string(LENGTH "${newlines}" count)
  math(EXPR count "${count} + 1")
  set(${out} ${count} PARENT_SCOPE)
endfunction()

function(check_includes layer file shown)
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[A-Za-z0-9_]+/")
  foreach(include IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([A-Za-z0-9_]+)/.*$" "\\1" used "${include}")
    if(used STREQUAL layer OR NOT used IN_LIST layers OR used IN_LIST ALLOWED_${layer})
      continue()
    endif()
    string(STRIP "${include}" include)
    line_of("${file}" "${include}" line)
    string(REPLACE ";" " " allowed "${ALLOWED_${layer}}")
    list(APPEND problems
      "${shown}:${line}: ${include}: layer ${layer} may include only ${layer} ${allowed}")
  endforeach()
  set(problems "${problems}" PARENT_SCOPE)
endfunction()

foreach(layer IN LISTS layers)
  file(GLOB_RECURSE sources LIST_DIRECTORIES false
    "${ROOT}/${layer}/*.h" "${ROOT}/${layer}/*.cc" "${ROOT}/${layer}/*.cpp" "${ROOT}/${layer}/*.in")
  foreach(file IN LISTS sources)
    file(RELATIVE_PATH shown "${ROOT}/.." "${file}")
    check_includes(${layer} "${file}" "${shown}")
  endforeach()
  if(GENERATED AND IS_DIRECTORY "${GENERATED}/${layer}")
    file(GLOB_RECURSE generated LIST_DIRECTORIES false
      "${GENERATED}/${layer}/*.h" "${GENERATED}/${layer}/*.cc" "${GENERATED}/${layer}/*.cpp")
    list(FILTER generated EXCLUDE REGEX "/CMakeFiles/")
    foreach(file IN LISTS generated)
      check_includes(${layer} "${file}" "${file}")
    endforeach()
  endif()
endforeach()

if(LENGTH_ROOTS)
  string(REPLACE ":" ";" length_roots "${LENGTH_ROOTS}")
  foreach(root IN LISTS length_roots)
    file(GLOB_RECURSE files LIST_DIRECTORIES false "${root}/*")
    list(FILTER files EXCLUDE REGEX "/fuzz/corpus/")
    foreach(file IN LISTS files)
      get_filename_component(name "${file}" NAME)
      if(NOT name MATCHES "\\.(h|hpp|cc|cpp|c|cmake|in|sh|py)$" AND NOT name STREQUAL "CMakeLists.txt")
        if(name MATCHES "\\.")
          continue()
        endif()
        file(STRINGS "${file}" first LIMIT_COUNT 1)
        if(NOT first MATCHES "^#!")
          continue()
        endif()
      endif()
      file(READ "${file}" content)
      string(REGEX REPLACE "[^\n]" "" newlines "${content}")
      string(LENGTH "${newlines}" count)
      if(count GREATER MAX_LINES)
        file(RELATIVE_PATH shown "${root}/.." "${file}")
        list(APPEND problems "${shown}: ${count} lines, over the limit of ${MAX_LINES}")
      endif()
    endforeach()
  endforeach()
endif()

if(problems)
  list(JOIN problems "\n  " listed)
  message(FATAL_ERROR "The layering or the length rule is broken (docs/architecture.md §2):\n  ${listed}\n"
    "A layer includes only itself and the layers its target_link_libraries names.")
endif()
if(STAMP)
  file(TOUCH "${STAMP}")
endif()
