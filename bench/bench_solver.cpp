// Island solve time against the number of constraint rows, for the direct paths (dense and sparse active set)
// and the iterative path (projected Gauss-Seidel) of the exact-mode solver on the same islands, with the
// residual each reaches (SolverStats::residual, the largest complementarity violation, m/s).
//
// Islands are built through the public Solver API (solver.h) from contact graphs of resting unit boxes (1 m,
// 1000 kg) on a static floor, 4 corner contacts per face-to-face interface, one patch per interface (4 normal
// rows + 2 tangent rows + 1 torsional row = 7 rows), friction 0.5, depth 1 mm on load-bearing faces and 0 on
// side faces:
//   column  one column of n boxes (chain graph, 7 rows per box);
//   wall    an nx x nz brick-free wall in the x-z plane, neighbours touching sideways (~14 rows per box);
//   block   a k x k x k block of touching boxes (~21 rows per box; what a compacted pile looks like).
// Velocities are the approach gravity gives in one step at dt = 1/60 (0.16 m/s down) plus random +-0.05 m/s
// and +-0.05 rad/s, so friction rows and side contacts are active. Each family is one island.
//
// Paths (SolverSettings): default = the library defaults (direct up to direct_first_max_rows, iterative first
// and direct if it does not converge up to direct_max_rows, iterative beyond); dense = direct, dense
// LDL^T/LU active set for every size; sparse = direct, sparse factorisation for every size; iter60 =
// iterative (projected Gauss-Seidel with NNCG momentum) with the library defaults (60 sweeps, tolerance
// 1e-5 m/s); iter-tol = iterative
// with up to 10,000 sweeps (time to reach 1e-5 m/s). Start: cold (warm_start = false) or warm (the Solver
// keeps its warm-start cache; solves alternate between two velocity states that differ by the random part, so
// each solve starts from the other state's impulses, as in a simulation where contacts persist).
//
// Each figure is the median of --reps repetitions of CPU time per solve (thread CPU clock); a repetition
// repeats the solve until --min-time seconds have passed. Restoring the velocities before each solve is
// included (one Vec3 pair per body, < 1 % of the smallest solve). A path whose single solve exceeds --budget
// seconds is reported once (one solve, no median) and not run at larger sizes of that family.
//
// Run: bench_solver [--reps 5] [--min-time 0.2] [--budget 10] [--max-rows 100000]
//                    [--families column,wall,block] [--paths default,dense,sparse,iter60,iter-tol]
//                    [--starts cold,warm]
#include "thread_clock.h"

#include <simpulse/solver/solver.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace simpulse;

struct Problem {
    std::vector<SolverBody> bodies;  // body 0: static floor
    std::vector<ContactConstraint> contacts;
    std::vector<Vec3> velocity[2];  // two velocity states (warm start alternates)
    std::vector<Vec3> angular[2];
};

constexpr double kDt = 1.0 / 60;
constexpr double kG = 9.81;

std::uint32_t add_box(Problem& p, const Vec3& centre) {
    SolverBody b;
    b.position = centre;
    b.inverse_mass = 1.0 / 1000;
    b.inverse_inertia_local = Mat3::Identity() * (6.0 / 1000);  // unit cube: I = m / 6
    b.inverse_inertia = b.inverse_inertia_local;
    p.bodies.push_back(b);
    return static_cast<std::uint32_t>(p.bodies.size() - 1);
}

// Four corner contacts of the unit face between a (below / behind) and b, centred at `centre`, normal `n`.
void add_interface(Problem& p, std::uint32_t a, std::uint32_t b, const Vec3& centre, const Vec3& n,
                   double depth) {
    Vec3 u = n.unitOrthogonal(), v = n.cross(u);
    if (std::abs(n.z()) > 0.5) u = Vec3::UnitX(), v = Vec3::UnitY();
    if (std::abs(n.x()) > 0.5) u = Vec3::UnitY(), v = Vec3::UnitZ();
    if (std::abs(n.y()) > 0.5) u = Vec3::UnitX(), v = Vec3::UnitZ();
    const auto patch = static_cast<std::uint32_t>(p.contacts.size() / 4);
    for (int corner = 0; corner < 4; ++corner) {
        ContactConstraint c;
        c.body_a = a;
        c.body_b = b;
        c.point = centre + (corner & 1 ? 0.5 : -0.5) * u + (corner & 2 ? 0.5 : -0.5) * v;
        c.normal = n;
        c.depth = depth;
        c.friction = 0.5;
        c.restitution = 0;
        c.key = p.contacts.size() + 1;
        c.patch = patch;
        p.contacts.push_back(c);
    }
}

