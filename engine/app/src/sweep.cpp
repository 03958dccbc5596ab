// Parameter sweeps (simpulse/app/sweep.h): "--vary" and "--shard" arguments, the product of the varied values
// as overrides, its shards, and running a point into its file. The table is built by sweep_table.cpp.
#include <simpulse/app/domino.h>
#include <simpulse/app/partial_file.h>
#include <simpulse/app/run.h>
#include <simpulse/app/sweep.h>

#include "scene_output.h"
#include "sweep_point.h"
#include "text_file.h"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

namespace simpulse {
namespace {

using scene_detail::Json;

// The values of "--vary": split at the commas outside brackets, braces and strings.
std::vector<std::string> split_values(std::string_view text) {
    std::vector<std::string> values;
    std::string current;
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        } else if (c == ',' && depth == 0) {
            values.push_back(std::move(current));
            current.clear();
            continue;
        }
        current += c;
    }
    values.push_back(std::move(current));
    return values;
}

std::optional<std::size_t> parse_count(std::string_view text) {
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::string set_pointer(const std::string& set) {
    return set.substr(0, set.find('='));
}

Json domino_json(const DominoTiming& t) {
    const auto seconds = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
    Json d = Json::object();
    d["pitch"] = t.pitch;
    d["dominoes"] = t.dominoes;
    d["striker_hit"] = seconds(t.striker_hit);
    d["last_hit"] = seconds(t.last_hit);
    d["chain_time"] = seconds(t.chain_time);
    d["knocked_over"] = t.knocked_over;
    d["toppled"] = t.toppled;
    d["fallen"] = t.fallen;
    return d;
}

}  // namespace

Json sweep_detail::point_header(const Sweep& sweep, std::size_t k) {
    Json header = Json::object();
    header["point"] = k;
    header["points"] = sweep.size();
    Json vary = Json::object();
    const std::vector<std::string> overrides = sweep.point_overrides(k);
    for (std::size_t a = 0; a < sweep.axes.size(); ++a)
        vary[sweep.axes[a].pointer] =
            scene_detail::override_value(overrides[a].substr(overrides[a].find('=') + 1));
    header["vary"] = std::move(vary);
    header["set"] = sweep.sets;
    return header;
}

std::optional<Json> sweep_detail::read_point_file(const std::string& path) {
    const Result<std::string> text = scene_detail::read_text_file(path, "a sweep point");
    if (!text) return std::nullopt;
    Json document = Json::parse(*text, nullptr, false);
    if (document.is_discarded() || !document.is_object() || !document.contains("sweep") ||
        !document["sweep"].is_object() || !document.contains("bodies"))
        return std::nullopt;
    return document;
}

Result<SweepAxis> parse_vary(std::string_view argument) {
    const std::size_t equals = argument.find('=');
    if (equals == std::string_view::npos || equals + 1 == argument.size())
        return Error{"--vary: expected /json/pointer=V1,V2,..., got \"" + std::string(argument) + "\""};
    SweepAxis axis{std::string(argument.substr(0, equals)), split_values(argument.substr(equals + 1))};
    if (axis.pointer.empty() || axis.pointer.front() != '/')
        return Error{"--vary: expected a JSON pointer starting with / before =, got \"" + axis.pointer +
                     "\""};
    std::vector<Json> seen;
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
        const std::string& v = axis.values[i];
        if (v.empty())
            return Error{"--vary " + axis.pointer + ": value " + std::to_string(i + 1) + " of " +
                         std::to_string(axis.values.size()) + " is empty (expected V1,V2,...)"};
        Json value;
        try {
            value = scene_detail::override_value(v);
        } catch (const scene_detail::InputError& e) {
            return Error{"--vary " + axis.pointer + ": value \"" + v + "\": " + e.where + ": " + e.message};
        }
        for (const Json& s : seen)
            if (s == value) return Error{"--vary " + axis.pointer + ": value " + v + " is given twice"};
        seen.push_back(std::move(value));
    }
    return axis;
}

Result<SweepShard> parse_shard(std::string_view text) {
    const std::size_t slash = text.find('/');
    const Error error{"--shard: expected i/N with N >= 1 and 0 <= i < N (e.g. 0/4), got \"" +
                      std::string(text) + "\""};
    if (slash == std::string_view::npos) return error;
    const std::optional<std::size_t> index = parse_count(text.substr(0, slash));
    const std::optional<std::size_t> count = parse_count(text.substr(slash + 1));
    if (!index || !count || *count < 1 || *index >= *count) return error;
    return SweepShard{*index, *count};
}

std::size_t Sweep::size() const {
    std::size_t n = 1;
    for (const SweepAxis& a : axes) {
        if (a.values.empty()) return 0;
        // Saturates instead of overflowing: check_sweep refuses anything above kMaxSweepPoints.
        n = n > kMaxSweepPoints * 2 / a.values.size() ? kMaxSweepPoints * 2 : n * a.values.size();
    }
    return n;
}

std::vector<std::string> Sweep::point_overrides(std::size_t k) const {
    std::vector<std::string> overrides(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
        const std::size_t n = axes[a].values.size();
        overrides[a] = axes[a].pointer + "=" + axes[a].values[k % n];
        k /= n;
    }
    return overrides;
}

std::string Sweep::point_label(std::size_t k) const {
    std::string label;
    for (const std::string& o : point_overrides(k)) {
        if (!label.empty()) label += ' ';
        label += o;
    }
    return label;
}

