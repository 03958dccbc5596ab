// Checks of WorldSettings (see settings_check.h). A setting the solver or the step uses as a bound, tolerance
// or fraction must be finite: an infinite tolerance or correction limit is accepted by a comparison such as
// `tol > 0` but turns the solver's stopping tests and clamps into no-ops, and a SolverMode cast from an
// integer the enum does not name would silently run as one of the two modes.
#include <simpulse/dynamics/settings_check.h>

#include <simpulse/collision/number_text.h>

#include <cmath>
#include <string_view>

namespace simpulse {
namespace {

constexpr int kMaxDenseRows = 2048;
constexpr int kMaxIterations = 10000;
constexpr int kMaxRechecks = 100;

std::string vector_text(const Vec3& v) {
    // Appended piece by piece: `"(" + std::string` trips GCC 12's -Wrestrict false positive.
    std::string text = "(";
    for (int k = 0; k < 3; ++k) {
        if (k > 0) text += ", ";
        text += number_text(v[k]);
    }
    return text + ")";
}

class Checks {
  public:
    void positive(std::string_view setting, double x) {
        require(x > 0 && std::isfinite(x), setting, "a positive finite number", number_text(x));
    }
    void non_negative(std::string_view setting, double x) {
        require(x >= 0 && std::isfinite(x), setting, "a finite number >= 0", number_text(x));
    }
    void fraction(std::string_view setting, double x) {
        require(x >= 0 && x <= 1, setting, "a number in [0, 1]", number_text(x));
    }
    void at_least(std::string_view setting, int n, int min) {
        require(n >= min, setting, "an integer >= " + std::to_string(min), std::to_string(n));
    }
    void in_range(std::string_view setting, int n, int min, int max) {
        require(n >= min && n <= max, setting,
                "an integer from " + std::to_string(min) + " to " + std::to_string(max), std::to_string(n));
    }
    void finite(std::string_view setting, const Vec3& v) {
        require(v.allFinite(), setting, "a finite vector", vector_text(v));
    }
    void mode(std::string_view setting, SolverMode mode) {
        require(mode == SolverMode::thesis || mode == SolverMode::exact, setting,
                "SolverMode::thesis or SolverMode::exact", std::to_string(static_cast<int>(mode)));
    }

    std::optional<SettingProblem> first_problem() && { return std::move(first_); }

  private:
    void require(bool ok, std::string_view setting, std::string_view expectation, const std::string& got) {
        if (ok || first_) return;
        first_ =
            SettingProblem{std::string(setting), "expected " + std::string(expectation) + ", got " + got};
    }

    std::optional<SettingProblem> first_;
};

}  // namespace

std::optional<SettingProblem> find_setting_problem(const WorldSettings& s) {
    Checks c;
    c.finite("gravity", s.gravity);
    const SolverSettings& v = s.solver;
    c.mode("solver.mode", v.mode);
    c.non_negative("solver.restitution_threshold", v.restitution_threshold);
    c.at_least("solver.direct_max_rows", v.direct_max_rows, 0);
    c.at_least("solver.direct_first_max_rows", v.direct_first_max_rows, 0);
    // The upper bounds keep a mistyped count from stalling a run: the iteration caps are 167-333 times the
    // defaults (recheck_iterations 12.5 times), past where more iterations help (the tolerances stop the
    // loops sooner); a dense matrix of kMaxDenseRows rows takes 34 MB and 0.5 s to factor (Eigen's LDLT,
    // measured here), and an active-set solve factors it up to max_active_set_iterations times. INT_MAX
    // sweeps on an island that does not converge would run for days. direct_max_rows is not capped: above
    // dense_max_rows it selects the sparse factorisation, slow on large islands but not unbounded in memory.
    c.in_range("solver.dense_max_rows", v.dense_max_rows, 0, kMaxDenseRows);
    c.in_range("solver.max_active_set_iterations", v.max_active_set_iterations, 1, kMaxIterations);
    c.positive("solver.iterative_tolerance", v.iterative_tolerance);
    c.positive("solver.tolerance", v.tolerance);
    c.non_negative("solver.iterative_accept", v.iterative_accept);
    c.in_range("solver.newton_max_factorizations", v.newton_max_factorizations, 1, kMaxIterations);
    c.at_least("solver.newton_max_bodies", v.newton_max_bodies, 0);
    c.in_range("solver.max_iterations", v.max_iterations, 1, kMaxIterations);
    c.non_negative("solver.penetration_slop", v.penetration_slop);
    c.fraction("solver.penetration_correction", v.penetration_correction);
    c.non_negative("solver.max_correction", v.max_correction);
    c.positive("solver.joint_tolerance", v.joint_tolerance);
    c.in_range("solver.max_projection_iterations", v.max_projection_iterations, 1, kMaxIterations);
    c.in_range("solver.recheck_iterations", v.recheck_iterations, 0, kMaxRechecks);
    // More threads than islands or cores only wait; 256 catches a mistyped count before it spawns threads.
    c.in_range("solver.threads", v.threads, 1, 256);
    c.non_negative("contact_margin", s.contact_margin);
    c.non_negative("manifold_reuse_distance", s.manifold_reuse_distance);
    c.non_negative("aabb_margin", s.aabb_margin);
    c.positive("max_joint_rotation", s.max_joint_rotation);
    c.non_negative("max_impact_gap", s.max_impact_gap);
    c.in_range("max_substeps", s.max_substeps, 1, 1024);
    c.positive("sleep_speed", s.sleep_speed);
    c.positive("sleep_time", s.sleep_time);
    return std::move(c).first_problem();
}

}  // namespace simpulse
