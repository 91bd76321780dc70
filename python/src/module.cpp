// The extension module pscr._pscr: thin bindings of the C API (plans,
// solves, the operator, the problem builders, errors). The public Python
// API is python/pscr/__init__.py, which wraps these.
#include "pscr_py.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

NB_MODULE(_pscr, m)
{
  m.doc() = "Bindings of the pscr C library (use the package pscr, not this module).";

  m.def("version", []() { return std::string(pscr_version()); },
        "The loaded library's version, \"MAJOR.MINOR.PATCH\" (pscr_version).");
  // Whether this build has the CUDA backend (pscr_config.h's PSCR_HAVE_CUDA).
  m.attr("has_cuda") = static_cast<bool>(PSCR_HAVE_CUDA);
  m.attr("refine_max") = PSCR_REFINE_MAX;
  m.def("flag_names", []() {
    // Every flag bit the library knows, with its command-line name.
    std::vector<std::pair<std::string, unsigned int>> out;
    for (int bit = 0; bit < 32; bit++) {
      const unsigned int flag = 1u << bit;
      if (const char *name = pscr_flag_name(flag))
        out.emplace_back(name, flag);
    }
    return out;
  }, "(name, bit) of every pscr_options.flags bit (pscr_flag_name).");

  pscrpy::register_errors(m);
  pscrpy::register_plan(m);
  pscrpy::register_problems(m);
  pscrpy::register_operator(m);
}
