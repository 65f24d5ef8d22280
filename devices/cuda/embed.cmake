# cmake -DINPUT=kernels.fatbin -DOUTPUT=kernels_fatbin.c -DSYMBOL=mfc_fatbin -P embed.cmake
# Writes a C file defining `const unsigned char SYMBOL[]` with INPUT's bytes
# (16-byte aligned, as cuModuleLoadData wants an aligned image). Plain CMake,
# so the build needs no xxd.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
# One line of 32 bytes at a time keeps the regex work small and the C readable.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){32})" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}"
  "/* Generated from ${INPUT} by embed.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "_Alignas(16) const unsigned char ${SYMBOL}[] = {\n${body}0x00};\n"
  "const size_t ${SYMBOL}_size = ${bytes};\n")
