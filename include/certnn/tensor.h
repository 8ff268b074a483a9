/* SPDX-License-Identifier: MIT */
/* certnn/tensor.h: shapes and dense tensors in caller storage.
 *
 * A tensor is a dense row-major (C order) array of one element sort.  The sorts are the
 * seed's: binary64 and binary32 scalars, Booleans (one byte each, 0 or 1), and integer words
 * of 8 to 64 bits, signed (two's complement) or unsigned.  Index tensors (the seed's index
 * ports) are stored as CN_DTYPE_I64. */
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
CN_API const char *cn_dtype_name (cn_dtype t);      /* "f64", "f32", "bool", "i8", ... */
CN_API int cn_dtype_is_float (cn_dtype t);

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
/* Initialises DST as a copy of SRC converted to DTYPE: exact from f32 to f64, round to
 * nearest from f64 to f32, value-preserving or CN_ENUMERIC between other sorts. */
CN_API cn_status cn_tensor_convert (cn_tensor *dst, cn_dtype dtype, const cn_tensor *src, cn_error *err);
/* Element I as a double (exact for every sort but 64-bit integers beyond 2^53). */
CN_API double cn_tensor_get_f64 (const cn_tensor *t, int64_t i);

#ifdef __cplusplus
}
#endif
#endif
