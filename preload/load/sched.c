// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stage 6 of 8, load: the scheduler (this file) hands each ready module to
 * a worker, which loads it (load.c, decompress.c); what the run came to is
 * decided once (outcome.c), and the caller may be let go before the end
 * (handover.c). It may call every stage before it, base to plan; more work
 * comes from run only through the feed run.c hands it.
 */
/*
 * The scheduler: a bounded pool of workers (pool.c) over the plan's graph.
 * A module is handed to a worker as soon as everything it waits for is
 * final (dataflow), or, with --waves, when its whole wave may start.
 *
 * One thread, this one, owns the plan: it hands out jobs, applies results,
 * and decides when a module has hung. New work comes from the conductor
 * (run.c) through a feed, asked in this thread, never from here directly.
 * Workers only open a file and make the syscall (load.c). They
 * talk to us through a mutex-protected queue and a pipe that wakes us (a
 * pipe, not an eventfd: tiny embedded kernels are built without eventfd).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "sched.h"

static bool may_start(const struct sched *s, const struct mp_module *m)
{
	return (!m->late || s->late_go) && (!s->env->waves || m->wave <= s->wave);
}

/* Modules whose dependencies are all final, and (with --waves) whose wave
 * has come, go to the queue. Called with the lock held. */
static int release_ready(struct sched *s)
{
	struct mp_plan *p = s->plan;
	int i, r;

	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];

		if (m->state == MP_PENDING && m->waiting == 0 && may_start(s, m)) {
			r = mp_pool_enqueue(s, i);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* From scratch, for every pending module: how many of its dependencies
 * are not final yet. New edges appear when devices do. */
static void count_waiting(struct mp_plan *p)
{
	int i, j;

	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];

		if (m->state != MP_PENDING)
			continue;
		m->waiting = 0;
		for (j = 0; j < m->ndeps; j++)
			if (!mp_state_done(p->mods[m->deps[j].dep].state))
				m->waiting++;
	}
}

/* A module reached a final state: free what waited for it. */
static int finish(struct sched *s, int idx)
{
	struct mp_plan *p = s->plan;
	_cleanup_free_ int *ready = malloc(((size_t)p->nmods + 1) * sizeof(int));
	int n = 0, i, r;

	if (ready == NULL)
		return -ENOMEM;
	r = mp_graph_finish(p, idx, ready, &n);
	for (i = 0; i < n && r == 0; i++)
		if (may_start(s, &p->mods[ready[i]]))
			r = mp_pool_enqueue(s, ready[i]);
	return r;
}

/* As they happen, for -v; the summary says it again at the right level. */
static void log_result(struct mp_ctx *ctx, const struct mp_module *m)
{
	if (m->state == MP_FAILED)
		mp_log(ctx, MP_LOG_INFO, "%s: %s: %s (%s)", m->name, m->how ? m->how : "open",
		       m->fail_why ? m->fail_why : mp_load_error(m->err), mp_errno_name(m->err));
	else if (m->state == MP_HUNG)
		mp_log(ctx, MP_LOG_ERR, "%s: another load of it is still in init() after %.0f s; giving "
		       "up on it and what depends on it", m->name, (double)(m->t_end - m->t_start) / 1e9);
	else
		mp_log(ctx, MP_LOG_DEBUG, "%s: %s in %.1f ms", m->name, mp_state_name(m->state, false),
		       (double)(m->t_end - m->t_start) / 1e6);
}

/* Called with the lock held. */
static int apply_results(struct sched *s)
{
	struct mp_plan *p = s->plan;
	int i, r = 0;

	for (i = 0; i < s->ndone && r == 0; i++) {
		const struct mp_load_result *res = &s->done[i];
		struct mp_module *m = &p->mods[res->idx];

		m->state = res->state;
		m->err = res->err;
		/* it failed before any load call: its file could not be opened,
		 * which finit_module's ENOENT (an unknown symbol) is not */
		if (m->state == MP_FAILED && res->how == NULL && m->fail_why == NULL &&
		    (m->err == ENOENT || m->err == ENOTDIR))
			m->fail_why = strdup("its file is not in the module directory "
					     "(nor moved, nor with another compression)");
		if (m->state == MP_SKIPPED) {
			free(m->skip_why);
			m->skip_why = strdup("not tried: its time was up before it started");
		}
		m->how = res->how;
		m->read = res->read;
		m->worker = res->worker;
		m->t_start = res->t_start - s->env->t0;
		m->t_end = res->t_end - s->env->t0;
		log_result(s->ctx, m);
		r = finish(s, res->idx);
	}
	if (s->ndone > 0)
		pthread_cond_broadcast(&s->work);
	s->ndone = 0;
	return r;
}

/* Called with the lock held. Returns ns until the next module could hang
 * or the run's deadline comes. The caller's now: a caller that then acts on
 * the deadline must see the same time as this did, or a job expiring in
 * between would be neither hung nor done. */
