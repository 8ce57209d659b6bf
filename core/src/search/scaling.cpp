#include "vtrain/scaling.hpp"

#include <cmath>

namespace vtrain {

const ScalingFit& hoffmann2022() {
  static const ScalingFit f{"hoffmann2022", "Hoffmann et al. 2022",
                            "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models, "
                            "approach 3 (eq. 10)",
                            1.69, 406.4, 410.7, 0.34, 0.28};
  return f;
}

const ScalingFit& besiroglu2024() {
  static const ScalingFit f{"besiroglu2024", "Besiroglu et al. 2024",
                            "Besiroglu et al. 2024, Chinchilla Scaling: A replication attempt, "
                            "their fit of approach 3",
                            1.8172, 482.01, 2085.43, 0.3478, 0.3658};
  return f;
}

const Registry<ScalingFit>& scaling_fits() {
  static const Registry<ScalingFit> fits({hoffmann2022(), besiroglu2024()});
  return fits;
}

double loss(const ScalingFit& f, double n, double d) {
  return f.E + f.A / std::pow(n, f.alpha) + f.B / std::pow(d, f.beta);
}

ComputeOptimum compute_optimal(const ScalingFit& f, double flops) {
  const double s = f.alpha + f.beta;
  const double g = std::pow(f.alpha * f.A / (f.beta * f.B), 1.0 / s);
  ComputeOptimum o;
  o.params = g * std::pow(flops / 6.0, f.beta / s);
  o.tokens = std::pow(flops / 6.0, f.alpha / s) / g;
  o.flops = 6.0 * o.params * o.tokens;
  return o;
}

ComputeOptimum compute_optimal_ratio(double r, double flops) {
  ComputeOptimum o;
  o.params = std::sqrt(flops / (6.0 * r));
  o.tokens = r * o.params;
  o.flops = 6.0 * o.params * o.tokens;
  return o;
}

}  // namespace vtrain
