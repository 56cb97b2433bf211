// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stage 8 of 8, run: the conductor (this file) calls the stages in order,
 * and the command-line face (main.c) fills in the options and calls it;
 * /init (init/) is the other face. Nothing calls into this folder but the
 * faces.
 */
/*
 * The one pipeline, shared by the CLI and /init: requests, plan, schedule,
 * report.
 *
 * It runs in a child process. A module whose init() never returns keeps
 * its thread in the kernel, and a process with such a thread cannot finish
 * exiting: whoever waits for it would hang with it, and an /init that
 * exec()s the real init would block in exec. So the child sends its exit
 * status down a pipe as soon as the report is written, and the caller
 * goes on without waiting for the child to be gone. With a deadline the
 * caller waits for the status no longer than that either. With a
 * hand-over (handover.c) the child says so down the same pipe before the
 * end, and the caller goes on then.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "run.h"

static int fill_report(int fd, void *ctx)
{
	return mp_report_json(ctx, fd);
}

/*
 * The loads are done by now: a report that cannot be written loses only
 * itself, with a warning naming the path and the errno.
 */
static int write_report(struct mp_ctx *ctx, const char *path)
{
	_cleanup_close_ int fd = -1;
	const char *name;
	int dirfd = mp_ctx_at(ctx, path, &name);
	struct stat st;
	int r;

	if (strcmp(path, "-") == 0) {
		r = mp_report_json(ctx, STDOUT_FILENO);
		if (r < 0)
			mp_log(ctx, MP_LOG_ERR, "standard output: cannot write the report: %s (%s)",
			       strerror(-r), mp_errno_name(-r));
		return r;
	}
	/*
	 * A path that is not a regular file (/dev/stderr, a fifo, a link the
	 * caller made) is written where it points, as a shell redirection
	 * would: renaming a file over it would replace a device node or the
	 * caller's link. O_NONBLOCK: a fifo nobody reads is ENXIO, not a
	 * child that never hands back its status. A file is replaced whole,
	 * readable by all as the report has always been: readers see the old
	 * report or the new one, never half of one.
	 */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
		fd = openat(dirfd, name, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0)
			(void)fcntl(fd, F_SETFL, 0);
		r = fd < 0 ? -errno : mp_report_json(ctx, fd);
	} else {
		r = mp_write_atomic(dirfd, name, NULL, 0644, fill_report, ctx);
	}
	if (r < 0)
		mp_log(ctx, MP_LOG_ERR, "%s: cannot write the report: %s (%s)", path, strerror(-r),
		       mp_errno_name(-r));
	return r;
}

/* The requests by name: the arguments, the configured lists, the command
 * line. The devices' follow (gather_devices). */
static int gather_names(struct mp_ctx *ctx, const struct mp_run_args *a)
{
	int i, r = 0;

	mp_ctx_plan(ctx)->init_eexist_ebusy = mp_kernel_version(mp_ctx_env(ctx)->kver) >= 7001;
	/* modprobe NAME, or with -b modprobe -b NAME (mkinitcpio's MODULES) */
	for (i = 0; a->names && a->names[i] && r == 0; i++)
		r = mp_request(ctx, a->names[i], MP_SRC_ARGUMENT,
			       a->use_blacklist ? MP_BL_NAMES : MP_BL_ALIASES);
	for (i = 0; a->configs && a->configs[i] && r == 0; i++)
		r = mp_request_config_file(ctx, a->configs[i]);
	if (r == 0 && a->default_configs)
		r = mp_request_config_dirs(ctx, NULL);
	if (r == 0 && a->modules_load)
		r = mp_request_modules_load(ctx, NULL);
	return r == 0 ? mp_request_cmdline(ctx) : r;
}

static int gather_devices(struct mp_ctx *ctx, const struct mp_run_args *a)
{
	int r = 0;

	if (a->opts.coldplug)
		r = mp_coldplug_scan(ctx, MP_SRC_COLDPLUG);
	if (r == 0 && a->root_fs)
		r = mp_rootfs_plan(ctx);
	if (r == 0 && a->leave_single && !mp_ctx_cmdline(ctx)->leave_single_off)
		r = mp_plan_leave_single(ctx) < 0 ? -ENOMEM : 0;
	return r;
}

/* The one place the waves are computed, for a dry run as for a real one,
 * at the start and whenever the plan has grown; with them each module's
 * priority, the longest chain of expected load time it starts, which
 * changes with the graph. */
