// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the booted system's run leaves to its one asker (--leave-single).
 * A module that one device alone asks for, with nothing it needs asked
 * for by anything else: udev's coldplug asks for it once, one worker loads
 * it and its dependencies once; there is no duplicate for us to collapse.
 * Loaded by us it only came sooner, in the seconds when systemd starts the
 * units of the boot, which then waited: under TCG (16 vCPUs on 2 host
 * cores) multi-user.target came later by what drm, bochs and e1000 took,
 * which udev reaches after the target. A module only names ask for
 * (modules-load.d, modules_load=), with all it needs: systemd-modules-load
 * loads the names one after the other, each once; ours, it waited behind
 * the names gate (gate.c) with sysinit.target behind it, and it was one
 * more load beside systemd's first units (mpt_params: the gate opened 5-31
 * s after switch-root, median 12, where systemd-modules-load alone was
 * done at a median of 10). What more than one asker reaches (a driver of
 * every CPU, a dependency two drivers share, a name a device asks for
 * too, a handler of input or HID devices, whose number grows as drivers
 * bind), where the duplicates are, stays ours. evdev, left to udev while
 * the keyboard was the one input device, was asked for again by the
 * power button's worker while the keyboard's load was still coming: an
 * EEXIST on 6.1, in 3 bench boots and 1 CI run at 16 vCPUs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum asker { OURS, UDEV, NAMES };

/* who alone asks for M: one device's request (udev), names only
 * (systemd-modules-load), or more than one asker (ours) */
static enum asker asker(const struct mp_module *m)
{
	const unsigned devices = 1u << MP_SRC_COLDPLUG | 1u << MP_SRC_UEVENT;
	const unsigned names = 1u << MP_SRC_CONFIG | 1u << MP_SRC_CMDLINE;

	/* an input or HID device's handler: more devices of its class come
	 * as the boot's drivers bind, each a request (uevent.c) */
	if (m->state != MP_PENDING || m->sources == 0 || m->requests_cpu != 0 || m->requests_class != 0)
		return OURS;
	if ((m->sources & ~devices) == 0 && m->requests_with_dependents <= 1)
		return UDEV;
	/* systemd-modules-load must be one of the askers: modpreload.d's
	 * lists and rd.modpreload.modules= are ours alone */
	if ((m->sources & ~(names | MP_SRC_BIT_MODULES_LOAD)) == 0 && (m->sources & MP_SRC_BIT_MODULES_LOAD))
		return NAMES;
	return OURS;
}

/* M may go only with all it needs and all that needs it, to the same
 * asker: udev's worker (or systemd-modules-load) loads a module's
 * dependencies in its own call, and a dependency ours and a dependent
 * theirs would be that duplicate again */
static bool closed(const struct mp_plan *p, const struct mp_module *m, const enum asker *cand)
{
	enum asker a = cand[m - p->mods];
	int i;

	for (i = 0; i < m->ndeps; i++)
		if (p->mods[m->deps[i].dep].state == MP_PENDING && cand[m->deps[i].dep] != a)
			return false;
	for (i = 0; i < m->nusers; i++)
		if (p->mods[m->users[i]].state == MP_PENDING && cand[m->users[i]] != a)
			return false;
	return true;
}

int mp_plan_leave_single(struct mp_ctx *ctx)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	_cleanup_free_ enum asker *cand = calloc((size_t)p->nmods + 1, sizeof(*cand));
	bool changed = true;
	int i, n = 0;

	if (cand == NULL)
		return -ENOMEM;
	for (i = 0; i < p->nmods; i++)
		cand[i] = asker(&p->mods[i]);
	while (changed) {
		changed = false;
		for (i = 0; i < p->nmods; i++)
			if (cand[i] != OURS && !closed(p, &p->mods[i], cand)) {
				cand[i] = OURS;
				changed = true;
			}
	}
	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];

		if (cand[i] == OURS)
			continue;
		m->state = MP_SKIPPED;
		m->excluded = true;
		m->to_udev = cand[i] == UDEV;
		m->to_names = cand[i] == NAMES;
		free(m->skip_why);
		m->skip_why = strdup(m->to_udev ? "left to udev: one device asks for it and for nothing it needs"
					      : "left to systemd-modules-load: only names ask for it");
		n++;
	}
	return n; /* the summary names them */
}
