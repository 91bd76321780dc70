// Arrays at the boundary: what pscr accepts (the plan's dtype, shape
// (n1, n2[, n3]) with an optional leading batch axis, each vector
// C-contiguous, host or CUDA memory) and clear errors for everything else.
// No array is ever copied or converted here: a wrong one is refused.
#include "pscr_py.h"

#include <complex>
#include <cstring>
#include <sstream>

namespace pscrpy {

size_t elem_size(pscr_dtype dtype)
{
  switch (dtype) {
  case PSCR_R64: return sizeof(double);
  case PSCR_C64: return 2 * sizeof(double);
  case PSCR_R32: return sizeof(float);
  case PSCR_C32: return 2 * sizeof(float);
  }
  return 0;
}

const char *dtype_name(pscr_dtype dtype)
{
  switch (dtype) {
  case PSCR_R64: return "float64";
  case PSCR_C64: return "complex128";
  case PSCR_R32: return "float32";
  case PSCR_C32: return "complex64";
  }
  return "unknown";
}

bool dtype_matches(nb::dlpack::dtype dl, pscr_dtype dtype)
{
  switch (dtype) {
  case PSCR_R64: return dl == nb::dtype<double>();
  case PSCR_C64: return dl == nb::dtype<std::complex<double>>();
  case PSCR_R32: return dl == nb::dtype<float>();
  case PSCR_C32: return dl == nb::dtype<std::complex<float>>();
  }
  return false;
}

std::string dl_dtype_name(nb::dlpack::dtype dl)
{
  using code = nb::dlpack::dtype_code;
  const char *kind = "unknown";
  switch (static_cast<code>(dl.code)) {
  case code::Int: kind = "int"; break;
  case code::UInt: kind = "uint"; break;
  case code::Float: kind = "float"; break;
  case code::Complex: kind = "complex"; break;
  case code::Bool: return "bool";
  case code::Bfloat: kind = "bfloat"; break;
  default: break;
  }
  std::string s = kind + std::to_string(dl.bits);
  if (dl.lanes != 1)
    s += "x" + std::to_string(dl.lanes);
  return s;
}

pscr_dtype dtype_from_code(int code)
{
  if (code < PSCR_R64 || code > PSCR_C32)
    raise_kind("dtype", "unknown dtype code " + std::to_string(code));
  return static_cast<pscr_dtype>(code);
}

Scalar scalar_of(pscr_dtype dtype, double re, double im, const char *what)
{
  Scalar s{};
  bool complex = dtype == PSCR_C64 || dtype == PSCR_C32;
  if (!complex && im != 0.0)
    raise_kind("dtype", std::string(what) + " has a non-zero imaginary part, but the dtype " +
                            dtype_name(dtype) + " is real");
  switch (dtype) {
  case PSCR_R64: { double v = re; std::memcpy(s.bytes, &v, sizeof v); break; }
  case PSCR_R32: { float v = static_cast<float>(re); std::memcpy(s.bytes, &v, sizeof v); break; }
  case PSCR_C64: { double v[2] = {re, im}; std::memcpy(s.bytes, v, sizeof v); break; }
  case PSCR_C32: {
    float v[2] = {static_cast<float>(re), static_cast<float>(im)};
    std::memcpy(s.bytes, v, sizeof v);
    break;
  }
  }
  return s;
}

std::string shape_text(int ndim, const int *n)
{
  std::ostringstream os;
  os << "(";
  for (int d = 0; d < ndim; d++)
    os << (d ? ", " : "") << n[d];
  os << ")";
  return os.str();
}

namespace {

std::string array_shape_text(const AnyArray &a)
{
  std::ostringstream os;
  os << "(";
  for (size_t d = 0; d < a.ndim(); d++)
    os << (d ? ", " : "") << a.shape(d) << (a.ndim() == 1 ? "," : "");
  os << ")";
  return os.str();
}

std::string type_label(nb::handle obj)
{
  return nb::cast<std::string>(nb::handle(reinterpret_cast<PyObject *>(Py_TYPE(obj.ptr())))
                                   .attr("__qualname__"));
}

} // namespace

AnyArray to_array(nb::handle obj, const char *name)
{
  AnyArray a;
  if (!obj.is_none() && nb::try_cast(obj, a, false))
    return a;
  // An array object that neither DLPack nor the buffer protocol exported:
  // its element type is one those cannot describe (a non-native byte
  // order, an object dtype...).
  if (!obj.is_none() && nb::hasattr(obj, "dtype") && nb::hasattr(obj, "shape")) {
    nb::object text = nb::steal(PyObject_Str(obj.attr("dtype").ptr()));
    if (!text.is_valid())
      PyErr_Clear();
    const std::string dtype = text.is_valid() ? nb::borrow<nb::str>(text).c_str() : "?";
    raise_kind("dtype", std::string(name) + " (a " + type_label(obj) + " of dtype " + dtype +
                            ") cannot be passed to pscr as it is (no DLPack or buffer export "
                            "of that dtype): convert it to the plan's dtype, e.g. "
                            "numpy.ascontiguousarray(" + name + ", dtype=plan.dtype)");
  }
  raise_kind("value", std::string(name) + " is a " + type_label(obj) +
                          ", not an array: pass a NumPy array, or a device array with "
                          "__dlpack__ (CuPy, PyTorch, JAX)");
}

OutArray to_out_array(nb::handle obj, const char *name)
{
  OutArray a;
  if (!obj.is_none() && nb::try_cast(obj, a, false))
    return a;
  AnyArray ro;
  if (!obj.is_none() && nb::try_cast(obj, ro, false))
    raise_kind("value", std::string(name) + " is read-only; pscr writes the solution into it");
  to_array(obj, name); // raises: not an array at all
  raise_kind("value", std::string(name) + " cannot be written through DLPack");
}

Vectors check_vectors(const AnyArray &a, const char *name, pscr_dtype dtype, int ndim,
                      const int *n, bool allow_batch)
{
  Vectors v;
  const int dev = a.device_type();
  if (dev == nb::device::cpu::value || dev == nb::device::cuda_host::value) {
    v.device = false;
  } else if (dev == nb::device::cuda::value || dev == nb::device::cuda_managed::value) {
    v.device = true;
  } else {
    raise_kind("value", std::string(name) + " lives on DLPack device type " + std::to_string(dev) +
                            "; pscr takes host (CPU) arrays and CUDA device arrays");
  }
  v.device_id = a.device_id();

  if (!dtype_matches(a.dtype(), dtype))
    raise_kind("dtype", std::string(name) + " has dtype " + dl_dtype_name(a.dtype()) +
                            ", the plan's dtype is " + dtype_name(dtype) +
                            " (convert it first, e.g. f.astype('" + dtype_name(dtype) + "'))");

  const size_t nd = a.ndim();
  v.batch = allow_batch && nd == static_cast<size_t>(ndim) + 1;
  const size_t off = v.batch ? 1 : 0;
  bool shape_ok = nd == static_cast<size_t>(ndim) || v.batch;
  for (int d = 0; shape_ok && d < ndim; d++)
    shape_ok = a.shape(off + d) == static_cast<size_t>(n[d]);
  if (!shape_ok) {
    std::string want = shape_text(ndim, n);
    std::string msg = std::string(name) + " has shape " + array_shape_text(a) +
                      "; the plan takes " + want;
    if (allow_batch)
      msg += ", or (k, " + want.substr(1) + " for a batch of k";
    raise_kind("value", msg);
  }

  // Each vector: the last dimension fastest, no gaps (pscr reads n1 n2 (n3)
  // consecutive elements). Extents of 1 may carry any stride, and so may
  // an empty batch (there is nothing to read).
  v.count = v.batch ? a.shape(0) : 1;
  v.size = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    if (v.count && n[d] > 1 && a.stride(off + d) != static_cast<int64_t>(v.size)) {
      std::ostringstream os;
      os << name << " is not C-contiguous (strides";
      for (size_t e = 0; e < nd; e++)
        os << (e ? ", " : " (") << a.stride(e);
      os << ") elements): pscr reads each vector's n1*n2"
         << (ndim == 3 ? "*n3" : "")
         << " entries consecutively, the last dimension fastest (C order); pass "
            "numpy.ascontiguousarray(" << name << ") or a copy";
      raise_kind("value", os.str());
    }
    v.size *= static_cast<size_t>(n[d]);
  }
  v.stride = v.size;
  if (v.batch && v.count > 1) {
    int64_t s = a.stride(0);
    if (s < static_cast<int64_t>(v.size))
      raise_kind("value", std::string(name) + "'s batch axis has a stride of " + std::to_string(s) +
                              " elements; consecutive vectors must lie at least n1*n2" +
                              (ndim == 3 ? "*n3" : "") + " = " + std::to_string(v.size) +
                              " elements apart, in increasing order");
    v.stride = static_cast<size_t>(s);
  }
  v.data = const_cast<void *>(static_cast<const void *>(a.data()));
  return v;
}

