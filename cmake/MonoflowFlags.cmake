# Compiler flags shared by the core and the plugins built with it.
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  add_compile_options(-O3)
endif()
add_compile_options(-Wall -Wextra -Wno-unused-parameter)
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
if(MONOFLOW_SANITIZE)
  # Run Python under it with LD_PRELOAD="$(gcc -print-file-name=libasan.so)"
  # and ASAN_OPTIONS=detect_leaks=0 (CPython's own allocations are not ours).
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -g)
  add_link_options(-fsanitize=address,undefined)
endif()
