// Real roots of a cubic on an interval, for the seed's layer 2 (SEEDS.md section 4: each coordinate of a
// cable segment is a cubic in u, solved against the bounds of a grown box). Monotone pieces between the
// derivative's roots, each solved by bracketed Newton (Press et al., Numerical Recipes, rtsafe), so that a
// root is never lost to cancellation in a closed form and is accurate to a few ulps of u.
#include <simpulse/collision/cable_segment.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

double horner(const std::array<double, 4>& a, double u) {
    return a[0] + u * (a[1] + u * (a[2] + u * a[3]));
}
double horner_derivative(const std::array<double, 4>& a, double u) {
    return a[1] + u * (2 * a[2] + 3 * u * a[3]);
}
// Rounding bound of horner(a, u): a few ulps of the sum of the terms' magnitudes.
double rounding_bound(const std::array<double, 4>& a, double u) {
    const double m = std::abs(u);
    return 8 * kEps * (std::abs(a[0]) + m * (std::abs(a[1]) + m * (std::abs(a[2]) + m * std::abs(a[3]))));
}

// Roots of b0 + b1 x + b2 x^2 in (lo, hi), ascending; the stable form avoids cancellation (Higham sect. 1.8).
int quadratic_roots_in(double b0, double b1, double b2, double lo, double hi, std::array<double, 2>& out) {
    double r[2];
    int n = 0;
    const double scale = std::max({std::abs(b0), std::abs(b1), std::abs(b2)});
    if (scale == 0) return 0;
    if (std::abs(b2) <= kEps * scale) {
        if (b1 != 0) r[n++] = -b0 / b1;
    } else {
        const double disc = b1 * b1 - 4 * b2 * b0;
        if (disc >= 0) {
            const double q = -0.5 * (b1 + std::copysign(std::sqrt(disc), b1));
            r[n++] = q / b2;
            if (q != 0) r[n++] = b0 / q;
        }
    }
    if (n == 2 && r[1] < r[0]) std::swap(r[0], r[1]);
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (r[i] > lo && r[i] < hi) out[static_cast<std::size_t>(count++)] = r[i];
    return count;
}

// Root of the monotone cubic in [lo, hi] with f(lo), f(hi) of opposite signs.
double bracketed_root(const std::array<double, 4>& a, double lo, double hi, double f_lo) {
    double x = 0.5 * (lo + hi);
    const double width_floor = 4 * kEps * std::max({std::abs(lo), std::abs(hi), 1.0});
    for (int iteration = 0; iteration < 200 && hi - lo > width_floor; ++iteration) {
        const double f = horner(a, x);
        if (f == 0) return x;
        if ((f < 0) == (f_lo < 0))
            lo = x;
        else
            hi = x;
        const double df = horner_derivative(a, x);
        const double newton = df != 0 ? x - f / df : lo - 1;
        x = (newton > lo && newton < hi) ? newton : 0.5 * (lo + hi);
    }
    return x;
}

}  // namespace

int cubic_roots_in(const std::array<double, 4>& a, double lo, double hi, std::array<double, 3>& roots) {
    // Breakpoints: the ends and the derivative's roots; the cubic is monotone between neighbours.
    std::array<double, 2> critical{};
    const int n_critical = quadratic_roots_in(a[1], 2 * a[2], 3 * a[3], lo, hi, critical);
    std::array<double, 4> points{lo, 0, 0, 0};
    int n_points = 1;
    for (int i = 0; i < n_critical; ++i) points[static_cast<std::size_t>(n_points++)] = critical[i];
    points[static_cast<std::size_t>(n_points++)] = hi;
    int count = 0;
    auto add = [&](double x) {
        if (count > 0 && x <= roots[static_cast<std::size_t>(count - 1)]) return;
        if (count < 3) roots[static_cast<std::size_t>(count++)] = x;
    };
    for (int i = 0; i < n_points; ++i) {
        const double x = points[static_cast<std::size_t>(i)], fx = horner(a, x);
        if (std::abs(fx) <= rounding_bound(a, x) && (fx != 0 || a != std::array<double, 4>{})) add(x);
        if (i + 1 == n_points) break;
        const double y = points[static_cast<std::size_t>(i + 1)], fy = horner(a, y);
        const bool x_zero = std::abs(fx) <= rounding_bound(a, x),
                   y_zero = std::abs(fy) <= rounding_bound(a, y);
        if (!x_zero && !y_zero && (fx < 0) != (fy < 0)) add(bracketed_root(a, x, y, fx));
    }
    return count;
}

}  // namespace simpulse
