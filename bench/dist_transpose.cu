/*
 * The GPU executor of the transpose-based baseline (dist_transpose_plan.h):
 * the plan's steps on one device per rank, on one stream: GEMMs on cuBLAS,
 * copies by cudaMemcpy2DAsync, all-to-alls as grouped ncclSend/ncclRecv on
 * device buffers (the own block by cudaMemcpyAsync, where no step wrote it
 * in place), the Thomas kernel below. Built with CUDA where CMake finds
 * NCCL (DT_HAVE_GPU).
 *
 * Never hang: the communicator is non-blocking (every NCCL call settles by
 * polling its state, with a time limit), a solve waits for its stream by
 * polling it and the communicator's asynchronous error with the same limit
 * (the communicator is aborted when it runs out: a peer failed), and a rank
 * whose local step failed still makes every exchange, so that no peer waits
 * for it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "baseline_cuda.h"
#include "dense_md.h" /* bl_dense_tri_one: the Thomas sweep */
#include "dist_transpose_plan.h"

/* Seconds a rank waits for NCCL or its stream before it gives up. */
#define DT_GPU_TIMEOUT_S 120.0

struct dt_gpu {
  const dt_plan *plan;
  int device, host_arrays, sms;
  cudaStream_t stream;
  cublasHandle_t blas;
  ncclComm_t comm;
  int comm_broken; /* aborted: no more exchanges */
  double *d[DT_NBUF]; /* F and U: for host arrays only */
  double *d_lam1, *d_lam2, *d_fac;
  cudaEvent_t *ev; /* nsteps + 3 */
};

#define DT_CUBLAS_GOTO(st, label, call)                                                      \
  do {                                                                                       \
    cublasStatus_t b_ = (call);                                                              \
    if (b_ != CUBLAS_STATUS_SUCCESS) {                                                       \
      (st) = b_ == CUBLAS_STATUS_ALLOC_FAILED ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE;  \
      snprintf(msg, len, "%s: %s", #call, cublasGetStatusString(b_));                        \
      goto label;                                                                            \
    }                                                                                        \
  } while (0)

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Abort the communicator (a peer or NCCL failed); later solves skip NCCL. */
static void comm_abort(dt_gpu *g)
{
  if (g->comm && !g->comm_broken)
    ncclCommAbort(g->comm);
  g->comm = NULL;
  g->comm_broken = 1;
}

/* Wait for a non-blocking NCCL call @p r to settle (ncclInProgress). */
static pscr_status nccl_settle(dt_gpu *g, ncclResult_t r, const char *what, char *msg,
                               size_t len)
{
  const double t0 = now_s();
  while (r == ncclInProgress) {
    if (ncclCommGetAsyncError(g->comm, &r) != ncclSuccess)
      r = ncclInternalError;
    if (r == ncclInProgress && now_s() - t0 > DT_GPU_TIMEOUT_S) {
      comm_abort(g);
      snprintf(msg, len, "%s: no progress in %.0f s (a peer failed?); communicator aborted",
               what, DT_GPU_TIMEOUT_S);
      return PSCR_ERROR_DEVICE;
    }
  }
  if (r != ncclSuccess) {
    const char *why = ncclGetErrorString(r);
    comm_abort(g);
    snprintf(msg, len, "%s: %s; communicator aborted", what, why);
    return PSCR_ERROR_DEVICE;
  }
  return PSCR_SUCCESS;
}

/* Wait for the stream, watching the communicator, with the time limit. */
static pscr_status wait_stream(dt_gpu *g, char *msg, size_t len)
{
  const double t0 = now_s();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(g->stream);
    if (e == cudaSuccess)
      return PSCR_SUCCESS;
    if (e != cudaErrorNotReady) {
      (void)cudaGetLastError();
      snprintf(msg, len, "the solve's stream: %s", cudaGetErrorString(e));
      return PSCR_ERROR_DEVICE;
    }
    ncclResult_t a = ncclSuccess;
    if (g->comm && (ncclCommGetAsyncError(g->comm, &a) != ncclSuccess ||
                    (a != ncclSuccess && a != ncclInProgress))) {
      comm_abort(g);
      snprintf(msg, len, "NCCL failed during the solve (%s); communicator aborted",
               ncclGetErrorString(a));
      return PSCR_ERROR_DEVICE;
    }
    if (now_s() - t0 > DT_GPU_TIMEOUT_S) {
      comm_abort(g);
      snprintf(msg, len, "the solve did not finish in %.0f s (a peer failed?); communicator "
               "aborted", DT_GPU_TIMEOUT_S);
      return PSCR_ERROR_DEVICE;
    }
  }
}

