import shutil,sys
d=sys.argv[2] if len(sys.argv)>2 else '/tmp/eg/eigen_i'
shutil.rmtree(d,ignore_errors=True); shutil.copytree(sys.argv[1] if len(sys.argv)>1 else '/work/main/eigen',d)
p=d+'/invit_impl.h'; s=open(p).read()
def R(a,b):
    global s
    assert a in s, a[:60]
    s=s.replace(a,b)
R("""            if (bi < nbatch)
              EIG(sweep_batch)(cx, &sw, &tb[((s - 1) % 2) * nb + q], fail);""","""            if (bi < nbatch) {
              extern double g_t_sweep, now_s(void); double t0 = now_s();
              EIG(sweep_batch)(cx, &sw, &tb[((s - 1) % 2) * nb + q], fail);
              g_t_sweep += now_s() - t0; }""")
R("""          if (mine_ok && EIG_PIV_LANES)
            EIG(piv_produce)(cx, t, scr);""","""          extern double g_t_prod[4], now_s(void); double t0 = now_s();
          if (mine_ok && EIG_PIV_LANES)
            EIG(piv_produce)(cx, t, scr);""")
R("""            for (int l = 0; l < EIG_TW_LANES; l++)
              t->ok[l] = 0; /* inverse iteration instead */
        }""","""            for (int l = 0; l < EIG_TW_LANES; l++)
              t->ok[l] = 0; /* inverse iteration instead */
          g_t_prod[tid & 3] += now_s() - t0;
        }""")
R("""  EIG(block_stage)(cx, sw, tb, ok, kf, j0);
  int applied = j0;""","""  extern double g_t_bs, g_t_rf, now_s(void); double tt0 = now_s();
  EIG(block_stage)(cx, sw, tb, ok, kf, j0);
  g_t_bs += now_s() - tt0;
  int applied = j0;""")
R("""      int stop = EIG(run_finish)(cx, sw, tb, pos, e, fail);""","""      tt0 = now_s();
      int stop = EIG(run_finish)(cx, sw, tb, pos, e, fail);
      g_t_rf += now_s() - tt0;""")
open(p,'w').write(s)
p=d+'/driver_impl.h'; s=open(p).read()
R("""  st = EIG_EIGENVALUES(n, d, p, dn, pn, tnorm);""","""  extern double g_t_lr, g_t_vec, now_s(void); double t0 = now_s();
  st = EIG_EIGENVALUES(n, d, p, dn, pn, tnorm);
  g_t_lr += now_s() - t0;""")
R("""  if (w || EIG_REFINE)
    st = EIG(inverse_iteration)""","""  t0 = now_s();
  if (w || EIG_REFINE)
    st = EIG(inverse_iteration)""")
R("""out:
  free(buf);""","""  g_t_vec += now_s() - t0;
out:
  free(buf);""")
open(p,'w').write(s)
