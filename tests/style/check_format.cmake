# Fails when a C++ source of the project differs from what clang-format makes of it under the
# root .clang-format (one scheme for every file; README, Code style). Run by CTest as
# style.clang_format:  cmake -DCLANG_FORMAT=<exe> -DSOURCE_DIR=<repo> -P check_format.cmake
# Fix:  clang-format -i $(git ls-files '*.cpp' '*.hpp' '*.h')
foreach(var CLANG_FORMAT SOURCE_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "check_format.cmake: -D${var}=... is required")
  endif()
endforeach()

set(files)
foreach(dir app engine widgets runner tests)
  file(GLOB_RECURSE found LIST_DIRECTORIES false
       "${SOURCE_DIR}/${dir}/*.cpp" "${SOURCE_DIR}/${dir}/*.hpp" "${SOURCE_DIR}/${dir}/*.h")
  list(APPEND files ${found})
endforeach()
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "check_format.cmake: no C++ sources under ${SOURCE_DIR}")
endif()

set(unformatted)
foreach(f IN LISTS files)
  execute_process(COMMAND "${CLANG_FORMAT}" --dry-run -Werror "${f}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
    list(APPEND unformatted "${rel}")
    string(REGEX MATCH "[^\n]*\n[^\n]*\n" first "${err}")  # the first place it differs
    message("${first}")
  endif()
endforeach()

if(unformatted)
  list(LENGTH unformatted n)
  list(JOIN unformatted "\n  " listing)
  message(FATAL_ERROR "${n} of ${count} C++ files are not formatted as .clang-format says:\n  ${listing}\n"
                      "Fix: clang-format -i $(git ls-files '*.cpp' '*.hpp' '*.h')")
endif()
message(STATUS "${count} C++ files formatted as .clang-format says")
