/*
 * pscr-dist-bench: distributed solves (pscr_mpi.h) on the ranks it is
 * started with (mpiexec -n P pscr-dist-bench ...): per problem the solve
 * time (the slowest rank, median of the repetitions after one warm-up),
 * the seconds per stage (local solves, exchanges, separator work: the
 * slowest rank's, medians), the bytes each rank sends per solve (the
 * largest), the plan's memory on the rank holding most (pscr_mpi_info's
 * device_bytes on GPU ranks, host_bytes on CPU ranks; mem_MB, the CSV's
 * plan_bytes_per_rank; not counted for the baseline), and the backward
 * error of the distributed solution, computed
 * distributedly (the operator on each slab with a one-plane halo). Strong
 * scaling by default (the same global problem for every rank count);
 * --weak multiplies n1 by the rank count. scripts/bench-dist.sh runs it on
 * 1, 2, 3 and 4 ranks. --baseline: after each pscr case the transpose-based
 * solver (dist_transpose.h: eigenvector transforms, all-to-alls, Thomas) on
 * the same ranks and f, timed the same way, its answer held to the same
 * bound: one more row (method "transpose").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include <limits.h>
#include <math.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "cli_common.h"
#include "dist_transpose.h"
#include "pscr.h"
#include "pscr_mpi.h"
#if PSCR_HAVE_CUDA
#include <cuda_runtime.h>
#endif

enum { MAX_SIZES = 16 };

/* The backward error every method's answer is held to. */
#define BERR_BOUND 1e-12

typedef struct options {
  int sizes[2][MAX_SIZES], nsizes[2];
  int repeat, threads, weak, backend, devices, planner, device_arrays, baseline;
  unsigned int flags; /* --flags: pscr_options.flags of pscr's plans */
  const char *csv;
} options;

static void usage(FILE *out)
{
  fprintf(out,
          "usage: mpiexec -n P pscr-dist-bench [--2d N,N,..|none] [--3d N,N,..|none]\n"
          "                      [--repeat R] [--threads T] [--weak] [--backend cpu|cuda]\n"
          "                      [--devices K] [--planner none|estimate|measure]\n"
          "                      [--device-arrays] [--baseline] [--flags NAME,...]\n"
          "                      [--csv FILE]\n"
          "  Distributed Dirichlet Poisson (eq. 31) solves over the started ranks,\n"
          "  dimension 1 split evenly (pscr_mpi_split): N^2 or N^3 unknowns (--weak:\n"
          "  n1 = N P). N in 2..65536, at most %d sizes; R >= 1 (default 5); T >= 1\n"
          "  threads per rank (default: OpenMP's); --backend: the ranks' local plans\n"
          "  (cuda: host arrays; rank r on device r mod K, K from --devices, default 1);\n"
          "  --planner: the local plans' pscr_options.planner (default estimate);\n"
          "  --device-arrays: f and u on the ranks' devices (pscr_mpi_solve_device;\n"
          "  with --backend cuda); --baseline: after each case the transpose-based\n"
          "  solver on the same ranks and f (eigenvector transforms of dimensions 1\n"
          "  [and 2], all-to-alls through MPI, or NCCL with --backend cuda, Thomas\n"
          "  along the last dimension), timed the same way, its answer held to the\n"
          "  same backward-error bound (%g); rows of method 'transpose'. Its\n"
          "  OpenMP threads: T, by default the node's processors over its ranks.\n"
          "  --flags: pscr_options.flags of pscr's plans by name (docs/user-guide.md),\n"
          "  e.g. mpi-local-plans: CPU ranks solve their interiors twice instead of\n"
          "  one pass in the transverse modes; pscr's rows are then of method\n"
          "  'pscr-local' (CUDA local plans on host arrays always take that form;\n"
          "  on device arrays they take one pass unless the flag).\n"
          "Exit status: 0, 1 when a case failed or a baseline's answer was\n"
          "rejected, 2 on a bad command line or an unwritable FILE.\n",
          MAX_SIZES, BERR_BOUND);
}