/*
 * Thomas for the plan's dt_tri: system (grp, j) = sys, row i at
 * x[grp ns n + j + i ns]; consecutive threads take consecutive j, so they
 * read and write consecutive addresses (bl_dense_tri_one with row stride
 * ns).
 */
__global__ void k_dt_tri(const double *__restrict__ fac, int n, int ns, long long nsys, double c,
                         const double *__restrict__ lam1, const double *__restrict__ lam2,
                         double *__restrict__ x, double *__restrict__ cp)
{
  const double *ad = fac, *ao = fac + n, *md = fac + 2 * (size_t)n, *mo = fac + 3 * (size_t)n;
  for (long long sys = (long long)blockIdx.x * blockDim.x + threadIdx.x; sys < nsys;
       sys += (long long)gridDim.x * blockDim.x) {
    const long long grp = sys / ns, j = sys % ns;
    const double s = c + lam1[j] + (lam2 ? lam2[grp] : 0.0);
    const size_t off = (size_t)grp * (size_t)ns * (size_t)n;
    bl_dense_tri_one(ad, ao, md, mo, n, (size_t)ns, (size_t)j, s, x + off, cp + off);
  }
}

static pscr_status run_gemm(dt_gpu *g, const dt_gemm *m, double *const *ops, char *msg,
                            size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  const double one = 1.0;
  const cublasOperation_t ta = m->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = m->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const double *a = ops[m->a] + m->oa, *b = ops[m->b] + m->ob;
  double *c = ops[m->c] + m->oc;
  if (m->m < 1 || m->n < 1)
    return st;
  if (m->batch == 1)
    DT_CUBLAS_GOTO(st, out, cublasDgemm(g->blas, ta, tb, m->m, m->n, m->k, &one, a, m->lda, b,
                                        m->ldb, &m->beta, c, m->ldc));
  else
    DT_CUBLAS_GOTO(st, out,
                   cublasDgemmStridedBatched(g->blas, ta, tb, m->m, m->n, m->k, &one, a, m->lda,
                                             m->sa, b, m->ldb, m->sb, &m->beta, c, m->ldc,
                                             m->sc, m->batch));
out:
  return st;
}

static pscr_status run_copy(dt_gpu *g, const dt_copy *c, double *const *ops, char *msg,
                            size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  const size_t e = sizeof(double);
  if (c->rows > 0 && c->width > 0)
    BL_CUDA_GOTO(st, out,
                 cudaMemcpy2DAsync(ops[c->dst] + c->od, c->pd * e, ops[c->src] + c->os,
                                   c->ps * e, c->width * e, (size_t)c->rows,
                                   cudaMemcpyDeviceToDevice, g->stream));
out:
  return st;
}

