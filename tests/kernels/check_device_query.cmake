# cmake -DBIN=<path to shardsim-device-query> -P check_device_query.cmake
# Runs the binary in text and JSON mode. Each run must either list a device (exit 0) or fail
# cleanly with exit 3 and "no CUDA device" on stderr; anything else fails the test. An unknown
# flag must exit 2 whether or not a device is present.
if(NOT BIN)
  message(FATAL_ERROR "pass -DBIN=<shardsim-device-query>")
endif()

function(check_run mode device_regex)
  execute_process(COMMAND ${BIN} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 AND out MATCHES "${device_regex}")
    message(STATUS "${mode}: device listed (exit 0)")
  elseif(rc EQUAL 3 AND err MATCHES "no CUDA device")
    message(STATUS "${mode}: exit 3, ${err}")
  else()
    message(FATAL_ERROR "${mode}: unexpected result\nexit: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endfunction()

check_run(text "device 0: ")
check_run(json "\"memory_bytes\": [0-9]+" --json)

execute_process(COMMAND ${BIN} --no-such-flag RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown argument '--no-such-flag'")
  message(FATAL_ERROR "usage: expected exit 2 and 'unknown argument', got exit ${rc}: ${err}")
endif()
message(STATUS "usage: bad flag exits 2")
