# Dependencies of the Emscripten build. Ports download from the internet, so
# zlib is compiled from Debian's source package (scripts/setup.sh unpacks it
# into FASTSLOW_DEPS_DIR) and GoogleTest from Debian's /usr/src/googletest.

# Emscripten's JS optimizer needs Debian's acorn at link time.
set(CMAKE_C_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)

# The core reports bad input by throwing; without these a throw aborts.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)

include(${CMAKE_CURRENT_LIST_DIR}/deps_source.cmake)

fastslow_deps_source(zlib FASTSLOW_ZLIB_SRC)
# zlib's own CMakeLists renames files in its source tree; build it here instead.
set(_zlib_files adler32.c compress.c crc32.c deflate.c infback.c inffast.c inflate.c
    inftrees.c trees.c uncompr.c zutil.c)
list(TRANSFORM _zlib_files PREPEND "${FASTSLOW_ZLIB_SRC}/")
add_library(fastslow_zlib STATIC ${_zlib_files})
target_include_directories(fastslow_zlib SYSTEM PUBLIC "${FASTSLOW_ZLIB_SRC}")
target_compile_definitions(fastslow_zlib PRIVATE HAVE_UNISTD_H HAVE_STDARG_H)
add_library(ZLIB::ZLIB ALIAS fastslow_zlib)

# nlohmann/json is header-only; expose only its folder, not all of /usr/include.
set(_nlohmann_dir "${PROJECT_BINARY_DIR}/third_party_include")
file(MAKE_DIRECTORY "${_nlohmann_dir}")
file(CREATE_LINK /usr/include/nlohmann "${_nlohmann_dir}/nlohmann" SYMBOLIC)
add_library(nlohmann_json INTERFACE)
target_include_directories(nlohmann_json SYSTEM INTERFACE "${_nlohmann_dir}")
add_library(nlohmann_json::nlohmann_json ALIAS nlohmann_json)

if(FASTSLOW_BUILD_TESTS)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  set(gtest_disable_pthreads ON CACHE BOOL "" FORCE)
  # Its CMakeLists defines the GTest::gtest and GTest::gtest_main aliases.
  add_subdirectory(/usr/src/googletest "${PROJECT_BINARY_DIR}/googletest" EXCLUDE_FROM_ALL)
endif()

# Node >= 18 has a global fetch that Emscripten 3.1.6's loader mistakes for a
# browser; the pre-js hides it under node.
set(FASTSLOW_NODE_PRE_JS "${PROJECT_SOURCE_DIR}/cmake/node_pre.js")
