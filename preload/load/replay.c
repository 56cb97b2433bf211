// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * After a hand-over (handover.c), a held module that failed or was held
 * for nothing, or a hold whose holder is gone (context/stale.c): udev
 * skipped the devices that wanted it, and is asked for them again, their
 * add replayed once udevd has seen the hold go.
 */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* udevd looks at its configuration again at most every 3 s (manager_reload) */
#define MP_REPLAY_WAIT_MS 3100u

struct replay {
	struct mp_ctx *ctx;
	struct kmod_ctx *k;
	const char *const *names;
	int nnames;
	bool count_only; /* the first walk: whether any is owed */
	bool cpus;       /* a CPU with its driver may be owed (a gone holder's rule) */
	unsigned n;
};

/* Without names (the udev rule's, udevhold.c): NAME is owed if it is not
 * in the kernel, and not a driver this run found no device for (the
 * no-device blacklist answers udev for it) nor still in its init(). */
static bool owed(struct replay *rp, const char *name)
{
	const struct mp_plan *p = mp_ctx_plan_const(rp->ctx);
	int i;

	if (mp_initstate(mp_ctx_env(rp->ctx)->sysfs_fd, name) != MP_INITSTATE_NONE)
		return false;
	for (i = 0; i < p->nmods; i++)
		if (strcmp(p->mods[i].name, name) == 0)
			return p->mods[i].state != MP_HUNG && !mp_outcome_no_device(p, &p->mods[i]);
	return true;
}

/* ALIAS leads to one of NAMES, or (none) to one owed that udev's kmod
 * builtin would load: the blacklist applied, as it applies it */
static bool wants(struct replay *rp, const char *alias)
{
	struct kmod_list *list = NULL, *l, *ok = NULL;
	bool hit = false;
	int i;

	if (kmod_module_new_from_lookup(rp->k, alias, &list) < 0)
		return false;
	if (rp->names)
		ok = list, list = NULL;
	else if (kmod_module_apply_filter(rp->k, KMOD_FILTER_BLACKLIST, list, &ok) < 0)
		ok = NULL;
	kmod_list_foreach(l, ok) {
		struct kmod_module *km = kmod_module_get_module(l);
		char name[256];

		if (mp_normalize_name(kmod_module_get_name(km), name, sizeof(name)) == 0) {
			for (i = 0; i < rp->nnames && !hit; i++)
				hit = strcmp(name, rp->names[i]) == 0;
			hit = hit || (rp->names == NULL && owed(rp, name));
		}
		kmod_module_unref(km);
	}
	kmod_module_unref_list(ok);
	kmod_module_unref_list(list);
	return hit;
}

static int replay_device(int dirfd, const char *devpath, const char *alias, void *data)
{
	struct replay *rp = data;
	struct stat st;
	int fd;

	/* bound meanwhile (another driver of the alias): nothing owed. But a
	 * CPU after a gone holder's rule: its driver (processor) is none of
	 * what its alias loads, and the rule may have kept udev off those */
	if ((fstatat(dirfd, "driver", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	     !(rp->cpus && strncmp(alias, "cpu:", 4) == 0)) || !wants(rp, alias))
		return 0;
	if (rp->count_only) {
		rp->n++;
		return 1;
	}
	fd = openat(dirfd, "uevent", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || mp_write_full(fd, "add", 3) < 0) {
		mp_warn(rp->ctx, "%s: cannot replay its add event: %s", devpath, mp_errno_name(errno));
	} else {
		rp->n++;
		mp_log(rp->ctx, MP_LOG_INFO, "%s: add replayed for udev", devpath);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/*
 * NAMES' devices asked for again, their holds gone: their add, once udevd
 * has seen that (it looks at most every 3 s), for each device with a
 * MODALIAS and no driver whose alias leads to one of them (NULL: to one
 * owed, above). How many.
 */
unsigned mp_handover_replay(struct mp_ctx *ctx, const char *const *names, int n)
{
	struct replay rp = { .ctx = ctx, .k = mp_ctx_kmod(ctx), .names = names, .nnames = names ? n : 0,
			     .cpus = names == NULL && mp_ctx_result(ctx)->stale_rule };

	if ((names && n == 0) || rp.k == NULL)
		return 0;
	/* none owed (most runs): no wait, and the report is not held back */
	rp.count_only = true;
	(void)mp_coldplug_foreach(ctx, replay_device, &rp);
	if (rp.n == 0)
		return 0;
	rp.count_only = false;
	rp.n = 0;
	mp_sleep_ms(MP_REPLAY_WAIT_MS);
	(void)mp_coldplug_foreach(ctx, replay_device, &rp);
	return rp.n;
}

void mp_handover_replay_stale(struct mp_ctx *ctx)
{
	const struct mp_result *res = mp_ctx_result(ctx);
	_cleanup_free_ const char **names = malloc(((size_t)res->nstale + 1) * sizeof(char *));
	unsigned n;
	int i;

	if ((res->nstale == 0 && !res->stale_rule) || names == NULL)
		return;
	for (i = 0; i < res->nstale; i++)
		names[i] = res->stale[i].name;
	/* a rule gone with it kept udev off every device: each owed */
	n = mp_ctx_result(ctx)->replayed = mp_handover_replay(ctx, res->stale_rule ? NULL : names, res->nstale);
	mp_log(ctx, MP_LOG_NOTICE, "udev was asked again for %u device%s that wanted what the loader "
	       "that is gone held", n, n == 1 ? "" : "s");
}
