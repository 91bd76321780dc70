// PlanCore: one pscr_plan, its options, its solves on host and device
// arrays, its description, and its release. pscr.Plan (python/pscr/_plan.py)
// gives it the public interface: names for the options, array frameworks,
// streams, allocation of results.
//
// A plan may be used by one thread at a time (docs/user-guide.md, Threads),
// and its solves run without the GIL, so each PlanCore holds a mutex that
// every solve and close() take.
#include "pscr_py.h"

#include <atomic>
#include <complex>
#include <mutex>

#include <nanobind/stl/complex.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

namespace pscrpy {

namespace {

const char *backend_name(pscr_backend b)
{
  switch (b) {
  case PSCR_BACKEND_CPU: return "cpu";
  case PSCR_BACKEND_CUDA: return "cuda";
  case PSCR_BACKEND_AUTO: return "auto";
  }
  return "unknown";
}

const char *method_name(pscr_method m)
{
  switch (m) {
  case PSCR_METHOD_AUTO: return "auto";
  case PSCR_METHOD_REDUCTION: return "reduction";
  case PSCR_METHOD_TRANSFORM: return "transform";
  }
  return "unknown";
}

nb::dict cost_dict(const pscr_cost &c)
{
  nb::dict d;
  d["flops"] = c.flops;
  d["bytes"] = c.bytes;
  d["launches"] = c.launches;
  return d;
}

// The byte range [lo, hi) that a set of vectors spans.
struct Span {
  uintptr_t lo, hi;
};
Span span_of(const Vectors &v, size_t esz)
{
  uintptr_t lo = reinterpret_cast<uintptr_t>(v.data);
  return {lo, lo + ((v.count - 1) * v.stride + v.size) * esz};
}

} // namespace

class PlanCore {
public:
  PlanCore(int dtype_code, nb::handle pencil_seq, std::complex<double> shift, int backend,
           int device, int num_threads, bool check_finite, int cuda_rows_per_thread,
           int max_batch, unsigned int flags, std::tuple<int, int> method, int planner,
           int refine, bool refine_single, bool device_only)
  {
    dtype_ = dtype_from_code(dtype_code);
    Pencils p = pencils_from(pencil_seq, dtype_);
    ndim_ = p.ndim;
    for (int d = 0; d < 3; d++)
      n_[d] = p.n[d];
    Scalar c = scalar_of(dtype_, shift.real(), shift.imag(), "shift");

    pscr_options opts;
    pscr_options_init(&opts);
    opts.backend = static_cast<pscr_backend>(backend);
    opts.device = device;
    opts.num_threads = num_threads;
    opts.check_finite = check_finite ? 1 : 0;
    opts.cuda_rows_per_thread = cuda_rows_per_thread;
    opts.max_batch = max_batch;
    opts.flags = flags;
    opts.method[0] = static_cast<pscr_method>(std::get<0>(method));
    opts.method[1] = static_cast<pscr_method>(std::get<1>(method));
    opts.planner = static_cast<pscr_planner>(planner);
    opts.refine = refine;
    opts.refine_single = refine_single ? 1 : 0;
    opts.device_only = device_only ? 1 : 0;
    device_ = device;

    Outcome oc;
    {
      // Plan creation runs eigenproblems (or, with the MEASURE planner,
      // timed solves): let other Python threads run meanwhile.
      nb::gil_scoped_release nogil;
      oc.capture(pscr_plan_create(&plan_, dtype_, ndim_, p.pencils.data(), c.bytes, &opts));
    }
    oc.raise_if_failed();
  }

  ~PlanCore() { pscr_plan_destroy(plan_); }

  PlanCore(const PlanCore &) = delete;
  PlanCore &operator=(const PlanCore &) = delete;

  void close()
  {
    closed_ = true; // solves that have not started yet see it at once
    nb::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mutex_);
    pscr_plan_destroy(plan_);
    plan_ = nullptr;
  }

  // Without the mutex: a solve in another thread may hold it for long.
  bool closed() const { return closed_; }

