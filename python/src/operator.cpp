// The operator itself (pscr_operator_apply, pscr_operator_norm_inf): out =
// A u on host arrays, one vector or a batch, and ||A||_inf, for residuals
// and Krylov methods.
#include "pscr_py.h"

#include <complex>

#include <nanobind/stl/complex.h>

namespace pscrpy {

namespace {

void operator_apply(int dtype_code, nb::handle pencil_seq, std::complex<double> shift,
                    nb::handle u_obj, nb::handle out_obj)
{
  const pscr_dtype dtype = dtype_from_code(dtype_code);
  Pencils p = pencils_from(pencil_seq, dtype);
  Scalar c = scalar_of(dtype, shift.real(), shift.imag(), "shift");
  AnyArray u = to_array(u_obj, "u");
  OutArray out = to_out_array(out_obj, "out");
  Vectors vu = check_vectors(u, "u", dtype, p.ndim, p.n, true);
  Vectors vo = check_vectors(AnyArray(out), "out", dtype, p.ndim, p.n, true);
  if (vu.device || vo.device)
    raise_kind("value", "the operator is applied on the host: pass NumPy arrays");
  if (vu.batch != vo.batch || vu.count != vo.count)
    raise_kind("value", "out and u must have the same shape");
  const size_t esz = elem_size(dtype);
  const auto *ub = static_cast<const unsigned char *>(vu.data);
  auto *ob = static_cast<unsigned char *>(vo.data);
  if (ob < ub + ((vu.count ? vu.count - 1 : 0) * vu.stride + vu.size) * esz &&
      ub < ob + ((vo.count ? vo.count - 1 : 0) * vo.stride + vo.size) * esz && vu.count)
    raise_kind("value", "out overlaps u; pscr_operator_apply needs them apart");
  Outcome oc;
  {
    nb::gil_scoped_release nogil;
    pscr_status st = PSCR_SUCCESS;
    for (size_t r = 0; r < vu.count && st == PSCR_SUCCESS; r++)
      st = pscr_operator_apply(dtype, p.ndim, p.pencils.data(), c.bytes,
                               ub + r * vu.stride * esz, ob + r * vo.stride * esz);
    oc.capture(st);
  }
  oc.raise_if_failed();
}

double operator_norm_inf(int dtype_code, nb::handle pencil_seq, std::complex<double> shift)
{
  const pscr_dtype dtype = dtype_from_code(dtype_code);
  Pencils p = pencils_from(pencil_seq, dtype);
  Scalar c = scalar_of(dtype, shift.real(), shift.imag(), "shift");
  double norm = 0.0;
  check(pscr_operator_norm_inf(dtype, p.ndim, p.pencils.data(), c.bytes, &norm));
  return norm;
}

} // namespace

void register_operator(nb::module_ &m)
{
  m.def("operator_apply", &operator_apply, nb::arg("dtype"), nb::arg("pencils"),
        nb::arg("shift"), nb::arg("u"), nb::arg("out"),
        "out = A u (pscr_operator_apply), host arrays, one vector or a batch.");
  m.def("operator_norm_inf", &operator_norm_inf, nb::arg("dtype"), nb::arg("pencils"),
        nb::arg("shift"), "||A||_inf (pscr_operator_norm_inf).");
}

} // namespace pscrpy
