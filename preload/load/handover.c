// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The hand-over (docs/handover-design.md): once the plan is whole (sched.c
 * decides when), the caller goes on, a hook returns, systemd gets READY=1,
 * and this process loads what is left, writes the report and exits. A slow
 * driver, its read and relocation as much as its init(), then delays only
 * what needs it, as when udev's workers load it.
 *
 * udev must not load a module that is left to us: its kmod builtin counts
 * only a live module as loaded and calls finit_module for a coming one,
 * which a kernel before 6.5 reads, checks and (before 6.4) allocates
 * before it refuses it, and one not started yet it would simply load too.
 * So each module not final yet is held: a
 * "blacklist NAME" file in /run/modprobe.d, which udev's lookups by alias
 * honour, made before the caller goes on (udevd starts after it and reads
 * it then) and removed at the end; each names its holder, so that if this
 * process is killed first the next run removes them (context/stale.c).
 * The files go, and the no-device blacklist is written, once udev's queue
 * is empty (mp_handover_settle): each file that comes or goes makes udevd
 * reload its module index and replace its workers, in the middle of
 * coldplug's events if it is earlier, and an event still queued must not
 * find a failed module unheld. A held module that failed had its devices'
 * events skipped by udev: their "add" is replayed once udevd has seen the
 * files go (it looks at most every 3 s), so that udev tries it once, as it
 * would have without us.
 *
 * Held only if nothing but device aliases lead to it: a blacklisted
 * module that the kernel asks for (fs-xfs, crypto-sha256, char-major-*)
 * makes modprobe answer "success" with nothing loaded, and a mount would
 * fail; a module asked for by name (modules-load.d, the command line, the
 * image's MODULES) is skipped by systemd-modules-load and `modprobe -b`
 * when held, and what is ordered after them would not wait for it. Until
 * every module left is held or joined there is no hand-over: the run waits
 * as it did before. Joined (may_join): on 6.5 and later the kernel joins a
 * second finit_module of a file to one in flight (idempotent_init_module),
 * so once our call is in, the modprobe by name or the kernel's own request
 * waits inside its call for ours and returns what ours returns, reading
 * nothing, as it would have waited for its own load. Only where no device
 * alias leads to the module: udev would ask for it too, and a kmod that
 * decompresses in user space (30 and older) calls init_module, which the
 * kernel does not join.
 *
 * This process may outlive the initramfs: it ignores the signals a
 * stopping unit or init sends (a fatal signal pending would abort the
 * killable waits inside an init()), is '@...' for systemd's last kill in
 * an initrd, and after switch-root enters PID 1's root (through /proc,
 * kept open from before) to open what it loads later and write what it
 * writes at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* how long the holds wait for udev's queue to empty, at most: udevd's own
 * bound for one event (a queue that lives longer is stuck) */
#define MP_QUEUE_WAIT_MS 180000u
/* how long it must stay empty: it empties for an instant between the
 * batches of udev's trigger (subsystems, then devices) */
#define MP_QUEUE_QUIET_MS 3000u

/* The kernel joins a second finit_module of M's file to ours (6.5 and
 * later, idempotent_init_module): the file is plain, or in the format the
 * kernel decompresses itself. */
static bool kernel_joins(const struct mp_env *env, const struct mp_module *m)
{
	const struct mp_format *f = mp_decompress_format(m->path);

	return mp_kernel_version(env->kver) >= 6005 && (f == NULL || strcmp(env->compression, f->name) == 0);
}

/* udev asks for M for no device while the run loads: the CPUs alone ask for
 * it, and the rule holds theirs (udevhold.c, with --handover-soon) */
static bool cpu_ruled(const struct mp_ctx *ctx, const struct mp_module *m)
{
	return mp_ctx_handover_const(ctx)->cpu_rule && m->requests > 0 && m->requests_cpu == m->requests;
}

