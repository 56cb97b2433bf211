// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the booted system's run leaves to udev (--leave-single): a module
 * that one device alone asks for, with nothing it needs asked for by
 * anything else. udev's coldplug asks for it once, one worker loads it and
 * its dependencies once: there is no duplicate for us to collapse. Loaded
 * by us it only came sooner, in the seconds when systemd starts the units
 * of the boot, which then waited: under TCG (16 vCPUs on 2 host cores)
 * multi-user.target came later by what drm, bochs and e1000 took, which
 * udev reaches after the target. What more than one request reaches (a
 * driver of every CPU, a dependency two drivers share, a name), where the
 * duplicates are, stays ours.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* one device's request, and nothing else, reaches M */
static bool single(const struct mp_module *m)
{
	const unsigned devices = 1u << MP_SRC_COLDPLUG | 1u << MP_SRC_UEVENT;

	return m->state == MP_PENDING && m->sources != 0 && (m->sources & ~devices) == 0 &&
	       m->requests_with_dependents <= 1 && m->requests_cpu == 0;
}

/* M may go only with all it needs and all that needs it: udev's worker
 * loads a module's dependencies in its own call, and a dependency ours
 * and a dependent udev's would be that duplicate again */
static bool closed(const struct mp_plan *p, const struct mp_module *m, const bool *cand)
{
	int i;

	for (i = 0; i < m->ndeps; i++)
		if (p->mods[m->deps[i].dep].state == MP_PENDING && !cand[m->deps[i].dep])
			return false;
	for (i = 0; i < m->nusers; i++)
		if (p->mods[m->users[i]].state == MP_PENDING && !cand[m->users[i]])
			return false;
	return true;
}

int mp_plan_leave_single(struct mp_ctx *ctx)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	_cleanup_free_ bool *cand = calloc((size_t)p->nmods + 1, sizeof(bool));
	bool changed = true;
	int i, n = 0;

	if (cand == NULL)
		return -ENOMEM;
	for (i = 0; i < p->nmods; i++)
		cand[i] = single(&p->mods[i]);
	while (changed) {
		changed = false;
		for (i = 0; i < p->nmods; i++)
			if (cand[i] && !closed(p, &p->mods[i], cand)) {
				cand[i] = false;
				changed = true;
			}
	}
	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];

		if (!cand[i])
			continue;
		m->state = MP_SKIPPED;
		m->excluded = m->to_udev = true;
		free(m->skip_why);
		m->skip_why = strdup("left to udev: one device asks for it and for nothing it needs");
		n++;
	}
	return n; /* the summary names them */
}
