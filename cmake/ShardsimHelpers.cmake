# shardsim_library(NAME SOURCES ... DEPS ...): one static library per folder, with warnings on.
function(shardsim_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  shardsim_warnings(${name})
endfunction()

function(shardsim_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
endfunction()

# shardsim_test(NAME SOURCES ... DEPS ... [LABELS ...]): a small gtest binary registered with ctest.
function(shardsim_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    SHARDSIM_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
    SHARDSIM_MEASUREMENTS_DIR="${PROJECT_SOURCE_DIR}/scenarios/measurements"
    SHARDSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SHARDSIM_BINARY="$<TARGET_FILE:shardsim>")
  shardsim_warnings(${name})
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS "${ARG_LABELS}")
endfunction()

# shardsim_mpi_test(NAME SOURCE TIMEOUT [DEPENDS TARGET]): a gtest binary that drives built
# programs under mpirun (tests/common/process_util.h); label mpi, run alone (RUN_SERIAL: the
# ranks need the machine's cores). DEPENDS: the program it runs (default: shardsim).
function(shardsim_mpi_test name source timeout)
  cmake_parse_arguments(ARG "" "DEPENDS" "" ${ARGN})
  if(NOT ARG_DEPENDS)
    set(ARG_DEPENDS shardsim)
  endif()
  add_executable(${name} ${source})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE nlohmann_json::nlohmann_json GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    SHARDSIM_MPIEXEC="${MPIEXEC_EXECUTABLE}"
    SHARDSIM_BINARY="$<TARGET_FILE:shardsim>"
    SHARDSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_dependencies(${name} ${ARG_DEPENDS})
  shardsim_warnings(${name})
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS mpi TIMEOUT ${timeout} RUN_SERIAL TRUE)
endfunction()
