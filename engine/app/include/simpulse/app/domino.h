// The domino-chain experiment of the thesis (Ermolin 2011, chapter 6; docs/domino.md): timing extraction from
// a run, the reference values (physical measurement and the thesis' simulation), and the parameter sweep
// behind `simpulse domino`.
#pragma once

#include <simpulse/app/run.h>
#include <simpulse/app/scene.h>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace simpulse {

struct DominoTiming {
    std::optional<double> striker_hit;  // first contact_begin between "striker" and "domino_1", s
    std::optional<double> last_hit;     // first contact_begin between the last two dominoes, s
    std::optional<double> chain_time;   // last_hit - striker_hit, s
    int dominoes = 0;
    // At the end of the run: dominoes tilted more than 45 degrees from vertical (SCENES.md S1 definition),
    // and beyond their tipping angle atan(thickness / height). At D = 1 cm a fallen row rests leaning at
    // acos(thickness / D) = 45.6 degrees, so the 45-degree count is ill-posed there.
    int fallen = 0;
    int toppled = 0;
    // Dominoes knocked over: tilted more than 45 degrees at some step of the run, or beyond their tipping
    // angle at the end (either way: on a frictionless table a domino can be pushed off its feet and fall
    // backwards). It counts a domino knocked flat that bounced off the table back onto its end (possible at
    // e = 1), not one that leaned on a neighbour past its tipping angle and was pushed back upright. "All
    // fell" means all knocked over. Without per-step tilts (see domino_timing) it counts the final tilts.
    int knocked_over = 0;
    double pitch = 0;  // D, distance between the backs of neighbouring dominoes, m
    std::uint64_t steps = 0;
    double wall_seconds = 0;
    bool ok = true;
    std::string error;
};

// Reads the timings of a finished run of a domino scene: bodies "striker" and "domino_1".."domino_N".
// max_tilts, if given, holds each domino's largest tilt from vertical over the run (radians, in domino order;
// DominoTiltWatch records it): knocked_over counts from it, else from the final tilts.
DominoTiming domino_timing(const SceneDesc& scene, const SceneWorld& world, const RunReport& report,
                           std::span<const double> max_tilts = {});

// Records each domino's largest tilt from vertical while a domino scene runs: call observe after every step
// (RunOptions::after_step).
class DominoTiltWatch {
  public:
    explicit DominoTiltWatch(const SceneDesc& scene);
    void observe(const SceneWorld& world);
    std::span<const double> max_tilts() const { return max_tilts_; }

  private:
    std::vector<std::size_t> dominoes_;  // scene indices of domino_1 .. domino_N
    std::vector<double> max_tilts_;
};

// The scene has the bodies domino_timing reads: "striker", "domino_1", "domino_2", ... Checked before a run,
// so that a scene that is no domino chain fails at once instead of after its whole run.
Status check_domino_scene(const SceneDesc& scene);

// Loads, builds and runs a domino scene (with "--set" overrides) and reads its timings. An unreadable or
// invalid scene, or one that is no domino scene, is an error naming the file.
Result<DominoTiming> run_domino(const std::string& scene_path, std::span<const std::string> overrides = {});

// Thesis, table 1 and 2: chain times measured and simulated (no friction, dt 0.0003 s) for D = 1, 2, 3 cm.
struct DominoReference {
    double pitch;      // m
    double measured;   // s
    double thesis[4];  // s, for e = 0.7, 0.8, 0.9, 1.0
};
inline constexpr DominoReference kDominoReference[3] = {
    {0.01, 0.26, {0.18, 0.18, 0.19, 0.14}},
    {0.02, 0.50, {0.43, 0.43, 0.43, 0.43}},
    {0.03, 1.15, {0.94, 0.94, 0.95, 0.93}},
};
// The thesis filmed the experiment and read each contact time to 30 ms (chapter 6, before table 1): the
// striker's hit is one reading, a chain time the difference of two.
inline constexpr double kContactTimeResolution = 0.03;                       // s
inline constexpr double kChainTimeUncertainty = 2 * kContactTimeResolution;  // s
inline constexpr double kStrikerHitMeasured = 0.30;                          // s, +- kContactTimeResolution
inline constexpr double kStrikerHitThesis = 0.28;                            // s
const DominoReference* domino_reference(double pitch);  // nullptr unless D is 1, 2 or 3 cm

struct DominoCase {
    double pitch = 0.02;  // m
    double restitution = 0.8;
    double dt = 0.0003;
    std::string variant;  // "thesis" (no friction) or "friction"
    std::string mode;     // solver mode: "thesis" or "exact"
};

struct DominoSweepRow {
    DominoCase config;
    DominoTiming timing;
};

// The sweep of issue 6: D in {1, 2, 3} cm x e in {0.7, 0.8, 0.9, 1.0} x dt in {0.0003, 1/240} x variant in
// {thesis, friction} x solver mode in {thesis, exact}.
std::vector<DominoCase> domino_sweep_cases();

// The "--set" overrides a sweep case runs its scene with: the restitution of pairs 0-2, dt and the solver
// mode.
std::vector<std::string> domino_sweep_overrides(const DominoCase& c);

// The scene file of a sweep case: scenes_dir/d<D>_<variant>.json (D in whole centimetres).
std::string domino_sweep_scene(const std::string& scenes_dir, const DominoCase& c);

// Loads every scene file the cases need, with the overrides of the first case that uses it, and checks that
// each is a domino scene: the first problem as an error naming the file, before any run.
Status check_domino_sweep(const std::string& scenes_dir, const std::vector<DominoCase>& cases);

// Runs each case from domino_sweep_scene(scenes_dir, case) with e, dt and mode set by overrides.
std::vector<DominoSweepRow> run_domino_sweep(
    const std::string& scenes_dir, const std::vector<DominoCase>& cases,
    const std::function<void(const DominoSweepRow&)>& after_each = {});

// Markdown table of a sweep, beside the measurement and the thesis' values.
std::string domino_sweep_markdown(const std::vector<DominoSweepRow>& rows);

// SVG plot of chain time against D: measurement, thesis simulation and simpulse (e = 0.8, dt = 0.0003), both
// variants with their matching solver modes.
std::string domino_chain_time_svg(const std::vector<DominoSweepRow>& rows);

}  // namespace simpulse