/*
 * Whether M, not holdable, must be final before the hand-over. Yes where a
 * device alias leads to it: udev would ask once a device (and a kmod that
 * decompresses in user space, 30 and older, calls init_module, which the
 * kernel does not join: each call read and refused). Otherwise not where
 * the kernel joins the next call to ours. Before 6.5 (or a format the
 * kernel does not decompress) the next call is read, checked and refused
 * with EEXIST once ours is live, which libkmod counts as loaded: for a
 * name that is certain (what follows us in the boot loads every name again
 * at once: systemd-modules-load, mkinitcpio's modprobe -qab,
 * initramfs-tools' load_modules), so a name is waited for, unless the
 * names gate is held (gate.c: systemd-modules-load waits behind it until
 * every name is final, and then finds each live); for a module
 * only the kernel asks for by alias (edac-mce-amd, devname:kvm) it happens
 * only if the kernel asks while ours loads, and with soon (the booted
 * system's run) that one refused duplicate is allowed rather than the boot
 * waiting for the init(). Not in an initramfs: there the hand-over coming
 * sooner left devices our loads were still making to udev, which loaded
 * their dependencies again (handover-design.md §9). But what only the
 * root's file system needs (no device, no name as in mkinitcpio's MODULES,
 * no other kernel alias's asker): the mount's modprobe waits for ours.
 */
static bool must_finish(const struct mp_ctx *ctx, const struct mp_module *m, bool soon)
{
	bool rule = mp_ctx_handover_const(ctx)->rule;

	if (m->path == NULL || (m->ho.udev_alias && !rule && !cpu_ruled(ctx, m)))
		return true;
	if (kernel_joins(mp_ctx_env(ctx), m) || mp_module_rootfs(m))
		return false;
	return !(soon || rule) || (mp_module_named(m) && !mp_gate_held(ctx));
}

/*
 * Whether M, not holdable, may be left to the kernel (joined): ours is
 * under way (a worker has it; with soon, for a module only the kernel asks
 * for, its dependencies final is enough: if the kernel asks before a
 * worker takes it, the kernel's modprobe loads it and ours finds it live
 * or joins it; waiting for a free worker held the booted run's hand-over
 * for 59 s behind drm and kvm under TCG; a name behind the gate, too:
 * nothing asks for it by name before the gate opens), it need not be final
 * (must_finish), and no other run holds it (the initramfs's, for a module the root's
 * modules-load.d names: its blacklist would have systemd-modules-load skip
 * it, and our worker may be waiting for that run's load, another file).
 */
static bool may_join(const struct mp_ctx *ctx, const struct mp_module *m, const char *dir, bool soon)
{
	char path[PATH_MAX];
	bool under_way = m->state == MP_RUNNING ||
			 (soon && m->state == MP_QUEUED && (!mp_module_named(m) || mp_gate_held(ctx))) ||
			 (soon && m->late) || (mp_ctx_handover_const(ctx)->rule && !mp_module_named(m)) ||
			 (cpu_ruled(ctx, m) && !mp_module_named(m));

	if (!under_way || !mp_ctx_env(ctx)->live_state || must_finish(ctx, m, soon))
		return false;
	return mp_holder_path(path, sizeof(path), dir, m->name) == 0 && access(path, F_OK) < 0 &&
	       errno == ENOENT;
}

/* mp_handover_mark_holdable() when a module not final has not been looked at yet:
 * it reads the whole alias index */
static void mark_new(struct mp_ctx *ctx)
{
	const struct mp_plan *p = mp_ctx_plan(ctx);
	int i;

	for (i = 0; i < p->nmods; i++)
		if (!mp_state_done(p->mods[i].state) && p->mods[i].ho.holdable == MP_HOLD_UNASKED) {
			mp_handover_mark_holdable(ctx);
			return;
		}
}

/*
 * M may wait for udev's queue to empty (late): held, or left to the kernel
 * (may_join; late counts as under way there: a kernel's request before
 * ours loads it, and ours finds it live), and nothing of the hand-over's
 * or of the root's waits for it.
 */
static bool may_be_late(const struct mp_ctx *ctx, const struct mp_module *m)
{
	return m->state == MP_PENDING && !mp_module_named(m) && !mp_module_rootfs(m) &&
	       (m->ho.holdable == MP_HOLD_YES || (m->ho.holdable == MP_HOLD_NO && !must_finish(ctx, m, true)));
}

