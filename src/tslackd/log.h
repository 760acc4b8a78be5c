/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tslackd's messages. They go to stderr, which systemd connects to the
 * journal: a "<N>" prefix (sd-daemon.h's SD_ERR, SD_WARNING, SD_INFO)
 * gives each line its priority there, so that `journalctl -p err` shows
 * every failure. On a terminal (--status, --check-config) no prefix.
 */
#ifndef TSLACKD_LOG_H
#define TSLACKD_LOG_H

#include <systemd/sd-daemon.h>

#include "../lib/compiler.h"

/* Print "tslackd: " and @fmt as one line at priority @prio (SD_ERR...). */
void log_at(const char *prio, const char *fmt, ...) __printf(2, 3);

#define log_err(...) log_at(SD_ERR, __VA_ARGS__)
#define log_warn(...) log_at(SD_WARNING, __VA_ARGS__)
#define log_info(...) log_at(SD_INFO, __VA_ARGS__)

#endif
