# Warnings, sanitizers and the standard library of loopwire's own targets. lw_settings reaches the core's modules,
# tests, fuzzers and micro-benchmarks through lw_internal (core/CMakeLists.txt), and the examples, the addon and
# the other programs written against the public API directly; never a project that links loopwire.
add_library(lw_settings INTERFACE)
target_compile_options(lw_settings INTERFACE -Wall -Wextra -Werror -Wpedantic -Wshadow)
target_compile_features(lw_settings INTERFACE cxx_std_20)

if(LW_SANITIZE)
  set(LW_ENABLE_CHECKS ON)
  set(lw_san_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(${lw_san_flags})
  add_link_options(${lw_san_flags})
endif()

if(LW_LIBCXX)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "LW_LIBCXX needs clang (set CMAKE_CXX_COMPILER=clang++)")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-stdlib=libc++>)
  add_link_options(-stdlib=libc++)
endif()

if(LW_ENABLE_CHECKS)
  target_compile_definitions(lw_settings INTERFACE LW_ENABLE_CHECKS=1)
endif()
