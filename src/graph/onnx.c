/* SPDX-License-Identifier: MIT */
#include <config.h>
