# Debian source packages that scripts/setup.sh unpacks into
# FASTSLOW_DEPS_DIR (never committed): zlib for the wasm build, Dear ImGui
# for the explorer (in the page and natively).

# The unpacked source tree of package NAME (not its tarballs) -> OUT; a
# missing one is fatal unless OPTIONAL is given (OUT is then empty).
function(fastslow_deps_source name out)
  cmake_parse_arguments(D "OPTIONAL" "" "" ${ARGN})
  file(GLOB _dirs LIST_DIRECTORIES true "${FASTSLOW_DEPS_DIR}/${name}-*")
  list(FILTER _dirs EXCLUDE REGEX "\\.(tar|dsc|xz|bz2|gz)$")
  if(NOT _dirs)
    if(D_OPTIONAL)
      set(${out} "" PARENT_SCOPE)
      return()
    endif()
    message(FATAL_ERROR "${name} sources not found under ${FASTSLOW_DEPS_DIR}: run scripts/setup.sh")
  endif()
  list(GET _dirs 0 _dir)
  set(${out} "${_dir}" PARENT_SCOPE)
endfunction()