/* The command line into o; -1 after --help, 0, or CLI_USAGE after the message. */
static int parse_args(int argc, char **argv, options *o, int talk)
{
  static const int def2[] = {1023, 2047}, def3[] = {63, 127};
  memset(o, 0, sizeof *o);
  o->planner = PSCR_PLANNER_ESTIMATE; /* the library's default; planners[] is in enum order */
  memcpy(o->sizes[0], def2, sizeof def2);
  memcpy(o->sizes[1], def3, sizeof def3);
  o->nsizes[0] = o->nsizes[1] = 2;
  o->repeat = 5;
  o->devices = 1;
  cli_args c;
  cli_init(&c, "pscr-dist-bench", argc, argv);
  /* Every rank parses; one reports a usage error (the others' stderr goes
     to /dev/null meanwhile). */
  int keep = -1;
  if (!talk) {
    fflush(stderr);
    keep = dup(2);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 2);
      close(null);
    }
  }
  int ret = 0;
  while (!ret && cli_next(&c)) {
    int bad = 0;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      if (talk)
        usage(stdout);
      ret = -1;
      break;
    } else if (cli_is(&c, "--weak")) {
      bad = cli_switch(&c);
      o->weak = 1;
    } else if (cli_is(&c, "--device-arrays")) {
      bad = cli_switch(&c);
      o->device_arrays = 1;
    } else if (cli_is(&c, "--baseline")) {
      bad = cli_switch(&c);
      o->baseline = 1;
    } else if (cli_is(&c, "--2d") || cli_is(&c, "--3d")) {
      const int k = c.opt[2] == '3';
      bad = cli_int_list_or_none(&c, 2, 65536, o->sizes[k], MAX_SIZES, &o->nsizes[k]);
    } else if (cli_is(&c, "--repeat"))
      bad = cli_int(&c, 1, 1000000, &o->repeat);
    else if (cli_is(&c, "--threads"))
      bad = cli_int(&c, 1, 4096, &o->threads);
    else if (cli_is(&c, "--devices"))
      bad = cli_int(&c, 1, 1024, &o->devices);
    else if (cli_is(&c, "--planner")) {
      static const char *const planners[] = {"none", "estimate", "measure"};
      bad = cli_choice(&c, planners, 3, &o->planner);
    } else if (cli_is(&c, "--backend")) {
      static const char *const names[] = {"cpu", "cuda"};
      bad = cli_choice(&c, names, 2, &o->backend);
    } else if (cli_is(&c, "--flags"))
      bad = cli_flags(&c, &o->flags);
    else if (cli_is(&c, "--csv"))
      bad = !(o->csv = cli_value(&c));
    else
      ret = cli_unknown(&c);
    if (bad)
      ret = CLI_USAGE;
  }
  if (!ret && o->device_arrays && !o->backend)
    ret = cli_error(&c, "--device-arrays needs --backend cuda");
  if (keep >= 0) {
    fflush(stderr);
    dup2(keep, 2);
    close(keep);
  }
  return ret;
}

static int rank, nranks;

/* pscr's rows: "pscr" for one pass in the transverse modes (CPU ranks,
   device arrays), "pscr-local" for the two local solves
   (PSCR_FLAG_MPI_LOCAL_PLANS, or CUDA local plans on host arrays). */
static const char *pscr_method_name(const options *o)
{
  return (o->backend && !o->device_arrays) || (o->flags & PSCR_FLAG_MPI_LOCAL_PLANS)
             ? "pscr-local"
             : "pscr";
}

