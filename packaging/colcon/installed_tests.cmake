# `colcon test` / ctest of the top-level CMakeLists.txt: the installed tree as its users meet
# it. With the MuJoCo folder of share/mjbridge/hook/mujoco_library_path.dsv on LD_LIBRARY_PATH
# (what colcon's setup files do):
#   1. bin/mjbridge --version names this version;
#   2. examples/ros2_downstream, configured against the tree with find_package(mjbridge),
#      builds, and its program opens an endpoint, checkpoints, restores and continues
#      bit-identically (exit status 0).
# Inputs: MJBRIDGE_PREFIX, MJBRIDGE_VERSION, MJBRIDGE_HOST_SOURCE, MJBRIDGE_HOST_BUILD.
foreach(_var MJBRIDGE_PREFIX MJBRIDGE_VERSION MJBRIDGE_HOST_SOURCE MJBRIDGE_HOST_BUILD)
  if(NOT ${_var})
    message(FATAL_ERROR "installed_tests.cmake: ${_var} is not set")
  endif()
endforeach()
set(_hook "${MJBRIDGE_PREFIX}/share/mjbridge/hook/mujoco_library_path.dsv")
if(NOT EXISTS "${_hook}")
  message(FATAL_ERROR "not installed (run the install step first): ${_hook}")
endif()
file(STRINGS "${_hook}" _lines REGEX "^prepend-non-duplicate;LD_LIBRARY_PATH;")
foreach(_line IN LISTS _lines)
  string(REGEX REPLACE "^prepend-non-duplicate;LD_LIBRARY_PATH;" "" _dir "${_line}")
  if(DEFINED ENV{LD_LIBRARY_PATH} AND NOT "$ENV{LD_LIBRARY_PATH}" STREQUAL "")
    set(ENV{LD_LIBRARY_PATH} "${_dir}:$ENV{LD_LIBRARY_PATH}")
  else()
    set(ENV{LD_LIBRARY_PATH} "${_dir}")
  endif()
endforeach()

execute_process(COMMAND "${MJBRIDGE_PREFIX}/bin/mjbridge" --version
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
message(STATUS "mjbridge --version: ${_out}${_err}")
if(NOT _rc EQUAL 0 OR NOT _out MATCHES "(^|[^0-9.])${MJBRIDGE_VERSION}([^0-9.]|$)")
  message(FATAL_ERROR "bin/mjbridge --version: exit ${_rc}, does not name ${MJBRIDGE_VERSION}")
endif()

file(REMOVE_RECURSE "${MJBRIDGE_HOST_BUILD}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${MJBRIDGE_HOST_SOURCE}" -B "${MJBRIDGE_HOST_BUILD}"
    "-DCMAKE_PREFIX_PATH=${MJBRIDGE_PREFIX}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "configuring ${MJBRIDGE_HOST_SOURCE} against ${MJBRIDGE_PREFIX} failed")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${MJBRIDGE_HOST_BUILD}" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "building ${MJBRIDGE_HOST_SOURCE} failed")
endif()
execute_process(COMMAND "${MJBRIDGE_HOST_BUILD}/mjbridge_downstream"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
message(STATUS "mjbridge_downstream:\n${_out}${_err}")
if(NOT _rc EQUAL 0 OR NOT _out MATCHES "mjbridge ${MJBRIDGE_VERSION}\n")
  message(FATAL_ERROR "mjbridge_downstream against the installed tree: exit ${_rc}")
endif()
