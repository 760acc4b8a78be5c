/* SPDX-License-Identifier: GPL-2.0 */
/* The machine's timer interrupts, as /proc/interrupts counts them. */
#ifndef TSLACK_INTERRUPTS_H
#define TSLACK_INTERRUPTS_H

/*
 * Local timer interrupts so far, the LOC line of /proc/interrupts summed
 * over all CPUs; 0 if it cannot be read.
 */
unsigned long long local_timer_interrupts(void);

#endif
