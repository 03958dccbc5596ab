// simpulse command line: `simpulse run SCENE.json [options]`, `simpulse validate SCENE.json`, `simpulse
// domino` and `simpulse sweep` (contract: SCENE_FORMAT.md; reference: docs/scene-format.md). Exit codes: 0
// success, 1 the run failed, 2 bad input. Errors are one line on stderr; logging goes through spdlog on
// stderr (--quiet: errors only, --verbose: scene details and per-step solver statistics); stdout carries only
// the summary of `validate` and the state hashes of `run --hash-every`. Result and trajectory files are
// written under PATH.partial and renamed to PATH when the run ends, so a killed run never leaves a truncated
// file under the name of a complete one.
#include <simpulse/app/domino.h>
#include <simpulse/app/partial_file.h>
#include <simpulse/app/replay.h>
#include <simpulse/app/run.h>
#include <simpulse/app/scene.h>
#include <simpulse/app/sweep.h>
#include <simpulse/version.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace {

constexpr int kExitRunFailed = 1;
constexpr int kExitBadInput = 2;

struct Options {
    std::string scene;
    std::string out;
    std::string trajectory;
    std::string gltf;  // --gltf: the run as an animated binary glTF
    std::string html;  // --html: the self-contained replay page
    // Parsed here rather than by CLI11, for messages in the scene errors' style. Given: the flag was on the
    // command line, perhaps with an empty value (which is an error, not the scene's value).
    std::string duration;
    std::string dt;
    bool duration_given = false;
    bool dt_given = false;
    std::vector<std::string> sets;
    int threads = 0;               // --threads, 0 when not given (the scene's /solver/threads)
    std::uint64_t hash_every = 0;  // --hash-every, 0 when not given
    bool quiet = false;
    bool verbose = false;
    // domino
    bool sweep = false;
    std::string scenes_dir;
    std::string markdown;
    std::string svg;
    // sweep (--out is its directory)
    std::vector<std::string> vary;
    std::string shard;
    std::string collect;
    bool scene_given = false;
    bool shard_given = false;
    bool collect_given = false;
};

void setup_logging(const Options& options) {
    auto logger = spdlog::stderr_color_st("simpulse");
    logger->set_pattern("%v");
    logger->set_level(options.quiet     ? spdlog::level::err
                      : options.verbose ? spdlog::level::debug
                                        : spdlog::level::info);
    spdlog::set_default_logger(std::move(logger));
}

// A positive finite number given on the command line, or the reason it is not one.
std::optional<double> positive_flag(const std::string& flag, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !(value > 0) ||
        !std::isfinite(value)) {
        spdlog::error("{}: expected a positive number, got \"{}\"", flag, text);
        return std::nullopt;
    }
    return value;
}

// True when two paths name the same file: the same existing file (hard or symbolic links included), or the
// same path once normalised (files that do not exist yet).
bool same_file(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::equivalent(a, b, ec)) return true;
    // Absolute first: weakly_canonical leaves a relative path none of whose parts exists relative.
    auto normal = [](const std::string& path) -> std::optional<fs::path> {
        std::error_code error;
        fs::path absolute = fs::absolute(path, error);
        if (error) return std::nullopt;
        fs::path canonical = fs::weakly_canonical(absolute, error);
        if (error) return std::nullopt;
        return canonical;
    };
    const std::optional<fs::path> normal_a = normal(a), normal_b = normal(b);
    return normal_a && normal_b && *normal_a == *normal_b;
}

// Output files must differ from each other and from the input: two streams into one file corrupt both, and
// an output over the scene would destroy it. `files` are (flag, path) pairs; empty paths are not given.
bool distinct_files(std::initializer_list<std::pair<std::string_view, const std::string*>> files) {
    for (auto i = files.begin(); i != files.end(); ++i)
        for (auto j = std::next(i); j != files.end(); ++j)
            if (!i->second->empty() && !j->second->empty() && same_file(*i->second, *j->second)) {
                spdlog::error("{} and {} name the same file ({}): give each its own", i->first, j->first,
                              *j->second);
                return false;
            }
    return true;
}

// "1 body", "2 bodies", "3 joints".
std::string count_of(std::size_t n, std::string_view singular, std::string_view plural) {
    return std::to_string(n) + " " + std::string(n == 1 ? singular : plural);
}