const double *host_doubles(const AnyArray &a, const char *name, size_t len, bool complex,
                           bool exact_len)
{
  const pscr_dtype want = complex ? PSCR_C64 : PSCR_R64;
  if (a.device_type() != nb::device::cpu::value)
    raise_kind("value", std::string(name) + " must be a host (NumPy) array");
  if (!dtype_matches(a.dtype(), want))
    raise_kind("dtype", std::string(name) + " has dtype " + dl_dtype_name(a.dtype()) + ", needs " +
                            dtype_name(want));
  if (a.ndim() != 1 || (exact_len ? a.shape(0) != len : a.shape(0) < len))
    raise_kind("value", std::string(name) + " has shape " + array_shape_text(a) + ", needs (" +
                            std::to_string(len) + ",)");
  if (len > 1 && a.stride(0) != 1)
    raise_kind("value", std::string(name) + " is not contiguous");
  return static_cast<const double *>(a.data());
}

double *host_doubles_out(const OutArray &a, const char *name, size_t len, bool complex)
{
  AnyArray view(a);
  return const_cast<double *>(host_doubles(view, name, len, complex));
}

nb::object numpy_copy(const double *src, size_t len, bool complex)
{
  const size_t count = len * (complex ? 2 : 1);
  double *data = new double[count ? count : 1];
  if (count)
    std::memcpy(data, src, count * sizeof *data);
  nb::capsule owner(data, [](void *p) noexcept { delete[] static_cast<double *>(p); });
  size_t shape[1] = {len};
  if (complex)
    return nb::ndarray<nb::numpy, std::complex<double>, nb::ndim<1>>(
               reinterpret_cast<std::complex<double> *>(data), 1, shape, owner)
        .cast();
  return nb::ndarray<nb::numpy, double, nb::ndim<1>>(data, 1, shape, owner).cast();
}

