/* SPDX-License-Identifier: MIT */
#include <config.h>
#include "cli/cli.h"
int cli_ops (int argc, char **argv) { (void) argc; (void) argv; return CLI_FAIL; }
