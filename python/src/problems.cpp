// The problem builders of problems/: mesh steps, the Poisson and Helmholtz
// factors of one dimension, and the model problems (pscr_problem) with
// their load vectors and manufactured solutions. The Python side allocates
// every output array and passes it in; this file only checks and calls.
#include "pscr_py.h"

#include <algorithm>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace pscrpy {

namespace {

void mesh_uniform(int nsteps, double length, nb::handle out)
{
  OutArray h = to_out_array(out, "h");
  double *p = host_doubles_out(h, "h", static_cast<size_t>(std::max(nsteps, 0)), false);
  check(pscr_mesh_uniform(nsteps, length, p));
}

void mesh_graded(int nsteps, double length, double grading, nb::handle out)
{
  OutArray h = to_out_array(out, "h");
  double *p = host_doubles_out(h, "h", static_cast<size_t>(std::max(nsteps, 0)), false);
  check(pscr_mesh_graded(nsteps, length, grading, p));
}

void poisson_factors(nb::handle h_obj, nb::handle a_diag, nb::handle a_off, nb::handle m_diag,
                     nb::handle m_off)
{
  AnyArray h = to_array(h_obj, "h");
  if (h.ndim() != 1 || h.shape(0) < 2)
    raise_kind("value", "h must hold n+1 >= 2 mesh steps (n unknowns)");
  const size_t n = h.shape(0) - 1;
  const double *hp = host_doubles(h, "h", n + 1, false);
  OutArray ad = to_out_array(a_diag, "a_diag"), ao = to_out_array(a_off, "a_off"),
           md = to_out_array(m_diag, "m_diag"), mo = to_out_array(m_off, "m_off");
  check(pscr_poisson_factors(static_cast<int>(n), hp, host_doubles_out(ad, "a_diag", n, false),
                             host_doubles_out(ao, "a_off", n - 1, false),
                             host_doubles_out(md, "m_diag", n, false),
                             host_doubles_out(mo, "m_off", n - 1, false)));
}

void helmholtz_factors(nb::handle h_obj, double omega, nb::handle a_diag, nb::handle a_off,
                       nb::handle m_diag, nb::handle m_off)
{
  AnyArray h = to_array(h_obj, "h");
  if (h.ndim() != 1 || h.shape(0) < 1)
    raise_kind("value", "h must hold n-1 >= 1 mesh steps (n nodes)");
  const size_t n = h.shape(0) + 1;
  const double *hp = host_doubles(h, "h", n - 1, false);
  OutArray ad = to_out_array(a_diag, "a_diag"), ao = to_out_array(a_off, "a_off"),
           md = to_out_array(m_diag, "m_diag"), mo = to_out_array(m_off, "m_off");
  check(pscr_helmholtz_factors(static_cast<int>(n), hp, omega,
                               host_doubles_out(ad, "a_diag", n, true),
                               host_doubles_out(ao, "a_off", n - 1, true),
                               host_doubles_out(md, "m_diag", n, true),
                               host_doubles_out(mo, "m_off", n - 1, true)));
}

// Nodal values for pscr_problem_load: the C library asks for g at each
// node's coordinates; the values come from an array the Python side
// computed (vectorized), found by the node's index in each dimension. The
// coordinates arrive exactly as stored in problem->x, so a binary search
// finds them without a tolerance.
struct NodalTable {
  const pscr_problem *problem;
  const double *values; // n1 n2 (n3) elements of the problem's dtype
  int comps;            // doubles per element
  bool missed;          // a coordinate not found (never expected)
};

void nodal_lookup(const double *x, void *ctx, double *value)
{
  auto *t = static_cast<NodalTable *>(ctx);
  const pscr_problem *p = t->problem;
  size_t idx = 0;
  for (int d = 0; d < p->ndim; d++) {
    const double *xs = p->x[d];
    const double *it = std::lower_bound(xs, xs + p->n[d], x[d]);
    if (it == xs + p->n[d] || *it != x[d]) {
      t->missed = true;
      for (int c = 0; c < t->comps; c++)
        value[c] = 0.0;
      return;
    }
    idx = idx * static_cast<size_t>(p->n[d]) + static_cast<size_t>(it - xs);
  }
  for (int c = 0; c < t->comps; c++)
    value[c] = t->values[idx * t->comps + c];
}

} // namespace

// A model problem (pscr_problem_create); owns the C object.
class ProblemCore {
public:
  ProblemCore(int kind, std::vector<int> n, nb::handle length, double grading, double omega)
  {
    if (n.size() != 2 && n.size() != 3)
      raise_kind("value", "n has " + std::to_string(n.size()) + " sizes; a problem is 2D or 3D");
    std::vector<double> len;
    if (!length.is_none()) {
      len = nb::cast<std::vector<double>>(length);
      if (len.size() != n.size())
        raise_kind("value", "length has " + std::to_string(len.size()) + " entries, n has " +
                                std::to_string(n.size()));
    }
    check(pscr_problem_create(&p_, static_cast<pscr_problem_kind>(kind),
                              static_cast<int>(n.size()), n.data(),
                              len.empty() ? nullptr : len.data(), grading, omega));
  }
  ~ProblemCore() { pscr_problem_destroy(p_); }
  ProblemCore(const ProblemCore &) = delete;
  ProblemCore &operator=(const ProblemCore &) = delete;

