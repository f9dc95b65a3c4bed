# cmake -DEXPECTED=N "-DCOMMAND=prog|arg|..." -P expect_exit.cmake: passes only when the
# command exits with status N (ctest's WILL_FAIL would also take a crash or a usage error).
string(REPLACE "|" ";" _cmd "${COMMAND}")
execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc)
if(NOT "${_rc}" STREQUAL "${EXPECTED}")
  message(FATAL_ERROR "exit status ${_rc}, expected ${EXPECTED}: ${_cmd}")
endif()
message(STATUS "exit status ${_rc}, as expected")
