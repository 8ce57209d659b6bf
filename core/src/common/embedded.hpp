#pragma once
// The data files compiled into the library by cmake/embed_text.cmake (GPU profiles, example
// configs, published measurements, job lists), so that native and WebAssembly builds carry the same data
// without a file system. Each list is defined in a generated *_embedded.cpp.

#include <span>

namespace vtrain::detail {

struct EmbeddedFile {
  const char* name;  // the file's stem, e.g. "a100-sxm4-80gb"
  const char* text;  // its contents
};

std::span<const EmbeddedFile> embedded_profiles();      // profiles/*.json
std::span<const EmbeddedFile> embedded_examples();      // examples/*.json
std::span<const EmbeddedFile> embedded_measurements();  // profiles/published/*.csv
std::span<const EmbeddedFile> embedded_workloads();     // examples/workloads/*.json

}  // namespace vtrain::detail
