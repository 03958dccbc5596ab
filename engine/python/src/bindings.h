// Shared pieces of the Python module's binding files: argument conversion with the argument's name in the
// ValueError a bad value raises, and the functions that add each file's part to the module.
#pragma once

#include <simpulse/types.h>

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace simpulse::python {

// A sequence of `n` numbers (list, tuple, NumPy array); ValueError "FIELD: expected a sequence of n numbers".
std::vector<double> numbers(const std::string& field, const pybind11::handle& value, std::size_t n);
// A list of "--set" strings "/json/pointer=VALUE", or none.
std::vector<std::string> override_list(const pybind11::object& overrides);

// simpulse.run_sweep and simpulse.collect_sweep (sweep_bindings.cpp).
void bind_sweep(pybind11::module_& m);

}  // namespace simpulse::python
