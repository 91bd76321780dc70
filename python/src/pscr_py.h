// Shared declarations of the extension module pscr._pscr: how errors are
// raised, how arrays are checked, and the registration function of each
// source file. The Python side (python/pscr/) wraps these in the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <pscr.h>

namespace nb = nanobind;

namespace pscrpy {

// ------------------------------------------------------------------ errors
// Every failure reaches Python as an instance of pscr._errors' classes,
// built there from a status and a message, so that the hierarchy is
// written once, in Python.

// The exception of a C status with the library's detail message.
[[noreturn]] void raise_status(pscr_status status, const std::string &detail);

// A failure found by the binding before the C call: `kind` names the class
// in pscr._errors ("dtype", "closed" or "value").
[[noreturn]] void raise_kind(const char *kind, const std::string &detail);

// Raises for any status but PSCR_SUCCESS with pscr_last_error()'s text.
// Call it right after the C call, in the same thread (the text is
// thread-local and valid until the next pscr call).
void check(pscr_status status);

// A C call's outcome captured while the GIL was released: the status and
// its detail message, read in the calling thread before anything else runs.
struct Outcome {
  pscr_status status = PSCR_SUCCESS;
  std::string detail;
  void capture(pscr_status st);
  void raise_if_failed() const; // with the GIL held
};

// ------------------------------------------------------------------ dtypes
size_t elem_size(pscr_dtype dtype);
const char *dtype_name(pscr_dtype dtype);      // "float64", ...
bool dtype_matches(nb::dlpack::dtype dl, pscr_dtype dtype);
std::string dl_dtype_name(nb::dlpack::dtype dl); // "float32", "int64", ...
pscr_dtype dtype_from_code(int code);            // raises for unknown codes

// A scalar of any dtype, from a Python complex (real dtypes refuse a
// non-zero imaginary part). Sixteen bytes hold any of the four types.
struct Scalar {
  alignas(16) unsigned char bytes[16];
};
Scalar scalar_of(pscr_dtype dtype, double re, double im, const char *what);

// ------------------------------------------------------------------ arrays
using AnyArray = nb::ndarray<nb::ro>;   // read-only access suffices
using OutArray = nb::ndarray<>;         // must be writable

// An array as pscr reads it: its address, device and the vectors it holds
// (one, or a batch along a leading axis `stride` elements apart).
struct Vectors {
  void *data = nullptr;
  bool device = false;   // CUDA memory (device or managed), not host
  int device_id = 0;
  bool batch = false;    // a leading batch axis
  size_t count = 1;      // vectors (the batch's length, 0 for an empty batch)
  size_t stride = 0;     // elements between consecutive vectors
  size_t size = 0;       // elements of one vector
};

// Casts a Python object to an array (NumPy, the buffer protocol, or any
// DLPack producer or capsule); raises a clear InvalidValueError when it is
// none, or, for writable use, when it is read-only.
AnyArray to_array(nb::handle obj, const char *name);
OutArray to_out_array(nb::handle obj, const char *name);

// Checks dtype, shape (n[0..ndim-1], or a leading batch axis when
// allow_batch), C-contiguity of each vector and the device, and says which
// was wrong. n has ndim entries.
Vectors check_vectors(const AnyArray &a, const char *name, pscr_dtype dtype, int ndim,
                      const int *n, bool allow_batch);

// The shape (n1, n2[, n3]) as "(3, 4)" for messages.
std::string shape_text(int ndim, const int *n);

// A 1-D host array of float64 (or complex128 where `complex`) with at
// least `min_len` entries; used by the problem builders' inputs.
const double *host_doubles(const AnyArray &a, const char *name, size_t len, bool complex,
                           bool exact_len = true);
double *host_doubles_out(const OutArray &a, const char *name, size_t len, bool complex);

// A new NumPy array that owns a copy of `len` elements (float64 or, with
// `complex`, complex128 from interleaved pairs).
nb::object numpy_copy(const double *src, size_t len, bool complex);

// ------------------------------------------------------------------ pencils
// Pencils as the binding receives them: a sequence of (a_diag, a_off,
// m_diag, m_off) tuples of 1-D host arrays of the dtype (a_off may be None
// when n == 1, m_off None for a diagonal M). The arrays stay referenced
// while the pencils are in use.
struct Pencils {
  std::vector<pscr_pencil> pencils;
  std::vector<AnyArray> keep;
  int ndim = 0;
  int n[3] = {1, 1, 1};
};
Pencils pencils_from(nb::handle seq, pscr_dtype dtype);

// ------------------------------------------------------------------ parts
void register_errors(nb::module_ &m);
void register_plan(nb::module_ &m);
void register_problems(nb::module_ &m);
void register_operator(nb::module_ &m);

} // namespace pscrpy
