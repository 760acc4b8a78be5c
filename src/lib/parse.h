/* SPDX-License-Identifier: GPL-2.0 */
/* Parsing of tslackctl's numeric arguments. */
#ifndef TSLACK_PARSE_H
#define TSLACK_PARSE_H

#include <stdint.h>

/*
 * Parse a duration as systemd's TimerSlackNSec= takes it: a whole number
 * of nanoseconds ("50000"), or terms of a number, maybe with a fraction,
 * and a unit, ns, us, ms, s, min or h and their long forms ("20ms",
 * "1.5ms", "1s 500ms"). Returns 0, or -1 with a message for the user in
 * @err (of @errlen bytes).
 */
int parse_duration_ns(const char *s, uint64_t *ns, char *err, unsigned long errlen);

/* Parse a cgroup id: a positive decimal number. Same contract. */
int parse_cgroup_id(const char *s, uint64_t *id, char *err, unsigned long errlen);

/* Parse a count: a decimal number from 1 to @max. Same contract. */
int parse_count(const char *s, uint64_t max, uint64_t *n, char *err, unsigned long errlen);

#endif