static pscr_status run_a2a(dt_gpu *g, const dt_a2a *x, double *const *ops, char *msg,
                           size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  const dt_plan *p = g->plan;
  const dt_pattern *t = &p->pat[x->pattern];
  const size_t *sc = x->reverse ? t->rcnt : t->scnt, *so = x->reverse ? t->roff : t->soff;
  const size_t *rc = x->reverse ? t->scnt : t->rcnt, *ro = x->reverse ? t->soff : t->roff;
  const double *src = ops[x->src];
  double *dst = ops[x->dst];
  const int me = p->rank;
  if (p->nranks > 1) {
    if (g->comm_broken) {
      snprintf(msg, len, "the NCCL communicator was aborted by an earlier failure");
      return PSCR_ERROR_DEVICE;
    }
    /* The group is always closed; a call that failed in it breaks the
       exchange for the peers too, so the communicator is aborted. */
    ncclResult_t bad = ncclGroupStart();
    for (int q = 0; (bad == ncclSuccess || bad == ncclInProgress) && q < p->nranks; q++) {
      if (q != me && sc[q])
        bad = ncclSend(src + so[q], sc[q], ncclDouble, q, g->comm, g->stream);
      if (q != me && rc[q] && (bad == ncclSuccess || bad == ncclInProgress))
        bad = ncclRecv(dst + ro[q], rc[q], ncclDouble, q, g->comm, g->stream);
    }
    const ncclResult_t r = ncclGroupEnd();
    if (bad != ncclSuccess && bad != ncclInProgress) {
      comm_abort(g);
      snprintf(msg, len, "ncclSend/ncclRecv: %s; communicator aborted", ncclGetErrorString(bad));
      return PSCR_ERROR_DEVICE;
    }
    if ((st = nccl_settle(g, r, "ncclGroupEnd", msg, len)))
      return st;
  }
  if (x->self && sc[me])
    BL_CUDA_GOTO(st, out,
                 cudaMemcpyAsync(dst + ro[me], src + so[me], sc[me] * sizeof(double),
                                 cudaMemcpyDeviceToDevice, g->stream));
out:
  return st;
}

/* Launch the Thomas kernel for @p t. */
static pscr_status run_tri(dt_gpu *g, const dt_tri *t, double *const *ops, char *msg, size_t len)
{
  const long long nsys = (long long)t->groups * t->ns;
  /* Few systems (2D: n1 / P of them): smaller blocks spread them wider. */
  int threads = BL_THREADS;
  while (threads > 32 && (nsys + threads - 1) / threads < 2 * (long long)g->sms)
    threads /= 2;
  long long blocks = (nsys + threads - 1) / threads;
  if (blocks > (1 << 20))
    blocks = 1 << 20; /* the kernel strides over the rest */
  if (blocks > 0)
    k_dt_tri<<<(unsigned)blocks, threads, 0, g->stream>>>(
        g->d_fac, t->n, t->ns, nsys, g->plan->c, g->d_lam1 + t->la,
        t->use_lb ? g->d_lam2 + t->lb : NULL, ops[t->x], ops[t->cp]);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    snprintf(msg, len, "the Thomas kernel: %s", cudaGetErrorString(e));
    return PSCR_ERROR_DEVICE;
  }
  return PSCR_SUCCESS;
}

/* The first failure's status and message are kept. */
static void keep(pscr_status *st, pscr_status now, char *msg, size_t len, const char *text)
{
  if (now && !*st) {
    *st = now;
    snprintf(msg, len, "%s", text);
  }
}

static pscr_status record(cudaEvent_t ev, cudaStream_t stream, char *msg, size_t len)
{
  const cudaError_t e = cudaEventRecord(ev, stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(msg, len, "cudaEventRecord: %s", cudaGetErrorString(e));
    return PSCR_ERROR_DEVICE;
  }
  return PSCR_SUCCESS;
}

