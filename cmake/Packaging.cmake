# What `cmake --install` puts beside the library (core/CMakeLists.txt installs that): the programs that were
# built, the app's data, its desktop entry and icon; and the Debian package of the app (`cpack -G DEB` in
# the build directory, see scripts/package.sh).
if(TARGET spheretest)
  install(TARGETS spheretest RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT app)
  # The path from bin/ to here is compiled into ui/ (SPHERETEST_INSTALLED_ASSETS): keep the two in step.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/spheretest/assets
          COMPONENT app PATTERN README.md EXCLUDE)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/spheretest.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications
          COMPONENT app)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/spheretest.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps COMPONENT app)
endif()
if(TARGET spheretest-bench)
  install(TARGETS spheretest-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT bench)
endif()

if(NOT PROJECT_IS_TOP_LEVEL OR NOT TARGET spheretest)
  return()
endif()

# The package holds the app component only: no headers, library or benchmark.
set(CPACK_GENERATOR DEB)
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};spheretest;app;/")
set(CPACK_PACKAGE_NAME spheretest)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "spatial partitioning of moving circles, shown and measured")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}
 Thousands to a million circles drift toward attraction points while you switch live between grids,
 quadtrees, sphere trees and AABB trees, see their nodes, queries and per-phase frame timings, and run
 the same scenes headless (spheretest --headless) to compare the structures with numbers.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "spheretest maintainers <maintainers@users.noreply.a-seed-dec3a339.example>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Linked libraries come from dpkg-shlibdeps. No tool can see the other two needs: SDL opens libGL.so.1 with
# dlopen, and the window opens the font by its path.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libgl1, fonts-dejavu-core")
# Mesa's drivers draw the window where no vendor driver is installed (and under Xvfb).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libgl1-mesa-dri")
include(CPack)
