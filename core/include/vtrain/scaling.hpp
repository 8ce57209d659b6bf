#pragma once
// Scaling laws: which model size N and token count D minimize loss for a compute budget
// C = 6 N D, by the parametric fits L(N, D) = E + A / N^alpha + B / D^beta or a fixed ratio of
// tokens to parameters.

#include <string>

#include "vtrain/registry.hpp"

namespace vtrain {

struct ScalingFit {
  std::string name;        // e.g. "hoffmann2022"
  std::string label;       // authors and year, e.g. "Hoffmann et al. 2022"
  std::string citation;    // where the coefficients come from
  double E = 0, A = 0, B = 0, alpha = 0, beta = 0;
};

// Hoffmann et al. 2022 (approach 3) and Besiroglu et al. 2024's replication of it.
const ScalingFit& hoffmann2022();
const ScalingFit& besiroglu2024();
const Registry<ScalingFit>& scaling_fits();

// Loss of a model with n parameters trained on d tokens.
double loss(const ScalingFit& f, double n_params, double d_tokens);

struct ComputeOptimum {
  double params = 0;   // N* (count)
  double tokens = 0;   // D* (count)
  double flops = 0;    // C = 6 N* D* (FLOP)
};

// Closed form minimizing L(N, D) subject to 6 N D = C (Hoffmann et al. 2022, eq. 4):
// N* = G (C/6)^(beta/(alpha+beta)), D* = (C/6)^(alpha/(alpha+beta)) / G, G = (alpha A / (beta B))^(1/(alpha+beta)).
ComputeOptimum compute_optimal(const ScalingFit& f, double flops);

// Fixed tokens-per-parameter rule: C = 6 N (r N).
ComputeOptimum compute_optimal_ratio(double tokens_per_param, double flops);

}  // namespace vtrain
