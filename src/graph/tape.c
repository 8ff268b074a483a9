/* SPDX-License-Identifier: MIT */
/* src/graph/tape.c: placeholder; the tape is being written. */
#include <config.h>
#include "graph/graph_impl.h"
