// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The scheduler's workers and its ready queue. Ready modules wait in a
 * heap ordered by the longest chain of expected load time they start
 * (graph.c), or, with --order=fifo, by arrival; a worker takes the best,
 * loads it (load.c) and hands the result back to the scheduler's thread.
 *
 * The pool follows the CPU, not the count: jobs is how many loads may burn
 * CPU at once, and a worker whose init() sleeps (waiting for hardware, a
 * firmware timeout) does not hold a CPU, so another worker may start while
 * it sleeps, up to the most -j allows (limits.c; --pool=fixed: jobs
 * workers, always). What a worker does is read from its CPU clock and,
 * when that did not run much, its task state in /proc/self/task/TID/stat.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sched.h"

/*
 * How long an init() may take before it is given up on: the timeout while
 * the caller waits; once it has gone on (the hand-over), no less than
 * udev's own event timeout (180 s), which the module would have had in a
 * udev worker. Giving up then helps no one (the boot is not waiting) and
 * costs: its dependents are skipped and replayed, its hold goes while it
 * is still coming, and udev's workers load it again. Under TCG on a busy
 * host, loads that take milliseconds on hardware took over 60 s.
 */
uint64_t mp_pool_job_bound_ms(const struct sched *s)
{
	uint64_t t = s->env->timeout_ms;

	return s->handed_over && t < MP_UDEV_EVENT_TIMEOUT_MS ? MP_UDEV_EVENT_TIMEOUT_MS : t;
}

/* When check_hung() gives up on a job started at t: at its bound, or
 * at the run's deadline if that comes first. */
uint64_t mp_pool_job_expiry(const struct sched *s, uint64_t t)
{
	const struct mp_env *env = s->env;

	t += mp_pool_job_bound_ms(s) * 1000000u;
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
	if (!s->env->fifo && a->prio != b->prio)
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

/*
 * Whether the best ready module waits because something the hand-over
 * waits to see final (urgent, or what an urgent module needs:
 * --handover-soon) is loading, and it is not for the hand-over. Those load
 * alone but for what the hand-over needs under way: the caller, and on the
 * booted system udevd and sysinit.target, wait for them, and a load beside
 * them can stall them. In a 16-vCPU boot under TCG kvm started 9 s after
 * mpt_params (modules-load.d; 1.3 s alone) and its text patching kept
 * mpt_params from finishing for 86 s. Only while one runs (a running load
 * ends, or is given up on), and not by arrival order or in waves, where
 * the urgent need not come first. Called with the lock held.
 */
static bool running_at_least(const struct sched *s, uint64_t prio)
{
	const struct mp_plan *p = s->plan;
	int i;

	for (i = 0; i < p->nmods; i++)
		if (p->mods[i].state == MP_RUNNING && p->mods[i].prio >= prio)
			return true;
	return false;
}

static bool urgent_running(const struct sched *s)
{
	if (s->env->fifo || s->env->waves || s->qlen == 0 || s->plan->mods[s->queue[0].idx].prio >= MP_FIRST_NS)
		return false;
	return running_at_least(s, MP_URGENT_NS);
}

/*
 * Whether the best ready module waits for the first hand-over attempt: a
 * hand-over asked for soon (feed.after: the booted system's unit) lets
 * only what it needs (urgent or first) go before it, and what it leaves
 * waits for udev's coldplug then (sched.c's resume()). Loaded at once, the
 * CPU drivers that find no device (acpi_cpufreq, pcc_cpufreq, edac_mce_amd)
 * started 0.2-0.4 s before the hand-over in 14 of 14 boots at 16 vCPUs
 * under TCG, beside systemd's first units, whose text patching they
 * stalled: sysinit.target came 4.5 s later than without modpreload. After
 * an attempt that failed, only while something the hand-over waits for is
 * loading (it is retried every 200 ms): with nothing of that kind left,
 * everything goes, as before, and nothing waits for a hand-over that may
 * never come. Called with the lock held.
 */
static bool held_back(const struct sched *s)
{
	return s->feed.after != NULL && s->feed.handover != NULL && !s->handed_over && s->qlen > 0 &&
	       s->plan->mods[s->queue[0].idx].prio < MP_FIRST_NS &&
	       (!s->handover_tried || running_at_least(s, MP_FIRST_NS));
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
		while (!s->stop && (s->qlen == 0 || s->running >= s->limit || s->ndone > 0 || s->paused ||
				    urgent_running(s) || held_back(s)))
			pthread_cond_wait(&s->work, &s->lock);
		if (s->stop)
			break;
		job = dequeue(s);
		s->plan->mods[job.idx].state = MP_RUNNING;
		w->job = job.idx;
		w->started = mp_now_ns();
		job.deadline = job_wait_end(w->started, mp_pool_job_expiry(s, w->started));
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

int mp_pool_start_worker(struct sched *s)
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
int mp_pool_enqueue(struct sched *s, int idx)
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
	       mp_initstate(s->env->sysfs_fd, s->plan->mods[w->sample_job].name) == MP_INITSTATE_COMING;
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
int mp_pool_adjust(struct sched *s, uint64_t now)
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
		r = mp_pool_start_worker(s);
	return r < 0 && s->nworkers - s->nabandoned > 0 ? 0 : r;
}