/*
 * Soon (the booted system's run): a driver that only CPUs ask for and that
 * found no device for any of them on the last boot of this tree (known.c),
 * and what only such drivers need, loads once udev's queue is empty
 * (sched.c). Its init() answered ENODEV then, and on the same machine it
 * will again: tried beside the boot's first units, acpi_cpufreq,
 * pcc_cpufreq and edac_mce_amd held the guest for 7-8 s between
 * sysinit.target and multi-user.target under TCG at 16 vCPUs, where udev's
 * workers would have tried them a few seconds later. Still tried, once:
 * firmware that changed finds its driver loaded, as it would have, only
 * later; one that says ENODEV again is blacklisted for the boot as before.
 */
static void mark_late(struct mp_ctx *ctx)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	bool more = true;
	int i, j;

	/* the plan grows: what has started keeps what it was */
	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];

		if (m->state == MP_PENDING)
			m->late = m->requests > 0 && m->requests_cpu == m->requests && mp_known_nodev(ctx, m->name) &&
				  may_be_late(ctx, m);
	}
	/* a dependency nothing else asks for waits with what needs it */
	while (more) {
		more = false;
		for (i = 0; i < p->nmods; i++) {
			struct mp_module *m = &p->mods[i];

			if (m->late || m->requests > 0 || m->nusers == 0 || !may_be_late(ctx, m))
				continue;
			for (j = 0; j < m->nusers && p->mods[m->users[j]].late; j++)
				;
			if (j == m->nusers)
				more = m->late = true;
		}
	}
}

/*
 * What the hand-over must see final goes first (soon): it keeps the
 * caller, and on the booted system udevd and sysinit.target, waiting. In
 * the critical-path order it queued behind every longer chain: mpt_params
 * (modules-load.d) started 8 s after the others in a 16-vCPU boot with two
 * loads at a time, and READY=1 waited for it (2: final, and alone:
 * pool.c). A name the kernel will join (6.5+) need only be under way, and
 * goes first too (1): on trixie mpt_sleep and mpt_params queued 11 s
 * behind the drivers while the hand-over waited for a worker to take them.
 * A name behind the names gate goes first and alone (2), as sysinit.target
 * waits for it (gate.c): beside the CPU drivers it took 18-23 s under TCG,
 * alone 1-2 s. What only the kernel asks for need not even be under way
 * (may_join).
 */
void mp_handover_mark_urgent(struct mp_ctx *ctx)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	int i;

	mark_new(ctx);
	mark_late(ctx);
	for (i = 0; i < p->nmods; i++)
		if (p->mods[i].ho.holdable != MP_HOLD_NO)
			p->mods[i].urgent = 0;
		else if (must_finish(ctx, &p->mods[i], true))
			p->mods[i].urgent = 2;
		else if (mp_module_named(&p->mods[i]))
			p->mods[i].urgent = mp_gate_held(ctx) ? 2 : 1; /* joined once a worker has it */
		else if (mp_ctx_handover(ctx)->rule && mp_module_rootfs(&p->mods[i]))
			p->mods[i].urgent = 2; /* live before the mount asks (udevhold.c) */
		else
			p->mods[i].urgent = 0;
}

bool mp_handover_possible(struct mp_ctx *ctx, const char *dir, bool soon)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	int i;

	mark_new(ctx);
	for (i = 0; i < p->nmods; i++)
		if (!mp_state_done(p->mods[i].state) && p->mods[i].ho.holdable != MP_HOLD_YES &&
		    !may_join(ctx, &p->mods[i], dir, soon))
			return false;
	return true;
}

/* with its holder: a run after this one's death knows it for dead
 * (context/stale.c) */
static int fill_held(int fd, void *data)
{
	const char *name = data;
	char buf[256 + 400], holder[160];
	int n = mp_holder_line(holder, sizeof(holder));

	n = n < 0 ? n : snprintf(buf, sizeof(buf),
				 "# Written by modpreload, which loads %s after the boot went on:\n"
				 "# udev leaves it alone until it is live or failed, then this file goes.\n"
				 "%sblacklist %s\n", name, holder, name);

	return n < 0 || (size_t)n >= sizeof(buf) ? -ENAMETOOLONG : mp_write_full(fd, buf, (size_t)n);
}