static uint64_t check_hung(struct sched *s, uint64_t now, int *err)
{
	const struct mp_env *env = s->env;
	uint64_t next = mp_pool_job_bound_ms(s) * 1000000u, expiry;
	int i, n = s->nworkers;

	if (env->deadline && env->deadline > now && env->deadline - now < next)
		next = env->deadline - now;
	for (i = 0; i < n && *err == 0; i++) {
		struct worker *w = s->workers[i];
		struct mp_module *m;

		if (w->job < 0 || w->abandoned)
			continue;
		expiry = mp_pool_job_expiry(s, w->started);
		if (now < expiry) {
			if (expiry - now < next)
				next = expiry - now;
			continue;
		}
		m = &s->plan->mods[w->job];
		m->state = MP_HUNG;
		m->worker = w->id;
		m->t_start = w->started - env->t0;
		m->t_end = now - env->t0;
		if (expiry == env->deadline)
			mp_log(s->ctx, MP_LOG_ERR, "%s: still loading when the run's time was up; "
			       "giving up on it and what depends on it", m->name);
		else
			mp_log(s->ctx, MP_LOG_ERR, "%s: init() has not returned after %u s; giving up "
			       "on it and what depends on it", m->name,
			       (unsigned)(mp_pool_job_bound_ms(s) / 1000));
		/* The thread stays in the kernel until init() returns; the pool
		 * gets a new one so the rest of the plan keeps its width. */
		w->abandoned = true;
		s->nabandoned++;
		s->running--;
		*err = finish(s, w->job);
		if (*err == 0 && !s->stop)
			*err = mp_pool_start_worker(s);
	}
	return next;
}

static bool all_final(const struct mp_plan *p, int wave, bool waves)
{
	int i;

	for (i = 0; i < p->nmods; i++)
		if (!mp_state_done(p->mods[i].state) && (!waves || p->mods[i].wave <= wave))
			return false;
	return true;
}

/*
 * Nothing queued, nothing running, yet modules are not final: a bookkeeping
 * bug, never expected. Say so and give them up rather than wait forever.
 */
/* What has not reached a final state never will: say why (and log it at
 * prio, unless prio is negative). Called with the lock held, when no
 * worker will take another job. */
static void skip_rest(struct sched *s, const char *why, int prio)
{
	struct mp_plan *p = s->plan;
	int i;

	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];

		if (mp_state_done(m->state))
			continue;
		m->state = MP_SKIPPED;
		free(m->skip_why);
		m->skip_why = strdup(why);
		if (prio >= 0)
			mp_log(s->ctx, prio, "%s: %s", m->name, why);
	}
}

static bool stalled(struct sched *s)
{
	count_waiting(s->plan);
	if (release_ready(s) < 0 || s->qlen > 0)
		return false;
	skip_rest(s, "internal error: its dependencies never finished", MP_LOG_ERR);
	return true;
}

/* More work from the conductor, which resolves it and computes the waves
 * (in this thread, the one libkmod thread). Called with the lock held: the
 * plan grows, and workers hold only copies of pointers to strings that do
 * not move. */
static int take_more(struct sched *s, bool rescan)
{
	int r = s->feed.more(s->feed.data, rescan);

	if (r > 0)
		count_waiting(s->plan);
	return r;
}

/*
 * The loop stopped on an error while loads may be in flight. A worker in
 * the syscall cannot be joined: its init() may never return, and then
 * neither would we, nor the report, nor the status our caller waits for.
 * So each load in flight gets what the loop would have given it, its
 * timeout, and is then given up on as hung; what never started is
 * skipped. Called with the lock held.
 */
static void drain(struct sched *s)
{
	char buf[64];

	s->stop = true;
	pthread_cond_broadcast(&s->work);
	while (s->running > 0) {
		struct pollfd pfd = { s->wake[0], POLLIN, 0 };
		uint64_t wait_ns;
		int r = 0;

		(void)apply_results(s);
		wait_ns = check_hung(s, mp_now_ns(), &r);
		if (s->running == 0 || r < 0)
			continue; /* r < 0: it stopped early; look again */
		pthread_mutex_unlock(&s->lock);
		if (poll(&pfd, 1, (int)(wait_ns / 1000000u) + 1) > 0)
			while (read(s->wake[0], buf, sizeof(buf)) > 0)
				;
		pthread_mutex_lock(&s->lock);
	}
	(void)apply_results(s);
	skip_rest(s, "not tried: loading stopped on an error", -1);
}

/* Results not yet applied count as work: mp_pool_adjust() drops the lock, and
 * a load that ends meanwhile is neither running nor final until then. */
static bool idle(const struct sched *s)
{
	return s->qlen == 0 && s->running == 0 && s->ndone == 0;
}

