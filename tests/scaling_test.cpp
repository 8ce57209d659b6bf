#include <doctest/doctest.h>

#include <cmath>

#include "vtrain/scaling.hpp"

using namespace vtrain;

namespace {

// Minimizes L(N, C / 6N) over log N by golden-section search: the numerical reference.
double numeric_optimum_params(const ScalingFit& f, double flops) {
  double lo = std::log(1e6), hi = std::log(1e15);
  const double g = (std::sqrt(5.0) - 1) / 2;
  auto at = [&](double x) {
    const double n = std::exp(x);
    return loss(f, n, flops / (6 * n));
  };
  double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
  double fa = at(a), fb = at(b);
  for (int i = 0; i < 200; ++i) {
    if (fa < fb) {
      hi = b, b = a, fb = fa, a = hi - g * (hi - lo), fa = at(a);
    } else {
      lo = a, a = b, fa = fb, b = lo + g * (hi - lo), fb = at(b);
    }
  }
  return std::exp((lo + hi) / 2);
}

}  // namespace

TEST_CASE("scaling: the closed form matches a numerical minimization for each fit") {
  for (const ScalingFit& f : scaling_fits()) {
    for (double c : {1e20, 5.76e23, 2.7e24, 1e26}) {
      CAPTURE(f.name);
      CAPTURE(c);
      const ComputeOptimum o = compute_optimal(f, c);
      CHECK(o.flops == doctest::Approx(c).epsilon(1e-9));
      CHECK(o.params == doctest::Approx(numeric_optimum_params(f, c)).epsilon(1e-5));
      // A step either way along the budget line raises the loss.
      CHECK(loss(f, o.params, o.tokens) < loss(f, o.params * 1.05, c / (6 * o.params * 1.05)));
      CHECK(loss(f, o.params, o.tokens) < loss(f, o.params / 1.05, c / (6 * o.params / 1.05)));
    }
  }
}

TEST_CASE("scaling: 20 tokens per parameter returns Chinchilla's own point") {
  const ComputeOptimum o = compute_optimal_ratio(20, 6 * 70e9 * 1.4e12);
  CHECK(o.params == doctest::Approx(70e9));
  CHECK(o.tokens == doctest::Approx(1.4e12));
}

TEST_CASE("scaling: Hoffmann's fit puts Chinchilla's budget near 70B parameters") {
  // Approach 3 of Hoffmann et al. prefers somewhat fewer parameters than their 70B model.
  const ComputeOptimum o = compute_optimal(hoffmann2022(), 5.76e23);
  CHECK(o.params > 20e9);
  CHECK(o.params < 70e9);
  CHECK(scaling_fits().find("besiroglu2024"));
  CHECK_FALSE(scaling_fits().find("kaplan"));
}
