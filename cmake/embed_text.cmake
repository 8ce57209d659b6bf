# Writes a C++ source holding the text of data files (profiles, example configs, published
# measurements), so native and WASM builds carry the same data without a file system. Invoked as:
#   cmake -DOUTPUT=x.cpp -DSTRUCT=EmbeddedProfile -DARRAY=kEmbeddedProfiles -DCOUNT=kEmbeddedProfileCount
#         -DFILES="a.json;b.json" -P embed_text.cmake
# Each entry is {file stem, text}.
set(body "")
set(n 0)
foreach(file IN LISTS FILES)
  file(READ "${file}" text)
  get_filename_component(stem "${file}" NAME_WE)
  string(APPEND body "  {\"${stem}\", R\"vtraintext(${text})vtraintext\"},\n")
  math(EXPR n "${n} + 1")
endforeach()
if(n EQUAL 0)
  set(body "  {nullptr, nullptr},\n")
endif()
file(WRITE "${OUTPUT}.tmp"
"// Generated from data files by cmake/embed_text.cmake; do not edit.\n"
"namespace vtrain {\n"
"struct ${STRUCT} {\n  const char* name;\n  const char* text;\n};\n"
"extern const ${STRUCT} ${ARRAY}[];\n"
"extern const int ${COUNT};\n"
"const ${STRUCT} ${ARRAY}[] = {\n${body}};\n"
"const int ${COUNT} = ${n};\n"
"}  // namespace vtrain\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
