// The domino-chain experiment (thesis chapter 6, docs/domino.md): hit times from contact events, the sweep
// over D, restitution, time step, friction variant and solver mode, and its table and plot.
#include <simpulse/app/domino.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <sstream>

namespace simpulse {
namespace {

std::optional<std::size_t> body_index(const SceneDesc& scene, const std::string& name) {
    for (std::size_t i = 0; i < scene.bodies.size(); ++i)
        if (scene.bodies[i].name == name) return i;
    return std::nullopt;
}

std::optional<double> first_begin(const RunReport& report, std::size_t a, std::size_t b) {
    for (const SceneEvent& e : report.events)
        if (e.type == ContactEvent::Type::begin && ((e.a == a && e.b == b) || (e.a == b && e.b == a)))
            return e.time;
    return std::nullopt;
}

// domino_1 .. domino_N, in that order, as scene indices.
std::vector<std::size_t> domino_bodies(const SceneDesc& scene) {
    std::vector<std::size_t> dominoes;
    for (int k = 1;; ++k) {
        const auto i = body_index(scene, "domino_" + std::to_string(k));
        if (!i) return dominoes;
        dominoes.push_back(*i);
    }
}

// Angle between the body's z axis (a domino's long side) and the vertical; 0 if the body is gone.
double tilt_from_vertical(const SceneWorld& world, std::size_t body) {
    const auto state = world.world.state(world.bodies[body]);
    if (!state) return 0;
    const Vec3 up = state.value().pose.orientation * Vec3::UnitZ();
    return std::acos(std::clamp(up.z(), -1.0, 1.0));
}

// Tipping angle of a box standing on its smallest face: atan(half thickness / half height); 45 degrees for
// any other shape.
double tipping_angle(const SceneBody& body) {
    const ShapePtr& shape = body.desc.shape;
    if (!shape || shape->type() != ShapeType::box) return std::numbers::pi / 4;
    const Vec3 h = std::get<Box>(shape->geometry).half_extents;
    return std::atan(std::min(h.x(), h.y()) / h.z());
}

std::string format_time(const std::optional<double>& t) {
    if (!t) return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", *t);
    return text;
}

}  // namespace

DominoTiming domino_timing(const SceneDesc& scene, const SceneWorld& world, const RunReport& report,
                           std::span<const double> max_tilts) {
    DominoTiming t;
    t.steps = report.steps;
    t.wall_seconds = report.wall_seconds;
    t.ok = report.ok;
    t.error = report.error;
    const std::vector<std::size_t> dominoes = domino_bodies(scene);
    t.dominoes = static_cast<int>(dominoes.size());
    const auto striker = body_index(scene, "striker");
    if (const Status domino_scene = check_domino_scene(scene); !domino_scene) {
        t.ok = false;
        t.error = domino_scene.error().message;
        return t;
    }
    t.pitch =
        (scene.bodies[dominoes[1]].desc.pose.position - scene.bodies[dominoes[0]].desc.pose.position).norm();
    t.striker_hit = first_begin(report, *striker, dominoes[0]);
    t.last_hit = first_begin(report, dominoes[dominoes.size() - 2], dominoes.back());
    if (t.striker_hit && t.last_hit) t.chain_time = *t.last_hit - *t.striker_hit;
    for (std::size_t k = 0; k < dominoes.size(); ++k) {
        const double tilt = tilt_from_vertical(world, dominoes[k]);
        const double tipping = tipping_angle(scene.bodies[dominoes[k]]);
        if (tilt > std::numbers::pi / 4) ++t.fallen;
        if (tilt > tipping) ++t.toppled;
        const double max_tilt = k < max_tilts.size() ? std::max(max_tilts[k], tilt) : tilt;
        if (tilt > tipping || max_tilt > std::numbers::pi / 4) ++t.knocked_over;
    }
    return t;
}

DominoTiltWatch::DominoTiltWatch(const SceneDesc& scene)
    : dominoes_(domino_bodies(scene)), max_tilts_(dominoes_.size(), 0.0) {}

void DominoTiltWatch::observe(const SceneWorld& world) {
    for (std::size_t k = 0; k < dominoes_.size(); ++k)
        max_tilts_[k] = std::max(max_tilts_[k], tilt_from_vertical(world, dominoes_[k]));
}

Status check_domino_scene(const SceneDesc& scene) {
    if (!body_index(scene, "striker") || !body_index(scene, "domino_1") || !body_index(scene, "domino_2"))
        return Error{"not a domino scene: needs bodies \"striker\" and \"domino_1\", \"domino_2\", ..."};
    return {};
}

Result<DominoTiming> run_domino(const std::string& scene_path, std::span<const std::string> overrides) {
    auto scene = load_scene(scene_path, overrides);
    if (!scene) return scene.error();
    if (const Status domino_scene = check_domino_scene(scene.value()); !domino_scene)
        return Error{scene_path + ": " + domino_scene.error().message};
    auto world = build_world(scene.value());
    if (!world) return world.error();
    DominoTiltWatch watch(scene.value());
    RunOptions options;
    options.after_step = [&watch](const SceneWorld& w, std::uint64_t, std::uint64_t) { watch.observe(w); };
    const RunReport report = run_scene(scene.value(), world.value(), options);
    return domino_timing(scene.value(), world.value(), report, watch.max_tilts());
}

const DominoReference* domino_reference(double pitch) {
    for (const DominoReference& r : kDominoReference)
        if (std::abs(r.pitch - pitch) < 1e-6) return &r;
    return nullptr;
}

std::vector<DominoCase> domino_sweep_cases() {
    std::vector<DominoCase> cases;
    for (const char* variant : {"thesis", "friction"})
        for (const char* mode : {"thesis", "exact"})
            for (double dt : {0.0003, 1.0 / 240})
                for (double pitch : {0.01, 0.02, 0.03})
                    for (double e : {0.7, 0.8, 0.9, 1.0}) cases.push_back({pitch, e, dt, variant, mode});
    return cases;
}

std::vector<std::string> domino_sweep_overrides(const DominoCase& c) {
    std::vector<std::string> overrides;
    char value[64];
    std::snprintf(value, sizeof value, "%.17g", c.restitution);
    for (int k = 0; k < 3; ++k) overrides.push_back("/pairs/" + std::to_string(k) + "/restitution=" + value);
    std::snprintf(value, sizeof value, "%.17g", c.dt);
    overrides.push_back(std::string("/dt=") + value);
    overrides.push_back("/solver/mode=\"" + c.mode + "\"");
    return overrides;
}

std::string domino_sweep_scene(const std::string& scenes_dir, const DominoCase& c) {
    const int cm = static_cast<int>(std::lround(c.pitch * 100));
    return scenes_dir + "/d" + std::to_string(cm) + "_" + c.variant + ".json";
}

Status check_domino_sweep(const std::string& scenes_dir, const std::vector<DominoCase>& cases) {
    std::vector<std::string> checked;
    for (const DominoCase& c : cases) {
        const std::string path = domino_sweep_scene(scenes_dir, c);
        if (std::find(checked.begin(), checked.end(), path) != checked.end()) continue;
        checked.push_back(path);
        const auto scene = load_scene(path, domino_sweep_overrides(c));  // the scene as the sweep will run it
        if (!scene) return scene.error();
        if (const Status domino_scene = check_domino_scene(scene.value()); !domino_scene)
            return Error{path + ": " + domino_scene.error().message};
    }
    return {};
}

std::vector<DominoSweepRow> run_domino_sweep(const std::string& scenes_dir,
                                             const std::vector<DominoCase>& cases,
                                             const std::function<void(const DominoSweepRow&)>& after_each) {
    std::vector<DominoSweepRow> rows;
    for (const DominoCase& c : cases) {
        const std::string path = domino_sweep_scene(scenes_dir, c);
        DominoSweepRow row{c, {}};
        auto timing = run_domino(path, domino_sweep_overrides(c));
        if (timing) {
            row.timing = timing.value();
        } else {
            row.timing.ok = false;
            row.timing.error = timing.error().message;
        }
        rows.push_back(row);
        if (after_each) after_each(rows.back());
    }
    return rows;
}

std::string domino_sweep_markdown(const std::vector<DominoSweepRow>& rows) {
    std::ostringstream out;
    out << "| variant | solver | dt (s) | D (cm) | e | striker hit (s) | chain time (s) | measured (s) | "
           "thesis (s) | "
           "difference to measured | knocked over | toppled / fallen at the end (of 27) | steps | wall (s) "
           "|\n"
        << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const DominoSweepRow& r : rows) {
        const DominoReference* ref = domino_reference(r.config.pitch);
        const int e_index = static_cast<int>(std::lround((r.config.restitution - 0.7) * 10));
        char dt[32];
        std::snprintf(dt, sizeof dt, r.config.dt < 0.001 ? "%.4f" : "1/%.0f",
                      r.config.dt < 0.001 ? r.config.dt : 1 / r.config.dt);
        out << "| " << r.config.variant << " | " << r.config.mode << " | " << dt << " | "
            << r.config.pitch * 100 << " | " << r.config.restitution << " | "
            << format_time(r.timing.striker_hit) << " | " << format_time(r.timing.chain_time) << " | "
            << (ref ? format_time(ref->measured) : "-") << " | "
            << (ref && e_index >= 0 && e_index < 4 ? format_time(ref->thesis[e_index]) : "-") << " | ";
        if (ref && r.timing.chain_time) {
            char diff[32];
            std::snprintf(diff, sizeof diff, "%+.0f %%", 100 * (*r.timing.chain_time / ref->measured - 1));
            out << diff;
        } else {
            out << "-";
        }
        char wall[32];
        std::snprintf(wall, sizeof wall, "%.2f", r.timing.wall_seconds);
        out << " | " << r.timing.knocked_over << " | " << r.timing.toppled << " / " << r.timing.fallen
            << " | " << r.timing.steps << " | " << wall << (r.timing.ok ? "" : " (" + r.timing.error + ")")
            << " |\n";
    }
    return out.str();
}

