/* SPDX-License-Identifier: MIT */
/* certnn/certnn.h: the umbrella header of the certnn library.
 * Link with `pkg-config --cflags --libs certnn`.  The MPFI reference (certnn/reference.h)
 * is separate, since it brings in mpfi.h. */
#ifndef CERTNN_CERTNN_H
#define CERTNN_CERTNN_H

#include "certnn/status.h"
#include "certnn/tensor.h"
#include "certnn/ops.h"
#include "certnn/graph.h"
#include "certnn/box.h"
#include "certnn/spec.h"
#include "certnn/bounds.h"
#include "certnn/verify.h"
#include "certnn/certs.h"
#include "certnn/proof.h"
#include "certnn/tape.h"
#include "certnn/wire.h"
#include "certnn/artifact.h"
#include "certnn/env.h"
#include "certnn/flat.h"

#endif
