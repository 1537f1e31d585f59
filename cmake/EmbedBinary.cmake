# cmake -DINPUT=file -DOUTPUT=file.inc -DNAME=kName -P EmbedBinary.cmake
# Writes INPUT's bytes as a C++ array `alignas(8) inline constexpr unsigned char
# NAME[]` for an #include inside a namespace (CUDA's bin2c needs a header that
# its toolkit here does not ship).
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){32})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "alignas(8) inline constexpr unsigned char ${NAME}[] = {\n${bytes}\n};\n")
