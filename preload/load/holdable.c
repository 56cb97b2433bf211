// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which modules the hand-over may hold (handover.c): those that only
 * device aliases lead to in depmod's modules.alias. A module the kernel
 * itself asks for by another alias (fs-xfs, crypto-sha256, char-major-*)
 * is never held, as modprobe would answer the kernel "success" for it with
 * nothing loaded; one a device alias leads to may be udev's to ask for.
 * The booted system's run reads the last boot's answer for each module
 * instead of the file, when the file is the same (known.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* "bus:...": what a device's MODALIAS looks like. The kernel's own
 * requests have no bus (fs-xfs, crypto-aes, net-pf-10, char-major-10-229);
 * devname: is a /dev node that kmod's static nodes make the kernel ask for
 * by its char-major alias. */
bool mp_handover_device_alias(const char *a)
{
	const char *c = strchr(a, ':'), *p;

	if (c == NULL || c == a || strncmp(a, "devname:", 8) == 0)
		return false;
	for (p = a; p < c; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '*')
			return false;
	return true;
}

/*
 * A bare word of lower-case letters (acpi_cpufreq's "acpi"): an old name a
 * module kept with MODULE_ALIAS, not a kernel request. The kernel asks by
 * formats with a parameter (fs-%s, crypto-%s, net-pf-%d, char-major-%d-%d,
 * nls_%s, binfmt-%04x, ...), never by such a word, so it does not make a
 * module unholdable. It did: acpi_cpufreq, which every CPU's modalias asks
 * for, could then be neither held nor joined, and the booted run's
 * hand-over waited for its init() (13 s of a 16-vCPU boot under TCG).
 */
static bool legacy_name(const char *a)
{
	const char *p;

	for (p = a; *p; p++)
		if (*p < 'a' || *p > 'z')
			return false;
	return p != a;
}

/* what mp_aliases_each finds: the kinds of alias (MP_ALIAS_*) per module */
static int mark_alias(void *data, const char *alias, int idx)
{
	unsigned char *kinds = data;

	if (mp_handover_device_alias(alias))
		kinds[idx] |= MP_ALIAS_DEVICE;
	else if (!legacy_name(alias))
		kinds[idx] |= MP_ALIAS_KERNEL;
	return 0;
}

static void mark_kinds(struct mp_module *m, int kinds)
{
	if (kinds & MP_ALIAS_DEVICE)
		m->ho.udev_alias = true;
	if (kinds & MP_ALIAS_KERNEL)
		m->ho.holdable = MP_HOLD_NO;
}

/* each module of want found nothing to go by: none is holdable, and each
 * may be udev's (the run waits, as it did before) */
static void mark_unknown(struct mp_plan *p, const struct mp_strmap *want)
{
	int i, unused;

	for (i = 0; i < p->nmods; i++)
		if (mp_strmap_get(want, p->mods[i].name, &unused) == 0)
			p->mods[i].ho.holdable = MP_HOLD_NO, p->mods[i].ho.udev_alias = true;
}

/* Reads modules.alias for the modules of want: their kinds, into kinds[] */
static int read_kinds(struct mp_ctx *ctx, const char *path, const struct mp_strmap *want,
		      const struct mp_alias_filter *filter, unsigned char *kinds)
{
	void *map = NULL;
	size_t len = 0;
	int r = mp_aliases_map(mp_ctx_kmod(ctx), path, &map, &len);

	if (r < 0) {
		mp_log(ctx, MP_LOG_INFO, "%s: %s; waiting for every init()", path, mp_errno_name(-r));
		return r;
	}
	if (map) {
		(void)mp_aliases_each(map, len, want, filter, mark_alias, kinds);
		munmap(map, len);
	}
	return 0;
}

/* a module of want: what it takes from the walk, and learned */
static void mark_walked(struct mp_ctx *ctx, const struct mp_strmap *want, const unsigned char *kinds,
			const struct stat *st)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	int i, unused;

	for (i = 0; i < p->nmods; i++)
		if (mp_strmap_get(want, p->mods[i].name, &unused) == 0) {
			mark_kinds(&p->mods[i], kinds[i]);
			if (st)
				mp_known_learn_kinds(ctx, st, p->mods[i].name, kinds[i]);
		}
}