void mp_handover_unhold_one(struct mp_ctx *ctx, const char *dir, const char *name)
{
	char path[PATH_MAX];
	const char *base;
	int dirfd;

	if (mp_holder_path(path, sizeof(path), dir, name) < 0)
		return;
	dirfd = mp_ctx_at(ctx, path, &base);
	if (unlinkat(dirfd, base, 0) < 0 && errno != ENOENT)
		mp_warn(ctx, "%s: cannot remove: %s; udev leaves %s alone for this boot", path, mp_errno_name(errno),
			name);
}

/* ours, and what was held before the walk (early.c) for no module of the plan */
static void unhold(struct mp_ctx *ctx, const char *dir)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	struct mp_plan *p = mp_ctx_plan(ctx);
	int i;

	for (i = 0; i < p->nmods; i++)
		if (p->mods[i].ho.held)
			mp_handover_unhold_one(ctx, dir, p->mods[i].name);
	for (i = 0; i < ho->nearly; i++)
		if (!ho->early_used[i])
			mp_handover_unhold_one(ctx, dir, ho->early[i]);
}

int mp_handover_hold_one(struct mp_ctx *ctx, const char *dir, const char *name)
{
	char path[PATH_MAX];
	const char *base;
	int pid, r = mp_holder_path(path, sizeof(path), dir, name);

	/* another live run's (the initramfs's, still loading it after the
	 * switch): that run's to remove and to replay for */
	if (r == 0 && mp_holder_elsewhere(path, &pid)) {
		mp_log(ctx, MP_LOG_INFO, "%s: held from udev by another run (pid %d), which loads it; its hold "
		       "is left to it", name, pid);
		return 0;
	}
	if (r == 0) {
		int dirfd = mp_ctx_at(ctx, path, &base);

		r = mp_write_atomic(dirfd, base, "." MP_HELD_PREFIX "new", 0644, fill_held, (void *)name);
	}
	return r < 0 ? r : 1;
}

void mp_handover_begin(struct mp_ctx *ctx, char *argv0)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);

	if (ho->procfd < 0)
		ho->procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* only a process in PID 1's root follows it: one run in a chroot
	 * on purpose stays there */
	if (ho->procfd >= 0 && stat("/", &ho->root_st) == 0) {
		struct stat one;

		ho->may_rejoin = fstatat(ho->procfd, "1/root", &one, 0) == 0 &&
				 one.st_dev == ho->root_st.st_dev && one.st_ino == ho->root_st.st_ino;
	}
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	if (argv0 && argv0[0] && access("/etc/initrd-release", F_OK) == 0)
		argv0[0] = '@';
	mp_ctx_result(ctx)->handover_at = mp_now_ns() - mp_ctx_env(ctx)->t0;
}

/* NAME was held before the walk (early.c): now for a module of the plan */
static bool held_early(struct mp_handover *ho, const char *name)
{
	int i;

	for (i = 0; i < ho->nearly; i++)
		if (strcmp(ho->early[i], name) == 0)
			return ho->early_used[i] = true;
	return false;
}

