// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

static void (*warn_fn)(const char *msg);

int err_set(struct tslack_err *e, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return ret;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return ret;
}

int err_errno(struct tslack_err *e, int ret, const char *what, int err)
{
	err = err < 0 ? -err : err;
	if (err == EPERM || err == EACCES)
		return err_set(e, ret, "%s: permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)",
			       what);
	return err_set(e, ret, "%s: %s", what, strerror(err));
}

void tslack_set_warn(void (*fn)(const char *msg))
{
	warn_fn = fn;
}

void warn_say(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!warn_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn_fn(msg);
}
