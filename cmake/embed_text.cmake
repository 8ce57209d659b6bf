# Writes a C++ source holding the text of data files (profiles, example configs, published
# measurements), so native and WASM builds carry the same data without a file system. Invoked as:
#   cmake -DOUTPUT=x.cpp -DFUNCTION=embedded_profiles -DFILES="a.json;b.json" -P embed_text.cmake
# FUNCTION (declared in core/src/common/embedded.hpp) returns the files as {file stem, text}.
set(body "")
set(n 0)
foreach(file IN LISTS FILES)
  file(READ "${file}" text)
  get_filename_component(stem "${file}" NAME_WE)
  string(APPEND body "    {\"${stem}\", R\"vtraintext(${text})vtraintext\"},\n")
  math(EXPR n "${n} + 1")
endforeach()
if(n EQUAL 0)
  set(body "    {nullptr, nullptr},\n")
endif()
file(WRITE "${OUTPUT}.tmp"
"// Generated from data files by cmake/embed_text.cmake; do not edit.\n"
"#include \"common/embedded.hpp\"\n"
"namespace vtrain::detail {\n"
"std::span<const EmbeddedFile> ${FUNCTION}() {\n"
"  static const EmbeddedFile files[] = {\n${body}  };\n"
"  return {files, ${n}};\n"
"}\n"
"}  // namespace vtrain::detail\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