static double median(double *x, int n)
{
  qsort(x, (size_t)n, sizeof *x, cli_cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* The CPUs this process may run on (its affinity mask); 0 where unknown. */
static int cpus_allowed(void)
{
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set);
#endif
  return 0;
}

static double max_over_ranks(double x)
{
  double m = x;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

/*
 * ||A u - f||_inf / (||A||_inf ||u||_inf + ||f||_inf) over the ranks: each
 * applies the operator to its slab with a plane of each neighbour, dimension
 * 1's pencil cut to those rows (exact on its own rows). ||A||_inf the same
 * way: the largest row sum over the cut operator's rows is exact on the
 * rank's own rows and no larger on the two halo planes (they lose their
 * outer neighbours), so the maximum over the ranks is ||A||_inf; each rank
 * sums only its slab's rows (the whole operator's 3^d entries per row on
 * every rank, twice per case, took minutes at 4092 x 1023^2 on 4 ranks).
 */
static double dist_berr(const pscr_problem *pb, int b, int e, const double *f, const double *u)
{
  const size_t pl = (size_t)pb->n[1] * (size_t)(pb->ndim == 3 ? pb->n[2] : 1);
  const size_t rows = (size_t)(e - b);
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int right = rank + 1 < nranks ? rank + 1 : MPI_PROC_NULL;
  const int lo = b - (left != MPI_PROC_NULL), hi = e + (right != MPI_PROC_NULL);
  const size_t lead = (size_t)(b - lo) * pl, n = (size_t)(hi - lo) * pl;
  double *x = malloc(n * sizeof *x), *ax = malloc(n * sizeof *ax);
  if (!x || !ax) {
    free(x);
    free(ax);
    return INFINITY;
  }
  memcpy(x + lead, u, rows * pl * sizeof *x);
  MPI_Sendrecv(u, left != MPI_PROC_NULL ? (int)pl : 0, MPI_DOUBLE, left, 7, x + lead + rows * pl,
               right != MPI_PROC_NULL ? (int)pl : 0, MPI_DOUBLE, right, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(u + (rows - 1) * pl, right != MPI_PROC_NULL ? (int)pl : 0, MPI_DOUBLE, right, 8, x,
               left != MPI_PROC_NULL ? (int)pl : 0, MPI_DOUBLE, left, 8, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  pscr_pencil pen[3];
  memcpy(pen, pb->pencils, sizeof pen);
  const pscr_pencil *g = &pb->pencils[0];
  pen[0] = (pscr_pencil){hi - lo, (const double *)g->a_diag + lo, (const double *)g->a_off + lo,
                         (const double *)g->m_diag + lo,
                         g->m_off ? (const double *)g->m_off + lo : NULL};
  double loc[4] = {0, 0, 0, 0}, all[4];
  pscr_operator_apply(PSCR_R64, pb->ndim, pen, pb->shift, x, ax);
  pscr_operator_norm_inf(PSCR_R64, pb->ndim, pen, pb->shift, &loc[3]);
  for (size_t t = 0; t < rows * pl; t++) {
    loc[0] = fmax(loc[0], fabs(ax[lead + t] - f[t]));
    loc[1] = fmax(loc[1], fabs(u[t]));
    loc[2] = fmax(loc[2], fabs(f[t]));
    if (!isfinite(ax[lead + t]) || !isfinite(u[t])) /* fmax drops NaN */
      loc[0] = INFINITY;
  }
  MPI_Allreduce(loc, all, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  free(x);
  free(ax);
  return all[0] / (all[3] * all[1] + all[2]);
}

/* A row of the table and the CSV (rank 0); ms: solve, local, exchange, separator. */
static void report(const options *o, FILE *csv, const char *what, const char *method,
                   const int *n3, int ndim, double setup, const double *ms, double bytes,
                   double mem, double berr, const char *verdict)
{
  if (rank != 0)
    return;
  char gb[16] = "-";
  if (mem > 0)
    snprintf(gb, sizeof gb, "%.1f", mem / 1e6);
  printf("%-24s %-10s %5d %9.1f %10.3f %9.3f %9.3f %9.3f %12.0f %9s %10.2e%s\n", what, method,
         nranks, 1e3 * setup, ms[0], ms[1], ms[2], ms[3], bytes, gb, berr, verdict);
  if (csv) {
    fprintf(csv, "poisson%dd,%d,%d,%d,%d,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.0f,%.3e,%s,", ndim,
            n3[0], n3[1], ndim == 3 ? n3[2] : 1, nranks,
            o->backend ? (o->device_arrays ? "cuda-device" : "cuda") : "cpu",
            o->weak ? "weak" : "strong", setup, ms[0], ms[1], ms[2], ms[3], bytes, berr, method);
    if (mem > 0)
      fprintf(csv, "%.0f", mem);
    fprintf(csv, "\n");
  }
  /* Row by row: a run cut off by a time limit keeps the rows it made. */
  if (csv)
    fflush(csv);
  fflush(stdout);
}

/*
 * The transpose-based baseline (dist_transpose.h) on the same ranks and f
 * as pscr's case (sf, su: pscr's device arrays with --device-arrays), timed
 * as pscr is, its answer held to the same bound. 0; 1 when it failed or its
 * answer was rejected (not available: 0, said on the table).
 */
static int run_transpose(const options *o, const pscr_problem *pb, const int *n3, int b, int e,
                         const double *f, const void *sf, void *su, const char *what,
                         FILE *csv)
{
  char msg[256] = "";
  dt_solver *s = NULL;
  pscr_status st = dt_create(&s, MPI_COMM_WORLD, pb->ndim, pb->pencils, pb->shift[0], b, e,
                             o->backend, o->backend ? rank % o->devices : 0, o->device_arrays,
                             o->threads, msg, sizeof msg);
  if (st) {
    if (rank == 0)
      printf("%-24s %-10s %s: %s\n", what, "transpose",
             st == PSCR_ERROR_NOT_SUPPORTED ? "not available" : "FAILED", msg);
    return st != PSCR_ERROR_NOT_SUPPORTED;
  }
  const double setup = max_over_ranks(dt_setup_seconds(s));
  const size_t nloc = (size_t)(e - b) * (size_t)n3[1] * (size_t)(pb->ndim == 3 ? n3[2] : 1);
  double *u = malloc(nloc * sizeof *u), *t = malloc(3 * (size_t)o->repeat * sizeof *t);
  int failed = !u || !t, any = failed;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any)
    snprintf(msg, sizeof msg, "host memory for u on a rank");
  /* The same arrays as pscr's solves: host f and u, or device ones. */
  const void *in = o->device_arrays ? sf : f;
  void *out = o->device_arrays ? su : (void *)u;
  double local = 0, exch = 0;
  st = any ? PSCR_ERROR_HOST_ALLOC : dt_solve(s, in, out, &local, &exch, msg, sizeof msg);
  for (int r = 0; !st && r < o->repeat; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    st = dt_solve(s, in, out, &local, &exch, msg, sizeof msg);
    t[r] = max_over_ranks(MPI_Wtime() - t0);
    t[o->repeat + r] = max_over_ranks(local);
    t[2 * o->repeat + r] = max_over_ranks(exch);
  }
#if PSCR_HAVE_CUDA
  if (!st && o->device_arrays) {
    failed = cudaMemcpy(u, su, nloc * sizeof *u, cudaMemcpyDeviceToHost) != cudaSuccess;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
      snprintf(msg, sizeof msg, "copying u from the device");
      st = PSCR_ERROR_DEVICE;
    }
  }
#endif
  failed = st != PSCR_SUCCESS;
  if (failed) {
    if (rank == 0)
      printf("%-24s %-10s FAILED: %s\n", what, "transpose", msg);
  } else {
    const double bytes = max_over_ranks(dt_bytes_sent(s));
    const double berr = dist_berr(pb, b, e, f, u);
    const double ms[4] = {1e3 * median(t, o->repeat), 1e3 * median(t + o->repeat, o->repeat),
                          1e3 * median(t + 2 * o->repeat, o->repeat), 0.0};
    failed = !(berr <= BERR_BOUND);
    if (!failed)
      report(o, csv, what, "transpose", n3, pb->ndim, setup, ms, bytes, 0.0, berr, "");
    else if (rank == 0) /* not a row to compare */
      printf("%-24s %-10s REJECTED: backward error %.2e above %g\n", what, "transpose", berr,
             BERR_BOUND);
  }
  free(u);
  free(t);
  dt_destroy(s);
  return failed;
}

/* One case; 0, or 1 when it failed (on any rank). */
static int run_case(const options *o, int ndim, int n, FILE *csv)
{
  int n3[3] = {o->weak ? n * nranks : n, n, n};
  pscr_problem *pb = NULL;
  pscr_status st = pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, ndim, n3, NULL, 0, 0);
  int b = 0, e = 0;
  if (!st)
    st = pscr_mpi_split(n3[0], nranks, rank, &b, &e);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = o->backend ? PSCR_BACKEND_CUDA : PSCR_BACKEND_CPU;
  opts.num_threads = o->threads;
  opts.device = o->backend ? rank % o->devices : 0;
  opts.planner = (pscr_planner)o->planner;
  opts.flags = o->flags;
  pscr_mpi_plan *plan = NULL;
  double t0 = MPI_Wtime();
  if (!st)
    st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R64, ndim, pb->pencils, pb->shift, b,
                              e, &opts);
  const double setup = max_over_ranks(MPI_Wtime() - t0);
  char what[64];
  if (ndim == 2)
    snprintf(what, sizeof what, "poisson2d %dx%d", n3[0], n);
  else
    snprintf(what, sizeof what, "poisson3d %dx%dx%d", n3[0], n, n);
  if (st) {
    if (rank == 0)
      printf("%-24s %-10s FAILED: %s (%s)\n", what, pscr_method_name(o), pscr_status_string(st),
             pscr_last_error());
    pscr_problem_destroy(pb);
    return 1;
  }
  const size_t pl = (size_t)n * (size_t)(ndim == 3 ? n : 1), nloc = (size_t)(e - b) * pl;
  double *f = malloc(nloc * sizeof *f), *u = malloc(nloc * sizeof *u);
  double *t = malloc(4 * (size_t)o->repeat * sizeof *t);
  int failed = !f || !u || !t;
  /* On the rank's threads: a 1023^3 slab is 10^9 sines, seconds on one. */
  if (!failed) {
#pragma omp parallel for schedule(static) num_threads(o->threads > 0 ? o->threads : omp_get_max_threads())
    for (size_t i = 0; i < nloc; i++)
      f[i] = sin(0.37 * (double)((size_t)b * pl + i)) + 1.0;
  }
  /* Device arrays: f and u copied there once; the solves run on them. */
  void *sf = f, *su = u;
#if PSCR_HAVE_CUDA
  if (!failed && o->device_arrays) {
    sf = su = NULL;
    failed = cudaSetDevice(opts.device) != cudaSuccess ||
             cudaMalloc(&sf, nloc * sizeof *f) != cudaSuccess ||
             cudaMalloc(&su, nloc * sizeof *u) != cudaSuccess ||
             cudaMemcpy(sf, f, nloc * sizeof *f, cudaMemcpyHostToDevice) != cudaSuccess;
  }
#else
  if (o->device_arrays)
    failed = 1; /* no CUDA in this build: the plan above failed already */
#endif
  if (!failed)
    failed = (o->device_arrays ? pscr_mpi_solve_device(plan, sf, su, NULL)
                               : pscr_mpi_solve(plan, sf, su)) != PSCR_SUCCESS; /* warm-up */
  for (int r = 0; !failed && r < o->repeat; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    failed = (o->device_arrays ? pscr_mpi_solve_device(plan, sf, su, NULL)
                               : pscr_mpi_solve(plan, sf, su)) != PSCR_SUCCESS;
    pscr_mpi_info info;
    failed |= pscr_mpi_plan_info(plan, &info) != PSCR_SUCCESS;
    t[r] = max_over_ranks(MPI_Wtime() - t0);
    t[o->repeat + r] = max_over_ranks(info.local_seconds);
    t[2 * o->repeat + r] = max_over_ranks(info.exchange_seconds);
    t[3 * o->repeat + r] = max_over_ranks(info.separator_seconds);
  }
#if PSCR_HAVE_CUDA
  if (o->device_arrays && !failed)
    failed = cudaMemcpy(u, su, nloc * sizeof *u, cudaMemcpyDeviceToHost) != cudaSuccess;
#endif
  int any = failed;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  failed = any;
  if (failed) {
    if (rank == 0)
      printf("%-24s %-10s FAILED: %s\n", what, pscr_method_name(o), pscr_last_error());
  } else {
    pscr_mpi_info info;
    memset(&info, 0, sizeof info);
    pscr_mpi_plan_info(plan, &info); /* it succeeded in the loop above */
    double bytes = (double)info.bytes_sent, maxb = bytes;
    MPI_Allreduce(&bytes, &maxb, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double berr = dist_berr(pb, b, e, f, u);
    const double ms[4] = {1e3 * median(t, o->repeat), 1e3 * median(t + o->repeat, o->repeat),
                          1e3 * median(t + 2 * o->repeat, o->repeat),
                          1e3 * median(t + 3 * o->repeat, o->repeat)};
    failed = !(berr <= BERR_BOUND);
    /* The plan's memory on the rank that holds most: on the device for
       CUDA ranks, else on the host. */
    double mem = (double)(o->backend ? info.device_bytes : info.host_bytes), maxm = mem;
    MPI_Allreduce(&mem, &maxm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    report(o, csv, what, pscr_method_name(o), n3, ndim, setup, ms, maxb, maxm, berr,
           failed ? "  FAIL" : "");
  }
  /* The baseline after every pscr case that ran (the same on every rank). */
  if (o->baseline && !any)
    failed |= run_transpose(o, pb, n3, b, e, f, sf, su, what, csv);
#if PSCR_HAVE_CUDA
  if (o->device_arrays) {
    cudaFree(sf);
    cudaFree(su);
  }
#endif
  free(f);
  free(u);
  free(t);
  pscr_mpi_plan_destroy(plan);
  pscr_problem_destroy(pb);
  return failed;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  options o;
  const int parsed = parse_args(argc, argv, &o, rank == 0);
  if (parsed) {
    MPI_Finalize();
    return parsed < 0 ? 0 : CLI_USAGE;
  }
  FILE *csv = NULL;
  int bad_csv = 0;
  if (rank == 0 && o.csv) {
    csv = fopen(o.csv, "w");
    if (!csv)
      fprintf(stderr, "pscr-dist-bench: cannot write --csv file '%s'\n", o.csv);
    else
      fprintf(csv, "problem,n1,n2,n3,ranks,backend,scaling,setup_s,solve_ms,local_ms,"
                   "exchange_ms,separator_ms,bytes_per_rank,berr,method,plan_bytes_per_rank\n");
    bad_csv = !csv;
  }
  MPI_Bcast(&bad_csv, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad_csv) {
    MPI_Finalize();
    return CLI_USAGE;
  }
  /* The backward-error checks' operator products (pscr_operator_apply and
     _norm_inf take OpenMP's default team) on the rank's --threads, not on
     every processor of the node in each rank. */
  if (o.threads > 0)
    omp_set_num_threads(o.threads);
  /* More threads than CPUs to run on (mpiexec binds a rank to one core by
     default at two ranks or fewer): the host's stages then crawl, each
     barrier waiting for threads that share a core. Said, not refused. */
  int cpus = cpus_allowed(), least = cpus;
  MPI_Allreduce(&cpus, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0 && least > 0 && o.threads > least)
    fprintf(stderr, "pscr-dist-bench: warning: --threads %d but a rank may run on %d CPU%s only "
            "(its affinity mask): start it with mpiexec --bind-to none, or fewer threads\n",
            o.threads, least, least == 1 ? "" : "s");
  if (rank == 0) {
    static const char *const planners[] = {"none", "estimate", "measure"};
    printf("# pscr-dist-bench (pscr %s): %d ranks, %s scaling, local plans on the %s (planner "
           "%s), %s arrays; ms: slowest rank, median of %d after a warm-up\n",
           PSCR_VERSION_STRING, nranks, o.weak ? "weak" : "strong", o.backend ? "GPU" : "CPU",
           planners[o.planner], o.device_arrays ? "device" : "host", o.repeat);
    printf("%-24s %-10s %5s %9s %10s %9s %9s %9s %12s %9s %10s\n", "problem", "method", "ranks",
           "setup_ms", "solve_ms", "local", "exchange", "separator", "bytes/rank", "mem_MB",
           "berr");
  }
  int failed = 0;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < o.nsizes[k]; i++)
      failed |= run_case(&o, k + 2, o.sizes[k][i], csv);
  if (csv)
    fclose(csv);
  MPI_Finalize();
  return failed ? 1 : 0;
}