// nx x ny x nz touching unit boxes on the floor z = 0 (column: 1 x 1 x n; wall: nx x 1 x nz).
Problem make_grid(int nx, int ny, int nz, double jitter) {
    Problem p;
    p.bodies.emplace_back();  // static floor
    std::vector<std::uint32_t> id(static_cast<std::size_t>(nx * ny * nz));
    auto at = [&](int i, int j, int k) -> std::uint32_t& {
        return id[static_cast<std::size_t>((k * ny + j) * nx + i)];
    };
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) at(i, j, k) = add_box(p, Vec3(i, j, 0.5 + k));
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                const std::uint32_t b = at(i, j, k);
                add_interface(p, k == 0 ? 0u : at(i, j, k - 1), b, Vec3(i, j, k), Vec3::UnitZ(), 0.001);
                if (i > 0) add_interface(p, at(i - 1, j, k), b, Vec3(i - 0.5, j, 0.5 + k), Vec3::UnitX(), 0);
                if (j > 0) add_interface(p, at(i, j - 1, k), b, Vec3(i, j - 0.5, 0.5 + k), Vec3::UnitY(), 0);
            }
    for (int s = 0; s < 2; ++s) {
        std::mt19937_64 rng(1234 + static_cast<std::uint64_t>(s));
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        p.velocity[s].resize(p.bodies.size(), Vec3::Zero());
        p.angular[s].resize(p.bodies.size(), Vec3::Zero());
        for (std::size_t b = 1; b < p.bodies.size(); ++b) {
            p.velocity[s][b] = Vec3(jitter * u(rng), jitter * u(rng), -kG * kDt + jitter * u(rng));
            p.angular[s][b] = jitter * Vec3(u(rng), u(rng), u(rng));
        }
    }
    return p;
}

// Grid dimensions of a family for about `rows` rows (7 per interface).
Problem make_family(const std::string& family, double rows, double jitter) {
    if (family == "column")
        return make_grid(1, 1, std::max(1, static_cast<int>(std::lround(rows / 7))), jitter);
    if (family == "wall") {
        const int n = std::max(1, static_cast<int>(std::lround(std::sqrt(rows / 14))));
        return make_grid(n, 1, n, jitter);
    }
    const int n = std::max(1, static_cast<int>(std::lround(std::cbrt(rows / 21))));
    return make_grid(n, n, n, jitter);
}

SolverSettings path_settings(const std::string& path) {
    SolverSettings s;
    s.mode = SolverMode::exact;
    if (path == "dense") {
        s.direct_max_rows = s.direct_first_max_rows = INT_MAX;
        s.dense_max_rows = INT_MAX;
    } else if (path == "sparse") {
        s.direct_max_rows = s.direct_first_max_rows = INT_MAX;
        s.dense_max_rows = 0;
    } else if (path == "default") {
        // the library's defaults: direct up to direct_first_max_rows, iterative first (direct if it does not
        // converge) up to direct_max_rows, iterative beyond
    } else if (path == "iter60") {
        s.direct_max_rows = 0;
    } else {  // iter-tol
        s.direct_max_rows = 0;
        s.max_iterations = 10000;
    }
    return s;
}

struct Measure {
    double seconds = 0;  // CPU time per solve, median over repetitions
    double residual = 0;
    int iterations = 0;
    int pivots = 0;
    int rows = 0;
    int reps = 0;
    bool single = false;  // over budget: one solve only
};

