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

# Test sources compile at -O1 in Release builds: their own code is assertions and fixtures, which
# -O3 makes slower to compile for no run time worth having; the code they test is the libraries',
# still built at -O3. Measured on the 2-core VM (2026-11-30): importers_test.cc 18.6 s -> 10.7 s,
# compute_test.cc 10.2 s -> 6.3 s alone; over a whole -j2 build, the 46 test objects timed in
# both builds 249 -> 199 s of compile time. The last -O on the command line wins, and target
# options follow CMAKE_CXX_FLAGS_RELEASE.
function(shardsim_test_optimization target)
  target_compile_options(${target} PRIVATE $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:CXX>>:-O1>)
endfunction()

# shardsim_test(NAME SOURCES ... DEPS ... [LABELS ...]): a small gtest binary registered with ctest.
function(shardsim_test_definitions target)
  target_compile_definitions(${target} PRIVATE
    SHARDSIM_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
    SHARDSIM_MEASUREMENTS_DIR="${PROJECT_SOURCE_DIR}/scenarios/measurements"
    SHARDSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    SHARDSIM_BINARY="$<TARGET_FILE:shardsim>")
endfunction()

function(shardsim_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  shardsim_test_definitions(${name})
  shardsim_warnings(${name})
  shardsim_test_optimization(${name})
  if(TARGET shardsim_test_pch)
    target_precompile_headers(${name} REUSE_FROM shardsim_test_pch)
  endif()
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
  shardsim_test_optimization(${name})
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS mpi TIMEOUT ${timeout} RUN_SERIAL TRUE)
endfunction()
