// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <stdlib.h>

#include "budget.h"

bool budget_watch(struct budget *b, struct watch *w, const char *path)
{
	if (b->cut || b->watched >= WALK_MAX_WATCH) {
		b->cut = true;
		return false;
	}
	b->watched++;
	watch_dir(w, path);
	return true;
}

bool budget_see(struct budget *b)
{
	if (b->cut || b->seen >= WALK_MAX_SEEN) {
		b->cut = true;
		return false;
	}
	b->seen++;
	return true;
}

bool budget_set(struct budget *b)
{
	if (b->cut || b->set >= WALK_MAX_SET) {
		b->cut = true;
		return false;
	}
	b->set++;
	return true;
}

static bool has(const uint64_t *ids, int n, uint64_t id)
{
	int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

bool cuts_first(struct cuts *c, uint64_t id)
{
	uint64_t *p;

	if (has(c->next, c->n_next, id))
		return false;
	p = realloc(c->next, (c->n_next + 1) * sizeof(*p));
	/* Out of memory: said again at the next round, at worst. */
	if (p) {
		c->next = p;
		c->next[c->n_next++] = id;
	}
	return !has(c->id, c->n, id);
}

void cuts_end(struct cuts *c)
{
	free(c->id);
	c->id = c->next;
	c->n = c->n_next;
	c->next = NULL;
	c->n_next = 0;
}
