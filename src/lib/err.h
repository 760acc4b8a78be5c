/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the library tells its callers what went wrong: a failing call
 * returns its error and leaves a message for a person in a struct
 * tslack_err, without the program's name; tslackctl prints it on stderr,
 * tslackd logs it. What a call says on its way to succeeding (a name in
 * bpffs it left alone) goes to the function tslack_set_warn() gave.
 */
#ifndef TSLACK_ERR_H
#define TSLACK_ERR_H

#include "compiler.h"

struct tslack_err {
	char msg[512];
};

/* Put the message @fmt in @e (none if @e is NULL); returns @ret. */
int err_set(struct tslack_err *e, int ret, const char *fmt, ...) __printf(3, 4);

/*
 * "@what: " and what @err (an errno, either sign) means, in @e; EPERM and
 * EACCES say which capabilities are needed. Returns @ret.
 */
int err_errno(struct tslack_err *e, int ret, const char *what, int err);

/* Where warnings go (NULL: nowhere, the default). */
void tslack_set_warn(void (*fn)(const char *msg));
void warn_say(const char *fmt, ...) __printf(1, 2);

#endif
