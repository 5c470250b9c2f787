# Install step of the top-level CMakeLists.txt, after scripts/install.sh: writes the colcon
# environment hook share/mjbridge/hook/mujoco_library_path.dsv (colcon.pkg names it, so
# `source install/setup.bash` applies it). A tree that does not carry MuJoCo (MUJOCO_DIR,
# MUJOCO_INCLUDE_DIR/MUJOCO_LIB_DIR) links the one in that folder, which the loader finds
# through LD_LIBRARY_PATH only (libmjbridge's RUNPATH is $ORIGIN): the hook prepends the
# folder. A tree that carries MuJoCo, or one whose MuJoCo is in the system's library folder,
# needs nothing: the hook is then a comment. Input: MJBRIDGE_PREFIX (the installed tree).
set(_config "${MJBRIDGE_PREFIX}/lib/cmake/mjbridge/mjbridgeConfig.cmake")
if(NOT EXISTS "${_config}")
  message(FATAL_ERROR "mjbridge: ${_config} is missing after scripts/install.sh")
endif()
file(STRINGS "${_config}" _bundled REGEX "^set\\(mjbridge_MUJOCO_BUNDLED ")
file(STRINGS "${_config}" _library REGEX "^set\\(mjbridge_MUJOCO_LIBRARY ")
string(REGEX REPLACE "^set\\(mjbridge_MUJOCO_LIBRARY \"(.*)\"\\)$" "\\1" _library "${_library}")
set(_hook "# mjbridge: MuJoCo is in this tree or in a system folder; nothing to add\n")
if(_bundled MATCHES "FALSE" AND IS_ABSOLUTE "${_library}")
  get_filename_component(_dir "${_library}" DIRECTORY)
  if(NOT _dir MATCHES "^/(usr/)?lib(32|64)?(/[^/]+-linux-gnu[^/]*)?$")
    set(_hook "# mjbridge: the folder of the MuJoCo it links (not in this tree)\nprepend-non-duplicate;LD_LIBRARY_PATH;${_dir}\n")
  endif()
endif()
file(MAKE_DIRECTORY "${MJBRIDGE_PREFIX}/share/mjbridge/hook")
file(WRITE "${MJBRIDGE_PREFIX}/share/mjbridge/hook/mujoco_library_path.dsv" "${_hook}")
message(STATUS "Installing: ${MJBRIDGE_PREFIX}/share/mjbridge/hook/mujoco_library_path.dsv")
