#pragma once
// The Nelder-Mead simplex minimizer the fits share (calibration, measured profiles).

#include <functional>
#include <vector>

namespace vtrain::fit {

// Where a simplex stops: when its best and worst values differ by at most
// abs + rel * |best| (units of f).
struct SimplexTolerance {
  double abs = 0;
  double rel = 1e-7;
};

// Minimizes f from x0 with the Nelder-Mead simplex (reflection 1, expansion 2, contraction 1/2,
// shrink 1/2); `step` is the initial simplex's edge along each axis. Stops after `max_evals`
// evaluations counted in `evals` (which the caller may carry across restarts) or at `tol`.
// `best_value` is f at the point returned.
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                                std::vector<double> x0, double step, int max_evals, int& evals,
                                double& best_value, SimplexTolerance tol = {});

}  // namespace vtrain::fit
