# cmake -DBINS="<binary>|<binary>..." -P check_no_cuda_needed.cmake
# Fails when a binary's dynamic section names a CUDA library (cudart, cuBLAS, cuBLASLt, NCCL) as
# NEEDED: those belong to libshardsim_cuda_backend.so, loaded only when a run asks for the cuda
# backend (kernels/cuda/cuda_backend.h: loading cuBLASLt at start cost every command ~60 ms and
# ~210 MB resident).
if(NOT BINS)
  message(FATAL_ERROR "pass -DBINS=<binary>|<binary>...")
endif()
string(REPLACE "|" ";" bins "${BINS}")
find_program(READELF readelf REQUIRED)
foreach(bin IN LISTS bins)
  execute_process(COMMAND ${READELF} -d ${bin} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${bin} failed (${rc}): ${err}")
  endif()
  if(NOT out MATCHES "NEEDED")
    message(FATAL_ERROR "readelf -d ${bin} lists no NEEDED library; is it dynamically linked?\n${out}")
  endif()
  string(REGEX MATCHALL "Shared library: \\[[^]]*(cudart|cublas|nccl)[^]]*\\]" cuda "${out}")
  if(cuda)
    message(FATAL_ERROR "${bin} needs CUDA libraries at start: ${cuda}")
  endif()
  message(STATUS "${bin}: no CUDA library needed at start")
endforeach()
