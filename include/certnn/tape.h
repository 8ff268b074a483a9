/* SPDX-License-Identifier: MIT */
/* certnn/tape.h: placeholder; being written. */
#ifndef CERTNN_TAPE_H
#define CERTNN_TAPE_H
#include "certnn/graph.h"
#endif
