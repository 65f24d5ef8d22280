# Finds OpenBLAS as shipped by the scipy-openblas32 Python wheel.
#
# Its symbols carry a `scipy_` prefix (scipy_cblas_sgemm, ...), declared in the
# wheel's own cblas.h, so it cannot clash with another BLAS in the process.
#
# Uses Python_EXECUTABLE (find_package(Python) first). Defines
#   ScipyOpenBLAS_FOUND, ScipyOpenBLAS_INCLUDE_DIR, ScipyOpenBLAS_LIB_DIR,
#   ScipyOpenBLAS_LIBRARY and the IMPORTED target ScipyOpenBLAS::openblas.
include(FindPackageHandleStandardArgs)

if(NOT ScipyOpenBLAS_INCLUDE_DIR OR NOT ScipyOpenBLAS_LIBRARY)
  if(NOT Python_EXECUTABLE)
    find_package(Python COMPONENTS Interpreter QUIET)
  endif()
  if(Python_EXECUTABLE)
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -c
              "import scipy_openblas32 as o; print(o.get_include_dir()); print(o.get_lib_dir()); print(o.get_library())"
      OUTPUT_VARIABLE _sob_out
      ERROR_VARIABLE _sob_err
      RESULT_VARIABLE _sob_rc
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_sob_rc EQUAL 0)
      string(REPLACE "\n" ";" _sob_lines "${_sob_out}")
      list(GET _sob_lines 0 _sob_inc)
      list(GET _sob_lines 1 _sob_libdir)
      list(GET _sob_lines 2 _sob_name)
      find_path(ScipyOpenBLAS_INCLUDE_DIR cblas.h PATHS "${_sob_inc}" NO_DEFAULT_PATH)
      find_library(ScipyOpenBLAS_LIBRARY NAMES ${_sob_name} PATHS "${_sob_libdir}" NO_DEFAULT_PATH)
    elseif(NOT ScipyOpenBLAS_FIND_QUIETLY)
      message(STATUS "scipy_openblas32 not importable (pip install scipy-openblas32): ${_sob_err}")
    endif()
  endif()
endif()

find_package_handle_standard_args(ScipyOpenBLAS
  REQUIRED_VARS ScipyOpenBLAS_LIBRARY ScipyOpenBLAS_INCLUDE_DIR)

if(ScipyOpenBLAS_FOUND)
  get_filename_component(ScipyOpenBLAS_LIB_DIR "${ScipyOpenBLAS_LIBRARY}" DIRECTORY)
  if(NOT TARGET ScipyOpenBLAS::openblas)
    add_library(ScipyOpenBLAS::openblas SHARED IMPORTED)
    set_target_properties(ScipyOpenBLAS::openblas PROPERTIES
      IMPORTED_LOCATION "${ScipyOpenBLAS_LIBRARY}"
      IMPORTED_NO_SONAME FALSE
      INTERFACE_INCLUDE_DIRECTORIES "${ScipyOpenBLAS_INCLUDE_DIR}")
  endif()
endif()
mark_as_advanced(ScipyOpenBLAS_INCLUDE_DIR ScipyOpenBLAS_LIBRARY)