Pencils pencils_from(nb::handle seq, pscr_dtype dtype)
{
  Pencils p;
  nb::sequence items;
  if (!nb::try_cast(seq, items) || nb::isinstance<nb::str>(seq))
    raise_kind("value", "pencils must be a sequence of 2 or 3 pencils");
  const size_t count = nb::len(items);
  if (count != 2 && count != 3)
    raise_kind("value", "pencils has " + std::to_string(count) +
                            " entries; pscr solves 2D (2 pencils) and 3D (3 pencils) problems");
  p.ndim = static_cast<int>(count);
  for (size_t d = 0; d < count; d++) {
    const std::string where = "pencil " + std::to_string(d + 1) + ": ";
    nb::handle item = items[d];
    if (nb::len(item) != 4)
      raise_kind("value", where + "needs four entries (a_diag, a_off, m_diag, m_off)");
    const char *names[4] = {"a_diag", "a_off", "m_diag", "m_off"};
    const void *ptr[4] = {nullptr, nullptr, nullptr, nullptr};
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
      nb::object obj = item[k];
      if (obj.is_none()) {
        if (k == 0 || k == 2)
          raise_kind("value", where + names[k] + " is None");
        continue;
      }
      AnyArray a = to_array(obj, (where + names[k]).c_str());
      if (a.device_type() != nb::device::cpu::value)
        raise_kind("value", where + names[k] + " must be a host (NumPy) array");
      if (!dtype_matches(a.dtype(), dtype))
        raise_kind("dtype", where + names[k] + " has dtype " + dl_dtype_name(a.dtype()) +
                                ", the plan's dtype is " + dtype_name(dtype));
      if (a.ndim() != 1)
        raise_kind("value", where + names[k] + " must be one-dimensional");
      if (k == 0)
        n = a.shape(0);
      const size_t want = (k == 0 || k == 2) ? n : (n ? n - 1 : 0);
      if (a.shape(0) != want)
        raise_kind("value", where + names[k] + " has " + std::to_string(a.shape(0)) +
                                " entries, needs " + std::to_string(want) + " (n = " +
                                std::to_string(n) + ")");
      if (want > 1 && a.stride(0) != 1)
        raise_kind("value", where + names[k] + " is not contiguous");
      if (want > 0)
        ptr[k] = a.data();
      p.keep.push_back(a);
    }
    if (n < 1 || n > 0x7fffffff)
      raise_kind("value", where + "n = " + std::to_string(n) + ", must be at least 1");
    if (n > 1 && !ptr[1])
      raise_kind("value", where + "a_off is None, but n = " + std::to_string(n) + " > 1");
    p.n[d] = static_cast<int>(n);
    p.pencils.push_back(pscr_pencil{static_cast<int>(n), ptr[0], ptr[1], ptr[2], ptr[3]});
  }
  return p;
}

} // namespace pscrpy
