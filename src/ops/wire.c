/* SPDX-License-Identifier: MIT */
/* src/ops/wire.c: placeholder; the wire codec is being written. */
#include <config.h>
#include "ops/ops_impl.h"