int mp_handover_hold(struct mp_ctx *ctx, const char *dir, char *argv0)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	struct mp_plan *p = mp_ctx_plan(ctx);
	char why[160], ruled[64];
	int i, r = 0, n = 0, joined = 0, left = 0, by_rule = 0;

	/* made even with nothing to hold: udevd watches only the
	 * configuration directories that were there when it started */
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		r = -errno;
	/* let go before the plan: each that can be held is, whatever the others */
	for (i = 0; i < p->nmods && (r == 0 || ho->let_go); i++) {
		struct mp_module *m = &p->mods[i];
		int h;

		if (mp_state_done(m->state))
			continue;
		left++;
		/* not holdable: left to the kernel (may_join) */
		if (m->ho.holdable != MP_HOLD_YES) {
			m->ho.joined = true;
			if ((ho->rule || cpu_ruled(ctx, m)) && !mp_module_named(m))
				by_rule++; /* udev asks for it for no device (udevhold.c) */
			else
				joined++;
			continue;
		}
		h = held_early(ho, m->name) ? 1 : mp_handover_hold_one(ctx, dir, m->name);
		m->ho.held = h > 0;
		n += h > 0;
		r = h < 0 ? h : r;
	}
	/* the caller went on before the walk: what is held early stays */
	if (r < 0 && !ho->let_go) {
		mp_warn(ctx, "%s: cannot keep udev off the modules still loading: %s; waiting for them "
			"instead", dir, mp_errno_name(-r));
		unhold(ctx, dir);
		for (i = 0; i < p->nmods; i++)
			p->mods[i].ho.held = p->mods[i].ho.joined = false;
		return 0;
	}
	if (r < 0)
		mp_warn(ctx, "%s: cannot keep udev off the modules found since the boot went on: %s", dir,
			mp_errno_name(-r));
	if (!ho->let_go)
		mp_handover_begin(ctx, argv0);
	why[0] = ruled[0] = '\0';
	if (by_rule)
		snprintf(ruled, sizeof(ruled), ", %d more by a rule", by_rule);
	if (joined)
		snprintf(why, sizeof(why), "; %d asked for by name or by the kernel %s in the kernel, where "
			 "another load of %s waits for ours%s", joined, joined == 1 ? "is" : "are",
			 joined == 1 ? "it" : "one", mp_gate_held(ctx) ? ", or behind the names gate" : "");
	mp_log(ctx, MP_LOG_NOTICE, "%s: %d module%s still to load, finished in the background "
	       "(udev leaves %d alone until then%s%s)", ho->let_go ? "planned" : "handing over", left,
	       left == 1 ? "" : "s", n, ruled, why);
	return 1;
}

void mp_handover_rejoin(struct mp_ctx *ctx)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	struct stat st;
	int fd;

	if (!ho->may_rejoin || stat("/", &st) < 0)
		return;
	fd = openat(ho->procfd, "1/root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && (st.st_dev != ho->root_st.st_dev || st.st_ino != ho->root_st.st_ino) &&
	    fchdir(fd) == 0 && chroot(".") == 0 && chdir("/") == 0) {
		ho->root_st = st;
		ho->switched = true;
		mp_log(ctx, MP_LOG_INFO, "the root was switched: going on in the new one");
		(void)mp_moddir_reopen(ctx);
	}
	close(fd);
}