static int plan_waves(struct mp_ctx *ctx, bool urgent)
{
	int r;

	mp_plan_files(ctx, false);
	r = mp_graph_waves(mp_ctx_plan(ctx), mp_warn_cb, ctx);

	/* what the hand-over must see final starts first (handover.c) */
	if (r >= 0 && urgent)
		mp_handover_mark_urgent(ctx);
	return r < 0 ? r : mp_graph_priorities(mp_ctx_plan(ctx), mp_ctx_env(ctx)->profile.profile);
}

/* What the scheduler's callbacks need: the run, and the pipe to the
 * caller (-1: none, and no hand-over). */
struct conductor {
	struct mp_ctx *ctx;
	const struct mp_run_args *a;
	int status_fd;
};

/* Whether this run hands over: asked, someone to tell, not off. */
static bool handing_over(const struct conductor *c)
{
	return c->a->handover && c->status_fd >= 0 && !mp_ctx_cmdline(c->ctx)->handover_off;
}

/* ... and sooner (--handover-soon): what the hand-over waits for first */
static bool hurried(const struct conductor *c)
{
	return handing_over(c) && c->a->handover_soon && !c->a->opts.dry_run;
}


/* ... and with udev's kmod held by a rule meanwhile (--hold-udev): off
 * every device; with --handover-soon, the booted system's, off the CPUs
 * (udevhold.c) */
static bool ruled(const struct conductor *c)
{
	return handing_over(c) && c->a->opts.hold_udev && !c->a->opts.dry_run && !c->a->handover_soon;
}

static const char *hold_dir(const struct mp_run_args *a)
{
	return a->opts.hold_dir ? a->opts.hold_dir : MP_HOLD_DIR;
}

static bool nodev_on(struct mp_ctx *ctx, const struct mp_run_args *a)
{
	return a->nodev_path && !a->opts.dry_run && !mp_ctx_cmdline(ctx)->nodev_off;
}

/* The scheduler's feed: devices announced since the last call, or (rescan,
 * or announcements lost) all of them again. */
static int more_devices(void *data, bool rescan)
{
	const struct conductor *c = data;
	struct mp_ctx *ctx = c->ctx;
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	int before = p->nmods, r;

	r = mp_coldplug_drain(ctx);
	if (r == -ENOBUFS || rescan) {
		if (r == -ENOBUFS)
			mp_log(ctx, MP_LOG_INFO, "uevents were lost; rescanning %s/devices",
			       mp_ctx_env(ctx)->sysfs);
		r = mp_coldplug_scan(ctx, MP_SRC_UEVENT);
	}
	/* root='s device may be one of them (--root-fs); not once the rule
	 * let udevd go on (udevhold.c): the mount comes as the device does,
	 * and its modprobe loads the module once where ours would race it */
	if (r >= 0 && c->a->root_fs && !(ruled(c) && mp_ctx_result(ctx)->handover_at))
		r = mp_rootfs_probe(ctx);
	if (r < 0 || p->nmods == before)
		return r < 0 ? r : 0;
	r = plan_waves(ctx, hurried(c) || ruled(c));
	return r < 0 ? r : p->nmods - before;
}

static void kstats(struct mp_ctx *ctx, bool after)
{
	struct mp_result *res = mp_ctx_result(ctx);

	(void)mp_kstats_snapshot(mp_ctx_env(ctx)->sysfs, after ? &res->kstats_after :
				 &res->kstats_before, mp_warn_cb, ctx);
}

/* what the run writes into from now on, kept open across a switch-root that
 * may come first (mp_ctx_keep_dir); the boot id, read while /proc is ours */
static void keep_dirs(struct conductor *c)
{
	const struct mp_options *opts = mp_ctx_opts(c->ctx);
	const char *files[] = { c->a->report_path, nodev_on(c->ctx, c->a) ? c->a->nodev_path : NULL,
				opts->profile_out, opts->lookups_out };
	char boot[64];
	size_t i;

	mp_boot_id(boot, sizeof(boot));

	(void)mp_ctx_keep_dir(c->ctx, hold_dir(c->a), strlen(hold_dir(c->a)));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *slash = files[i] ? strrchr(files[i], '/') : NULL;

		if (slash && slash > files[i])
			(void)mp_ctx_keep_dir(c->ctx, files[i], (size_t)(slash - files[i]));
	}
}

/*
 * Only init()s are left (sched.c): hold what is not final from udev, and
 * let the caller go. The no-device blacklist known so far goes first, as
 * it did when the caller waited for the end: udevd starts once the caller
 * goes on, and reads both then.
 */
