# What keeps a build from a fresh clone short (DEVELOPERS.md, "Build time").
# Nothing here changes what is compiled or what a program does: only how
# often the compiler reads the same headers, and whether it runs at all.

# A compiler cache where one is installed; never required. The two sloppiness
# settings are ccache's condition for caching a compile that uses a
# precompiled header (set for its runs only, on top of the user's own config).
option(VKSIM_CCACHE "Compile through ccache when it is installed" ON)
find_program(VKSIM_CCACHE_PROGRAM ccache)
if(VKSIM_CCACHE AND VKSIM_CCACHE_PROGRAM)
  foreach(lang C CXX CUDA)
    if(NOT DEFINED CMAKE_${lang}_COMPILER_LAUNCHER)
      set(CMAKE_${lang}_COMPILER_LAUNCHER
          ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros ${VKSIM_CCACHE_PROGRAM})
    endif()
  endforeach()
endif()

option(VKSIM_PRECOMPILED_HEADERS "Precompile the large headers that a target's C++ files share" ON)
# A unity build compiles a target's C++ files eight at a time, each batch one
# translation unit: the headers are read once a batch instead of once a file.
# Names in anonymous namespaces then meet those of the batch's other files, so
# they must differ (or the file sets SKIP_UNITY_BUILD_INCLUSION). Off in the
# dev preset, where one edited file should recompile alone.
option(VKSIM_UNITY_BUILD "Compile each target's C++ files in batches" ON)
option(VKSIM_FAST_TEST_CODE "Compile the test executables' own files with -O0 -g1" ON)

# Headers worth precompiling: large library headers whose meaning does not
# depend on a macro the including file defines first (stb_image.h, GLFW's and
# ImGui's do, so they stay out). The standard library's are not worth it:
# loading a precompiled header costs more than the few a small file reads.
set(VKSIM_PRECOMPILABLE_HEADERS
  gtest/gtest.h nlohmann/json.hpp fmt/format.h volk.h vulkan/vulkan.h
  vulkan/vk_enum_string_helper.h CLI/CLI.hpp tl/expected.hpp)

# The precompiled header of one target: each header of that list that at
# least a quarter of its C++ files include themselves (and at least two),
# found by reading them, so that new files and targets take part without
# being named anywhere.
function(vksim_precompile_shared_headers target cxx_sources)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(candidates)
  foreach(source IN LISTS cxx_sources)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${source_dir})
    if(NOT EXISTS ${source})
      continue()  # generated at build time
    endif()
    file(STRINGS ${source} lines REGEX "^#include <[^>]+>")
    list(TRANSFORM lines REPLACE "^#include <([^>]+)>.*" "\\1")
    list(REMOVE_DUPLICATES lines)
    foreach(header IN LISTS lines)
      list(FIND VKSIM_PRECOMPILABLE_HEADERS ${header} listed)
      if(NOT listed EQUAL -1)
        if(NOT DEFINED uses_${header})
          set(uses_${header} 0)
          list(APPEND candidates ${header})
        endif()
        math(EXPR uses_${header} "${uses_${header}} + 1")
      endif()
    endforeach()
  endforeach()
  list(LENGTH cxx_sources files)
  set(headers)
  foreach(header IN LISTS candidates)
    math(EXPR share "${uses_${header}} * 4")
    if(uses_${header} GREATER_EQUAL 2 AND share GREATER_EQUAL files)
      list(APPEND headers "$<$<COMPILE_LANGUAGE:CXX>:<${header}$<ANGLE-R>>")
    endif()
  endforeach()
  if(headers)
    target_precompile_headers(${target} PRIVATE ${headers})
  endif()
endfunction()

# One target with three or more C++ files: a unity build, a precompiled
# header and, for a test executable, -O0 -g1. A target that sets UNITY_BUILD
# itself keeps its choice; one file opts out with the source property
# SKIP_UNITY_BUILD_INCLUSION.
function(vksim_speed_up_target target)
  get_target_property(type ${target} TYPE)
  get_target_property(imported ${target} IMPORTED)
  if(imported OR NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.(cpp|cc|cxx)$")
  list(LENGTH sources count)
  if(count LESS 3)
    return()
  endif()
  # A test executable's own files (it links GoogleTest): -O0 -g1, which
  # compiles in about two thirds of -O2 -g's time (DEVELOPERS.md, "Build
  # time", has the figures). What a test asserts does not depend on how fast
  # its own code runs, and -g1 keeps the line tables that a backtrace of a
  # failing test needs; the libraries under test keep the build type's flags.
  get_target_property(links ${target} LINK_LIBRARIES)
  if(VKSIM_FAST_TEST_CODE AND "${links}" MATCHES "GTest::")
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-O0;-g1>")
  endif()
  get_target_property(unity ${target} UNITY_BUILD)
  if(VKSIM_UNITY_BUILD AND unity MATCHES "NOTFOUND$")
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
  if(VKSIM_PRECOMPILED_HEADERS)
    vksim_precompile_shared_headers(${target} "${sources}")
  endif()
endfunction()

# Every target of a directory and the directories below it; the top-level
# CMakeLists calls it once, after every add_subdirectory().
function(vksim_speed_up_directory dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    vksim_speed_up_target(${target})
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    vksim_speed_up_directory(${sub})
  endforeach()
endfunction()