  bool complex() const { return p_->dtype == PSCR_C64; }
  size_t count() const
  {
    size_t c = 1;
    for (int d = 0; d < p_->ndim; d++)
      c *= static_cast<size_t>(p_->n[d]);
    return c;
  }
  int ndim() const { return p_->ndim; }
  int dtype() const { return static_cast<int>(p_->dtype); }
  std::vector<int> n() const { return std::vector<int>(p_->n, p_->n + p_->ndim); }
  double omega() const { return p_->omega; }
  std::vector<double> length() const
  {
    return std::vector<double>(p_->length, p_->length + p_->ndim);
  }
  nb::list x() const
  {
    nb::list out;
    for (int d = 0; d < p_->ndim; d++)
      out.append(numpy_copy(p_->x[d], static_cast<size_t>(p_->n[d]), false));
    return out;
  }
  nb::list h() const
  {
    nb::list out;
    for (int d = 0; d < p_->ndim; d++) {
      int n = p_->n[d];
      size_t steps = static_cast<size_t>(p_->kind == PSCR_PROBLEM_POISSON ? n + 1 : n - 1);
      out.append(numpy_copy(p_->h[d], steps, false));
    }
    return out;
  }
  // (a_diag, a_off, m_diag, m_off) per dimension, copies; m_off None when
  // M is diagonal.
  nb::list pencils() const
  {
    nb::list out;
    const bool c = complex();
    for (int d = 0; d < p_->ndim; d++) {
      const pscr_pencil &pe = p_->pencils[d];
      const size_t n = static_cast<size_t>(pe.n);
      nb::object mo = pe.m_off ? numpy_copy(static_cast<const double *>(pe.m_off), n - 1, c)
                               : nb::none();
      out.append(nb::make_tuple(numpy_copy(static_cast<const double *>(pe.a_diag), n, c),
                                numpy_copy(static_cast<const double *>(pe.a_off), n - 1, c),
                                numpy_copy(static_cast<const double *>(pe.m_diag), n, c), mo));
    }
    return out;
  }
  nb::tuple shift() const { return nb::make_tuple(p_->shift[0], p_->shift[1]); }

  void load(nb::handle values_obj, nb::handle out_obj)
  {
    AnyArray values = to_array(values_obj, "values");
    OutArray out = to_out_array(out_obj, "out");
    const bool c = complex();
    const double *v = host_doubles(values, "values", count(), c);
    double *b = host_doubles_out(out, "out", count(), c);
    NodalTable table{p_, v, c ? 2 : 1, false};
    check(pscr_problem_load(p_, nodal_lookup, &table, b));
    if (table.missed)
      raise_kind("value", "a node's coordinates were not found among the problem's nodes");
  }

  void manufactured(nb::handle b_obj, nb::handle u_obj)
  {
    OutArray b = to_out_array(b_obj, "b"), u = to_out_array(u_obj, "u_exact");
    const bool c = complex();
    check(pscr_problem_manufactured(p_, host_doubles_out(b, "b", count(), c),
                                    host_doubles_out(u, "u_exact", count(), c)));
  }

private:
  pscr_problem *p_ = nullptr;
};

void register_problems(nb::module_ &m)
{
  m.def("mesh_uniform", &mesh_uniform, nb::arg("nsteps"), nb::arg("length"), nb::arg("out"));
  m.def("mesh_graded", &mesh_graded, nb::arg("nsteps"), nb::arg("length"), nb::arg("grading"),
        nb::arg("out"));
  m.def("poisson_factors", &poisson_factors, nb::arg("h"), nb::arg("a_diag"), nb::arg("a_off"),
        nb::arg("m_diag"), nb::arg("m_off"));
  m.def("helmholtz_factors", &helmholtz_factors, nb::arg("h"), nb::arg("omega"),
        nb::arg("a_diag"), nb::arg("a_off"), nb::arg("m_diag"), nb::arg("m_off"));

  nb::class_<ProblemCore>(m, "ProblemCore", "One pscr_problem. Use pscr.Problem.")
      .def(nb::init<int, std::vector<int>, nb::handle, double, double>(), nb::arg("kind"),
           nb::arg("n"), nb::arg("length").none(), nb::arg("grading"), nb::arg("omega"))
      .def_prop_ro("ndim", &ProblemCore::ndim)
      .def_prop_ro("dtype", &ProblemCore::dtype)
      .def_prop_ro("n", &ProblemCore::n)
      .def_prop_ro("omega", &ProblemCore::omega)
      .def_prop_ro("length", &ProblemCore::length)
      .def_prop_ro("x", &ProblemCore::x)
      .def_prop_ro("h", &ProblemCore::h)
      .def_prop_ro("pencils", &ProblemCore::pencils)
      .def_prop_ro("shift", &ProblemCore::shift)
      .def("load", &ProblemCore::load, nb::arg("values"), nb::arg("out"))
      .def("manufactured", &ProblemCore::manufactured, nb::arg("b"), nb::arg("u_exact"));
}

} // namespace pscrpy