static int handover(void *data)
{
	struct conductor *c = data;
	struct mp_coldplug *cp = mp_ctx_coldplug(c->ctx);
	struct mp_handover *ho = mp_ctx_handover(c->ctx);
	unsigned char b = MP_STATUS_HANDOVER;

	if (!mp_handover_possible(c->ctx, hold_dir(c->a), c->a->handover_soon))
		return 0;
	keep_dirs(c);
	/* not written (said): what a blacklist cannot hold is waited for */
	if ((ho->rule || ho->cpu_rule) && !ho->rule_written && mp_udevhold_write(c->ctx, hold_dir(c->a)) < 0) {
		ho->rule = ho->cpu_rule = false;
		return 0;
	}
	if (mp_handover_hold(c->ctx, hold_dir(c->a), c->a->argv0) <= 0) {
		mp_udevhold_remove(c->ctx, hold_dir(c->a));
		return -1; /* said why; asking again would say it again */
	}
	if (nodev_on(c->ctx, c->a))
		(void)mp_nodev_write(c->ctx, c->a->nodev_path);
	/* new devices are udev's from now on, unless the rule keeps udev off
	 * their drivers: then they are ours to the end (udevhold.c) */
	if (!ho->rule && cp->uevent_fd >= 0) {
		close(cp->uevent_fd);
		cp->uevent_fd = -1;
	}
	/* let go before the plan (early): the caller is gone already */
	if (!ho->let_go && write(c->status_fd, &b, 1) != 1) {
		/* the caller is gone: nothing waits for us anyway */
	}
	return ho->rule ? 2 : 1;
}

/*
 * The last boot's holds, before the walk (early.c), and the caller goes
 * on: the names gate first, as the names may not be final before the
 * plan is (systemd-modules-load waits behind it; a name the devices'
 * requests leave to it opens it once the plan is made), unless the last
 * boot's run left every name to systemd-modules-load (gate.c).
 */
static void let_go_early(struct conductor *c)
{
	struct mp_handover *ho = mp_ctx_handover(c->ctx);
	unsigned char b = MP_STATUS_HANDOVER;
	const char *const *names, *const *waits;
	int nwaits;

	if (mp_known_held(c->ctx, &names, &waits, &nwaits) < 0)
		return; /* not known: after the plan, as it was */
	if (c->a->names_gate)
		(void)mp_gate_take(c->ctx, c->a->names_gate, true);
	keep_dirs(c);
	/* the CPUs' rule before READY=1: the last boot's hand-over did not
	 * wait for what it holds; not written, it is waited for after the plan */
	if (ho->cpu_rule && mp_udevhold_write(c->ctx, hold_dir(c->a)) < 0) {
		ho->cpu_rule = false;
		return;
	}
	if (mp_handover_early(c->ctx, hold_dir(c->a), c->a->argv0) <= 0)
		mp_udevhold_remove(c->ctx, hold_dir(c->a)); /* written again at the plan's hand-over */
	else if (write(c->status_fd, &b, 1) != 1) {
		/* the caller is gone: nothing waits for us anyway */
	}
}

/* into the new root before results free more loads, which open their
 * files in the root that is there then; there the devices and their
 * drivers are the root's udev's: the rule goes, and the feed closes */
static bool before_results(void *data)
{
	struct conductor *c = data;
	struct mp_coldplug *cp = mp_ctx_coldplug(c->ctx);

	mp_handover_rejoin(c->ctx);
	if (!mp_ctx_handover(c->ctx)->switched || !mp_ctx_handover(c->ctx)->rule_written)
		return false;
	mp_udevhold_remove(c->ctx, hold_dir(c->a));
	if (cp->uevent_fd >= 0) {
		close(cp->uevent_fd);
		cp->uevent_fd = -1;
	}
	return true;
}

/* the names gate opened once results made the names final */
static void after_results(void *data)
{
	mp_gate_check(((struct conductor *)data)->ctx, false);
}