// Progress on stderr for runs that take more than about a second, only when stderr is a terminal.
class Progress {
  public:
    explicit Progress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO) != 0) {}
    ~Progress() { finish(); }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    void update(double simulated, double duration, std::uint64_t step, std::uint64_t total) {
        if (!enabled_) return;
        const auto now = Clock::now();
        if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(200)) return;
        last_ = now;
        std::fprintf(stderr, "\r  t = %.3f / %.3f s  (%3.0f%%)  step %llu / %llu", simulated, duration,
                     100.0 * static_cast<double>(step) / static_cast<double>(total),
                     static_cast<unsigned long long>(step), static_cast<unsigned long long>(total));
        std::fflush(stderr);
        shown_ = true;
    }
    void finish() {
        if (shown_) std::fprintf(stderr, "\r\033[K");
        shown_ = false;
    }

  private:
    using Clock = std::chrono::steady_clock;
    bool enabled_;
    bool shown_ = false;
    Clock::time_point start_ = Clock::now();
    Clock::time_point last_ = start_;
};

// Reads and validates the scene with the --set overrides and then `extra` ones; logs the error and returns
// nullopt.
std::optional<simpulse::SceneDesc> read_scene(const Options& options,
                                              std::span<const std::string> extra = {}) {
    std::vector<std::string> overrides = options.sets;
    overrides.insert(overrides.end(), extra.begin(), extra.end());
    simpulse::Result<simpulse::SceneDesc> scene = simpulse::load_scene(options.scene, overrides);
    if (!scene) {
        spdlog::error("{}", scene.error().message);
        return std::nullopt;
    }
    simpulse::SceneDesc desc = std::move(scene).value();
    if (options.threads > 0) desc.settings.solver.threads = options.threads;
    return desc;
}

void log_scene(const simpulse::SceneDesc& scene) {
    spdlog::debug("{}: scene \"{}\": {}, {}, {}, {}, {}", scene.file, scene.name,
                  count_of(scene.bodies.size(), "body", "bodies"),
                  count_of(scene.joints.size(), "joint", "joints"),
                  count_of(scene.springs.size(), "spring", "springs"),
                  count_of(scene.materials.size(), "material", "materials"),
                  count_of(scene.pairs.size(), "material pair", "material pairs"));
    const simpulse::WorldSettings& s = scene.settings;
    spdlog::debug("  gravity ({}, {}, {}), dt {} s, duration {} s ({} steps), solver {}, contact margin {} m",
                  s.gravity.x(), s.gravity.y(), s.gravity.z(), scene.dt, scene.duration,
                  simpulse::step_count(scene.duration, scene.dt), simpulse::to_string(s.solver.mode),
                  s.contact_margin);
    for (const simpulse::SceneBody& b : scene.bodies) {
        const simpulse::Vec3& p = b.desc.pose.position;
        spdlog::debug("  body \"{}\": {} {}, position ({}, {}, {})", b.name,
                      b.desc.is_static ? "static" : "dynamic",
                      simpulse::shape_type_name(b.desc.shape->type()), p.x(), p.y(), p.z());
    }
}

int validate(const Options& options) {
    const std::optional<simpulse::SceneDesc> scene = read_scene(options);
    if (!scene) return kExitBadInput;
    log_scene(*scene);
    if (const auto world = simpulse::build_world(*scene); !world) {
        spdlog::error("{}", world.error().message);
        return kExitBadInput;
    }
    // Cables are counted only when there are some: the summary of other scenes reads as before.
    const std::string cables =
        scene->cables.empty() ? "" : ", " + count_of(scene->cables.size(), "cable", "cables");
    if (!options.quiet)
        std::printf("%s: valid: scene \"%s\", %s, %s, %s%s, dt %g s, duration %g s (%llu steps)\n",
                    scene->file.c_str(), scene->name.c_str(),
                    count_of(scene->bodies.size(), "body", "bodies").c_str(),
                    count_of(scene->joints.size(), "joint", "joints").c_str(),
                    count_of(scene->springs.size(), "spring", "springs").c_str(), cables.c_str(), scene->dt,
                    scene->duration,
                    static_cast<unsigned long long>(simpulse::step_count(scene->duration, scene->dt)));
    return 0;
}

// `--hash-every N`: one line per hashed step on stdout, "step N t T hash H" (H: 16 hex digits).
void print_hash(const simpulse::SceneWorld& sw, std::uint64_t step) {
    std::printf("step %llu t %.17g hash %016llx\n", static_cast<unsigned long long>(step), sw.world.time(),
                static_cast<unsigned long long>(simpulse::state_hash(sw)));
}

