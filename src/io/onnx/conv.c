/* SPDX-License-Identifier: MIT */
/* src/io/onnx/conv.c: ONNX's convolutions and pools (Conv, ConvTranspose, MaxPool, AveragePool)
 * onto conv, convTranspose and pool, with their spatial geometry (kernel, strides, dilations,
 * pads or auto_pad) read from the attributes. */
#include <config.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* The spatial geometry shared by Conv, MaxPool and AveragePool: kernel K (given), strides,
 * dilations, pads (or auto_pad) for the ND spatial axes of an input of shape S. */
struct geometry
{
  int64_t kernel[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
};

static cn_status
read_geometry (cn__onnx_node *nc, const cn_shape *s, int nd, int with_dilations, struct geometry *gm)
{
  static const char *const modes[] = { "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", NULL };
  int64_t buf[6];
  int n, mode;
  cn_status st;
  for (int i = 0; i < nd; i++)
    {
      gm->stride[i] = 1;
      gm->dilation[i] = 1;
      gm->pad_begin[i] = gm->pad_end[i] = 0;
    }
  if ((st = cn__onnx_attr_ints (nc, "strides", buf, 3, &n)) != CN_OK)
    return st;
  if (n >= 0 && n != nd)
    return cn_error_set (nc->err, CN_EINVAL, "strides has %d entries for %d spatial axes", n, nd);
  for (int i = 0; i < n; i++)
    gm->stride[i] = buf[i];
  if (with_dilations)
    {
      if ((st = cn__onnx_attr_ints (nc, "dilations", buf, 3, &n)) != CN_OK)
        return st;
      if (n >= 0 && n != nd)
        return cn_error_set (nc->err, CN_EINVAL, "dilations has %d entries for %d spatial axes", n, nd);
      for (int i = 0; i < n; i++)
        gm->dilation[i] = buf[i];
    }
  for (int i = 0; i < nd; i++)
    if (gm->stride[i] < 1 || gm->dilation[i] < 1 || gm->kernel[i] < 1 || gm->stride[i] > CN__ONNX_GEOM_MAX
        || gm->dilation[i] > CN__ONNX_GEOM_MAX || gm->kernel[i] > CN__ONNX_GEOM_MAX)
      return cn_error_set (nc->err, CN_EINVAL, "kernel %lld, stride %lld, dilation %lld on spatial axis %d",
                           (long long) gm->kernel[i], (long long) gm->stride[i], (long long) gm->dilation[i], i);
  if ((st = cn__onnx_attr_choice (nc, "auto_pad", "NOTSET", modes, &mode)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "pads", buf, 6, &n)) != CN_OK)
    return st;
  if (mode != 0 && n >= 0)
    return cn_error_set (nc->err, CN_EINVAL, "attributes auto_pad and pads are both given");
  if (n >= 0 && n != 2 * nd)
    return cn_error_set (nc->err, CN_EINVAL, "pads has %d entries for %d spatial axes", n, nd);
  for (int i = 0; i < nd && n >= 0; i++)
    {
      gm->pad_begin[i] = buf[i];
      gm->pad_end[i] = buf[nd + i];
      if (buf[i] < 0 || buf[nd + i] < 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "negative pads are not supported");
      if (buf[i] > CN__ONNX_GEOM_MAX || buf[nd + i] > CN__ONNX_GEOM_MAX)
        return cn_error_set (nc->err, CN_EINVAL, "pads above %lld", (long long) CN__ONNX_GEOM_MAX);
    }
  if (mode >= 2)
    for (int i = 0; i < nd; i++)
      {
        /* SAME: the output extent is ceil(S / stride); the total padding is split evenly, the
         * odd element at the end (SAME_UPPER) or at the beginning (SAME_LOWER). */
        int64_t sz = s->dim[2 + i], o = (sz + gm->stride[i] - 1) / gm->stride[i];
        int64_t keff = gm->dilation[i] * (gm->kernel[i] - 1) + 1;
        int64_t total = (o - 1) * gm->stride[i] + keff - sz;
        if (total < 0)
          total = 0;
        gm->pad_begin[i] = mode == 2 ? total / 2 : total - total / 2;
        gm->pad_end[i] = total - gm->pad_begin[i];
      }
  return CN_OK;
}

