/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's spelling of a few compiler idioms, for userspace. */
#ifndef TSLACK_COMPILER_H
#define TSLACK_COMPILER_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __printf(fmt, args) __attribute__((format(printf, fmt, args)))
#define __noreturn __attribute__((noreturn))
#define __always_unused __attribute__((unused))

#endif