enum next { WAIT, AGAIN, END };

/*
 * Nothing queued, nothing running: the next wave, more work, or the end.
 * With a feed (coldplug), the devices the last loads made get settle_ms
 * to be announced, then a rescan; one that brings nothing new ends the
 * run. Called with the lock held.
 */
static enum next when_idle(struct sched *s, uint64_t *quiet_since, uint64_t *wait_ns, int *r)
{
	const struct mp_plan *p = s->plan;
	uint64_t settle = (uint64_t)s->env->settle_ms * 1000000u, now = mp_now_ns();

	if (!all_final(p, 0, false)) {
		if (mp_sched_late_waiting(s) > 0)
			return WAIT; /* let_late_go() set when to look again */
		if (s->env->waves && all_final(p, s->wave, true)) {
			s->wave++;
			*r = release_ready(s);
			return AGAIN;
		}
		return stalled(s) ? END : AGAIN;
	}
	if (s->feed.more == NULL)
		return END;
	if (*quiet_since == 0)
		*quiet_since = now;
	if (now - *quiet_since < settle) {
		if (settle - (now - *quiet_since) < *wait_ns)
			*wait_ns = settle - (now - *quiet_since);
		return WAIT;
	}
	*r = take_more(s, true);
	if (*r <= 0)
		return END;
	*quiet_since = 0;
	*r = release_ready(s);
	return AGAIN;
}

/* Until a worker finishes, the feed has news, or wait_ns pass. Called with
 * the lock held; drops it while it sleeps. */
static void wait_for_news(struct sched *s, uint64_t wait_ns)
{
	struct pollfd pfd[2] = { { s->wake[0], POLLIN, 0 }, { s->feed.fd, POLLIN, 0 } };
	char buf[64];

	pthread_mutex_unlock(&s->lock);
	if (poll(pfd, s->feed.fd >= 0 ? 2 : 1, (int)(wait_ns / 1000000u) + 1) > 0 &&
	    (pfd[0].revents & POLLIN))
		while (read(s->wake[0], buf, sizeof(buf)) > 0)
			;
	pthread_mutex_lock(&s->lock);
}

/* How often the hand-over is considered again when it could not be made:
 * each look reads a sysfs file a running load. */
#define MP_HANDOVER_RETRY_NS (200u * 1000000u)

/*
 * Whether the caller may go on now (docs/handover-design.md): settle_ms
 * after the loop began, the devices present then and announced since are
 * planned (without a uevent listener, one more scan of sysfs finds those
 * that appeared; with one, that scan would find nothing the listener has
 * not told, and it took 1-2 s of the boot at 16 vCPUs under TCG, holding
 * the lock that lets loads finish); loads are left (queued, running,
 * waiting for others). The boot then waits for none of them: held from
 * udev or joined by the kernel, they load here as they would have in
 * udev's workers, beside the boot. Devices that appear after
 * it are udev's. Two earlier rules were too late: "only init()s left"
 * kept udevd and sysinit.target waiting for every load's read and
 * relocation (minutes at 32 vCPUs under TCG), and "the feed quiet for
 * settle_ms" for every device the loads themselves made. Called with the
 * lock held.
 */
static bool may_hand_over(struct sched *s, uint64_t now, int *r)
{
	uint64_t settle = (uint64_t)s->env->settle_ms * 1000000u;

	if (s->feed.handover == NULL || s->handed_over || now < s->handover_next || s->ndone > 0 ||
	    (s->running == 0 && s->qlen == 0 && mp_sched_late_waiting(s) == 0) || now - s->started_at < settle)
		return false;
	s->handover_next = now + MP_HANDOVER_RETRY_NS;
	if (s->feed.more && s->feed.fd < 0 && !s->rescanned) {
		s->rescanned = true;
		*r = take_more(s, true);
		if (*r > 0)
			*r = release_ready(s);
	}
	return *r >= 0;
}

static void hand_over(struct sched *s, uint64_t now, int *r)
{
	int h;

	if (!may_hand_over(s, now, r) || *r < 0)
		return;
	h = s->feed.handover(s->feed.data);
	if (h < 0)
		s->feed.handover = NULL; /* it cannot be done in this run */
	if (!s->handover_tried && h <= 0)
		pthread_cond_broadcast(&s->work); /* held_back() looks again */
	s->handover_tried = true;
	if (h <= 0)
		return;
	s->handed_over = true;
	s->handed_over_at = now;
	s->paused = s->feed.after != NULL;
	if (h == 1) {
		s->feed.fd = -1;
		s->feed.more = NULL;
	}
}