std::vector<std::string> Sweep::all_overrides(std::size_t k) const {
    std::vector<std::string> overrides = sets;
    for (std::string& o : point_overrides(k)) overrides.push_back(std::move(o));
    return overrides;
}

Status check_sweep(const Sweep& sweep) {
    std::set<std::string> pointers;
    for (const std::string& s : sweep.sets) pointers.insert(set_pointer(s));
    std::set<std::string> varied;
    for (const SweepAxis& a : sweep.axes) {
        if (!varied.insert(a.pointer).second) return Error{"--vary " + a.pointer + ": varied twice"};
        if (pointers.count(a.pointer) != 0)
            return Error{"--vary " + a.pointer + ": also given by --set (the sweep would override it)"};
    }
    if (sweep.size() > kMaxSweepPoints)
        return Error{"--vary: the product has more than " + std::to_string(kMaxSweepPoints) + " points"};
    // The scene with the common overrides first, so that a bad file or --set is reported as such.
    if (const Result<SceneDesc> base = load_scene(sweep.scene, sweep.sets); !base) return base.error();
    for (std::size_t k = 0; k < sweep.size(); ++k) {
        const std::string point = "--vary: point " + std::to_string(k) + " (" + sweep.point_label(k) + "): ";
        const Result<SceneDesc> scene = load_scene(sweep.scene, sweep.all_overrides(k));
        if (!scene) return Error{point + scene.error().message};
        if (const Result<SceneWorld> world = build_world(scene.value()); !world)
            return Error{point + world.error().message};
    }
    return {};
}

std::vector<std::size_t> shard_points(const Sweep& sweep, SweepShard shard) {
    std::vector<std::size_t> points;
    for (std::size_t k = shard.index; k < sweep.size(); k += shard.count) points.push_back(k);
    return points;
}

std::string sweep_point_path(const std::string& dir, std::size_t k) {
    char name[40];
    std::snprintf(name, sizeof name, "point-%06zu.json", k);
    return (std::filesystem::path(dir) / name).string();
}

Result<bool> sweep_point_done(const Sweep& sweep, const std::string& dir, std::size_t k) {
    const std::string path = sweep_point_path(dir, k);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return false;
    const std::optional<Json> document = sweep_detail::read_point_file(path);
    if (!document) return false;  // truncated or unreadable: run again
    if ((*document)["sweep"] != sweep_detail::point_header(sweep, k))
        return Error{path + ": holds point " + (*document)["sweep"].value("point", Json()).dump() +
                     " of another sweep (other --vary, --set or number of points): use another --out DIR"};
    return true;
}

Result<bool> run_sweep_point(const Sweep& sweep, const std::string& dir, std::size_t k) {
    Result<SceneDesc> scene = load_scene(sweep.scene, sweep.all_overrides(k));
    if (!scene) return scene.error();
    Result<SceneWorld> world = build_world(scene.value());
    if (!world) return world.error();
    // A domino scene also gets its timings, with the per-step tilts that `simpulse domino` records.
    const bool domino = static_cast<bool>(check_domino_scene(scene.value()));
    std::optional<DominoTiltWatch> watch;
    RunOptions options;
    if (domino) {
        watch.emplace(scene.value());
        options.after_step = [&watch](const SceneWorld& w, std::uint64_t, std::uint64_t) {
            watch->observe(w);
        };
    }
    const RunReport report = run_scene(scene.value(), world.value(), options);
    Json document = scene_detail::result_document(scene.value(), world.value(), report);
    document["sweep"] = sweep_detail::point_header(sweep, k);
    if (domino)
        document["domino"] =
            domino_json(domino_timing(scene.value(), world.value(), report, watch->max_tilts()));
    const std::string path = sweep_point_path(dir, k);
    if (!write_file_atomically(path, scene_detail::layout(document)))
        return Error{path + ": cannot write: " + std::strerror(errno)};
    return report.ok;
}

Result<std::vector<SweepPointOutcome>> run_sweep_shard(
    const Sweep& sweep, SweepShard shard, const std::string& dir,
    const std::function<void(const SweepPointOutcome&)>& after_each) {
    if (const Status checked = check_sweep(sweep); !checked) return checked.error();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (!std::filesystem::is_directory(dir, ec))
        return Error{"--out: " + dir + ": expected a directory (it cannot be created, or is a file)"};
    const std::vector<std::size_t> points = shard_points(sweep, shard);
    std::vector<SweepPointOutcome> outcomes;
    for (const std::size_t k : points) {
        const Result<bool> done = sweep_point_done(sweep, dir, k);
        if (!done) return done.error();
        // A point done earlier keeps the outcome of its run, so that a rerun exits as the first run did.
        bool ok = true;
        if (done.value()) {
            const std::optional<Json> document = sweep_detail::read_point_file(sweep_point_path(dir, k));
            ok = document && !document->contains("error");
        }
        outcomes.push_back({k, outcomes.size() + 1, points.size(), done.value(), ok, {}, 0});
    }
    for (SweepPointOutcome& o : outcomes) {
        if (!o.skipped) {
            const auto start = std::chrono::steady_clock::now();
            const Result<bool> ran = run_sweep_point(sweep, dir, o.point);
            o.ok = ran && ran.value();
            if (!ran) o.error = ran.error().message;
            o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
        if (after_each) after_each(o);
    }
    return outcomes;
}

}  // namespace simpulse
