// The sweep's merged table (simpulse/app/sweep.h): reads the point files of a directory, checks that they
// are one complete sweep, and writes the varied values and each point's headline figures as CSV and JSON.
// wall_s is left out, so that the table of a sweep is the same however and wherever it was run.
#include <simpulse/app/partial_file.h>
#include <simpulse/app/sweep.h>

#include "sweep_point.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>

namespace simpulse {
namespace {

using scene_detail::Json;

// A headline figure: its column name and its JSON pointer in a point document.
struct Figure {
    const char* column;
    const char* pointer;
};
constexpr Figure kFigures[] = {
    {"ok", ""},  // computed: the run ended without an "error"
    {"steps", "/steps"},
    {"time", "/time"},
    {"kinetic_energy", "/energy/kinetic"},
    {"potential_energy", "/energy/potential"},
    {"max_joint_error", "/max_joint_error"},
};
// For domino scenes (every point has "domino"): the timings of docs/domino.md.
constexpr Figure kDominoFigures[] = {
    {"pitch", "/domino/pitch"},           {"striker_hit", "/domino/striker_hit"},
    {"chain_time", "/domino/chain_time"}, {"knocked_over", "/domino/knocked_over"},
    {"dominoes", "/domino/dominoes"},
};

Json at(const Json& document, const char* pointer) {
    const Json::json_pointer p(pointer);
    return document.contains(p) ? document.at(p) : Json(nullptr);
}

// The "sweep" key of a point file has the types point_header gives it.
bool well_formed(const Json& header) {
    return header.is_object() && header.contains("point") && header["point"].is_number_unsigned() &&
           header.contains("points") && header["points"].is_number_unsigned() && header.contains("vary") &&
           header["vary"].is_object() && header.contains("set") && header["set"].is_array();
}

// K of a file name "point-K.json" (K decimal digits), or nullopt.
std::optional<std::size_t> point_number(const std::string& name) {
    constexpr std::string_view prefix = "point-", suffix = ".json";
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
        return std::nullopt;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return static_cast<std::size_t>(std::stoull(digits));
}

std::string csv_cell(const std::string& json_text) {
    const Json value = Json::parse(json_text);
    if (value.is_null()) return "";
    const std::string text = value.is_string() ? value.get<std::string>() : json_text;
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string missing_list(const std::vector<std::size_t>& missing) {
    std::string out;
    for (std::size_t i = 0; i < missing.size() && i < 10; ++i) {
        if (i > 0) out += ", ";
        out += std::to_string(missing[i]);
    }
    return missing.size() > 10 ? out + ", ..." : out;
}

}  // namespace

Result<SweepTable> collect_sweep(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return Error{"--collect: " + dir + ": expected a directory of point files"};
    std::map<std::size_t, Json> points;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        const std::optional<std::size_t> k = point_number(entry.path().filename().string());
        if (!k) continue;
        const std::optional<Json> document = sweep_detail::read_point_file(entry.path().string());
        if (!document || !well_formed((*document)["sweep"]))
            return Error{entry.path().string() + ": not a complete point file (run its shard again)"};
        points.emplace(*k, *document);
    }
    if (ec) return Error{"--collect: " + dir + ": cannot list: " + ec.message()};
    if (points.empty()) return Error{"--collect: " + dir + ": no point files point-K.json"};

    const Json& first = points.begin()->second.at("sweep");
    const std::size_t total = first.at("points").get<std::size_t>();
    std::vector<std::size_t> missing;
    for (std::size_t k = 0; k < total; ++k)
        if (points.count(k) == 0) missing.push_back(k);
    bool domino = true;
    for (const auto& [k, document] : points) {
        const Json& header = document.at("sweep");
        bool same = k < total && header.at("point") == k && header.at("points") == total &&
                    header.at("set") == first.at("set") &&
                    header.at("vary").size() == first.at("vary").size();
        for (auto i = header.at("vary").begin(), j = first.at("vary").begin();
             same && i != header.at("vary").end(); ++i, ++j)
            same = i.key() == j.key();
        if (!same)
            return Error{"--collect: " + sweep_point_path(dir, k) + " and " +
                         sweep_point_path(dir, points.begin()->first) + " belong to different sweeps"};
        domino = domino && document.contains("domino");
    }
    if (!missing.empty())
        return Error{"--collect: " + dir + ": " + std::to_string(missing.size()) + " of " +
                     std::to_string(total) + " points missing (" + missing_list(missing) +
                     "): run their shards again"};

    SweepTable table;
    table.columns.push_back("point");
    for (const auto& item : first["vary"].items()) table.columns.push_back(item.key());
    std::vector<Figure> figures(std::begin(kFigures), std::end(kFigures));
    if (domino) figures.insert(figures.end(), std::begin(kDominoFigures), std::end(kDominoFigures));
    for (const Figure& f : figures) table.columns.push_back(f.column);
    for (const auto& [k, document] : points) {
        std::vector<std::string> row{std::to_string(k)};
        for (const auto& item : document["sweep"]["vary"].items()) row.push_back(item.value().dump());
        for (const Figure& f : figures)
            row.push_back(*f.pointer ? at(document, f.pointer).dump()
                                     : Json(!document.contains("error")).dump());
        table.rows.push_back(std::move(row));
    }
    return table;
}

std::string sweep_table_csv(const SweepTable& table) {
    std::string out;
    const auto line = [&out](const std::vector<std::string>& cells, bool header) {
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (i > 0) out += ',';
            out += csv_cell(header ? Json(cells[i]).dump() : cells[i]);
        }
        out += "\n";
    };
    line(table.columns, true);
    for (const auto& row : table.rows) line(row, false);
    return out;
}

std::string sweep_table_json(const SweepTable& table) {
    std::string out = "[\n";
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        Json row = Json::object();
        for (std::size_t c = 0; c < table.columns.size(); ++c)
            row[table.columns[c]] = Json::parse(table.rows[r][c]);
        out += "  " + row.dump() + (r + 1 < table.rows.size() ? ",\n" : "\n");
    }
    return out + "]\n";
}

Status write_sweep_table(const std::string& dir, const SweepTable& table) {
    for (const auto& [name, text] :
         {std::pair{"sweep.csv", sweep_table_csv(table)}, std::pair{"sweep.json", sweep_table_json(table)}}) {
        const std::string path = (std::filesystem::path(dir) / name).string();
        if (!write_file_atomically(path, text))
            return Error{path + ": cannot write: " + std::strerror(errno)};
    }
    return {};
}

}  // namespace simpulse
