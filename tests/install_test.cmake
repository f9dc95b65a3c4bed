# The installed tree works on its own: `cmake -P install_test.cmake` with
#   -DMODE=prefix  cmake --install into a scratch prefix, then run from there;
#   -DMODE=deb     cpack -G DEB, check the package's contents and Depends, unpack it
#                  (dpkg-deb -x: no root needed) and run from the unpacked /usr.
# -DBUILD_DIR=<build tree> -DSCRATCH=<scratch directory, emptied first>.
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (exit ${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# The installed binary reports its version and runs an installed scenario and hypothesis.
function(check_tree root)
  set(share ${root}/share/latsim/scenarios)
  run(${root}/bin/latsim --version)
  if(NOT out MATCHES "^latsim [0-9]+\\.[0-9]+\\.[0-9]+.*\nSystemC [0-9]")
    message(FATAL_ERROR "unexpected --version output: ${out}")
  endif()
  run(${root}/bin/latsim run ${share}/disk-dma-kernel-build.yaml --duration 20ms
      --out ${SCRATCH}/out -q)
  if(NOT EXISTS ${SCRATCH}/out/metrics.json)
    message(FATAL_ERROR "the installed run wrote no metrics.json")
  endif()
  # A hypothesis file reaches its scenario by a relative path: it must resolve there too.
  run(${root}/bin/latsim check --validate ${share}/hypotheses/disk-dma-kernel-build.yaml)
endfunction()

file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
if(MODE STREQUAL "prefix")
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${SCRATCH}/prefix)
  check_tree(${SCRATCH}/prefix)
elseif(MODE STREQUAL "deb")
  run(${CMAKE_CPACK_COMMAND} -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${SCRATCH}/pkg)
  file(GLOB deb ${SCRATCH}/pkg/latsim_*.deb)
  if(NOT deb)
    message(FATAL_ERROR "cpack made no latsim_*.deb in ${SCRATCH}/pkg")
  endif()
  run(dpkg-deb --contents ${deb})
  foreach(f ./usr/bin/latsim ./usr/share/latsim/scenarios/disk-dma-kernel-build.yaml
          ./usr/share/latsim/scenarios/hypotheses/disk-dma-kernel-build.yaml
          ./usr/share/doc/latsim/ARCHITECTURE.md)
    string(FIND "${out}" " ${f}\n" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${deb} lacks ${f}:\n${out}")
    endif()
  endforeach()
  run(dpkg-deb --field ${deb} Depends)
  if(NOT out MATCHES "libsystemc")
    message(FATAL_ERROR "Depends does not name libsystemc: ${out}")
  endif()
  run(dpkg-deb -x ${deb} ${SCRATCH}/root)
  check_tree(${SCRATCH}/root/usr)
else()
  message(FATAL_ERROR "MODE must be prefix or deb")
endif()