// --gltf and --html: the recording ends with the final state (the result's) even when the last step was not a
// sample; a domino scene's hit times go into the extras.
bool write_replay(const simpulse::SceneDesc& scene, const simpulse::SceneWorld& sw,
                  const simpulse::RunReport& report, simpulse::Recording& recording, const Options& options,
                  simpulse::PartialFile& gltf, simpulse::PartialFile& html) {
    if (recording.times.empty() || recording.times.back() < sw.world.time())
        simpulse::record_sample(sw, recording);
    std::optional<simpulse::DominoTiming> domino;
    if (simpulse::check_domino_scene(scene)) domino = simpulse::domino_timing(scene, sw, report);
    // The page needs the file in memory; --gltf alone is streamed to its file.
    std::string glb;
    bool ok = true;
    try {
        if (!options.html.empty()) glb = simpulse::gltf_binary(scene, recording, report.events, domino);
        if (!options.gltf.empty()) {
            if (options.html.empty())
                simpulse::write_gltf_binary(gltf.stream(), scene, recording, report.events, domino);
            else
                gltf.stream().write(glb.data(), static_cast<std::streamsize>(glb.size()));
            if (!gltf.commit()) {
                spdlog::error("{}: cannot write the glTF file: {}", options.gltf, std::strerror(errno));
                ok = false;
            }
        }
    } catch (const std::invalid_argument& e) {
        spdlog::error("{}: {}", options.gltf.empty() ? options.html : options.gltf, e.what());
        return false;
    }
    if (!options.html.empty()) {
        html.stream() << simpulse::html_replay(scene.name, glb);
        if (!html.commit()) {
            spdlog::error("{}: cannot write the replay: {}", options.html, std::strerror(errno));
            ok = false;
        }
    }
    return ok;
}

