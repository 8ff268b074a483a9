/* SPDX-License-Identifier: MIT */
#include <config.h>
#include "cli/cli.h"
int cli_bounds (int argc, char **argv) { (void) argc; (void) argv; return CLI_FAIL; }
