# The API reference (HTML) from the `///` comments of the public headers: `cmake --build BUILD --target docs`
# writes BUILD/docs/html/index.html. Doxygen (Debian package doxygen) fails on any warning, and the test
# api_reference runs it so that CTest catches an undocumented or mis-documented declaration.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "doxygen not found: no API reference target (Debian package doxygen)")
  return()
endif()
set(SPHERETEST_DOCS_DIR ${PROJECT_BINARY_DIR}/docs)
get_target_property(SPHERETEST_GENERATED_INCLUDE_DIR spheretest_core SPHERETEST_GENERATED_INCLUDE_DIR)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${SPHERETEST_DOCS_DIR}/Doxyfile @ONLY)
add_custom_target(docs COMMAND Doxygen::doxygen ${SPHERETEST_DOCS_DIR}/Doxyfile WORKING_DIRECTORY ${SPHERETEST_DOCS_DIR}
                  COMMENT "API reference: ${SPHERETEST_DOCS_DIR}/html/index.html" VERBATIM)
if(SPHERETEST_BUILD_TESTS)
  add_test(NAME api_reference COMMAND Doxygen::doxygen ${SPHERETEST_DOCS_DIR}/Doxyfile
           WORKING_DIRECTORY ${SPHERETEST_DOCS_DIR})
  set_tests_properties(api_reference PROPERTIES LABELS docs)
endif()