int run(const Options& options) {
    if (!distinct_files({{"SCENE", &options.scene},
                         {"--out", &options.out},
                         {"--trajectory", &options.trajectory},
                         {"--gltf", &options.gltf},
                         {"--html", &options.html}}))
        return kExitBadInput;
    if (!options.html.empty() && !simpulse::replay_viewer_built()) {
        spdlog::error(
            "--html: this simpulse was built without the replay viewer (node and npm were not found when it "
            "was configured, or SIMPULSE_BUILD_VIEWER=OFF); --gltf still writes the animated glTF");
        return kExitBadInput;
    }
    // --dt and --duration are the last overrides, so that the scene's checks (at most kMaxSteps steps) see
    // the values the run will use. %.17g gives back the same double.
    std::vector<std::string> flags;
    for (const auto& [given, flag, text, pointer] :
         {std::tuple{options.dt_given, "--dt", &options.dt, "/dt"},
          std::tuple{options.duration_given, "--duration", &options.duration, "/duration"}}) {
        if (!given) continue;
        const std::optional<double> value = positive_flag(flag, *text);
        if (!value) return kExitBadInput;
        char text_value[40];
        std::snprintf(text_value, sizeof text_value, "%.17g", *value);
        flags.push_back(std::string(pointer) + "=" + text_value);
    }

    const std::optional<simpulse::SceneDesc> scene = read_scene(options, flags);
    if (!scene) return kExitBadInput;
    log_scene(*scene);

    // Outputs are opened before the run so that a bad path costs nothing; they are written to PATH.partial
    // and renamed when complete.
    simpulse::PartialFile out, trajectory, gltf, html;
    for (auto [path, file] : {std::pair{&options.out, &out}, std::pair{&options.trajectory, &trajectory},
                              std::pair{&options.gltf, &gltf}, std::pair{&options.html, &html}}) {
        if (path->empty()) continue;
        if (!file->open(*path)) {
            spdlog::error("{}: cannot open for writing: {}", *path, std::strerror(errno));
            return kExitBadInput;
        }
    }

    simpulse::Result<simpulse::SceneWorld> world = simpulse::build_world(*scene);
    if (!world) {
        spdlog::error("{}", world.error().message);
        return kExitBadInput;
    }

    Progress progress(!options.quiet && !options.verbose);
    simpulse::RunOptions run_options;
    if (!options.trajectory.empty()) run_options.trajectory = &trajectory.stream();
    const bool replay = !options.gltf.empty() || !options.html.empty();
    simpulse::Recording recording;
    if (replay)
        run_options.on_sample = [&](const simpulse::SceneWorld& sw) {
            simpulse::record_sample(sw, recording);
        };
    const bool log_steps = spdlog::should_log(spdlog::level::debug);
    run_options.after_step = [&](const simpulse::SceneWorld& sw, std::uint64_t step, std::uint64_t total) {
        if (log_steps) {
            const simpulse::SolverStats& s = sw.world.solver_stats();
            const simpulse::CollisionStats& c = sw.world.collision_stats();
            spdlog::debug(
                "step {} t={}: substeps {} islands {} rows {} (largest {}) iterations {} pivots {} "
                "residual {:.3g} missed {} newton {} factorizations {} pairs {} (reused {}) set aside {} "
                "woken {}",
                step, sw.world.time(), sw.world.last_substeps(), s.islands, s.rows, s.largest_island_rows,
                s.iterations, s.pivots, s.residual, s.missed_islands, s.newton_islands, s.factorizations,
                c.pairs, c.reused, c.set_aside, c.woken);
            if (s.inelastic_energy_guards > 0 || s.restitution_energy_guards > 0)
                spdlog::debug("step {}: energy safeguards: inelastic {} restitution {} (islands)", step,
                              s.inelastic_energy_guards, s.restitution_energy_guards);
        }
        if (options.hash_every > 0 && (step % options.hash_every == 0 || step == total)) print_hash(sw, step);
        progress.update(sw.world.time(), scene->duration, step, total);
    };
    if (options.hash_every > 0) print_hash(world.value(), 0);
    const simpulse::RunReport report = simpulse::run_scene(*scene, world.value(), run_options);
    progress.finish();

    int code = 0;
    if (!report.ok) {
        spdlog::error("{}: {}", scene->file, report.error);
        code = kExitRunFailed;
    }
    // A failed run's files are complete too: the trajectory up to the last finite step, the result naming
    // the failure.
    if (!options.trajectory.empty() && !trajectory.commit()) {
        spdlog::error("{}: cannot write the trajectory: {}", options.trajectory, std::strerror(errno));
        code = kExitRunFailed;
    }
    if (replay && !write_replay(*scene, world.value(), report, recording, options, gltf, html))
        code = kExitRunFailed;
    if (!options.out.empty()) {
        out.stream() << simpulse::result_json(*scene, world.value(), report);
        if (!out.commit()) {
            spdlog::error("{}: cannot write the result: {}", options.out, std::strerror(errno));
            code = kExitRunFailed;
        }
    }
    const std::string failed =
        report.ok ? "" : " (failed in step " + std::to_string(report.failed_step) + ")";
    spdlog::info("{}: {} steps, {} s simulated in {:.3g} s wall time{}", scene->file, report.steps,
                 report.time, report.wall_seconds, failed);
    return code;
}