static int loop(struct sched *s)
{
	const struct mp_env *env = s->env;
	uint64_t quiet_since = 0;
	int r = 0;

	pthread_mutex_lock(&s->lock);
	count_waiting(s->plan);
	r = release_ready(s);
	s->started_at = mp_now_ns();
	while (r == 0) {
		enum next next = WAIT;
		uint64_t wait_ns, now;

		if (s->handed_over && s->feed.before_results && s->feed.before_results(s->feed.data)) {
			s->feed.fd = -1;
			s->feed.more = NULL;
		}
		r = apply_results(s);
		if (r < 0)
			break;
		if (s->handed_over && s->feed.after_results)
			s->feed.after_results(s->feed.data);
		now = mp_now_ns();
		wait_ns = check_hung(s, now, &r);
		if (r < 0)
			break;
		if (env->deadline && now >= env->deadline) {
			/* every job's expiry is at the deadline or before: what
			 * was loading was given up on just now, with this now */
			skip_rest(s, "not tried: the run's time was up", -1);
			break;
		}
		r = mp_pool_adjust(s, now);
		if (r < 0)
			break;
		/* work waits for a slot: look again when the next sample is due;
		 * not while paused, when nothing runs and nothing may start: the
		 * 5 ms tick woke the booted run 200 times a second for the 3-6 s
		 * from its hand-over until udev's coldplug began */
		if (s->env->adaptive && s->qlen > 0 && !s->paused) {
			now = mp_now_ns();
			if (s->next_sample <= now)
				wait_ns = 0;
			else if (s->next_sample - now < wait_ns)
				wait_ns = s->next_sample - now;
		}
		if (s->feed.fd >= 0) {
			r = take_more(s, false);
			if (r > 0)
				quiet_since = 0;
			if (r >= 0)
				r = release_ready(s);
			if (r < 0)
				break;
		}
		hand_over(s, now, &r);
		if (r < 0)
			break;
		mp_sched_resume(s, now, &wait_ns);
		if (mp_sched_late_go(s, now, &wait_ns))
			r = release_ready(s);
		if (r < 0)
			break;
		/* a refused hand-over is asked again when its retry is due */
		if (s->feed.handover && !s->handed_over && (s->running > 0 || s->qlen > 0)) {
			uint64_t t = mp_now_ns(), at = s->handover_next;

			if (s->started_at + (uint64_t)s->env->settle_ms * 1000000u > at)
				at = s->started_at + (uint64_t)s->env->settle_ms * 1000000u;
			wait_ns = at <= t ? 0 : at - t < wait_ns ? at - t : wait_ns;
		}
		if (idle(s))
			next = when_idle(s, &quiet_since, &wait_ns, &r);
		else
			quiet_since = 0;
		if (next == END || r < 0)
			break;
		if (next == WAIT)
			wait_for_news(s, wait_ns);
	}
	if (r < 0)
		drain(s);
	s->stop = true;
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->lock);
	return r < 0 ? r : 0;
}

static void stop_all(struct sched *s)
{
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_broadcast(&s->work);
	pthread_mutex_unlock(&s->lock);
}

int mp_sched_run(struct mp_ctx *ctx, const struct mp_feed *feed)
{
	struct sched *s = calloc(1, sizeof(*s));
	bool any_hung = false;
	int i, r;

	if (s == NULL)
		return -ENOMEM;
	s->ctx = ctx;
	s->plan = mp_ctx_plan(ctx);
	s->env = mp_ctx_env(ctx);
	s->feed = *feed;
	s->wake[0] = s->wake[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->work, NULL);
	mp_budget_init(&s->budget, MP_DECOMPRESS_MAX);
	s->limit = s->env->jobs;
	r = pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) < 0 ? -errno : 0;
	for (i = 0; i < s->env->jobs && r == 0; i++)
		r = mp_pool_start_worker(s);
	if (r == 0)
		r = loop(s);
	else
		stop_all(s);

	/* Idle workers end now: stop is set, and they look at it before
	 * taking a job. A hung one is in the kernel until its init() returns
	 * and cannot be joined: it is detached, and s stays allocated for it
	 * to find its lock when it wakes. Only idle workers are joined (the
	 * loop ends with none in a job, drain() too). The caller runs us in a
	 * child process it does not wait for (run.c). */
	for (i = 0; i < s->nworkers; i++) {
		struct worker *w = s->workers[i];
		bool hung;

		pthread_mutex_lock(&s->lock);
		hung = w->abandoned || w->job >= 0;
		pthread_mutex_unlock(&s->lock);
		if (hung) {
			any_hung = true;
			pthread_detach(w->thread);
			continue;
		}
		pthread_join(w->thread, NULL);
		free(w);
		s->workers[i] = NULL;
	}
	if (any_hung)
		return r;
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	pthread_cond_destroy(&s->work);
	pthread_mutex_destroy(&s->lock);
	mp_budget_destroy(&s->budget);
	free(s->workers);
	free(s->queue);
	free(s->done);
	free(s);
	return r;
}