  // u = A^-1 f for one vector or a batch; host arrays through pscr_solve
  // (_batch), CUDA arrays through pscr_solve_device(_batch) on `stream`
  // (a cudaStream_t as an integer, 0 for the default stream).
  void solve(nb::handle f_obj, nb::handle out_obj, uintptr_t stream)
  {
    if (closed())
      raise_kind("closed", "the plan is closed (close() or the end of its with block "
                           "released it); create a new Plan");
    AnyArray f = to_array(f_obj, "f");
    OutArray u = to_out_array(out_obj, "out");
    Vectors vf = check_vectors(f, "f", dtype_, ndim_, n_, true);
    Vectors vu = check_vectors(AnyArray(u), "out", dtype_, ndim_, n_, true);
    if (vf.batch != vu.batch || vf.count != vu.count)
      raise_kind("value", "out holds " + std::to_string(vu.count) + (vu.batch ? " (batch)" : "") +
                              " vector(s), f " + std::to_string(vf.count) +
                              (vf.batch ? " (batch)" : "") + ": their shapes must match");
    if (vf.device != vu.device)
      raise_kind("value", std::string("f is in ") + (vf.device ? "CUDA" : "host") +
                              " memory and out in " + (vu.device ? "CUDA" : "host") +
                              " memory: both must be on the same side");
    if (vf.device && (vf.device_id != device_ || vu.device_id != device_))
      raise_kind("value", "f is on CUDA device " + std::to_string(vf.device_id) + " and out on " +
                              std::to_string(vu.device_id) + ", the plan on device " +
                              std::to_string(device_));
    if (vf.count == 0)
      return; // an empty batch: nothing to solve
    // pscr_solve allows u == f and no other overlap, and does not check it
    // (the batch functions do); refuse it here for every kind of call.
    const size_t esz = elem_size(dtype_);
    const Span sf = span_of(vf, esz), su = span_of(vu, esz);
    const bool in_place = vf.data == vu.data && vf.stride == vu.stride;
    if (!in_place && sf.lo < su.hi && su.lo < sf.hi)
      raise_kind("value", "out overlaps f; the only overlap allowed is out=f (in place)");

    Outcome oc;
    bool was_closed = false;
    {
      nb::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(mutex_);
      if (!plan_) {
        was_closed = true; // closed by another thread since the check above
      } else if (vf.device) {
        void *s = reinterpret_cast<void *>(stream);
        oc.capture(vf.batch ? pscr_solve_device_batch(plan_, static_cast<int>(vf.count), vf.data,
                                                      vf.stride, vu.data, vu.stride, s)
                            : pscr_solve_device(plan_, vf.data, vu.data, s));
      } else {
        oc.capture(vf.batch ? pscr_solve_batch(plan_, static_cast<int>(vf.count), vf.data,
                                               vf.stride, vu.data, vu.stride)
                            : pscr_solve(plan_, vf.data, vu.data));
      }
    }
    if (was_closed)
      raise_kind("closed", "the plan was closed while this solve waited for it");
    oc.raise_if_failed();
  }

  // `count` device solves in one C loop, for the timing comparison of
  // python/tools/time_device.py: the C device API's own cost per call.
  void repeat_device(nb::handle f_obj, nb::handle out_obj, uintptr_t stream, int count)
  {
    AnyArray f = to_array(f_obj, "f");
    OutArray u = to_out_array(out_obj, "out");
    Vectors vf = check_vectors(f, "f", dtype_, ndim_, n_, false);
    Vectors vu = check_vectors(AnyArray(u), "out", dtype_, ndim_, n_, false);
    if (!vf.device || !vu.device)
      raise_kind("value", "repeat_device takes CUDA arrays");
    Outcome oc;
    {
      nb::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(mutex_);
      pscr_status st = plan_ ? PSCR_SUCCESS : PSCR_ERROR_INVALID_VALUE;
      for (int i = 0; i < count && st == PSCR_SUCCESS; i++)
        st = pscr_solve_device(plan_, vf.data, vu.data, reinterpret_cast<void *>(stream));
      oc.capture(st);
    }
    oc.raise_if_failed();
  }