// `simpulse domino`: the thesis' domino experiment. One run prints the hit times beside the measured ones;
// --sweep runs the whole parameter sweep of docs/domino.md and can write its table and plot.
int domino(const Options& options) {
    if (!options.sweep) {
        const auto timing = simpulse::run_domino(options.scene, options.sets);
        if (!timing) {
            spdlog::error("{}", timing.error().message);
            return kExitBadInput;
        }
        const simpulse::DominoTiming& t = timing.value();
        if (!t.ok) {
            spdlog::error("{}: {}", options.scene, t.error);
            return kExitRunFailed;
        }
        const simpulse::DominoReference* ref = simpulse::domino_reference(t.pitch);
        auto seconds = [](const std::optional<double>& v) {
            return v ? fmt::format("{:.3f} s", *v) : std::string("never");
        };
        std::printf("domino chain %s: D = %.3g cm, %d dominoes\n", options.scene.c_str(), t.pitch * 100,
                    t.dominoes);
        std::printf("  striker hits domino 1 at %s   (measured %.2f +- %.2f s, thesis simulation %.2f s)\n",
                    seconds(t.striker_hit).c_str(), simpulse::kStrikerHitMeasured,
                    simpulse::kContactTimeResolution, simpulse::kStrikerHitThesis);
        if (ref && t.chain_time)
            std::printf(
                "  chain time (first to last hit) %s   (measured %.2f +- %.2f s: %+.0f %%; thesis simulation "
                "%.2f s)\n",
                seconds(t.chain_time).c_str(), ref->measured, simpulse::kChainTimeUncertainty,
                100 * (*t.chain_time / ref->measured - 1), ref->thesis[1]);
        else
            std::printf("  chain time (first to last hit) %s\n", seconds(t.chain_time).c_str());
        std::printf(
            "  %d of %d dominoes knocked over; at the end %d lie toppled (%d tilted beyond 45 degrees); %llu "
            "steps in %.2f s wall time\n",
            t.knocked_over, t.dominoes, t.toppled, t.fallen, static_cast<unsigned long long>(t.steps),
            t.wall_seconds);
        return t.chain_time && t.knocked_over == t.dominoes ? 0 : kExitRunFailed;
    }
    if (!distinct_files(
            {{"SCENE", &options.scene}, {"--markdown", &options.markdown}, {"--svg", &options.svg}}))
        return kExitBadInput;
    if (!options.sets.empty()) {
        spdlog::error(
            "--set cannot be combined with --sweep: the sweep sets e, dt and the solver mode of every "
            "run itself (use --scenes for a directory of other d<D>_<variant>.json scenes)");
        return kExitBadInput;
    }
    std::string dir = options.scenes_dir;
    if (dir.empty()) {
        const auto slash = options.scene.find_last_of('/');
        dir = (slash == std::string::npos ? std::string(".") : options.scene.substr(0, slash)) + "/domino";
    }
    const auto cases = simpulse::domino_sweep_cases();
    // Everything the sweep needs is checked before its minute of runs: the scene files and the output files.
    if (const simpulse::Status scenes = simpulse::check_domino_sweep(dir, cases); !scenes) {
        spdlog::error("{}", scenes.error().message);
        return kExitBadInput;
    }
    if (!distinct_files(
            {{"SCENE", &options.scene}, {"--markdown", &options.markdown}, {"--svg", &options.svg}}))
        return kExitBadInput;
    std::vector<std::string> created;  // by the probe below; removed again if a later one fails
    for (const std::string* path : {&options.markdown, &options.svg}) {
        if (path->empty()) continue;
        std::error_code ignored;
        const bool existed = std::filesystem::exists(*path, ignored);
        std::ofstream probe(*path, std::ios::binary | std::ios::app);  // creates it, keeps what is there
        if (!probe) {
            spdlog::error("{}: cannot write", *path);
            for (const std::string& c : created) std::filesystem::remove(c, ignored);
            return kExitBadInput;
        }
        if (!existed) created.push_back(*path);
    }
    std::size_t done = 0;
    const auto rows = simpulse::run_domino_sweep(dir, cases, [&](const simpulse::DominoSweepRow& r) {
        ++done;
        spdlog::info("[{}/{}] {} variant, {} solver, dt {:.4g}, D {} cm, e {}: chain {} in {:.2f} s", done,
                     cases.size(), r.config.variant, r.config.mode, r.config.dt, r.config.pitch * 100,
                     r.config.restitution,
                     r.timing.chain_time ? fmt::format("{:.3f} s", *r.timing.chain_time)
                     : r.timing.ok       ? "-"
                                         : r.timing.error,
                     r.timing.wall_seconds);
    });
    const std::string table = simpulse::domino_sweep_markdown(rows);
    std::fputs(table.c_str(), stdout);
    for (auto [path, text] : {std::pair{&options.markdown, table},
                              std::pair{&options.svg, simpulse::domino_chain_time_svg(rows)}}) {
        if (path->empty()) continue;
        std::ofstream file(*path, std::ios::binary | std::ios::trunc);
        file << text;
        if (!file) {
            spdlog::error("{}: cannot write", *path);
            return kExitRunFailed;
        }
    }
    const bool all_ok = std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.timing.ok; });
    return all_ok ? 0 : kExitRunFailed;
}

// `simpulse sweep --collect DIR`: merges the point files into DIR/sweep.csv and DIR/sweep.json.
int sweep_collect(const Options& options) {
    if (options.scene_given || !options.vary.empty() || !options.sets.empty() || options.shard_given ||
        !options.out.empty()) {
        spdlog::error(
            "--collect DIR takes no SCENE, --vary, --set, --shard or --out: it merges the point files of "
            "DIR");
        return kExitBadInput;
    }
    const simpulse::Result<simpulse::SweepTable> table = simpulse::collect_sweep(options.collect);
    if (!table) {
        spdlog::error("{}", table.error().message);
        return kExitBadInput;
    }
    if (const simpulse::Status written = simpulse::write_sweep_table(options.collect, table.value());
        !written) {
        spdlog::error("{}", written.error().message);
        return kExitRunFailed;
    }
    spdlog::info("{}: {} points merged into sweep.csv and sweep.json", options.collect,
                 table.value().rows.size());
    return 0;
}