extern "C" pscr_status dt_gpu_solve(dt_gpu *g, const double *f, double *u, double *step_ms,
                                    char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  char text[256] = "";
  const dt_plan *p = g->plan;
  const int ns = p->nsteps;
  const size_t bytes = p->nloc * sizeof(double);
  double *ops[DT_NBUF];
  memcpy(ops, g->d, sizeof ops);
  ops[DT_F] = g->host_arrays ? g->d[DT_F] : (double *)f;
  ops[DT_U] = g->host_arrays ? g->d[DT_U] : u;
  for (int i = 0; i < ns + 2; i++)
    step_ms[i] = 0;
  /* Events: ev[0] before the copy of f, ev[i + 1] after step i - 1 (ev[1]
     after the copy), ev[ns + 2] after the copy of u. */
  {
    cudaError_t e = cudaSetDevice(g->device);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(text, sizeof text, "cudaSetDevice(%d): %s", g->device, cudaGetErrorString(e));
      keep(&st, PSCR_ERROR_DEVICE, msg, len, text);
    }
  }
  if (!st)
    keep(&st, record(g->ev[0], g->stream, text, sizeof text), msg, len, text);
  if (!st && g->host_arrays) {
    const cudaError_t e = cudaMemcpyAsync(ops[DT_F], f, bytes, cudaMemcpyHostToDevice, g->stream);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(text, sizeof text, "f to the device: %s", cudaGetErrorString(e));
      keep(&st, PSCR_ERROR_DEVICE, msg, len, text);
    }
  }
  if (!st)
    keep(&st, record(g->ev[1], g->stream, text, sizeof text), msg, len, text);
  /* Every exchange is made whatever failed before it, so that no peer waits. */
  for (int i = 0; i < ns; i++) {
    const dt_step *s = &p->steps[i];
    pscr_status now = PSCR_SUCCESS;
    if (s->kind == DT_A2A)
      now = run_a2a(g, &s->a2a, ops, text, sizeof text);
    else if (st)
      continue;
    else if (s->kind == DT_GEMM)
      now = run_gemm(g, &s->gemm, ops, text, sizeof text);
    else if (s->kind == DT_COPY)
      now = run_copy(g, &s->copy, ops, text, sizeof text);
    else
      now = run_tri(g, &s->tri, ops, text, sizeof text);
    keep(&st, now, msg, len, text);
    if (!st)
      keep(&st, record(g->ev[i + 2], g->stream, text, sizeof text), msg, len, text);
  }
  if (!st && g->host_arrays) {
    const cudaError_t e = cudaMemcpyAsync(u, ops[DT_U], bytes, cudaMemcpyDeviceToHost, g->stream);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(text, sizeof text, "u to the host: %s", cudaGetErrorString(e));
      keep(&st, PSCR_ERROR_DEVICE, msg, len, text);
    }
  }
  if (!st)
    keep(&st, record(g->ev[ns + 2], g->stream, text, sizeof text), msg, len, text);
  keep(&st, wait_stream(g, text, sizeof text), msg, len, text);
  if (st)
    return st;
  float ms = 0;
  for (int i = 0; i < ns + 2; i++) {
    /* step i: ev[i + 1] .. ev[i + 2]; then f in, u out */
    const int a = i < ns ? i + 1 : i == ns ? 0 : ns + 1, b = i < ns ? i + 2 : i == ns ? 1 : ns + 2;
    const cudaError_t e = cudaEventElapsedTime(&ms, g->ev[a], g->ev[b]);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(msg, len, "cudaEventElapsedTime: %s", cudaGetErrorString(e));
      return PSCR_ERROR_DEVICE;
    }
    step_ms[i] = ms;
  }
  return PSCR_SUCCESS;
}

extern "C" size_t dt_gpu_id_bytes(void)
{
  return sizeof(ncclUniqueId);
}

extern "C" pscr_status dt_gpu_make_id(void *id, char *msg, size_t len)
{
  const ncclResult_t r = ncclGetUniqueId((ncclUniqueId *)id);
  if (r != ncclSuccess) {
    snprintf(msg, len, "ncclGetUniqueId: %s", ncclGetErrorString(r));
    return PSCR_ERROR_DEVICE;
  }
  return PSCR_SUCCESS;
}

extern "C" pscr_status dt_gpu_uuid(int device, unsigned char uuid[16], char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  int ndev = 0;
  cudaDeviceProp prop;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || device < 0 || device >= ndev) {
    (void)cudaGetLastError();
    snprintf(msg, len, "no CUDA device %d (%d found)", device, ndev);
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  BL_CUDA_GOTO(st, out, cudaGetDeviceProperties(&prop, device));
  memcpy(uuid, prop.uuid.bytes, 16);
out:
  return st;
}

static pscr_status upload(double **d, const double *h, size_t count, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  BL_CUDA_GOTO(st, out, cudaMalloc((void **)d, (count ? count : 1) * sizeof(double)));
  if (h && count)
    BL_CUDA_GOTO(st, out, cudaMemcpy(*d, h, count * sizeof(double), cudaMemcpyHostToDevice));
out:
  return st;
}