/*
 * Marks the modules not final yet that only device aliases lead to, and
 * those a device alias leads to at all (udev may ask for them), from the
 * alias index (mp_aliases_map): read at the first look, and again only when
 * modules were planned after it, for those; not read for a module the last
 * boot's file (known.c) has the kinds of, from the same modules.alias.
 * With --lookups-out the final ones are looked at too, for the next boot,
 * in which they may not be final yet: from the file, or in a walk this run
 * makes anyway.
 */
void mp_handover_mark_holdable(struct mp_ctx *ctx)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	_cleanup_(mp_strmap_freep) struct mp_strmap *want = mp_strmap_new();
	_cleanup_free_ unsigned char *kinds = calloc((size_t)p->nmods + 1, 1);
	struct mp_alias_filter filter = { 0 };
	bool learn = mp_ctx_opts(ctx)->lookups_out != NULL;
	char path[PATH_MAX + 32];
	struct stat st;
	bool have_id, same = false, walked = false, later = false;
	int i, k;

	snprintf(path, sizeof(path), "%s/modules.alias", mp_ctx_env(ctx)->moddir);
	have_id = stat(path, &st) == 0;
	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];
		bool done = mp_state_done(m->state);

		if (m->ho.holdable != MP_HOLD_UNASKED || (done && !learn))
			continue;
		m->ho.holdable = m->path == NULL || mp_module_named(m) ? MP_HOLD_NO : MP_HOLD_YES;
		m->ho.udev_alias = m->path == NULL;
		if (m->ho.udev_alias)
			continue;
		k = have_id ? mp_known_alias_kinds(ctx, &st, m->name) : -1;
		if (k >= 0) {
			mark_kinds(m, k);
			mp_known_learn_kinds(ctx, &st, m->name, k);
			same = true;
		} else if (done) {
			later = true; /* in the walk, if there is one */
		} else if (want == NULL || kinds == NULL || mp_strmap_put(want, m->name, i) < 0) {
			m->ho.holdable = MP_HOLD_NO, m->ho.udev_alias = true;
		} else {
			mp_alias_filter_add(&filter, m->name);
			walked = true;
		}
	}
	for (i = 0; i < p->nmods && walked && later; i++)
		if (mp_state_done(p->mods[i].state) && p->mods[i].path &&
		    (!have_id || mp_known_alias_kinds(ctx, &st, p->mods[i].name) < 0) &&
		    mp_strmap_put(want, p->mods[i].name, i) == 0)
			mp_alias_filter_add(&filter, p->mods[i].name);
	if (walked && read_kinds(ctx, path, want, &filter, kinds) < 0)
		mark_unknown(p, want);
	else if (walked)
		mark_walked(ctx, want, kinds, have_id ? &st : NULL);
	if (walked || same)
		mp_known_alias_used(ctx, walked);
	for (i = 0; i < p->nmods; i++)
		if (p->mods[i].ho.holdable == MP_HOLD_NO && !mp_state_done(p->mods[i].state))
			mp_log(ctx, MP_LOG_DEBUG, "%s: asked for by name or by a kernel alias: not held; the "
			       "run waits for it%s", p->mods[i].name,
			       p->mods[i].ho.udev_alias ? "" : " until our load of it is in the kernel");
}

/* soon: modules.alias is read (mp_handover_mark_holdable) once the requests are
 * planned; its pages are asked for at the start, so that the disk reads
 * them while sysfs is walked (1.3 MB on Debian, read cold in the booted
 * system, where the waves step took 0.1-0.5 s under TCG). Not when the last
 * boot's kinds are of this file: then it is likely not read at all. */
void mp_handover_prefetch(const struct mp_ctx *ctx)
{
	char path[PATH_MAX + 32];
	_cleanup_close_ int fd = -1;
	struct stat st;

	snprintf(path, sizeof(path), "%s/modules.alias", mp_ctx_env(ctx)->moddir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !(fstat(fd, &st) == 0 && mp_known_alias_same(ctx, &st)))
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
}