static int schedule(struct conductor *c)
{
	struct mp_ctx *ctx = c->ctx;
	const struct mp_run_args *a = c->a;
	struct mp_feed feed = { .fd = mp_ctx_coldplug(ctx)->uevent_fd, .data = c };
	char queue[PATH_MAX];
	uint64_t t;
	int r;

	mp_ctx_handover(ctx)->rule = ruled(c);
	r = plan_waves(ctx, hurried(c) || ruled(c));
	if (a->opts.coldplug)
		feed.more = more_devices;
	if (handing_over(c)) {
		feed.handover = handover;
		feed.before_results = before_results;
		feed.after_results = after_results;
	}
	if (hurried(c) && mp_handover_udev_queue(hold_dir(a), queue, sizeof(queue)) == 0)
		feed.after = queue;
	mp_ctx_result(ctx)->planned = mp_now_ns() - mp_ctx_env(ctx)->t0;
	if (r < 0 || a->opts.dry_run)
		return r;
	if (a->opts.kstats)
		kstats(ctx, false);
	t = mp_now_ns();
	r = mp_sched_run(ctx, &feed);
	mp_ctx_result(ctx)->elapsed = mp_now_ns() - t;
	if (r == 0 && a->opts.kstats)
		kstats(ctx, true);
	return r;
}

static bool any_hung(const struct mp_ctx *ctx)
{
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	int i;

	for (i = 0; i < p->nmods; i++)
		if (p->mods[i].state == MP_HUNG)
			return true;
	return false;
}

static int run_here(const struct mp_run_args *a, int status_fd)
{
	struct conductor c = { .a = a, .status_fd = status_fd };
	struct mp_ctx *ctx = NULL;
	struct mp_coldplug *cp;
	struct mp_result *res;
	int r, status, wr = 0;

	r = mp_ctx_new(&a->opts, a->log, a->log_data, &ctx);
	if (ctx == NULL) {
		/* not even a context to log through: the caller's log is ours */
		return MP_EXIT_NOTHING;
	}
	res = mp_ctx_result(ctx);
	cp = mp_ctx_coldplug(ctx);
	if (res->fatal) {
		if (a->report_path)
			write_report(ctx, a->report_path);
		mp_ctx_free(ctx);
		return MP_EXIT_NOTHING;
	}
	/* The planner's state, and the last boot's load times, which every
	 * stage then reads and none changes. Not the times when
	 * rd.modpreload=0: that run loads nothing to order. */
	r = mp_plan_start(ctx);
	if (r == 0 && !mp_ctx_cmdline(ctx)->disabled)
		r = mp_profile_io_load(ctx, mp_ctx_profile_use(ctx));
	if (r < 0) {
		mp_log(ctx, MP_LOG_ERR, "cannot start: %s", strerror(-r));
		mp_ctx_free(ctx);
		return MP_EXIT_NOTHING;
	}
	if (mp_ctx_cmdline(ctx)->disabled) {
		mp_log(ctx, MP_LOG_NOTICE, "disabled by rd.modpreload=0 on the kernel command line");
		mp_ctx_free(ctx);
		return MP_EXIT_OK;
	}
	/* Listen before the scan, so a device that appears between the two
	 * is heard rather than lost. */
	if (a->opts.coldplug && !a->opts.dry_run) {
		cp->uevent_fd = mp_uevent_listen();
		if (cp->uevent_fd < 0)
			mp_warn(ctx, "cannot listen for uevents (%s); new devices are found by a rescan",
				mp_errno_name(-cp->uevent_fd));
	}
	c.ctx = ctx;
	if (hurried(&c))
		mp_handover_prefetch(ctx);
	res->planned_ctx = mp_now_ns() - mp_ctx_env(ctx)->t0;
	mp_ctx_handover(ctx)->cpu_rule = hurried(&c) && a->opts.hold_udev;
	r = gather_names(ctx, a);
	if (r == 0 && hurried(&c) && a->handover_early)
		let_go_early(&c);
	if (r == 0)
		r = gather_devices(ctx, a);
	res->planned_req = mp_now_ns() - mp_ctx_env(ctx)->t0;
	/* before the hand-over: systemd-modules-load waits behind it */
	if (r == 0 && a->names_gate && hurried(&c))
		(void)mp_gate_take(ctx, a->names_gate, false);
	/* taken early, for names that the devices' requests left to it */
	mp_gate_check(ctx, false);
	if (r == 0)
		r = schedule(&c);
	/* the benchmark's and the demo's number, not the boot's: it opens
	 * again every module asked for twice */
	if (r == 0 && (a->opts.estimate || a->opts.dry_run))
		res->estimated = mp_dupcost_plan(ctx, &res->dupcost_bytes, &res->dupcost_dups) == 0;
	if (r < 0) {
		mp_log(ctx, MP_LOG_ERR, "stopped: %s (%s)", strerror(-r), mp_errno_name(-r));
		res->fatal = mp_ctx_plan(ctx)->nmods == 0;
	}
	/* after a switch-root, what follows is written in the new root */
	mp_handover_rejoin(ctx);
	/* what was not final by now (failed, hung) will not be */
	mp_gate_check(ctx, true);
	/* held by the rule, udev's workers ask for no driver: the no-device
	 * blacklist may come at once (a root that follows reads it), before
	 * the rule goes (udevhold.c) */
	if (nodev_on(ctx, a) && mp_ctx_handover(ctx)->rule_written)
		(void)mp_nodev_write(ctx, a->nodev_path);
	/* after a hand-over, nothing goes from the hold directory nor comes
	 * into it while udev has events queued */
	mp_handover_settle(ctx, hold_dir(a));
	/* before the report: a caller that waits for the report finds the
	 * blacklist in place too (the file's errors are only logged) */
	if (nodev_on(ctx, a))
		(void)mp_nodev_write(ctx, a->nodev_path);
	mp_handover_release(ctx, hold_dir(a));
	/* what a gone loader held, this run did not look for */
	if (!a->opts.coldplug)
		mp_handover_replay_stale(ctx);
	mp_plan_files(ctx, true);
	/* before the report, which save-report waits for to keep them both */
	if (!res->fatal)
		mp_known_write(ctx);
	if (a->report_path)
		wr = write_report(ctx, a->report_path);
	if (!a->opts.dry_run && !res->fatal) {
		char buf[PATH_MAX];
		const char *out = mp_profile_io_out(ctx, a->report_path, buf, sizeof(buf));

		if (out)
			(void)mp_profile_io_write(ctx, out); /* a hint for the next boot: a warning at most */
	}
	mp_report_summary(ctx);
	status = mp_outcome_exit_status(ctx, r, wr);
	/* A hung worker may still wake up and look at ctx: leave it be. */
	if (!any_hung(ctx))
		mp_ctx_free(ctx);
	return status;
}

