/* SPDX-License-Identifier: MIT */
/* certnn/wire.h: placeholder; being written. */
#ifndef CERTNN_WIRE_H
#define CERTNN_WIRE_H
#include "certnn/graph.h"
#endif
