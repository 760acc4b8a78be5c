/* SPDX-License-Identifier: GPL-2.0 */
/* tslackctl's output: durations for people. */
#ifndef TSLACK_FORMAT_H
#define TSLACK_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/*
 * @ns in the largest unit that keeps three significant digits: "0",
 * "50us", "1.5ms", "20ms", "1.25s". Returns @buf.
 */
const char *format_ns(char *buf, size_t len, uint64_t ns);

#endif