extern "C" pscr_status dt_gpu_create(dt_gpu **out, const dt_plan *plan, int device,
                                     int host_arrays, const double *w1, const double *w2,
                                     const double *lam1, const double *lam2, const double *fac,
                                     char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  dt_gpu *g = (dt_gpu *)calloc(1, sizeof *g);
  *out = NULL;
  if (!g) {
    snprintf(msg, len, "dt_gpu: %zu bytes", sizeof *g);
    return PSCR_ERROR_HOST_ALLOC;
  }
  g->plan = plan;
  g->device = device;
  g->host_arrays = host_arrays;
  const int ns = plan->nsteps, nl = plan->n[plan->ndim - 1];
  g->ev = (cudaEvent_t *)calloc((size_t)ns + 3, sizeof *g->ev);
  if (!g->ev) {
    snprintf(msg, len, "%d events", ns + 3);
    st = PSCR_ERROR_HOST_ALLOC;
    goto fail;
  }
  BL_CUDA_GOTO(st, fail, cudaSetDevice(device));
  BL_CUDA_GOTO(st, fail, cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, device));
  BL_CUDA_GOTO(st, fail, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
  for (int i = 0; i < ns + 3; i++)
    BL_CUDA_GOTO(st, fail, cudaEventCreate(&g->ev[i]));
  DT_CUBLAS_GOTO(st, fail, cublasCreate(&g->blas));
  DT_CUBLAS_GOTO(st, fail, cublasSetStream(g->blas, g->stream));
  for (int b = DT_F; b < DT_NBUF; b++) {
    if ((b == DT_F || b == DT_U) && !host_arrays)
      continue;
    const double *h = b == DT_W1 ? w1 : b == DT_W2 ? w2 : NULL;
    if ((b != DT_W2 || plan->ndim == 3) && (st = upload(&g->d[b], h, plan->size[b], msg, len)))
      goto fail;
  }
  if ((st = upload(&g->d_lam1, lam1, (size_t)plan->n[0], msg, len)) ||
      (plan->ndim == 3 && (st = upload(&g->d_lam2, lam2, (size_t)plan->n[1], msg, len))) ||
      (st = upload(&g->d_fac, fac, 4 * (size_t)nl, msg, len)))
    goto fail;
  /* upload's copies from pageable memory may return before they land, and
     g->stream is non-blocking: wait for them once, here. */
  BL_CUDA_GOTO(st, fail, cudaDeviceSynchronize());
  *out = g;
  return PSCR_SUCCESS;
fail:
  dt_gpu_destroy(g);
  return st;
}

extern "C" pscr_status dt_gpu_connect(dt_gpu *g, const void *id, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  ncclUniqueId uid;
  memcpy(&uid, id, sizeof uid);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  BL_CUDA_GOTO(st, out, cudaSetDevice(g->device));
  {
    const ncclResult_t r =
        ncclCommInitRankConfig(&g->comm, g->plan->nranks, uid, g->plan->rank, &config);
    if (r != ncclSuccess && r != ncclInProgress) {
      snprintf(msg, len, "ncclCommInitRankConfig: %s", ncclGetErrorString(r));
      if (g->comm)
        comm_abort(g);
      g->comm_broken = 1;
      return PSCR_ERROR_DEVICE;
    }
    st = nccl_settle(g, r, "ncclCommInitRankConfig", msg, len);
  }
out:
  return st;
}

extern "C" void dt_gpu_destroy(dt_gpu *g)
{
  if (!g)
    return;
  cudaSetDevice(g->device);
  if (g->comm && !g->comm_broken) {
    char msg[128];
    if (nccl_settle(g, ncclCommFinalize(g->comm), "ncclCommFinalize", msg, sizeof msg) ==
        PSCR_SUCCESS)
      ncclCommDestroy(g->comm);
  }
  if (g->stream && !g->comm_broken)
    cudaStreamSynchronize(g->stream);
  if (g->blas)
    cublasDestroy(g->blas);
  for (int i = 0; g->ev && i < g->plan->nsteps + 3; i++)
    if (g->ev[i])
      cudaEventDestroy(g->ev[i]);
  free(g->ev);
  for (int b = 0; b < DT_NBUF; b++)
    cudaFree(g->d[b]);
  cudaFree(g->d_lam1);
  cudaFree(g->d_lam2);
  cudaFree(g->d_fac);
  if (g->stream)
    cudaStreamDestroy(g->stream);
  (void)cudaGetLastError(); /* teardown errors are not reported; leave nothing sticky */
  free(g);
}
