/* SPDX-License-Identifier: MIT */
/* src/lp/lp.c: linear programs by GLPK's simplex, for their dual solution only.
 *
 * Nothing the solver returns is trusted as a bound: its multipliers are a guess that the caller
 * re-evaluates soundly (beta-CROWN's sweep with beta = the multipliers, ALGORITHMS.md 5.1: any
 * beta >= 0 gives a sound bound, the rounding of the residual charged as in every sweep, the
 * method of Neumaier and Shcherbina 2004), so a wrong or inexact solution can only make a bound
 * looser, never wrong.
 *
 * GLPK prints and, on an invalid call, aborts: terminal output is switched off around every
 * call, every input is checked finite before it is loaded, and an error hook long-jumps back so
 * that even an internal GLPK error becomes a status (the environment is then freed, as GLPK's
 * manual requires). */
#include <config.h>
#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include "lp/lp.h"

struct hook
{
  jmp_buf env;
};

static void
on_glpk_error (void *info)
{
  longjmp (((struct hook *) info)->env, 1);
}

cn_status
cn__lp_solve (int64_t n, int64_t m, const double *obj, const double *a, const double *b, const double *lo,
              const double *hi, double penalty, double *mu, double *x, double *opt, cn_error *err)
{
  if (n < 1 || m < 0)
    return cn_error_set (err, CN_EINVAL, "lp: %lld variables and %lld rows", (long long) n, (long long) m);
  if (n > 1000000 || m > 1000000 || n * (m + 1) > ((int64_t) 1 << 28))
    return cn_error_set (err, CN_EUNSUPPORTED, "lp: %lld variables and %lld rows are too many", (long long) n,
                         (long long) m);
  if (!(penalty > 0) || !isfinite (penalty))
    return cn_error_set (err, CN_EINVAL, "lp: penalty %g not positive and finite", penalty);
  for (int64_t i = 0; i < n; i++)
    if (!isfinite (obj[i]) || !isfinite (lo[i]) || !isfinite (hi[i]) || lo[i] > hi[i])
      return cn_error_set (err, CN_EINVAL, "lp: variable %lld has a bad objective or bounds", (long long) i);
  for (int64_t r = 0; r < m; r++)
    {
      if (!isfinite (b[r]))
        return cn_error_set (err, CN_EINVAL, "lp: row %lld has a bad right-hand side", (long long) r);
      for (int64_t i = 0; i < n; i++)
        if (!isfinite (a[r * n + i]))
          return cn_error_set (err, CN_EINVAL, "lp: row %lld has a bad coefficient", (long long) r);
    }
  /* nonzeros of [A, -I] (1-based, GLPK's convention) */
  int64_t nz = m;
  for (int64_t k = 0; k < m * n; k++)
    nz += a[k] != 0;
  int *ia = malloc ((size_t) (nz + 1) * sizeof *ia), *ja = malloc ((size_t) (nz + 1) * sizeof *ja);
  double *ar = malloc ((size_t) (nz + 1) * sizeof *ar);
  if (ia == NULL || ja == NULL || ar == NULL)
    {
      free (ia);
      free (ja);
      free (ar);
      return cn_error_set (err, CN_ENOMEM, "lp: out of memory for %lld nonzeros", (long long) nz);
    }
  int64_t k = 0;
  for (int64_t r = 0; r < m; r++)
    {
      for (int64_t i = 0; i < n; i++)
        if (a[r * n + i] != 0)
          {
            k++;
            ia[k] = (int) r + 1;
            ja[k] = (int) i + 1;
            ar[k] = a[r * n + i];
          }
      k++;
      ia[k] = (int) r + 1;
      ja[k] = (int) (n + r) + 1;  /* the row's slack t_r >= 0: A_r x - t_r <= b_r */
      ar[k] = -1;
    }
  cn_status st = CN_OK;
  struct hook hook;
  volatile int term = glp_term_out (GLP_OFF);
  glp_prob *volatile lp = NULL;
  if (setjmp (hook.env) != 0)
    {
      /* GLPK failed inside: its environment is unusable, free it (and every problem with it) */
      glp_error_hook (NULL, NULL);
      glp_free_env ();
      free (ia);
      free (ja);
      free (ar);
      return cn_error_set (err, CN_EUNSUPPORTED, "lp: GLPK failed");
    }
  glp_error_hook (on_glpk_error, &hook);
  lp = glp_create_prob ();
  glp_set_obj_dir (lp, GLP_MIN);
  if (m > 0)
    glp_add_rows (lp, (int) m);
  glp_add_cols (lp, (int) (n + m));
  for (int64_t r = 0; r < m; r++)
    glp_set_row_bnds (lp, (int) r + 1, GLP_UP, 0.0, b[r]);
  for (int64_t i = 0; i < n; i++)
    {
      glp_set_col_bnds (lp, (int) i + 1, lo[i] == hi[i] ? GLP_FX : GLP_DB, lo[i], hi[i]);
      glp_set_obj_coef (lp, (int) i + 1, obj[i]);
    }
  for (int64_t r = 0; r < m; r++)
    {
      glp_set_col_bnds (lp, (int) (n + r) + 1, GLP_LO, 0.0, 0.0);
      glp_set_obj_coef (lp, (int) (n + r) + 1, penalty);
    }
  if (nz > 0)
    glp_load_matrix (lp, (int) nz, ia, ja, ar);
  glp_smcp parm;
  glp_init_smcp (&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.meth = GLP_DUALP;
  parm.tol_bnd = 1e-10;       /* tighter than the defaults (1e-7): a near-degenerate vertex otherwise
                                 leaves multipliers 1e-5 off the optimum */
  parm.tol_dj = 1e-10;
  int rc = glp_simplex (lp, &parm);
  if (rc != 0 || glp_get_status (lp) != GLP_OPT)
    st = cn_error_set (err, CN_EUNSUPPORTED, "lp: no optimum (GLPK code %d, status %d)", rc,
                       rc == 0 ? glp_get_status (lp) : 0);
  else
    {
      /* a minimisation's <= row has dual <= 0: its multiplier in min obj.x + mu.(A x - b) is
       * -dual, clamped at 0 (the solver's tolerance may leave a tiny positive dual) */
      for (int64_t r = 0; r < m; r++)
        {
          double d = -glp_get_row_dual (lp, (int) r + 1);
          mu[r] = d > 0 && isfinite (d) ? d : 0;
        }
      if (x != NULL)
        for (int64_t i = 0; i < n; i++)
          x[i] = glp_get_col_prim (lp, (int) i + 1);
      if (opt != NULL)
        *opt = glp_get_obj_val (lp);
    }
  glp_delete_prob (lp);
  glp_error_hook (NULL, NULL);
  glp_term_out (term);
  free (ia);
  free (ja);
  free (ar);
  return st;
}
