/* SPDX-License-Identifier: GPL-2.0 */
/* From logind's sessions and the configuration to what the map should hold. */
#ifndef TSLACKD_PLAN_H
#define TSLACKD_PLAN_H

#include "budget.h"
#include "config.h"
#include "logind.h"
#include "power.h"
#include "rules.h"
#include "state.h"
#include "watch.h"

/*
 * The slack session @s gets: Active=, and Idle= when it is idle or in the
 * background of its seat, Locked= when locked, PowerSaver= while the power
 * profile is power-saver and OnBattery= while on battery, whichever is
 * largest; in *@why (if not NULL) the word for which ("idle", "locked",
 * "power-saver"...), the session's own state on a tie.
 */
uint64_t plan_session_slack(const struct tslackd_config *cfg, const struct power *pw,
			    const struct session *s, const char **why);

/*
 * What the map should hold for @n sessions and @rules: the minimum of each
 * session with slack on its scope; the smallest of a user's sessions' on
 * the user's user@UID.service when every session of the user has some; the
 * exemption cap on the cgroups below those whose name (a unit's) matches
 * an exemption; each rule's minimum and cap on the cgroups its glob
 * matches. Where several ask for one field of one cgroup, the largest
 * minimum and the smallest cap win, and each want says who asked. Every
 * cgroup of the sessions' subtrees, and every directory where a rule's
 * match may appear, is given to watch_dir() on @w. Each walk keeps to its
 * budget (budget.h); one cut short is logged once, then remembered in
 * @cuts, and a rule in its over_said. The number of wants in *@out (to
 * free()), or -1.
 */
int plan(const struct tslackd_config *cfg, const struct power *pw, struct rules *rules,
	 const struct session *s, int n, struct want **out, struct watch *w, struct cuts *cuts);

#endif
