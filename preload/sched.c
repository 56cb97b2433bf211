// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The scheduler: a bounded pool of workers over the plan's graph. A module
 * is handed to a worker as soon as everything it waits for is final
 * (dataflow), or, with --waves, when its whole wave may start.
 *
 * Ready modules wait in a queue ordered by the longest chain of expected
 * load time they start (graph.c), or, with --order=fifo, by arrival.
 *
 * The pool follows the CPU, not the count: jobs is how many loads may burn
 * CPU at once, and a worker whose init() sleeps (waiting for hardware, a
 * firmware timeout) does not hold a CPU, so another worker may start while
 * it sleeps, up to the most -j allows (limits.c; --pool=fixed: jobs
 * workers, always). What a worker does is read from its CPU clock and,
 * when that did not run much, its task state in /proc/self/task/TID/stat.
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

struct worker {
	struct sched *s;
	pthread_t thread;
	int id;
	int job;          /* module index being loaded, -1 when idle */
	uint64_t started; /* when that job started */
	bool abandoned;   /* its init() hung; its result no longer counts */
	pid_t tid;        /* for /proc/self/task/TID/stat; 0 until it runs */
	int asleep;       /* samples in a row that found it asleep in this job */
	int asleep_job;   /* the job those samples were of */
	/* pool_adjust()'s sample, taken with the lock dropped: this thread's */
	int sample_job;   /* -1: not sampled */
	pid_t sample_tid;
	bool sample_asleep;
	bool has_clock;     /* cpu_clock is its CPU-time clock */
	clockid_t cpu_clock;
	uint64_t cpu_ns, cpu_at; /* its CPU time at the last sample, and when */
};

struct sched {
	struct mp_ctx *ctx;            /* for its log only */
	struct mp_plan *plan;
	const struct mp_env *env;
	const struct mp_options *opts;
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct mp_job *queue;          /* ready jobs: a heap, best first */
	int qlen, qcap;
	uint64_t seq;                  /* arrival order, for ties and FIFO */
	int limit;                     /* jobs that may run at once */
	uint64_t next_sample;          /* when pool_adjust() looks again */
	int nabandoned;
	struct mp_load_result *done;   /* finished jobs, for us */
	int ndone, capdone;
	struct worker **workers;
	int nworkers, capworkers;
	int running;                   /* workers inside a job, not abandoned */
	bool stop;
	int wake[2];                   /* workers write a byte, we poll the other end */
	int wave;                      /* --waves: the wave allowed to start */
	struct mp_feed feed;           /* more work, from run.c */
	bool handed_over;              /* the caller went on (feed.handover) */
	uint64_t news_at;              /* when the plan last grew */
	uint64_t handover_next;        /* when to ask feed.handover again */
	uint64_t rescan_at;            /* may_hand_over()'s last rescan */
	struct mp_budget budget;       /* memory for images decompressed here */
};

/* When check_hung() gives up on a job started at t: at its timeout, or
 * at the run's deadline if that comes first. */
static uint64_t job_expiry(const struct mp_env *env, uint64_t t)
{
	t += (uint64_t)env->timeout_ms * 1000000u;
	return env->deadline && env->deadline < t ? env->deadline : t;
}

/*
 * When the worker itself stops waiting (for memory to decompress into, for
 * someone else's load): a twentieth of its time, at most a second, before
 * check_hung() would give up on it. Its own answer (ENOMEM, ETIMEDOUT) is
 * then what the report says, not a hung init() that never began.
 */
static uint64_t job_wait_end(uint64_t started, uint64_t expiry)
{
	uint64_t margin = (expiry - started) / 20;

	return expiry - (margin < 1000000000u ? margin : 1000000000u);
}

/* a goes out before b */
static bool before(const struct sched *s, const struct mp_job *a, const struct mp_job *b)
{
	if (!s->opts->fifo && a->prio != b->prio)
		return a->prio > b->prio;
	return a->seq < b->seq;
}

/* Called with the lock held, qlen > 0. */
static struct mp_job dequeue(struct sched *s)
{
	struct mp_job top = s->queue[0], *q = s->queue;
	int i = 0;

	q[0] = q[--s->qlen];
	for (;;) {
		int l = 2 * i + 1, r = l + 1, best = i;
		struct mp_job t;

		if (l < s->qlen && before(s, &q[l], &q[best]))
			best = l;
		if (r < s->qlen && before(s, &q[r], &q[best]))
			best = r;
		if (best == i)
			break;
		t = q[i];
		q[i] = q[best];
		q[best] = t;
		i = best;
	}
	return top;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sched *s = w->s;

