# Install rules of the C++ library (LW_INSTALL). `cmake --install <build> --prefix <prefix>` puts into the prefix:
#   include/loopwire/*.h                 the public headers
#   lib/libloopwire.a                    every module of the core in one static library
#   lib/cmake/loopwire/                  the CMake package: find_package(loopwire CONFIG), target loopwire::loopwire
#   lib/pkgconfig/loopwire.pc            pkg-config --cflags --libs loopwire
# Why one library rather than one per module: docs/decisions/install.md. How a user builds against it:
# docs/cpp-guide.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The static modules that the target loopwire stands for, and what they link from outside loopwire, are read from
# the targets themselves, so that a module or a library added in core/CMakeLists.txt reaches libloopwire.a and its
# users without being listed here. A static library's PRIVATE links appear in its interface as $<LINK_ONLY:...>:
# its users link them too.
set(lw_pending loopwire)
set(lw_seen loopwire)
set(lw_archive_modules "")
set(lw_archive_dependencies "")
while(lw_pending)
  list(POP_FRONT lw_pending lw_target)
  get_target_property(lw_links ${lw_target} INTERFACE_LINK_LIBRARIES)
  if(NOT lw_links)
    continue()
  endif()
  foreach(lw_link IN LISTS lw_links)
    string(REGEX REPLACE "^\\$<LINK_ONLY:([^$<>]+)>$" "\\1" lw_link "${lw_link}")
    if(lw_link MATCHES "\\$<")
      message(FATAL_ERROR "cmake/Install.cmake cannot follow ${lw_target}'s link to ${lw_link}")
    endif()
    if(lw_link IN_LIST lw_seen)
      continue()
    endif()
    list(APPEND lw_seen ${lw_link})
    if(TARGET ${lw_link})
      get_target_property(lw_imported ${lw_link} IMPORTED)
    else()
      set(lw_imported TRUE)
    endif()
    if(lw_imported)
      list(APPEND lw_archive_dependencies ${lw_link})
      continue()
    endif()
    get_target_property(lw_type ${lw_link} TYPE)
    if(lw_type STREQUAL "STATIC_LIBRARY")
      list(APPEND lw_archive_modules ${lw_link})
    endif()
    list(APPEND lw_pending ${lw_link})
  endforeach()
endwhile()

# A user's build must find each of these again: loopwireConfig.cmake.in and loopwire.pc.in say how.
set(lw_known_dependencies Threads::Threads OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB PkgConfig::LIBUV
                          PkgConfig::LW_BROTLI PkgConfig::LW_ZSTD)
foreach(lw_dependency IN LISTS lw_archive_dependencies)
  if(NOT lw_dependency IN_LIST lw_known_dependencies)
    message(FATAL_ERROR "The core links ${lw_dependency}: say in cmake/loopwireConfig.cmake.in how a user's build "
                        "finds it, in cmake/loopwire.pc.in which pkg-config module it is, then add it to "
                        "lw_known_dependencies in cmake/Install.cmake")
  endif()
endforeach()

# libloopwire.a: the modules' own object files, archived once more (nothing is compiled twice).
add_library(loopwire_archive STATIC)
foreach(lw_module IN LISTS lw_archive_modules)
  target_sources(loopwire_archive PRIVATE $<TARGET_OBJECTS:${lw_module}>)
endforeach()
set_target_properties(loopwire_archive PROPERTIES OUTPUT_NAME loopwire EXPORT_NAME loopwire LINKER_LANGUAGE CXX)
target_include_directories(loopwire_archive INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/core/include>
                                                      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(loopwire_archive INTERFACE cxx_std_20)
target_link_libraries(loopwire_archive INTERFACE ${lw_archive_dependencies})

set(lw_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/loopwire)
install(TARGETS loopwire_archive EXPORT loopwireTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/loopwire DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(EXPORT loopwireTargets NAMESPACE loopwire:: DESTINATION ${lw_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/loopwireConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/loopwireConfig.cmake INSTALL_DESTINATION ${lw_cmake_dir})
# 0.x: a minor version may break the API, so 0.1.2 satisfies find_package(loopwire 0.1) and 0.2.0 does not.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/loopwireConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/loopwireConfig.cmake ${PROJECT_BINARY_DIR}/loopwireConfigVersion.cmake
        DESTINATION ${lw_cmake_dir})

# pkg-config: the prefix is found from the .pc file's own folder, so that the file stays right for
# `cmake --install --prefix`, DESTDIR and a prefix moved elsewhere, as the CMake package does.
set(lw_pc_requires "openssl >= 3.0, zlib, libbrotlienc, libzstd")
if(PkgConfig::LIBUV IN_LIST lw_archive_dependencies)
  string(APPEND lw_pc_requires ", libuv")
endif()
set(lw_pc_libs "-L\${libdir} -lloopwire")
if(Threads::Threads IN_LIST lw_archive_dependencies AND CMAKE_THREAD_LIBS_INIT)
  string(APPEND lw_pc_libs " ${CMAKE_THREAD_LIBS_INIT}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(lw_pc_prefix "${CMAKE_INSTALL_PREFIX}")
  set(lw_pc_libdir "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(lw_pc_includedir "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH lw_pc_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" lw_pc_up "${lw_pc_up}")
  set(lw_pc_prefix "\${pcfiledir}/${lw_pc_up}")
  set(lw_pc_libdir "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(lw_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/loopwire.pc.in ${PROJECT_BINARY_DIR}/loopwire.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/loopwire.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
