#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "model/fields.hpp"
#include "model/sections.hpp"
#include "vtrain/config.hpp"

namespace vtrain {

using nlohmann::json;

namespace detail {

void read_plan(const json* j, PlanConfig& p, Diagnostics& errors) {
  read_section(j, "/plan", p, errors, [](auto& v, auto& s) { plan_fields(v, s); });
}

void explain_plan_defaults(Diagnostics& rules, const json* plan) {
  const PlanConfig defaults;
  const std::pair<const char*, int> defaulted[] = {{"global_batch", defaults.global_batch},
                                                   {"micro_batch", defaults.micro_batch},
                                                   {"tp", defaults.tp},
                                                   {"pp", defaults.pp},
                                                   {"dp", defaults.dp},
                                                   {"cp", defaults.cp}};
  for (Diagnostic& d : rules)
    for (const auto& [key, value] : defaulted)
      if (d.pointer == std::string("/plan/") + key && !(plan && plan->is_object() && plan->contains(key)))
        d.message += " (it was not given: its default is " + std::to_string(value) + ")";
}

}  // namespace detail

Outcome<PlanConfig> parse_plan_config(const json& j) { return detail::parse_section(j, &detail::read_plan); }

int micro_batches_per_iteration(const PlanConfig& p) {
  return p.global_batch / (p.dp * p.micro_batch);
}

json to_json(const PlanConfig& p) {
  return detail::section_json(p, [](auto& v, const auto& s) { detail::plan_fields(v, s); });
}

}  // namespace vtrain