static cn_status
op_conv (cn__onnx_node *nc)
{
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK)
    return st;
  cn_shape xs0 = *cn__onnx_shape (nc, 0), ws0 = *cn__onnx_shape (nc, 1);
  const cn_shape *xs = &xs0, *ws = &ws0;
  char s1[128], s2[128];
  int nd = xs->rank - 2;
  if (nd < 1 || nd > 3 || ws->rank != xs->rank)
    return cn_error_set (nc->err, CN_ESHAPE, "input %s and weight %s: expected [N,C,S...] and [F,C/group,K...] "
                         "with 1 to 3 spatial axes", cn_shape_format (xs, s1, sizeof s1),
                         cn_shape_format (ws, s2, sizeof s2));
  struct geometry gm;
  int64_t ks[3], group;
  int n;
  if ((st = cn__onnx_attr_ints (nc, "kernel_shape", ks, 3, &n)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "group", 1, &group)) != CN_OK)
    return st;
  for (int i = 0; i < nd; i++)
    {
      gm.kernel[i] = ws->dim[2 + i];
      if (n >= 0 && (n != nd || ks[i] != ws->dim[2 + i]))
        return cn_error_set (nc->err, CN_ESHAPE, "kernel_shape disagrees with the weight %s",
                             cn_shape_format (ws, s1, sizeof s1));
    }
  if ((st = read_geometry (nc, xs, nd, 1, &gm)) != CN_OK)
    return st;
  cn_params_conv p;
  memset (&p, 0, sizeof p);
  p.nd = nd;
  p.groups = group;
  for (int i = 0; i < nd; i++)
    {
      p.stride[i] = gm.stride[i];
      p.dilation[i] = gm.dilation[i];
      p.pad_begin[i] = gm.pad_begin[i];
      p.pad_end[i] = gm.pad_end[i];
    }
  int in[3], v;
  if ((st = cn__onnx_in (nc, 0, &in[0])) != CN_OK || (st = cn__onnx_in (nc, 1, &in[1])) != CN_OK)
    return st;
  if (cn__onnx_has (nc, 2))
    st = cn__onnx_in (nc, 2, &in[2]);
  else
    {
      /* No bias in the model: zeros of extent F. */
      cn_shape bs;
      cn_shape_make (&bs, 1, &ws->dim[0], NULL);
      st = cn__onnx_fill (nc, cn_graph_value_dtype (nc->imp->g, in[1]), &bs, 0.0, "zero_bias", &in[2]);
    }
  if (st == CN_OK)
    st = cn__onnx_add (nc, CN_OP_CONV, &p, 3, in, NULL, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

static cn_status
op_pool (cn__onnx_node *nc, cn_pool_kind kind)
{
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK)
    return st;
  if (cn__onnx_out_wanted (nc, 1))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the Indices output is not supported");
  const cn_shape *xs = cn__onnx_shape (nc, 0);
  char s1[128];
  int nd = xs->rank - 2, n;
  if (nd < 1 || nd > 3)
    return cn_error_set (nc->err, CN_ESHAPE, "input %s: expected [N,C,S...] with 1 to 3 spatial axes",
                         cn_shape_format (xs, s1, sizeof s1));
  struct geometry gm;
  int64_t ks[3], ceil_mode, cip = 0, order;
  if ((st = cn__onnx_attr_ints (nc, "kernel_shape", ks, 3, &n)) != CN_OK)
    return st;
  if (n != nd)
    return cn_error_set (nc->err, CN_EINVAL, "kernel_shape must have %d entries", nd);
  memcpy (gm.kernel, ks, sizeof ks);
  if ((st = read_geometry (nc, xs, nd, kind == CN_POOL_MAX, &gm)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "ceil_mode", 0, &ceil_mode)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "storage_order", 0, &order)) != CN_OK
      || (kind == CN_POOL_AVG && (st = cn__onnx_attr_int (nc, "count_include_pad", 0, &cip)) != CN_OK))
    return st;
  if (ceil_mode)
    for (int i = 0; i < nd; i++)
      {
        /* Ceil mode is accepted where it gives the floor mode's extent: where the last window
         * ends exactly at the padded input's end (the stride divides the span). */
        int64_t span = xs->dim[2 + i] + gm.pad_begin[i] + gm.pad_end[i] - gm.dilation[i] * (gm.kernel[i] - 1) - 1;
        if (span >= 0 && span % gm.stride[i] != 0)
          return cn_error_set (nc->err, CN_EUNSUPPORTED, "ceil_mode = 1 is not supported (it changes the output extent "
                               "on spatial axis %d)", i);
      }
  cn_params_pool p;
  memset (&p, 0, sizeof p);
  p.kind = kind;
  p.nd = nd;
  p.count_include_pad = (int) cip;
  for (int i = 0; i < nd; i++)
    {
      p.kernel[i] = gm.kernel[i];
      p.stride[i] = gm.stride[i];
      p.dilation[i] = gm.dilation[i];
      p.pad_begin[i] = gm.pad_begin[i];
      p.pad_end[i] = gm.pad_end[i];
    }
  int x, v;
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_add (nc, CN_OP_POOL, &p, 1, &x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* ConvTranspose onto convTranspose (x [N, C, S...], W [C, M/group, K...], B [M] or zeros).  Per
 * spatial axis the full output extent is F = stride (S - 1) + output_padding + dilation (K - 1)
 * + 1, and the output O = F - pad_begin - pad_end (the ONNX specification).  The pads come from
 *   pads (auto_pad NOTSET), zeros (VALID), or a total padding T = F - O with O = output_shape
 *   (when given) or O = S stride (SAME_UPPER, SAME_LOWER), split T/2 and T/2.
 * An odd T is refused: the specification puts the extra element at the beginning for
 * output_shape with NOTSET and at the end for SAME_UPPER, and onnxruntime does the opposite in
 * both cases, so the model's meaning is not settled; a negative T (an output larger than F) is
 * refused too. */
static cn_status
op_conv_transpose (cn__onnx_node *nc)
{
  static const char *const modes[] = { "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", NULL };
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK)
    return st;
  cn_shape xs0 = *cn__onnx_shape (nc, 0), ws0 = *cn__onnx_shape (nc, 1);
  const cn_shape *xs = &xs0, *ws = &ws0;
  char s1[128], s2[128];
  int nd = xs->rank - 2;
  if (nd < 1 || nd > 3 || ws->rank != xs->rank)
    return cn_error_set (nc->err, CN_ESHAPE, "input %s and weight %s: expected [N,C,S...] and [C,M/group,K...] "
                         "with 1 to 3 spatial axes", cn_shape_format (xs, s1, sizeof s1),
                         cn_shape_format (ws, s2, sizeof s2));
  int64_t group, ks[3], strides[3], dil[3], opad[3], pads[6], oshape[5];
  int nk, ns, ndl, nop, np_, nos, mode = 0;
  if ((st = cn__onnx_attr_int (nc, "group", 1, &group)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "kernel_shape", ks, 3, &nk)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "strides", strides, 3, &ns)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "dilations", dil, 3, &ndl)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "output_padding", opad, 3, &nop)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "pads", pads, 6, &np_)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "output_shape", oshape, 5, &nos)) != CN_OK
      || (st = cn__onnx_attr_choice (nc, "auto_pad", "NOTSET", modes, &mode)) != CN_OK)
    return st;
  if ((ns >= 0 && ns != nd) || (ndl >= 0 && ndl != nd) || (nop >= 0 && nop != nd) || (np_ >= 0 && np_ != 2 * nd))
    return cn_error_set (nc->err, CN_EINVAL, "strides, dilations, output_padding and pads must have %d, %d, %d and %d "
                         "entries", nd, nd, nd, 2 * nd);
  if (nk >= 0)
    for (int i = 0; i < nd; i++)
      if (nk != nd || ks[i] != ws->dim[2 + i])
        return cn_error_set (nc->err, CN_ESHAPE, "kernel_shape disagrees with the weight %s",
                             cn_shape_format (ws, s1, sizeof s1));
  /* output_shape: the spatial extents, or all of [N, M, O...] */
  if (nos >= 0 && nos != nd && nos != nd + 2)
    return cn_error_set (nc->err, CN_EINVAL, "output_shape has %d entries for %d spatial axes", nos, nd);
  int os0 = nos == nd + 2 ? 2 : 0;
  if ((nos >= 0 || mode != 0) && np_ >= 0)
    return cn_error_set (nc->err, CN_EINVAL, "attribute pads is given with %s", nos >= 0 ? "output_shape" : "auto_pad");
  if (nos >= 0 && mode != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute output_shape with auto_pad = %s is not supported",
                         modes[mode]);
  cn_params_conv_transpose p;
  memset (&p, 0, sizeof p);
  p.nd = nd;
  p.groups = group;
  for (int i = 0; i < nd; i++)
    {
      p.stride[i] = ns >= 0 ? strides[i] : 1;
      p.dilation[i] = ndl >= 0 ? dil[i] : 1;
      p.output_padding[i] = nop >= 0 ? opad[i] : 0;
      int64_t K = ws->dim[2 + i], S = xs->dim[2 + i];
      if (p.stride[i] < 1 || p.dilation[i] < 1 || p.stride[i] > CN__ONNX_GEOM_MAX || p.dilation[i] > CN__ONNX_GEOM_MAX
          || K > CN__ONNX_GEOM_MAX || S > CN__ONNX_GEOM_MAX || p.output_padding[i] < 0
          || p.output_padding[i] > CN__ONNX_GEOM_MAX)
        return cn_error_set (nc->err, CN_EINVAL, "stride %lld, dilation %lld, output_padding %lld on spatial axis %d",
                             (long long) p.stride[i], (long long) p.dilation[i], (long long) p.output_padding[i], i);
      if (np_ >= 0)
        {
          p.pad_begin[i] = pads[i];
          p.pad_end[i] = pads[nd + i];
          if (pads[i] < 0 || pads[nd + i] < 0 || pads[i] > CN__ONNX_GEOM_MAX || pads[nd + i] > CN__ONNX_GEOM_MAX)
            return cn_error_set (nc->err, CN_EUNSUPPORTED, "pads (%lld, %lld) on spatial axis %d are not supported "
                                 "(0 to 2^31)", (long long) pads[i], (long long) pads[nd + i], i);
        }
      if (nos < 0 && mode < 2)
        continue;
      /* the total padding T = F - O (the factors are at most 2^31: products below 2^62) */
      int64_t F, O = nos >= 0 ? oshape[os0 + i] : S * p.stride[i], T;
      const char *what = nos >= 0 ? "output_shape" : "auto_pad";
      if (__builtin_add_overflow (p.stride[i] * (S - 1), p.dilation[i] * (K - 1), &F)
          || __builtin_add_overflow (F, p.output_padding[i] + 1, &F))
        return cn_error_set (nc->err, CN_EINVAL, "the output extent overflows on spatial axis %d", i);
      T = F - O;
      if (nos >= 0 && (O < 1 || O > CN__ONNX_GEOM_MAX))
        return cn_error_set (nc->err, CN_EINVAL, "output_shape extent %lld on spatial axis %d", (long long) O, i);
      if (T < 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s asks for an output extent %lld above the full "
                             "extent %lld on spatial axis %d (not supported)", what, (long long) O, (long long) F, i);
      if (T % 2 != 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s gives an odd total padding %lld on spatial "
                             "axis %d (not supported: the ONNX specification and onnxruntime put the odd element on "
                             "opposite sides)", what, (long long) T, i);
      p.pad_begin[i] = p.pad_end[i] = T / 2;
    }
  if (nos == nd + 2 && (oshape[0] != xs->dim[0] || oshape[1] != ws->dim[1] * group))
    return cn_error_set (nc->err, CN_ESHAPE, "output_shape [%lld,%lld,...] disagrees with the input and the weight",
                         (long long) oshape[0], (long long) oshape[1]);
  int in[3], v;
  if ((st = cn__onnx_in (nc, 0, &in[0])) != CN_OK || (st = cn__onnx_in (nc, 1, &in[1])) != CN_OK)
    return st;
  if (cn__onnx_has (nc, 2))
    st = cn__onnx_in (nc, 2, &in[2]);
  else
    {
      /* No bias in the model: zeros of extent M = group (M/group). */
      cn_shape bs;
      int64_t m = ws->dim[1] * (group > 0 ? group : 1);
      cn_shape_make (&bs, 1, &m, NULL);
      st = cn__onnx_fill (nc, CN_DTYPE_F64, &bs, 0.0, "zero_bias", &in[2]);
    }
  if (st == CN_OK)
    st = cn__onnx_add (nc, CN_OP_CONV_TRANSPOSE, &p, 3, in, NULL, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

static cn_status op_maxpool (cn__onnx_node *nc) { return op_pool (nc, CN_POOL_MAX); }
static cn_status op_avgpool (cn__onnx_node *nc) { return op_pool (nc, CN_POOL_AVG); }

const struct cn__onnx_handler cn__onnx_conv[] = {
  { "AveragePool", op_avgpool, "auto_pad ceil_mode count_include_pad kernel_shape pads strides", 0 },
  { "Conv", op_conv, "auto_pad dilations group kernel_shape pads strides", 0 },
  { "ConvTranspose", op_conv_transpose,
    "auto_pad dilations group kernel_shape output_padding output_shape pads strides", 0 },
  { "MaxPool", op_maxpool, "auto_pad ceil_mode dilations kernel_shape pads storage_order strides", 0 },
  { NULL, NULL, NULL, 0 },
};
