#include "simplex.hpp"

#include <algorithm>
#include <cmath>

namespace vtrain::fit {

using Vec = std::vector<double>;

Vec nelder_mead(const std::function<double(const Vec&)>& f, Vec x0, double step, int max_evals, int& evals,
                double& best_value, SimplexTolerance tol) {
  const int n = static_cast<int>(x0.size());
  std::vector<Vec> s(n + 1, x0);
  for (int i = 0; i < n; ++i) s[i + 1][i] += step;
  Vec fv(n + 1);
  for (int i = 0; i <= n; ++i) fv[i] = f(s[i]);
  evals += n + 1;
  std::vector<int> order(n + 1);
  std::vector<Vec> s2;
  Vec f2;
  while (evals < max_evals) {
    for (int i = 0; i <= n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return fv[a] < fv[b]; });
    s2.clear();
    f2.clear();
    for (int i : order) s2.push_back(s[i]), f2.push_back(fv[i]);
    s.swap(s2);
    fv.swap(f2);
    if (std::abs(fv[n] - fv[0]) <= tol.abs + tol.rel * std::abs(fv[0])) break;
    Vec c(n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) c[j] += s[i][j] / n;
    const auto along = [&](double t) {
      Vec r(n);
      for (int j = 0; j < n; ++j) r[j] = c[j] + t * (s[n][j] - c[j]);
      return r;
    };
    const Vec xr = along(-1.0);
    const double fr = f(xr);
    ++evals;
    if (fr < fv[0]) {
      const Vec xe = along(-2.0);
      const double fe = f(xe);
      ++evals;
      if (fe < fr) s[n] = xe, fv[n] = fe;
      else s[n] = xr, fv[n] = fr;
    } else if (fr < fv[n - 1]) {
      s[n] = xr, fv[n] = fr;
    } else {
      const Vec xc = along(fr < fv[n] ? -0.5 : 0.5);
      const double fc = f(xc);
      ++evals;
      if (fc < std::min(fr, fv[n])) {
        s[n] = xc, fv[n] = fc;
      } else {
        for (int i = 1; i <= n; ++i) {
          for (int j = 0; j < n; ++j) s[i][j] = s[0][j] + 0.5 * (s[i][j] - s[0][j]);
          fv[i] = f(s[i]);
        }
        evals += n;
      }
    }
  }
  const int best = static_cast<int>(std::min_element(fv.begin(), fv.end()) - fv.begin());
  best_value = fv[best];
  return s[best];
}

}  // namespace vtrain::fit
