#pragma once
// What a front end needs to build its inputs from the core instead of writing them again: every
// enum's choices (name and label), each field's type, bounds and default for a simulate config, an
// explore request and a compute-optimal request, the registries (GPUs, model presets, examples,
// explore cases, scaling fits, compute-optimal presets) and vtrain::limits. It is read from the
// tables the readers use, so it cannot disagree with them. api::schema() returns it as JSON text.

#include <nlohmann/json_fwd.hpp>

namespace vtrain {

nlohmann::json schema();

}  // namespace vtrain
