# monoflow_cython_module(name pyx): compile a .pyx to C++ with Cython and
# build it as a Python extension module.
find_program(CYTHON_EXECUTABLE NAMES cython cython3 REQUIRED)
function(monoflow_cython_module name pyx)
  get_filename_component(pyx_dir ${pyx} DIRECTORY)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp)
  file(GLOB pxd_deps CONFIGURE_DEPENDS ${pyx_dir}/*.pxd ${pyx_dir}/*.pxi ${pyx_dir}/*.h)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CYTHON_EXECUTABLE} --cplus -3 -I ${pyx_dir} ${pyx} -o ${out}
    DEPENDS ${pyx} ${pxd_deps}
    COMMENT "Cython ${pyx}")
  Python_add_library(${name} MODULE WITH_SOABI ${out})
endfunction()