  nb::dict info()
  {
    pscr_info in;
    Outcome oc;
    bool was_closed = false;
    {
      // The mutex may be held by a solve in another thread: wait for it
      // without the GIL, so that Python threads run meanwhile.
      nb::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(mutex_);
      if (!plan_)
        was_closed = true;
      else
        oc.capture(pscr_plan_info(plan_, &in));
    }
    if (was_closed)
      raise_kind("closed", "the plan is closed; it has no description");
    oc.raise_if_failed();
    nb::dict d;
    d["backend"] = backend_name(in.backend);
    d["num_threads"] = in.num_threads;
    d["dtype"] = dtype_name(in.dtype);
    d["ndim"] = in.ndim;
    d["shape"] = in.ndim == 3 ? nb::make_tuple(in.n[0], in.n[1], in.n[2])
                              : nb::make_tuple(in.n[0], in.n[1]);
    d["levels"] = nb::make_tuple(in.levels[0], in.levels[1]);
    d["eigenpairs"] = in.eigenpairs;
    d["workspace_bytes"] = in.workspace_bytes;
    d["device_bytes"] = in.device_bytes;
    d["level3_rows_per_thread"] = in.level3_rows_per_thread;
    d["level3_threads_per_system"] = in.level3_threads_per_system;
    d["level3_toeplitz"] = in.level3_toeplitz != 0;
    d["level3_pivot_table"] = in.level3_pivot_table != 0;
    d["level3_staged"] = in.level3_staged != 0;
    d["level3_fused_levels"] = in.level3_fused_levels;
    d["level3_fused_back"] = in.level3_fused_back != 0;
    d["cuda_early_launch"] = in.cuda_early_launch != 0;
    nb::dict cost;
    for (int s = 0; s < PSCR_STAGE_COUNT; s++)
      cost[pscr_stage_name(static_cast<pscr_stage>(s))] = cost_dict(in.cost[s]);
    d["cost"] = cost;
    d["cost_total"] = cost_dict(in.cost_total);
    d["min_bytes"] = in.min_bytes;
    d["method"] = nb::make_tuple(method_name(in.method[0]), method_name(in.method[1]));
    d["transform_defect"] = nb::make_tuple(in.transform_defect[0], in.transform_defect[1]);
    nb::list cands;
    for (int i = 0; i < in.ncandidates && i < 4; i++) {
      const pscr_candidate &c = in.candidate[i];
      nb::dict cd;
      cd["method"] = nb::make_tuple(method_name(c.method[0]), method_name(c.method[1]));
      cd["status"] = static_cast<int>(c.status);
      cd["reason"] = std::string(c.reason);
      cd["estimate_seconds"] = c.estimate_seconds;
      cd["measured_seconds"] = c.measured_seconds;
      cands.append(cd);
    }
    d["candidates"] = cands;
    d["chosen"] = in.chosen;
    d["plan_seconds"] = in.plan_seconds;
    d["transform_sine"] = nb::make_tuple(in.transform_sine[0] != 0, in.transform_sine[1] != 0);
    return d;
  }

  int dtype_code() const { return static_cast<int>(dtype_); }
  nb::tuple shape() const
  {
    return ndim_ == 3 ? nb::make_tuple(n_[0], n_[1], n_[2]) : nb::make_tuple(n_[0], n_[1]);
  }
  int device() const { return device_; }

private:
  pscr_plan *plan_ = nullptr;
  pscr_dtype dtype_ = PSCR_R64;
  int ndim_ = 0;
  int n_[3] = {1, 1, 1};
  int device_ = 0;
  std::atomic<bool> closed_{false};
  std::mutex mutex_;
};

void register_plan(nb::module_ &m)
{
  nb::class_<PlanCore>(m, "PlanCore",
                       "One pscr_plan (the C API's). Use pscr.Plan, which wraps it.")
      .def(nb::init<int, nb::handle, std::complex<double>, int, int, int, bool, int, int,
                    unsigned int, std::tuple<int, int>, int, int, bool, bool>(),
           nb::arg("dtype"), nb::arg("pencils"), nb::arg("shift"), nb::kw_only(),
           nb::arg("backend"), nb::arg("device"), nb::arg("num_threads"),
           nb::arg("check_finite"), nb::arg("cuda_rows_per_thread"), nb::arg("max_batch"),
           nb::arg("flags"), nb::arg("method"), nb::arg("planner"), nb::arg("refine"),
           nb::arg("refine_single"), nb::arg("device_only"),
           "pscr_plan_create with the options given (C enum values).")
      .def("solve", &PlanCore::solve, nb::arg("f"), nb::arg("out"), nb::arg("stream"),
           "Solve into out (host arrays, or CUDA arrays on the stream given as an integer).")
      .def("repeat_device", &PlanCore::repeat_device, nb::arg("f"), nb::arg("out"),
           nb::arg("stream"), nb::arg("count"),
           "count calls of pscr_solve_device in one C loop (timing baseline).")
      .def("info", &PlanCore::info, "pscr_plan_info as a dict.")
      .def("close", &PlanCore::close, "pscr_plan_destroy; later solves raise.")
      .def_prop_ro("closed", &PlanCore::closed)
      .def_prop_ro("dtype", &PlanCore::dtype_code)
      .def_prop_ro("shape", &PlanCore::shape)
      .def_prop_ro("device", &PlanCore::device);
}

} // namespace pscrpy