int mp_handover_udev_queue(const char *dir, char *path, size_t size)
{
	const char *slash = strrchr(dir, '/');

	if (slash == NULL || snprintf(path, size, "%.*s/udev/queue", (int)(slash - dir), dir) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * After a hand-over, before the holds go and the no-device blacklist is
 * written: udevd keeps "udev/queue" in its run directory (/run/udev/queue)
 * while events wait; the hold directory is that run directory's modprobe.d
 * (/run/modprobe.d). Let go earlier, udevd 252 reloaded its module index
 * and replaced its workers 4-5 s after each run ended, while coldplug's
 * events were queued, and udev's queue took twice as long to empty (16 s
 * against 8 s at 16 vCPUs under TCG); a queued event would also find a
 * failed module unheld, and udev would try it, then again at the replay.
 * Empty means empty for MP_QUEUE_QUIET_MS once udev's queue was seen (by
 * sched.c's pause or here): in 2 of 13 boots the end came in the instant
 * between the trigger's two batches, and udevd reloaded all the same.
 */
/* udev's queue file, beside the hold directory: beneath the kept one (the
 * queue moves with it, into the new root) when there is one */
static bool queue_there(struct mp_ctx *ctx, const char *dir, const char *path)
{
	char self[PATH_MAX];
	const char *name;
	int fd;

	snprintf(self, sizeof(self), "%s/.", dir);
	fd = mp_ctx_at(ctx, self, &name);
	return fd == AT_FDCWD ? access(path, F_OK) == 0 : faccessat(fd, "../udev/queue", F_OK, 0) == 0;
}

void mp_handover_settle(struct mp_ctx *ctx, const char *dir)
{
	struct mp_handover *ho = mp_ctx_handover(ctx);
	char path[PATH_MAX];
	unsigned waited = 0, quiet = 0;
	bool said = false;

	if (mp_ctx_result(ctx)->handover_at == 0 || mp_handover_udev_queue(dir, path, sizeof(path)) < 0)
		return;
	mp_handover_rejoin(ctx);
	for (;; waited += 100, quiet += 100) {
		if (queue_there(ctx, dir, path)) {
			if (!said)
				mp_log(ctx, MP_LOG_NOTICE, "waiting for udev's queue to empty (%s) before the holds go",
				       path);
			said = ho->udev_seen = true;
			quiet = 0;
		} else if (!ho->udev_seen || quiet >= MP_QUEUE_QUIET_MS) {
			return; /* no udev, or its queue empty for good */
		}
		if (waited >= MP_QUEUE_WAIT_MS)
			break;
		mp_sleep_ms(100);
	}
	if (quiet == 0)
		mp_warn(ctx, "%s still there after %u s: letting the holds go all the same", path,
			MP_QUEUE_WAIT_MS / 1000);
}

void mp_handover_release(struct mp_ctx *ctx, const char *dir)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	struct mp_handover *ho = mp_ctx_handover(ctx);
	_cleanup_free_ const char **failed = malloc(((size_t)p->nmods + (size_t)ho->nearly + 1) * sizeof(char *));
	char path[PATH_MAX];
	const char *name;
	unsigned n;
	int i, nfailed = 0, dirfd;
	bool all;

	if (mp_ctx_result(ctx)->handover_at == 0) {
		mp_udevhold_remove(ctx, dir); /* written, and no hand-over came */
		return;
	}
	mp_handover_rejoin(ctx);
	/* held before the plan, for a module of it that the hand-over's hold
	 * did not reach (done by then, or no hand-over came): the plan's. Not
	 * one left out of it (to udev, say): below, replayed unless live */
	for (i = 0; i < p->nmods; i++)
		if (!p->mods[i].ho.held && !p->mods[i].excluded && held_early(ho, p->mods[i].name))
			p->mods[i].ho.held = true;
	for (i = 0; failed && i < p->nmods; i++) {
		const struct mp_module *m = &p->mods[i];

		/* no device: a known answer that nodev.c keeps udev from
		 * asking again; hung: still in init(), a second load would
		 * be the duplicate we are here to prevent */
		if (m->ho.held && (m->state == MP_FAILED || (m->state == MP_SKIPPED && !m->excluded)) &&
		    !mp_outcome_no_device(p, m))
			failed[nfailed++] = m->name;
	}
	/* held before the plan for none of it: udev skipped its devices, and
	 * tries it now unless it is in the kernel (another's load) */
	for (i = 0; failed && i < ho->nearly; i++)
		if (!ho->early_used[i] && mp_initstate(mp_ctx_env(ctx)->sysfs_fd, ho->early[i]) == MP_INITSTATE_NONE)
			failed[nfailed++] = ho->early[i];
	unhold(ctx, dir); /* udev's queue is empty by now: mp_handover_settle */
	/* the files going changed the directory; a blacklist appended to
	 * meanwhile (nodev.c) did not, and udevd looks only at that */
	snprintf(path, sizeof(path), "%s/.", dir);
	dirfd = mp_ctx_at(ctx, path, &name);
	(void)utimensat(dirfd, name, NULL, 0);
	/* udev's kmod held by the rule: each device it kept that still wants
	 * a module (udevhold.c); after a switch-root the root's coldplug did;
	 * not for the CPUs' rule, which kept none without a driver */
	all = ho->rule && ho->rule_written && !ho->switched;
	mp_udevhold_remove(ctx, dir);
	if (all) {
		n = mp_ctx_result(ctx)->replayed = mp_handover_replay(ctx, NULL, 0);
		mp_log(ctx, n ? MP_LOG_NOTICE : MP_LOG_INFO, "udev was asked again for %u device%s that "
		       "still wanted a module", n, n == 1 ? "" : "s");
		return;
	}
	if (nfailed == 0)
		return;
	n = mp_ctx_result(ctx)->replayed = mp_handover_replay(ctx, failed, nfailed);
	mp_log(ctx, MP_LOG_NOTICE, "%d module%s failed after the hand-over or %s held for none of the "
	       "plan; udev was asked again for %u device%s that wanted %s", nfailed, nfailed == 1 ? "" : "s",
	       nfailed == 1 ? "was" : "were", n,
	       n == 1 ? "" : "s", nfailed == 1 ? "it" : "them");
}
