/* SPDX-License-Identifier: MIT */
/* src/sound/charge.c: the error charges of the CROWN arms (see relax.h). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sound/relax.h"
#include "core/parallel.h"

void
cn__crown_charge (const cn_crown_step *st, int64_t s, double e)
{
  if (isnan (e))
    e = INFINITY;
  st->charge[s] = cn__acc_up (st->charge[s], e);
}

void
cn__crown_add_bias (const cn_crown_step *st, int64_t s, double v)
{
  double nb = st->bias[s] + v;
  /* now nb = fl(bias + v); |nb - (bias + v)| <= u |bias + v| <= 2u |nb| (no eta: addition is
   * exact in the subnormal range). */
  st->bias[s] = nb;
  cn__crown_charge (st, s, cn__up (2 * CN_U * fabs (nb)));
}

void
cn__crown_add_sum (const cn_crown_step *st, int64_t s, double d, double t, int64_t cnt, int unbounded)
{
  if (unbounded)
    {
      cn__crown_charge (st, s, INFINITY);
      return;
    }
  if (cnt == 0)
    return;
  cn__crown_charge (st, s, cn__dot_err (t, cnt));
  if (d != 0)
    cn__crown_add_bias (st, s, d);
}

void
cn__crown_add_dot (const cn_crown_step *st, int64_t s, int64_t k, const double *a, const double *b)
{
  double d = 0, t = 0;
  for (int64_t j = 0; j < k; j++)
    {
      d += a[j] * b[j];
      t += fabs (a[j]) * fabs (b[j]);
    }
  cn__crown_add_sum (st, s, d, t, k, 0);
}

double
cn__box_magnitude (const cn_box *box, double *m)
{
  double t = 0;
  for (int64_t j = 0; j < box->n; j++)
    {
      double a = fabs (box->lo[j]), b = fabs (box->hi[j]);
      m[j] = a > b ? a : b;
      if (isnan (m[j]))
        m[j] = INFINITY;
      t += m[j];
    }
  /* now t = fl(||m||_1); (N) with b = 1 gives ||m||_1 <= kappa_n (t + n eta). */
  return cn__up (cn__kappa (box->n) * cn__up (t + (double) box->n * CN_ETA));
}

struct entrywise_ctx
{
  const cn_crown_step *st;
  const double *lam_in, *m;
  int64_t n;
  double m1;
};

static void
entrywise_rows (void *p, int64_t first, int64_t last)
{
  const struct entrywise_ctx *c = p;
  int64_t n = c->n;
  double kap = cn__kappa (n);
  for (int64_t s = first; s < last; s++)
    {
      const double *l = c->lam_in + s * n;
      double t = 0;
      for (int64_t j = 0; j < n; j++)
        if (l[j] != 0)
          t += fabs (l[j]) * c->m[j];
      /* now t = fl(|l| . m); |l| . m <= kappa_n (t + n eta) by (N); the charge is
       * 2u (|l| . m) + eta ||m||_1. */
      double lm = cn__up (kap * cn__up (t + (double) n * CN_ETA));
      cn__crown_charge (c->st, s, cn__up (cn__up (2 * CN_U * lm) + cn__up (CN_ETA * c->m1)));
    }
}

void
cn__crown_charge_entrywise (const cn_crown_step *st, const double *lam_in, int64_t n, const cn_box *box)
{
  double *m = malloc ((size_t) (n ? n : 1) * sizeof *m);
  if (m == NULL)
    {
      for (int64_t s = 0; s < st->rows; s++)
        cn__crown_charge (st, s, INFINITY);   /* sound: the bound becomes -inf */
      return;
    }
  struct entrywise_ctx c = { .st = st, .lam_in = lam_in, .m = m, .n = n };
  c.m1 = cn__box_magnitude (box, m);
  cn__for_rows (st->rows, st->threads, st->rows * n > (1 << 18), entrywise_rows, &c);
  free (m);
}

struct affine_ctx
{
  const cn_crown_step *st;
  const double *w_up;
  int64_t n;
  double g, kap, tail;
};

static void
affine_rows (void *p, int64_t first, int64_t last)
{
  const struct affine_ctx *c = p;
  int64_t n = c->n;
  for (int64_t s = first; s < last; s++)
    {
      const double *l = c->st->lam_out + s * n;
      double t = 0;
      for (int64_t o = 0; o < n; o++)
        if (l[o] != 0)
          t += fabs (l[o]) * c->w_up[o];
      /* now t = fl(|lam_out| . w_up) and the exact product is <= kappa_n (t + n eta). */
      double tw = cn__up (c->kap * cn__up (t + (double) n * CN_ETA));
      cn__crown_charge (c->st, s, cn__up (cn__up (c->g * tw) + c->tail));
    }
}

void
cn__crown_charge_affine (const cn_crown_step *st, const double *w_up, int64_t k, double m1_up)
{
  int64_t n = st->n_out;
  struct affine_ctx c = { .st = st, .w_up = w_up, .n = n, .g = cn__gamma (k), .kap = cn__kappa (n),
                          .tail = cn__up ((double) k * CN_ETA * cn__up (m1_up + 1)) };
  cn__for_rows (st->rows, st->threads, st->rows * n > (1 << 18), affine_rows, &c);
}

/* The memo of an affine arm's charge magnitudes. */
struct affine_memo
{
  int64_t n;
  double m1_up;
  double w_up[];
};

int
cn__crown_charge_affine_memo (const cn_crown_step *st, int64_t k)
{
  const struct affine_memo *mm = st->memo != NULL ? *st->memo : NULL;
  if (mm == NULL || mm->n != st->n_out)
    return 0;
  cn__crown_charge_affine (st, mm->w_up, k, mm->m1_up);
  return 1;
}

void
cn__crown_affine_keep (const cn_crown_step *st, const double *w_up, double m1_up)
{
  struct affine_memo *mm;
  if (st->memo == NULL || (mm = malloc (sizeof *mm + (size_t) st->n_out * sizeof (double))) == NULL)
    return;
  mm->n = st->n_out;
  mm->m1_up = m1_up;
  memcpy (mm->w_up, w_up, (size_t) st->n_out * sizeof (double));
  free (*st->memo);
  *st->memo = mm;
}

void
cn__crown_add_box_min (const cn_crown_step *st, const cn_box *box)
{
  for (int64_t row = 0; row < st->rows; row++)
    {
      double m = cn__box_min_dot (box->n, st->lam_out + row * box->n, box->lo, box->hi);
      /* now m <= min over the box of lam_out[row] . v, exactly (-inf where an end is needed
       * and infinite) */
      if (m == -INFINITY)
        cn__crown_charge (st, row, INFINITY);
      else
        cn__crown_add_bias (st, row, m);
    }
}
