/* SPDX-License-Identifier: MIT */
/* src/io/onnx/spectral.c: ONNX's DFT onto rfft (the forward one-sided transform of a real
 * signal), with the reshapes, permutes, slices and pads around it. */
#include <config.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* The floating input 0 of DFT. */
static cn_status
float_in (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st == CN_OK && !cn_dtype_is_float (cn__onnx_sort (nc, 0)))
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "input 0 ('%s') holds %s values, FLOAT or DOUBLE expected",
                       nc->in[0]->name, cn__onnx_sort_name (cn__onnx_sort (nc, 0)));
  return st;
}

/* DFT (opset 17) onto rfft: a real signal (last extent 1), onesided = 1, inverse = 0, along the
 * signal axis AXIS (default 1; any axis but the last, through permutes).  x [..., N, ..., 1] is
 * reshaped to [..., N, ...], the axis moved last, cut or padded with zeros to dft_length (a
 * constant), transformed (rfft, unnormalised as ONNX's DFT: X_k = sum_t x_t e^{-2 pi i k t / L})
 * to [..., L/2 + 1, 2] and the axis moved back: [..., L/2 + 1, ..., 2]. */
static cn_status
op_dft (cn__onnx_node *nc)
{
  int64_t axis, inverse, onesided, len = -1;
  int x, r, a = 0, n, v;
  cn_status st;
  if ((st = float_in (nc)) != CN_OK || (st = cn__onnx_attr_int (nc, "axis", 1, &axis)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "inverse", 0, &inverse)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "onesided", 0, &onesided)) != CN_OK)
    return st;
  if (inverse != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute inverse = %lld is not supported (only the forward "
                         "transform of a real signal, onto rfft)", (long long) inverse);
  if (onesided != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute onesided = %lld is not supported (only the one-sided "
                         "transform of a real signal, onto rfft)", (long long) onesided);
  cn_shape s0 = *cn__onnx_shape (nc, 0);
  const cn_shape *s = &s0;
  char b[128];
  r = s->rank;
  if (r < 2 || s->dim[r - 1] != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %s is not supported (only a real signal: rank 2 or more, "
                         "last extent 1)", cn_shape_format (s, b, sizeof b));
  if (axis < -r || axis > r - 2 || (axis < 0 && axis + r > r - 2))
    return cn_error_set (nc->err, CN_EINVAL, "attribute axis = %lld is out of range for rank %d", (long long) axis, r);
  a = (int) (axis < 0 ? axis + r : axis);
  if (cn__onnx_has (nc, 1))
    {
      if ((st = cn__onnx_const_ints (nc, 1, "dft_length", &len, 1, &n)) != CN_OK)
        return st;
      if (n != 1 || len < 1 || len > CN__ONNX_GEOM_MAX)
        return cn_error_set (nc->err, CN_EINVAL, "dft_length must be one integer in [1, 2^31]");
    }
  /* y = x without its last axis, the signal axis last */
  cn_shape t = *s, u;
  t.dim[--t.rank] = 0;
  int perm[CN_MAX_RANK], back[CN_MAX_RANK];
  for (int i = 0, j = 0; i < r - 1; i++)
    if (i != a)
      perm[j++] = i;
  perm[r - 2] = a;
  int64_t N = s->dim[a];
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_reshape (nc, x, &t, "signal", &x)) != CN_OK
      || (st = cn__onnx_permute (nc, x, r - 1, perm, "signal_last", &x)) != CN_OK)
    return st;
  u = *cn_graph_value_shape (nc->imp->g, x);
  if (len >= 0 && len < N)
    {
      cn_params_slice ps;
      memset (&ps, 0, sizeof ps);
      ps.rank = u.rank;
      for (int i = 0; i < u.rank; i++)
        {
          ps.stop[i] = u.dim[i];
          ps.step[i] = 1;
        }
      ps.stop[u.rank - 1] = len;
      st = cn__onnx_add1 (nc, CN_OP_SLICE, &ps, x, "cut", &x);
    }
  else if (len > N)
    {
      cn_params_pad pp;
      memset (&pp, 0, sizeof pp);
      pp.rank = u.rank;
      pp.end[u.rank - 1] = len - N;
      st = cn__onnx_add1 (nc, CN_OP_PAD, &pp, x, "padded", &x);
    }
  if (st != CN_OK)
    return st;
  cn_params_fft pf = { len >= 0 ? len : N, CN_FFT_BACKWARD };
  int last = a == r - 2;
  if ((st = cn__onnx_add1 (nc, CN_OP_RFFT, &pf, x, last ? NULL : "spectrum", &v)) != CN_OK)
    return st;
  /* the result [others..., M, 2]; output axis i < a is others[i], a is M, then the others, then 2 */
  for (int i = 0; i < r; i++)
    back[i] = i < a ? i : i == a ? r - 2 : i < r - 1 ? i - 1 : r - 1;
  if ((st = cn__onnx_permute (nc, v, r, back, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

const struct cn__onnx_handler cn__onnx_spectral[] = {
  { "DFT", op_dft, "axis inverse onesided", 1 },
  { NULL, NULL, NULL, 0 },
};
