/* SPDX-License-Identifier: MIT */
/* src/crown/relax.c: placeholder (being written). */
#include <config.h>