std::string domino_chain_time_svg(const std::vector<DominoSweepRow>& rows) {
    // Plot area: D from 0.5 to 3.5 cm on x, chain time from 0 to 1.4 s on y.
    const double left = 70, right = 560, top = 30, bottom = 330;
    auto x_of = [&](double cm) { return left + (cm - 0.5) / 3.0 * (right - left); };
    auto y_of = [&](double s) { return bottom - s / 1.4 * (bottom - top); };
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"390\" "
           "font-family=\"sans-serif\" "
           "font-size=\"12\">\n<rect width=\"760\" height=\"390\" fill=\"white\"/>\n";
    svg << "<line x1=\"" << left << "\" y1=\"" << bottom << "\" x2=\"" << right << "\" y2=\"" << bottom
        << "\" stroke=\"black\"/>\n<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left
        << "\" y2=\"" << bottom << "\" stroke=\"black\"/>\n";
    for (int cm = 1; cm <= 3; ++cm)
        svg << "<text x=\"" << x_of(cm) - 4 << "\" y=\"" << bottom + 18 << "\">" << cm << "</text>\n";
    for (int k = 0; k <= 7; ++k) {
        const double s = 0.2 * k;
        svg << "<text x=\"" << left - 34 << "\" y=\"" << y_of(s) + 4 << "\">" << s << "</text>\n<line x1=\""
            << left << "\" y1=\"" << y_of(s) << "\" x2=\"" << right << "\" y2=\"" << y_of(s)
            << "\" stroke=\"#dddddd\"/>\n";
    }
    svg << "<text x=\"" << (left + right) / 2 - 80 << "\" y=\"" << bottom + 40
        << "\">D, distance between domino backs (cm)</text>\n<text x=\"14\" y=\"" << top - 10
        << "\">chain time, first to last hit (s)</text>\n";
    struct Series {
        std::string label, colour;
        std::vector<std::pair<double, double>> points;
    };
    std::vector<Series> series;
    Series measured{
        "physical experiment (thesis table 1), +- 0.06 s (two contact times read to 30 ms)", "black", {}};
    Series thesis{"thesis simulation, no friction, e = 0.8", "#1f77b4", {}};
    for (const DominoReference& r : kDominoReference) {
        measured.points.push_back({r.pitch * 100, r.measured});
        thesis.points.push_back({r.pitch * 100, r.thesis[1]});
    }
    series.push_back(measured);
    series.push_back(thesis);
    Series ours_friction{"simpulse, friction variant, exact solver, e = 0.8, dt = 0.0003 s", "#d62728", {}};
    Series ours_thesis{"simpulse, thesis variant, thesis solver, e = 0.8, dt = 0.0003 s", "#2ca02c", {}};
    for (const DominoSweepRow& r : rows) {
        if (std::abs(r.config.restitution - 0.8) > 1e-9 || std::abs(r.config.dt - 0.0003) > 1e-12 ||
            !r.timing.chain_time)
            continue;
        if (r.config.variant == "friction" && r.config.mode == "exact")
            ours_friction.points.push_back({r.config.pitch * 100, *r.timing.chain_time});
        if (r.config.variant == "thesis" && r.config.mode == "thesis")
            ours_thesis.points.push_back({r.config.pitch * 100, *r.timing.chain_time});
    }
    series.push_back(ours_friction);
    series.push_back(ours_thesis);
    for (std::size_t k = 0; k < series.size(); ++k) {
        const Series& s = series[k];
        std::string path;
        for (const auto& [cm, t] : s.points) {
            path += (path.empty() ? "M" : " L") + std::to_string(x_of(cm)) + " " + std::to_string(y_of(t));
            svg << "<circle cx=\"" << x_of(cm) << "\" cy=\"" << y_of(t) << "\" r=\"4\" fill=\"" << s.colour
                << "\"/>\n";
            if (k == 0)
                svg << "<line x1=\"" << x_of(cm) << "\" y1=\"" << y_of(t - kChainTimeUncertainty)
                    << "\" x2=\"" << x_of(cm) << "\" y2=\"" << y_of(t + kChainTimeUncertainty)
                    << "\" stroke=\"black\"/>\n";
        }
        if (!path.empty())
            svg << "<path d=\"" << path << "\" fill=\"none\" stroke=\"" << s.colour << "\"/>\n";
        const double ly = top + 8 + 18 * static_cast<double>(k);
        svg << "<circle cx=\"" << left + 18 << "\" cy=\"" << ly << "\" r=\"4\" fill=\"" << s.colour
            << "\"/>\n<text x=\"" << left + 28 << "\" y=\"" << ly + 4 << "\">" << s.label << "</text>\n";
    }
    svg << "</svg>\n";
    return svg.str();
}

}  // namespace simpulse
