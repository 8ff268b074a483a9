/* SPDX-License-Identifier: MIT */
/* src/ops/custom.c: placeholder; the rules of this family are being written. */
#include <config.h>
#include "ops/ops_impl.h"
