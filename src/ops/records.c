/* SPDX-License-Identifier: MIT */
/* src/ops/records.c: the descriptors of the attribute records (src/ops/ops_impl.h), one per record
 * of certnn/ops.h, made from the record's own member list CN_PARAMS_<rec> (M, T): for every
 * record named in CN_PARAMS_RECORDS, cn__record_<rec> holds its C type's name and size and, for
 * each member in order, its name, kind, offset and the constraints of certnn/ops.h's member
 * macro (minimum, count range, capacity, the count member of an array, an enumeration's names).
 *
 * Nothing here is written per record or per operator: a record declared in certnn/ops.h gets its
 * descriptor here, and an operator gets its record's descriptor through its ops.def row
 * (src/ops/registry.c).  The struct and the descriptor come from the same list, so that they
 * cannot disagree on a member's name, type or order; what the list leaves to the compiler (that
 * a count member is an int, that an enumeration is int-sized, as the codec reads them) is checked
 * at compile time below. */
#include <config.h>
#include <stddef.h>
#include "ops/ops_impl.h"

/* 0, or a compile-time error if the constant expression COND is false. */
#define REQUIRE(cond) (0 * sizeof (char[(cond) ? 1 : -1]))
#define MSIZE(T, m) sizeof (((T *) 0)->m)

/* One struct cn__field initializer per member macro M (T, KIND, m, ...) of certnn/ops.h. */
#define FIELD(T, kind, ...) FIELD_##kind (T, __VA_ARGS__)
#define FIELD_INT(T, m, lo) { .name = #m, .kind = CN__FIELD_INT, .off = offsetof (T, m), .min = (lo) },
#define FIELD_I64(T, m, lo) { .name = #m, .kind = CN__FIELD_I64, .off = offsetof (T, m), .min = (lo) },
#define FIELD_COUNT(T, m, lo, hi)                                                                 \
  { .name = #m, .kind = CN__FIELD_COUNT, .off = offsetof (T, m), .min = (lo), .cap = (hi) },
#define FIELD_ARRAY(T, k, m, cap_, count, lo)                                                     \
  { .name = #m, .kind = k, .off = offsetof (T, m),                                                \
    .count_off = offsetof (T, count) + REQUIRE (MSIZE (T, count) == sizeof (int))                \
                 + REQUIRE (offsetof (T, count) < offsetof (T, m)),                                \
    .cap = (cap_), .min = (lo) },
#define FIELD_INTS(T, m, cap, count, lo) FIELD_ARRAY (T, CN__FIELD_INTS, m, cap, count, lo)
#define FIELD_I64S(T, m, cap, count, lo) FIELD_ARRAY (T, CN__FIELD_I64S, m, cap, count, lo)
#define FIELD_F64(T, m) { .name = #m, .kind = CN__FIELD_F64, .off = offsetof (T, m) },
#define FIELD_F64X(T, m) { .name = #m, .kind = CN__FIELD_F64X, .off = offsetof (T, m) },
#define FIELD_FLAG(T, m) { .name = #m, .kind = CN__FIELD_FLAG, .off = offsetof (T, m) },
/* An enumeration's names, indexed by value: the map lists the values in order from 0. */
#define ENUM_NAME(id, name) name,
#define ENUM_ONE(id, name) + 1
#define FIELD_ENUM(T, m, type, map)                                                               \
  { .name = #m, .kind = CN__FIELD_ENUM, .off = offsetof (T, m) + REQUIRE (sizeof (type) == sizeof (int)),  \
    .n_names = 0 map (ENUM_ONE), .names = (const char *const[]) { map (ENUM_NAME) } },
#define FIELD_DTYPE(T, m)                                                                         \
  { .name = #m, .kind = CN__FIELD_DTYPE,                                                          \
    .off = offsetof (T, m) + REQUIRE (sizeof (cn_dtype) == sizeof (int)) },
#define FIELD_SHAPE(T, m) { .name = #m, .kind = CN__FIELD_SHAPE, .off = offsetof (T, m) },
#define FIELD_AXES(T, m) { .name = #m, .kind = CN__FIELD_AXES, .off = offsetof (T, m) },
#define FIELD_NAME(T, m, cap_) { .name = #m, .kind = CN__FIELD_NAME, .off = offsetof (T, m), .cap = (cap_) },
#define FIELD_PROGRAM(T, m) { .name = #m, .kind = CN__FIELD_PROGRAM, .off = offsetof (T, m) },

/* The descriptor of record REC: its members' initializers from CN_PARAMS_<rec>, then the record. */
#define RECORD(rec)                                                                               \
  static const struct cn__field rec##_fields[] = { CN_PARAMS_##rec (FIELD, cn_params_##rec) };   \
  const struct cn__record cn__record_##rec = {                                                    \
    "cn_params_" #rec, sizeof (cn_params_##rec), (int) (sizeof rec##_fields / sizeof rec##_fields[0]), \
    rec##_fields                                                                                  \
  };
CN_PARAMS_RECORDS (RECORD)
#undef RECORD

const struct cn__record cn__record_none = { "", 0, 0, NULL };
