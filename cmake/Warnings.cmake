# Every target of the project calls this so that warnings stay errors per target, not globally.
function(spheretest_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow)
  if(SPHERETEST_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
