/* SPDX-License-Identifier: MIT */
/* certnn/tensor.h: shapes and dense tensors in caller storage.
 *
 * A tensor is a dense row-major (C order) array of one element sort.  The sorts are the
 * seed's: binary64, binary32, binary16 and bfloat16 scalars, Booleans (one byte each, 0 or 1),
 * and integer words of 8 to 64 bits, signed (two's complement) or unsigned.  Index tensors (the
 * seed's index ports) are stored as CN_DTYPE_I64.
 *
 * binary16 (IEEE 754 interchange format: 11-bit significand, exponents -14 .. 15) and bfloat16
 * (8-bit significand, binary32's exponents -126 .. 127) are reduced formats: a tensor of either
 * holds 16-bit words, and a graph value declared in one holds the model's scalar like f32 or
 * f64, but no evaluation computes in them (cn_dtype_is_reduced below; certnn/graph.h says how a
 * value declared in one is rounded). */
#ifndef CERTNN_TENSOR_H
#define CERTNN_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include "certnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CN_MAX_RANK 8

typedef enum cn_dtype
{
  CN_DTYPE_F64,
  CN_DTYPE_F32,
  CN_DTYPE_BOOL,
  CN_DTYPE_I8,
  CN_DTYPE_I16,
  CN_DTYPE_I32,
  CN_DTYPE_I64,
  CN_DTYPE_U8,
  CN_DTYPE_U16,
  CN_DTYPE_U32,
  CN_DTYPE_U64,
  CN_DTYPE_F16,                  /* binary16 */
  CN_DTYPE_BF16,                 /* bfloat16 */
  CN_DTYPE_COUNT
} cn_dtype;

typedef struct cn_shape
{
  int rank;                      /* 0 <= rank <= CN_MAX_RANK; rank 0 is a scalar */
  int64_t dim[CN_MAX_RANK];      /* dim[i] >= 0 for i < rank; entries past rank are 0 */
} cn_shape;

typedef struct cn_tensor
{
  cn_dtype dtype;
  cn_shape shape;
  void *data;                    /* owned; numel * cn_dtype_size (dtype) bytes, NULL if numel == 0 */
} cn_tensor;

CN_API size_t cn_dtype_size (cn_dtype t);
CN_API const char *cn_dtype_name (cn_dtype t);      /* "f64", "f32", "bool", "i8", ..., "f16", "bf16" */
/* Whether T is a floating sort, one that holds the model's scalar: f64, f32, f16 or bf16. */
CN_API int cn_dtype_is_float (cn_dtype t);
/* Whether T is a reduced floating format (f16, bf16): a sort values are stored and rounded in,
 * never one an evaluation computes in (that is f64 or f32). */
CN_API int cn_dtype_is_reduced (cn_dtype t);
/* X rounded to nearest (ties to even) in the floating sort T, whatever the current rounding
 * mode: X itself for f64, (float) X for f32 (in the current mode, round to nearest by default),
 * and for f16 and bf16 one correct rounding of X with the format's subnormals, +-inf past its
 * largest finite value and its tie (65520 for f16), the sign of a zero kept, a NaN a NaN.  NaN
 * for a sort that is not floating. */
CN_API double cn_dtype_round (cn_dtype t, double x);
/* The 16-bit word of the reduced format T (f16 or bf16) nearest to X as cn_dtype_round rounds
 * it (a NaN becomes the quiet NaN of X's sign with an empty payload), and the value of word W
 * (exact in binary64; a NaN word gives a NaN).  0 and NaN for another T. */
CN_API uint16_t cn_reduced_encode (cn_dtype t, double x);
CN_API double cn_reduced_decode (cn_dtype t, uint16_t w);

/* Builds a shape from RANK extents; CN_EINVAL for a rank above CN_MAX_RANK or a negative extent. */
CN_API cn_status cn_shape_make (cn_shape *s, int rank, const int64_t *dim, cn_error *err);
/* Product of the extents (1 for rank 0); -1 if it overflows int64. */
CN_API int64_t cn_shape_numel (const cn_shape *s);
CN_API int cn_shape_equal (const cn_shape *a, const cn_shape *b);
/* The size limit: no tensor (cn_tensor_init) and no value of a graph (its inputs, constants and
 * node outputs, whoever builds it: the graph builder, the ONNX importer, the wire decoder) holds
 * more than cn_max_numel () numbers; a larger one is refused with CN_ELIMIT, naming it, before
 * anything is allocated for it.  This is what keeps a file of a few bytes that claims a huge
 * tensor from exhausting memory.  The default, CN_MAX_NUMEL_DEFAULT = 2^28 numbers, is 2 GiB in
 * binary64.  cn_set_max_numel is process-wide and not synchronised: call it before anything else
 * (N < 1 restores the default). */
#define CN_MAX_NUMEL_DEFAULT ((int64_t) 1 << 28)
CN_API void cn_set_max_numel (int64_t n);
CN_API int64_t cn_max_numel (void);
/* CN_OK if S has at most cn_max_numel () entries (and no overflow), else CN_ELIMIT with a message
 * "WHAT: shape [..] has N numbers, more than the limit L". */
CN_API cn_status cn_shape_check_limit (const cn_shape *s, const char *what, cn_error *err);
/* Writes "[1,3,32,32]" into BUF (always NUL-terminated); returns BUF. */
CN_API char *cn_shape_format (const cn_shape *s, char *buf, size_t size);

/* Initialises T with a zero-filled buffer of the given sort and shape.  On failure T is left
 * empty (data NULL) and may still be passed to cn_tensor_clear. */
CN_API cn_status cn_tensor_init (cn_tensor *t, cn_dtype dtype, const cn_shape *shape, cn_error *err);
/* Frees the buffer; T becomes empty.  T may be empty already. */
CN_API void cn_tensor_clear (cn_tensor *t);
CN_API int64_t cn_tensor_numel (const cn_tensor *t);
/* Initialises DST as a copy of SRC converted to DTYPE: exact from a narrower floating sort to a
 * wider one (f16 and bf16 into f32 or f64, f32 into f64), rounded to nearest into a narrower
 * one (cn_dtype_round: once, from the exact value), value-preserving or CN_ENUMERIC between
 * other sorts. */
CN_API cn_status cn_tensor_convert (cn_tensor *dst, cn_dtype dtype, const cn_tensor *src, cn_error *err);
/* Element I as a double (exact for every sort but 64-bit integers beyond 2^53). */
CN_API double cn_tensor_get_f64 (const cn_tensor *t, int64_t i);

#ifdef __cplusplus
}
#endif
#endif