// `simpulse sweep SCENE --vary /pointer=V1,V2,... --shard i/N --out DIR`: runs the shard's points of the
// product of the varied values, skipping those whose file in DIR is complete (docs/scene-format.md,
// "Sweeps").
int sweep_command(const Options& options) {
    if (options.collect_given) return sweep_collect(options);
    if (!options.scene_given) {
        spdlog::error("SCENE: required (or --collect DIR to merge a sweep's point files)");
        return kExitBadInput;
    }
    if (options.out.empty()) {
        spdlog::error("--out: required: the directory of the point files");
        return kExitBadInput;
    }
    simpulse::Sweep plan{options.scene, options.sets, {}};
    for (const std::string& v : options.vary) {
        simpulse::Result<simpulse::SweepAxis> axis = simpulse::parse_vary(v);
        if (!axis) {
            spdlog::error("{}", axis.error().message);
            return kExitBadInput;
        }
        plan.axes.push_back(std::move(axis).value());
    }
    const simpulse::Result<simpulse::SweepShard> shard =
        simpulse::parse_shard(options.shard_given ? options.shard : "0/1");
    if (!shard) {
        spdlog::error("{}", shard.error().message);
        return kExitBadInput;
    }
    int code = 0;
    const auto outcomes = simpulse::run_sweep_shard(
        plan, shard.value(), options.out, [&](const simpulse::SweepPointOutcome& o) {
            const std::string overrides = plan.point_label(o.point);
            if (o.skipped)
                spdlog::info("[{}/{}] point {} ({}): skipped, already done", o.done, o.total, o.point,
                             overrides);
            else if (!o.error.empty())
                spdlog::error("[{}/{}] point {} ({}): {}", o.done, o.total, o.point, overrides, o.error);
            else
                spdlog::info("[{}/{}] point {} ({}): ran in {:.2f} s{}", o.done, o.total, o.point, overrides,
                             o.wall_seconds, o.ok ? "" : ", the run failed (see its file)");
            if (!o.ok) code = kExitRunFailed;
        });
    if (!outcomes) {
        spdlog::error("{}", outcomes.error().message);
        return kExitBadInput;
    }
    return code;
}

}  // namespace

static int run_command_line(int argc, char** argv);

// Out of memory anywhere (parsing the command line, logging, writing) is an error exit, never an abort.
int main(int argc, char** argv) {
    try {
        return run_command_line(argc, argv);
    } catch (const std::bad_alloc&) {
        std::fputs("simpulse: out of memory\n", stderr);
        return kExitRunFailed;
    }
}

