# ctest label `check`: hypothesis files run through `latsim check` (tools/check), so a model
# change that breaks a seed reproduction fails CI.
#
# Every scenarios/hypotheses/*.yaml is validated (check.validate.NAME: the file and each
# case's scenario with its overrides load). It runs (check.NAME) once listed here: add a
# file when the model reproduces it (scenarios/CALIBRATION.md), as NAME.yaml or
# NAME.yaml@DURATION (a shorter simulated time that still holds the file's verdicts). A row
# the model misses carries `known_miss: "why"` in the file; check runs with --exact, so a
# row that holds and starts to fail, and a known miss that starts to hold, both fail CI.
# Unlisted files are registered disabled, so ctest shows them as "Not Run (Disabled)".
list(APPEND LATSIM_CHECK_HYPOTHESES
  disk-dma-kernel-build.yaml   # O1-O6, O9: 7 of 9 hold, 2 known misses (3 x 30 s runs)
  latencytest-stress.yaml      # O11, O3/O4 at 32/32, O6, O8, O10: 20 of 32 hold, 12 known misses
  maxcpus1.yaml                # Ingo Molnar's maxcpus=1 question: 7 of 7 hold (10 s runs)
  nmi-watchdog.yaml            # O7: NMIs at HZ, do_nmi inside long traces (10 s runs)
  tracing-off.yaml             # Ingo Molnar.s tracing_enabled=0 question (3 seeds x 30 s)
  video-fifo-stall.yaml        # O12: 25-30 ms freezes with the rude driver (4 x 2 s runs)
  rt-posix-timers.yaml@2s      # O13: seed 003's pinned/unpinned/clock_nanosleep contrast, 12 of 12
  preempt-2.4-dbench.yaml      # O14: 2.4.10-preempt dbench 16 < 40 < 48, audio alone (4 x 20 s)
  athlon-mmx-preempt.yaml      # seed 004: Athlon MMX routines, the Athlon patch: 3 of 6, 3 known misses
  mpc5200-rcu-nfs.yaml         # seed 002: RCU_TRACE on/off, 2.6.25-rt, flash, hackbench: 3 of 9, 6 known misses
)

set(_check_out ${PROJECT_BINARY_DIR}/check)
set(_run_check "$<TARGET_FILE:latsim>" check -j 2 --exact)

set(_check_listed "")
set(_check_duration "")
foreach(_entry IN LISTS LATSIM_CHECK_HYPOTHESES)
  string(REPLACE "@" ";" _parts "${_entry}")
  list(GET _parts 0 _file)
  list(APPEND _check_listed ${_file})
  list(LENGTH _parts _n)
  if(_n GREATER 1)
    list(GET _parts 1 _d)
    set(_check_duration_${_file} ${_d})
  endif()
endforeach()

file(GLOB _hypotheses CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/scenarios/hypotheses/*.yaml)
foreach(_path IN LISTS _hypotheses)
  get_filename_component(_file ${_path} NAME)
  get_filename_component(_name ${_path} NAME_WLE)
  add_test(NAME check.validate.${_name} COMMAND ${_run_check} --validate ${_path})
  set(_args ${_run_check} ${_path} --out ${_check_out}/${_name}
            --junit ${_check_out}/${_name}.junit.xml)
  if(DEFINED _check_duration_${_file})
    list(APPEND _args --duration ${_check_duration_${_file}})
  endif()
  add_test(NAME check.${_name} COMMAND ${_args})
  set_tests_properties(check.validate.${_name} check.${_name} PROPERTIES LABELS check)
  set_tests_properties(check.${_name} PROPERTIES PROCESSORS 2)
  if(NOT _file IN_LIST _check_listed)
    set_tests_properties(check.${_name} PROPERTIES DISABLED TRUE)
  endif()
endforeach()

# check's own verdict logic, end to end on real runs: one file passes, one must exit 1.
set(_self ${PROJECT_SOURCE_DIR}/tests/tools/data/check)
add_test(NAME check.self-test-pass
         COMMAND ${_run_check} ${_self}/self-test-pass.yaml --out ${_check_out}/self-test-pass
                 --junit ${_check_out}/self-test-pass.junit.xml)
add_test(NAME check.self-test-fail
         COMMAND ${CMAKE_COMMAND} -DEXPECTED=1
                 "-DCOMMAND=$<TARGET_FILE:latsim>|check|-j|2|${_self}/self-test-fail.yaml|--out|${_check_out}/self-test-fail"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.cmake)
set_tests_properties(check.self-test-pass check.self-test-fail PROPERTIES LABELS check
                     PROCESSORS 2)