Measure measure(Problem& p, const std::string& path, bool warm, int reps, double min_time, double budget) {
    SolverSettings s = path_settings(path);
    s.warm_start = warm;
    Solver solver;
    int state = 0;
    auto solve_once = [&] {
        for (std::size_t b = 0; b < p.bodies.size(); ++b) {
            p.bodies[b].velocity = p.velocity[state][b];
            p.bodies[b].angular_velocity = p.angular[state][b];
        }
        solver.solve_velocities(p.bodies, p.contacts, {}, kDt, s);
        if (warm) state ^= 1;
    };
    Measure m;
    // First solve: primes the warm-start cache (warm) and tells whether the path is within budget.
    const double t0 = bench::thread_cpu_seconds();
    solve_once();
    const double first = bench::thread_cpu_seconds() - t0;
    m.rows = solver.stats().rows;
    if (first > budget) {
        m.seconds = first;
        m.residual = solver.stats().residual;
        m.iterations = solver.stats().iterations;
        m.pivots = solver.stats().pivots;
        m.single = true;
        m.reps = 1;
        return m;
    }
    std::vector<double> times, residuals, iterations, pivots;
    for (int r = 0; r < reps; ++r) {
        int count = 0;
        double worst_residual = 0, sum_iterations = 0, sum_pivots = 0;
        const double start = bench::thread_cpu_seconds();
        double elapsed = 0;
        do {
            solve_once();
            ++count;
            worst_residual = std::max(worst_residual, solver.stats().residual);
            sum_iterations += solver.stats().iterations;
            sum_pivots += solver.stats().pivots;
            elapsed = bench::thread_cpu_seconds() - start;
        } while (elapsed < min_time);
        times.push_back(elapsed / count);
        residuals.push_back(worst_residual);
        iterations.push_back(sum_iterations / count);
        pivots.push_back(sum_pivots / count);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    m.seconds = median(times);
    m.residual = median(residuals);
    m.iterations = static_cast<int>(std::lround(median(iterations)));
    m.pivots = static_cast<int>(std::lround(median(pivots)));
    m.reps = reps;
    return m;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t end = s.find(',', start);
        out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

std::string format_time(double seconds) {
    char buf[32];
    if (seconds < 1e-3)
        std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
    else if (seconds < 1)
        std::snprintf(buf, sizeof buf, "%.2f ms", seconds * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.2f s", seconds);
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    int reps = 5;
    double min_time = 0.2, budget = 10, max_rows = 100000, jitter = 0.05;
    std::vector<std::string> families{"column", "wall", "block"};
    std::vector<std::string> paths{"default", "dense", "sparse", "iter60", "iter-tol"};
    std::vector<std::string> starts{"cold", "warm"};
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--reps")
            reps = std::atoi(value.c_str());
        else if (key == "--min-time")
            min_time = std::atof(value.c_str());
        else if (key == "--budget")
            budget = std::atof(value.c_str());
        else if (key == "--max-rows")
            max_rows = std::atof(value.c_str());
        else if (key == "--jitter")
            jitter = std::atof(value.c_str());
        else if (key == "--families")
            families = split(value);
        else if (key == "--paths")
            paths = split(value);
        else if (key == "--starts")
            starts = split(value);
        else {
            std::fprintf(stderr, "unknown option %s\n", key.c_str());
            return 2;
        }
    }
    const std::vector<double> sizes{10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000};
    std::printf(
        "# CPU time per island solve (median of %d repetitions of >= %.2f s), residual m/s (median of "
        "the worst per repetition), iterations = active-set iterations or sweeps, pivots = active-set "
        "changes\n",
        reps, min_time);
    std::printf("%-7s %-5s %7s %7s %-8s %12s %10s %7s %7s\n", "family", "start", "bodies", "rows", "path",
                "time/solve", "residual", "iters", "pivots");
    for (const std::string& family : families)
        for (const std::string& start : starts) {
            std::vector<std::string> live = paths;
            std::map<std::string, std::pair<double, double>> last_time;  // path -> (seconds, rows)
            std::size_t previous_rows = 0;
            for (double target : sizes) {
                if (target > max_rows * 1.0001) break;
                Problem p = make_family(family, target, jitter);
                const std::size_t rows = p.contacts.size() / 4 * 7;
                if (rows == previous_rows) continue;  // the family is too coarse for this size
                previous_rows = rows;
                std::vector<std::string> over_budget;
                for (const std::string& path : live) {
                    // A path is dropped before a single solve could exceed the budget, predicted from its
                    // time at the previous size and a pessimistic cost growth: the active-set iteration count
                    // grows about linearly with the rows, times rows^3 per dense or ~rows^2 per sparse
                    // factorisation; the iterative path's sweeps grow with the rows too.
                    const auto last = last_time.find(path);
                    if (last != last_time.end()) {
                        const double growth = static_cast<double>(rows) / last->second.second;
                        const double predicted =
                            last->second.first * std::pow(growth, path == "dense"    ? 4.0
                                                                  : path == "sparse" ? 3.0
                                                                                     : 2.0);
                        if (predicted > budget) {
                            std::printf(
                                "%-7s %-5s %7zu %7zu %-8s  skipped: predicted %s per solve > budget\n",
                                family.c_str(), start.c_str(), p.bodies.size() - 1, rows, path.c_str(),
                                format_time(predicted).c_str());
                            over_budget.push_back(path);
                            continue;
                        }
                    }
                    const Measure m = measure(p, path, start == "warm", reps, min_time, budget);
                    last_time[path] = {m.seconds, static_cast<double>(rows)};
                    std::printf("%-7s %-5s %7zu %7d %-8s %12s %10.2e %7d %7d%s\n", family.c_str(),
                                start.c_str(), p.bodies.size() - 1, m.rows, path.c_str(),
                                format_time(m.seconds).c_str(), m.residual, m.iterations, m.pivots,
                                m.single ? "  (one solve: over budget)" : "");
                    std::fflush(stdout);
                    if (m.single) over_budget.push_back(path);
                }
                for (const std::string& path : over_budget)
                    live.erase(std::find(live.begin(), live.end(), path));
            }
        }
    return 0;
}