static int run_command_line(int argc, char** argv) {
    CLI::App app{"simpulse: rigid-body physics with a simultaneous impulse solver"};
    app.set_version_flag("--version", simpulse::version());
    app.require_subcommand(1);
    Options options;

    CLI::App* run_cmd = app.add_subcommand("run", "Run a scene and write its result");
    run_cmd->add_option("SCENE", options.scene, "Scene file (JSON)")->required()->type_name("FILE");
    run_cmd->add_option("--out", options.out, "Write the result (JSON) to this file")->type_name("FILE");
    run_cmd->add_option("--trajectory", options.trajectory, "Write sampled states (JSON Lines) to this file")
        ->type_name("FILE");
    run_cmd
        ->add_option("--gltf", options.gltf,
                     "Write the run as an animated glTF 2.0 binary (.glb) to this file")
        ->type_name("FILE");
    run_cmd
        ->add_option(
            "--html", options.html,
            "Write a self-contained HTML replay (three.js viewer and plots, opens offline) to this file")
        ->type_name("FILE");
    CLI::Option* duration_flag =
        run_cmd->add_option("--duration", options.duration, "Simulated time, s (overrides the scene)")
            ->type_name("SECONDS");
    CLI::Option* dt_flag =
        run_cmd->add_option("--dt", options.dt, "Time step, s (overrides the scene)")->type_name("SECONDS");

    CLI::App* validate_cmd = app.add_subcommand("validate", "Check a scene; exit 0 if it is valid");
    validate_cmd->add_option("SCENE", options.scene, "Scene file (JSON)")->required()->type_name("FILE");

    CLI::App* domino_cmd = app.add_subcommand(
        "domino", "The thesis' domino experiment: hit times beside the measurement, or the whole sweep");
    options.scene = "scenes/domino_chain.json";
    domino_cmd->add_option("SCENE", options.scene, "Domino scene (default scenes/domino_chain.json)")
        ->type_name("FILE");
    CLI::Option* sweep = domino_cmd->add_flag(
        "--sweep", options.sweep,
        "Run the sweep over D, e, dt, friction variant and solver mode (docs/domino.md)");
    // The sweep's options mean nothing to a single run: asking for them without --sweep is an error, not a
    // no-op.
    domino_cmd
        ->add_option("--scenes", options.scenes_dir,
                     "Directory of the sweep's scenes d<D>_<variant>.json (default: SCENE's dir + /domino)")
        ->type_name("DIR")
        ->needs(sweep);
    domino_cmd->add_option("--markdown", options.markdown, "Write the sweep table (Markdown) to this file")
        ->type_name("FILE")
        ->needs(sweep);
    domino_cmd->add_option("--svg", options.svg, "Write the chain-time plot (SVG) to this file")
        ->type_name("FILE")
        ->needs(sweep);

    CLI::App* sweep_cmd = app.add_subcommand(
        "sweep", "Run a shard of a parameter sweep (one result file per point), or merge one with --collect");
    CLI::Option* sweep_scene =
        sweep_cmd->add_option("SCENE", options.scene, "Scene file (JSON)")->type_name("FILE");
    sweep_cmd
        ->add_option(
            "--vary", options.vary,
            "A varied value: /json/pointer=V1,V2,... (repeatable: the sweep is the Cartesian product)")
        ->allow_extra_args(false)
        ->type_name("/POINTER=V1,V2,...");
    CLI::Option* shard_flag =
        sweep_cmd
            ->add_option("--shard", options.shard, "Run only the points k with k mod N = i (default 0/1)")
            ->type_name("i/N");
    sweep_cmd->add_option("--out", options.out, "Directory of the point files (created if missing)")
        ->type_name("DIR");
    CLI::Option* collect_flag =
        sweep_cmd
            ->add_option("--collect", options.collect,
                         "Merge the point files of DIR into DIR/sweep.csv and sweep.json")
            ->type_name("DIR");

    run_cmd
        ->add_option(
            "--hash-every", options.hash_every,
            "Print a hash of the state (every body's pose and velocities, bit for bit) on stdout at step 0, "
            "every N steps and at the last step: equal lines mean bit-identical runs")
        ->check(CLI::Range(std::uint64_t{1}, simpulse::kMaxSteps))
        ->type_name("N");
    run_cmd
        ->add_option("--threads", options.threads,
                     "Threads that solve a step's islands in parallel (the result is the same for any count; "
                     "overrides the scene's /solver/threads)")
        ->check(CLI::Range(1, 256))
        ->type_name("N");

    for (CLI::App* cmd : {run_cmd, validate_cmd, domino_cmd, sweep_cmd}) {
        cmd->add_option(
               "--set", options.sets,
               "Override a scene value before loading: /json/pointer=VALUE (VALUE is JSON, else a string)")
            ->allow_extra_args(false)
            ->type_name("/POINTER=VALUE");
        CLI::Option* quiet = cmd->add_flag("--quiet", options.quiet, "Print errors only");
        cmd->add_flag("--verbose", options.verbose, "Log scene details and per-step solver statistics")
            ->excludes(quiet);  // contradictory: refused rather than one silently winning
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "simpulse: %s (see simpulse --help)\n", e.what());
        return kExitBadInput;
    }

    options.duration_given = duration_flag->count() > 0;
    options.dt_given = dt_flag->count() > 0;
    options.scene_given = sweep_scene->count() > 0;
    options.shard_given = shard_flag->count() > 0;
    options.collect_given = collect_flag->count() > 0;
    setup_logging(options);
    try {
        if (domino_cmd->parsed()) return domino(options);
        if (sweep_cmd->parsed()) return sweep_command(options);
        return run_cmd->parsed() ? run(options) : validate(options);
    } catch (const std::bad_alloc&) {
        throw;  // main reports it without allocating
    } catch (const std::exception& e) {
        spdlog::error("simpulse: internal error: {}", e.what());
        return kExitRunFailed;
    }
}
