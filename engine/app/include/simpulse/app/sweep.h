// Parameter sweeps (`simpulse sweep`, docs/scene-format.md "Sweeps"): the Cartesian product of "--vary"
// values applied as "--set" overrides, split into shards that a scheduler runs independently (a Slurm job
// array, GNU parallel, Dask), one result file per point written atomically, and the table merged from the
// point files.
//
//   simpulse::Sweep sweep{"scenes/domino/d2_friction.json", {},
//   {simpulse::parse_vary("/dt=0.001,0.002").value()}}; for (std::size_t k : simpulse::shard_points(sweep,
//   {0, 4})) simpulse::run_sweep_point(sweep, "out", k);
#pragma once

#include <simpulse/result.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace simpulse {

// One varied key: a JSON pointer and its values, each as written (JSON, else a string, as for "--set").
struct SweepAxis {
    std::string pointer;
    std::vector<std::string> values;
};

// "/json/pointer=V1,V2,...". Values are separated by the commas outside brackets, braces and strings, so
// '/gravity=[0,0,-9.81],[0,0,-1.62]' has two. Errors name --vary and what was expected.
Result<SweepAxis> parse_vary(std::string_view argument);

// A shard "i/N": the points k with k mod N = i (round robin, so that shards get points from the whole range
// of every axis and take about the same time).
struct SweepShard {
    std::size_t index = 0;
    std::size_t count = 1;
};

// "i/N" with N >= 1 and 0 <= i < N, in decimal.
Result<SweepShard> parse_shard(std::string_view text);

// Largest number of points of one sweep; more is taken as a mistake in the input.
inline constexpr std::size_t kMaxSweepPoints = 100'000;

struct Sweep {
    std::string scene;              // the scene file
    std::vector<std::string> sets;  // "--set" overrides of every point, applied before the point's own
    std::vector<SweepAxis> axes;    // in command-line order; the first varies slowest

    // Points in the product: the product of the axes' sizes (1 without axes).
    std::size_t size() const;
    // Point k's overrides "/pointer=VALUE", one per axis.
    std::vector<std::string> point_overrides(std::size_t k) const;
    // point_overrides(k) separated by spaces, for messages: "/dt=0.01 /bodies/1/velocity/0=2".
    std::string point_label(std::size_t k) const;
    // The overrides point k is loaded with: sets, then point_overrides(k).
    std::vector<std::string> all_overrides(std::size_t k) const;
};

// Checks a sweep before any run: distinct pointers, at most kMaxSweepPoints points, and that the scene reads
// and builds with every point's overrides. The first problem as an error naming the flag or the point.
Status check_sweep(const Sweep& sweep);

// The points of a shard, ascending.
std::vector<std::size_t> shard_points(const Sweep& sweep, SweepShard shard);

// DIR/point-K.json, K zero-padded to at least 6 digits.
std::string sweep_point_path(const std::string& dir, std::size_t k);

// Whether point k's file in `dir` holds its complete result: false if it is absent, or does not read as a
// complete point document (a truncated file is run again). A complete file of another sweep (other
// overrides, or another number of points) is an error: two sweeps in one directory would mix.
Result<bool> sweep_point_done(const Sweep& sweep, const std::string& dir, std::size_t k);

// Runs point k and writes dir/point-K.json atomically: the result document of `simpulse run --out` plus
// "sweep" (the point, its overrides, the number of points) and, for a domino scene, "domino" (its timings,
// docs/domino.md). Returns whether the run succeeded (a failed run's file names the failure, as --out
// does), or an error if the scene cannot be read or the file written.
Result<bool> run_sweep_point(const Sweep& sweep, const std::string& dir, std::size_t k);

// What happened to one point of a shard.
struct SweepPointOutcome {
    std::size_t point = 0;
    std::size_t done = 0;   // points of the shard handled so far, this one included
    std::size_t total = 0;  // points of the shard
    bool skipped = false;   // its file was complete already
    bool ok = true;     // the run succeeded (false: its file names the failure; also for a skipped point) and
                        // its file was written
    std::string error;  // when the file could not be written
    double wall_seconds = 0;
};

// Runs a shard (the CLI's `simpulse sweep` and the Python module's run_sweep): checks the sweep
// (check_sweep), creates `dir` if missing, reads which of the shard's points are done (refusing a directory
// of another sweep before anything is written), then runs the others in order, calling after_each for every
// point. An error is bad input found before the first run; the outcomes say which runs failed.
Result<std::vector<SweepPointOutcome>> run_sweep_shard(
    const Sweep& sweep, SweepShard shard, const std::string& dir,
    const std::function<void(const SweepPointOutcome&)>& after_each = {});

// The merged table: a column per varied pointer, then the headline figures (sweep_table_columns). Cells are
// JSON text (numbers in shortest round-trip form, strings quoted, null for a missing figure).
struct SweepTable {
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;  // one per point, in point order
};

// Reads every dir/point-K.json of one sweep into a table. Errors: no point files, files of different sweeps,
// points missing (named; their shards have not finished), a file that does not read.
Result<SweepTable> collect_sweep(const std::string& dir);

// CSV (RFC 4180: a header line, strings unquoted unless they hold a comma, quote or line break, null empty)
// and JSON (an array of one object per row, one line each).
std::string sweep_table_csv(const SweepTable& table);
std::string sweep_table_json(const SweepTable& table);

// Writes dir/sweep.csv and dir/sweep.json atomically; an error names the file that could not be written.
Status write_sweep_table(const std::string& dir, const SweepTable& table);

}  // namespace simpulse