	pthread_mutex_lock(&s->lock);
	w->tid = (pid_t)syscall(SYS_gettid);
	for (;;) {
		struct mp_load_result res = { 0 };
		struct mp_job job;
		char one = 1;

		/* Not while results wait to be applied: what they free may go
		 * before what is queued (a chain's next link, most often the
		 * one this worker just finished). apply_results() wakes us. */
		while (!s->stop && (s->qlen == 0 || s->running >= s->limit || s->ndone > 0))
			pthread_cond_wait(&s->work, &s->lock);
		if (s->stop)
			break;
		job = dequeue(s);
		w->job = job.idx;
		w->started = mp_now_ns();
		job.deadline = job_wait_end(w->started, job_expiry(s->env, w->started));
		s->running++;
		pthread_mutex_unlock(&s->lock);

		res.t_start = w->started;
		mp_load(s->env, &job, &res);
		res.t_end = mp_now_ns();
		res.worker = w->id;

		pthread_mutex_lock(&s->lock);
		if (w->abandoned)
			break; /* declared hung: nobody waits for this any more */
		w->job = -1;
		s->running--;
		if (mp_append(&s->done, &s->ndone, &s->capdone, sizeof(res)) == 0)
			s->done[s->ndone - 1] = res;
		if (write(s->wake[1], &one, 1) < 0) {
			/* full: we will be woken by what is already in it */
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int start_worker(struct sched *s)
{
	struct worker *w = calloc(1, sizeof(*w));
	pthread_attr_t attr;
	int r;

	if (w == NULL)
		return -ENOMEM;
	w->s = s;
	w->job = -1;
	w->id = s->nworkers;
	r = mp_append(&s->workers, &s->nworkers, &s->capworkers, sizeof(*s->workers));
	if (r < 0) {
		free(w);
		return r;
	}
	s->workers[s->nworkers - 1] = w;
	pthread_attr_init(&attr);
	/* workers hold no big buffers; decompression uses the heap */
	pthread_attr_setstacksize(&attr, 64 * 1024);
	r = pthread_create(&w->thread, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		s->nworkers--;
		free(w);
		return -r;
	}
	w->has_clock = pthread_getcpuclockid(w->thread, &w->cpu_clock) == 0;
	return 0;
}

/* Called with the lock held. */
static int enqueue(struct sched *s, int idx)
{
	struct mp_module *m = &s->plan->mods[idx];

	struct mp_job *q;
	int i;

	if (mp_append(&s->queue, &s->qlen, &s->qcap, sizeof(*s->queue)) < 0)
		return -ENOMEM;
	q = s->queue;
	/* The priority is the one of this moment: devices that appear later
	 * may lengthen the chain below a queued module, which then keeps its
	 * place. It will not wait long: it is ready. */
	i = s->qlen - 1;
	q[i] = (struct mp_job){
		.idx = idx, .name = m->name, .path = m->path, .options = m->options,
		.budget = &s->budget, .prio = m->prio, .seq = s->seq++,
	};
	for (; i > 0 && before(s, &q[i], &q[(i - 1) / 2]); i = (i - 1) / 2) {
		struct mp_job t = q[i];

		q[i] = q[(i - 1) / 2];
		q[(i - 1) / 2] = t;
	}
	m->state = MP_QUEUED;
	pthread_cond_signal(&s->work);
	return 0;
}

static bool may_start(const struct sched *s, const struct mp_module *m)
{
	return !s->opts->waves || m->wave <= s->wave;
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
			r = enqueue(s, i);
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
			r = enqueue(s, ready[i]);
	return r;
}

/* As they happen, for -v; the summary says it again at the right level. */
static void log_result(struct mp_ctx *ctx, const struct mp_module *m)
{
	if (m->state == MP_FAILED)
		mp_log(ctx, MP_LOG_INFO, "%s: %s: %s (%s)", m->name,
		       m->how ? m->how : "open", mp_load_error(m->err), mp_errno_name(m->err));
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
	uint64_t next = (uint64_t)env->timeout_ms * 1000000u, expiry;
	int i, n = s->nworkers;

	if (env->deadline && env->deadline > now && env->deadline - now < next)
		next = env->deadline - now;
	for (i = 0; i < n && *err == 0; i++) {
		struct worker *w = s->workers[i];
		struct mp_module *m;

		if (w->job < 0 || w->abandoned)
			continue;
		expiry = job_expiry(env, w->started);
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
			       "on it and what depends on it", m->name, env->timeout_ms / 1000);
		/* The thread stays in the kernel until init() returns; the pool
		 * gets a new one so the rest of the plan keeps its width. */
		w->abandoned = true;
		s->nabandoned++;
		s->running--;
		*err = finish(s, w->job);
		if (*err == 0 && !s->stop)
			*err = start_worker(s);
	}
	return next;
}

/* How often the pool looks at its workers while work waits for a slot. */
#define MP_POOL_TICK_NS (5u * 1000000u)

/* Whether the thread is asleep ('S', or 'D' as msleep() in an init() is):
 * not using a CPU. Unknown (no /proc) counts as busy: the fixed pool. */
static bool task_asleep(pid_t tid)
{
	char path[64], buf[128], *p;

	if (tid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	/* "tid (comm) S ...": comm may hold anything, but not past the last ')' */
	if (mp_read_file(path, buf, sizeof(buf), NULL) < 0 || (p = strrchr(buf, ')')) == NULL)
		return false;
	return p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

/*
 * Whether the worker ran on a CPU for at least half the time since the
 * last sample: then it is busy, whatever its state this instant, and the
 * procfs and sysfs reads below (the sampler's cost, large under TCG) are
 * not needed. One clock read; false when the clock cannot say.
 */
static bool ran_most(struct worker *w, uint64_t now)
{
	struct timespec ts;
	uint64_t cpu, prev = w->cpu_ns, span = now - w->cpu_at;
	bool had = w->cpu_at != 0;

	if (!w->has_clock || clock_gettime(w->cpu_clock, &ts) < 0)
		return false;
	cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	w->cpu_ns = cpu;
	w->cpu_at = now;
	return had && span > 0 && 2 * (cpu - prev) >= span;
}

/* Asleep in init() itself: until sysfs says the module is coming, the
 * load is still reading, checking and allocating, and a sleep there (the
 * file's pages, a lock, a dependency that is still coming) ends in work for
 * a CPU. Counting those let the pool oversubscribe CPU-bound inits. */
static bool asleep_in_init(const struct sched *s, const struct worker *w)
{
	return task_asleep(w->sample_tid) &&
	       mp_initstate(s->env->sysfs, s->plan->mods[w->sample_job].name) == MP_INITSTATE_COMING;
}

/*
 * Called with the lock held; drops it while it reads /proc, so that no
 * worker waits for it. The jobs that may run now: env->jobs, and one more
 * for each worker that two samples in a row found asleep in the same job's
 * init() (one sample may catch a spinning init() on a lock for an
 * instant), at most the -j limit's maximum; and the workers to run them.
 * A thread that cannot be made is no error while another works.
 *
 * Sampling costs a CPU-clock read a worker, and a few procfs reads for a
 * worker that did not run most of the time since (under emulation, TCG,
 * those can take a good part of a CPU): the next sample waits ten times as
 * long as this one took, so that the pool's own cost stays near a tenth
 * of one CPU however slow the machine is. With CPU-bound inits that tenth
 * was 5 % of a 2-vCPU guest's time (make bench's graph); the clock alone
 * costs a fraction of it.
 */
static int pool_adjust(struct sched *s, uint64_t now)
{
	const int max = (int)mp_limits[MP_LIM_JOBS].max;
	int i, n, asleep = 0, limit, want, r = 0;
	uint64_t took;

	if (!s->env->adaptive || now < s->next_sample)
		return 0;
	/* Only this thread starts workers: the array stays as it is while
	 * the lock is dropped, and the sample fields are ours. */
	n = s->nworkers;
	for (i = 0; i < n; i++) {
		struct worker *w = s->workers[i];

		w->sample_job = w->abandoned ? -1 : w->job;
		w->sample_tid = w->tid;
		if (w->sample_job < 0)
			w->asleep = 0;
	}
	pthread_mutex_unlock(&s->lock);
	for (i = 0; i < n; i++) {
		struct worker *w = s->workers[i];

		if (w->sample_job >= 0)
			w->sample_asleep = !ran_most(w, now) && asleep_in_init(s, w);
	}
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < n; i++) {
		struct worker *w = s->workers[i];

		if (w->sample_job < 0 || w->job != w->sample_job || w->abandoned)
			continue; /* done meanwhile: it counts from its next job */
		if (w->asleep_job != w->job) {
			w->asleep = 0;
			w->asleep_job = w->job;
		}
		w->asleep = w->sample_asleep ? w->asleep + 1 : 0;
		if (w->asleep >= 2)
			asleep++;
	}
	took = mp_now_ns() - now;
	s->next_sample = now + took + (10 * took > MP_POOL_TICK_NS ? 10 * took : MP_POOL_TICK_NS);
	limit = s->env->jobs + asleep;
	if (limit > max)
		limit = max;
	if (limit > s->limit)
		pthread_cond_broadcast(&s->work);
	if (limit != s->limit)
		mp_log(s->ctx, MP_LOG_DEBUG, "pool: %d of %d loads asleep in init(); up to %d at once",
		       asleep, s->running, limit);
	s->limit = limit;
	want = s->limit - s->running < s->qlen ? s->limit - s->running : s->qlen;
	while (r == 0 && s->nworkers - s->nabandoned - s->running < want)
		r = start_worker(s);
	return r < 0 && s->nworkers - s->nabandoned > 0 ? 0 : r;
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

/* Results not yet applied count as work: pool_adjust() drops the lock, and
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
	uint64_t settle = (uint64_t)s->opts->settle_ms * 1000000u, now = mp_now_ns();

	if (!all_final(p, 0, false)) {
		if (s->opts->waves && all_final(p, s->wave, true)) {
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
 * Whether the caller may go on now (docs/handover-design.md): the plan is
 * whole (the feed has been quiet for settle_ms and a last rescan brings
 * nothing) and loads are left, queued, running or waiting for others. The
 * boot then waits for none of them: held from udev, they load here as they
 * would have, in udev's workers, beside the boot. Waiting until only
 * init()s ran (the first version) kept udevd and sysinit.target waiting for
 * every load's read and relocation: at 32 vCPUs under TCG, minutes.
 * Called with the lock held; a rescan that brings work releases it and
 * says no.
 */
static bool may_hand_over(struct sched *s, uint64_t now, int *r)
{
	uint64_t settle = (uint64_t)s->opts->settle_ms * 1000000u;

	if (s->feed.handover == NULL || s->handed_over || now < s->handover_next || s->ndone > 0 ||
	    (s->running == 0 && s->qlen == 0) || now - s->news_at < settle)
		return false;
	s->handover_next = now + MP_HANDOVER_RETRY_NS;
	/* one rescan for each quiet spell: a refused hand-over asks again,
	 * and a walk of sysfs on every ask would cost more than the loads */
	if (s->feed.more && s->rescan_at <= s->news_at) {
		s->rescan_at = now;
		*r = take_more(s, true);
		if (*r != 0) {
			s->news_at = now;
			if (*r > 0)
				*r = release_ready(s);
			return false;
		}
	}
	return true;
}

static void hand_over(struct sched *s, uint64_t now, int *r)
{
	int h;

	if (!may_hand_over(s, now, r) || *r < 0)
		return;
	h = s->feed.handover(s->feed.data);
	if (h < 0)
		s->feed.handover = NULL; /* it cannot be done in this run */
	if (h <= 0)
		return;
	s->handed_over = true;
	s->feed.fd = -1;
	s->feed.more = NULL;
}

static int loop(struct sched *s)
{
	const struct mp_env *env = s->env;
	uint64_t quiet_since = 0;
	int r = 0;

	pthread_mutex_lock(&s->lock);
	count_waiting(s->plan);
	r = release_ready(s);
	s->news_at = mp_now_ns();
	while (r == 0) {
		enum next next = WAIT;
		uint64_t wait_ns, now;

		/* before results free more loads: those open their files in
		 * the root that is there now */
		if (s->handed_over && s->feed.tick)
			s->feed.tick(s->feed.data);
		r = apply_results(s);
		if (r < 0)
			break;
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
		r = pool_adjust(s, now);
		if (r < 0)
			break;
		/* work waits for a slot: look again when the next sample is due */
		if (s->env->adaptive && s->qlen > 0) {
			now = mp_now_ns();
			if (s->next_sample <= now)
				wait_ns = 0;
			else if (s->next_sample - now < wait_ns)
				wait_ns = s->next_sample - now;
		}
		if (s->feed.fd >= 0) {
			r = take_more(s, false);
			if (r > 0) {
				quiet_since = 0;
				s->news_at = now;
			}
			if (r >= 0)
				r = release_ready(s);
			if (r < 0)
				break;
		}
		hand_over(s, now, &r);
		if (r < 0)
			break;
		/* a refused hand-over is asked again when its retry is due */
		if (s->feed.handover && !s->handed_over && (s->running > 0 || s->qlen > 0)) {
			uint64_t t = mp_now_ns(), at = s->handover_next;

			if (s->news_at + (uint64_t)s->opts->settle_ms * 1000000u > at)
				at = s->news_at + (uint64_t)s->opts->settle_ms * 1000000u;
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
	s->opts = mp_ctx_opts(ctx);
	s->feed = *feed;
	s->wake[0] = s->wake[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->work, NULL);
	mp_budget_init(&s->budget, MP_DECOMPRESS_MAX);
	s->limit = s->env->jobs;
	r = pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) < 0 ? -errno : 0;
	for (i = 0; i < s->env->jobs && r == 0; i++)
		r = start_worker(s);
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
