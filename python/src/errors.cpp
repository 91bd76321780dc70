// Raising pscr's errors in Python. The classes live in pscr/_errors.py; this
// file builds an instance there (from a status, or from the kind of a
// binding-side check) and sets it as the current Python exception.
#include "pscr_py.h"

namespace pscrpy {

namespace {

[[noreturn]] void raise_object(nb::object exc)
{
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc.ptr())), exc.ptr());
  throw nb::python_error();
}

nb::object errors_module() { return nb::module_::import_("pscr._errors"); }

} // namespace

void raise_status(pscr_status status, const std::string &detail)
{
  raise_object(errors_module().attr("_from_status")(static_cast<int>(status), detail));
}

void raise_kind(const char *kind, const std::string &detail)
{
  raise_object(errors_module().attr("_from_kind")(kind, detail));
}

void check(pscr_status status)
{
  if (status != PSCR_SUCCESS)
    raise_status(status, pscr_last_error());
}

void Outcome::capture(pscr_status st)
{
  status = st;
  if (st != PSCR_SUCCESS)
    detail = pscr_last_error();
}

void Outcome::raise_if_failed() const
{
  if (status != PSCR_SUCCESS)
    raise_status(status, detail);
}

void register_errors(nb::module_ &m)
{
  m.def("status_string", [](int status) {
    return std::string(pscr_status_string(static_cast<pscr_status>(status)));
  }, nb::arg("status"), "The C library's generic text of a status (pscr_status_string).");
  m.def("last_error", []() { return std::string(pscr_last_error()); },
        "The calling thread's last detail message (pscr_last_error).");
  // Every status the C library has, value -> enum name, from the header's
  // own list (PSCR_STATUS_LIST), so that pscr/_errors.py's classes are
  // checked against it rather than trusted.
  nb::dict names;
#define PSCRPY_STATUS_NAME(name, value, text) names[nb::int_(value)] = nb::str(#name);
  PSCR_STATUS_LIST(PSCRPY_STATUS_NAME)
#undef PSCRPY_STATUS_NAME
  m.attr("STATUS_NAMES") = names;
}

} // namespace pscrpy