/*
 * --release-stale, and a unit's main process whose loader died after the
 * hand-over (SIGKILL: the OOM killer, a crash): the holds of a holder that
 * is gone go when the context is made (stale.c), and the devices that
 * wanted those modules are asked for again, for udev to load them. Nothing
 * is loaded here. The report: --release-stale's when asked for (-r); the
 * dead loader's, at its path, saying that it died (DIED: the signal, -1
 * for none) and what was released, so that the boot's report is not
 * missing, nor the last boot's taken for this one's.
 */
static int release_here(const struct mp_run_args *a, const char *report, int died)
{
	struct mp_ctx *ctx = NULL;

	(void)mp_ctx_new(&a->opts, a->log, a->log_data, &ctx);
	if (ctx == NULL)
		return MP_EXIT_NOTHING;
	mp_ctx_result(ctx)->loader_died = died;
	if (!mp_ctx_result(ctx)->fatal)
		mp_handover_replay_stale(ctx);
	if (report)
		(void)write_report(ctx, report);
	mp_ctx_free(ctx);
	return MP_EXIT_OK;
}

static void null_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		return;
	}
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

int mp_run(const struct mp_run_args *a)
{
	bool notified = false;
	int fds[2], status, died = 0;
	unsigned char b;
	pid_t pid;

	if (a->wait_names)
		return mp_run_wait_names(a);
	if (a->wait_runs)
		return mp_run_wait_runs(a);
	if (a->release_stale)
		return release_here(a, a->report_path, 0);
	if (!a->fork_guard)
		return run_here(a, -1);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return run_here(a, -1);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return run_here(a, -1);
	}
	if (pid == 0) {
		close(fds[0]);
		signal(SIGPIPE, SIG_IGN); /* a caller past its deadline, or let go, is gone */
		b = (unsigned char)run_here(a, fds[1]);
		/* A hung init() keeps this process alive: let go of the
		 * caller's output, so a shell reading it sees its end. */
		null_stdio();
		if (write(fds[1], &b, 1) != 1) {
			/* the parent is gone: nobody to tell */
		}
		_exit(b);
	}
	close(fds[1]);
	status = mp_run_wait_child(a, fds[0], pid, &notified, &died);
	close(fds[0]);
	/* killed after the hand-over, the child removed none of its holds:
	 * a unit's main process outlives it (reaped: no longer a holder) */
	if (notified && died)
		(void)release_here(a, a->report_path, died);
	/* a notify service that was not let go early is started now */
	if (!notified)
		(void)mp_notify_ready(status == MP_EXIT_OK ? "done" : "done, with problems: see the log");
	return status;
}
