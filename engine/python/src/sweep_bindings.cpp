// The sweep in Python (docs/scale-out.md): simpulse.run_sweep runs a shard of a sweep into a directory of
// point files and simpulse.collect_sweep merges them, through the same functions as `simpulse sweep` (so the
// files are interchangeable with the CLI's, and a shard run from Dask resumes like one run by Slurm).
#include <simpulse/app/sweep.h>

#include "bindings.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// "--vary" arguments from ["/pointer=V1,V2", ...] or {"/pointer": [v1, v2], ...} (values written as JSON).
std::vector<std::string> vary_arguments(const py::object& vary) {
    std::vector<std::string> out;
    if (py::isinstance<py::dict>(vary)) {
        const py::object dumps = py::module_::import("json").attr("dumps");
        for (const auto& [key, values] : py::reinterpret_borrow<py::dict>(vary)) {
            const std::string pointer = py::str(key).cast<std::string>();
            if (py::isinstance<py::str>(values) || !py::isinstance<py::sequence>(values))
                throw py::value_error("vary[" + pointer + "]: expected a list of values, got " +
                                      py::repr(values).cast<std::string>());
            std::string argument = pointer + "=";
            for (const py::handle& v : values) {
                if (argument.back() != '=') argument += ',';
                argument += dumps(v).cast<std::string>();
            }
            out.push_back(argument);
        }
        return out;
    }
    if (py::isinstance<py::str>(vary) || !py::isinstance<py::sequence>(vary))
        throw py::value_error(
            "vary: expected a dict {pointer: [values]} or a list of \"/pointer=V1,V2\", got " +
            py::repr(vary).cast<std::string>());
    for (const py::handle& v : vary) {
        if (!py::isinstance<py::str>(v))
            throw py::value_error("vary: expected \"/pointer=V1,V2\" strings, got " +
                                  py::repr(v).cast<std::string>());
        out.push_back(v.cast<std::string>());
    }
    return out;
}

template <class T>
T checked(simpulse::Result<T> result) {
    if (!result) throw py::value_error(result.error().message);
    return std::move(result).value();
}

py::list run_shard(const std::string& scene, const py::object& vary, const std::string& out,
                   const py::object& shard, const py::object& overrides) {
    simpulse::Sweep sweep{scene, simpulse::python::override_list(overrides), {}};
    for (const std::string& v : vary_arguments(vary)) sweep.axes.push_back(checked(simpulse::parse_vary(v)));
    // (i, N) is written "i/N" and read by the CLI's parser, with its checks and its message.
    std::string shard_text = "0/1";
    if (py::isinstance<py::str>(shard)) {
        shard_text = shard.cast<std::string>();
    } else if (!shard.is_none()) {
        if (!py::isinstance<py::sequence>(shard) || py::len(shard) != 2)
            throw py::value_error("shard: expected (i, N) or \"i/N\", got " +
                                  py::repr(shard).cast<std::string>());
        const py::sequence pair = py::reinterpret_borrow<py::sequence>(shard);
        shard_text = py::str(pair[0]).cast<std::string>() + "/" + py::str(pair[1]).cast<std::string>();
    }
    const simpulse::SweepShard part = checked(simpulse::parse_shard(shard_text));
    simpulse::Result<std::vector<simpulse::SweepPointOutcome>> outcomes = simpulse::Error{""};
    {
        const py::gil_scoped_release release;
        outcomes = simpulse::run_sweep_shard(sweep, part, out);
    }
    py::list result;
    for (const simpulse::SweepPointOutcome& o : checked(std::move(outcomes))) {
        py::dict d;
        d["point"] = o.point;
        d["skipped"] = o.skipped;
        d["ok"] = o.ok;
        d["error"] = o.error;
        d["wall_s"] = o.wall_seconds;
        result.append(d);
    }
    return result;
}

py::object collect_table(const std::string& dir, bool write) {
    const simpulse::SweepTable table = checked(simpulse::collect_sweep(dir));
    if (write)
        if (const simpulse::Status s = simpulse::write_sweep_table(dir, table); !s)
            throw std::runtime_error(s.error().message);
    return py::module_::import("json").attr("loads")(simpulse::sweep_table_json(table));
}

}  // namespace

void simpulse::python::bind_sweep(py::module_& m) {
    m.def("run_sweep", &run_shard, py::arg("scene"), py::arg("vary"), py::arg("out"),
          py::arg("shard") = py::none(), py::arg("overrides") = py::none(),
          "Runs shard (i, N) or 'i/N' of the sweep over the product of `vary` ({pointer: [values]} or "
          "['/pointer=V1,V2', ...]) into the directory `out`, skipping points done; like `simpulse sweep`. "
          "Returns one dict per point of the shard: point, skipped, ok, error, wall_s");
    m.def(
        "collect_sweep", &collect_table, py::arg("dir"), py::arg("write") = true,
        "Merges the point files of `dir` (like `simpulse sweep --collect`, writing sweep.csv and sweep.json "
        "unless write=False) and returns the table's rows as dicts");
}
