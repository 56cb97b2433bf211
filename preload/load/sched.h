/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The scheduler's state, shared by its two files: sched.c decides what
 * loads when, pool.c keeps the workers and the ready queue. pool.c calls
 * nothing of sched.c. */
#ifndef MP_SCHED_H
#define MP_SCHED_H

#include <pthread.h>
#include <time.h>

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
	uint64_t handed_over_at;       /* when, for feed.after's bound */
	bool paused;                   /* handed over, waiting for feed.after */
	/* feed.handover asked once: before that, with feed.after (soon),
	 * only what the hand-over needs loads (pool.c's held_back()) */
	bool handover_tried;
	uint64_t started_at;           /* when the loop began */
	uint64_t handover_next;        /* when to ask feed.handover again */
	bool rescanned;                /* may_hand_over()'s one rescan is done */
	bool late_go;                  /* late modules may start (let_late_go) */
	uint64_t late_seen_at;         /* udev's queue last there, for them */
	struct mp_budget budget;       /* memory for images decompressed here */
};

/* udev's event timeout (udevd --event-timeout), the bound after a hand-over */
#define MP_UDEV_EVENT_TIMEOUT_MS 180000u
/* pool.c; called with the lock held */
uint64_t mp_pool_job_bound_ms(const struct sched *s);
uint64_t mp_pool_job_expiry(const struct sched *s, uint64_t t);
int mp_pool_start_worker(struct sched *s);
int mp_pool_enqueue(struct sched *s, int idx);
int mp_pool_adjust(struct sched *s, uint64_t now);
/* waits.c; called with the lock held, *wait_ns: when to look again */
void mp_sched_resume(struct sched *s, uint64_t now, uint64_t *wait_ns);
bool mp_sched_late_go(struct sched *s, uint64_t now, uint64_t *wait_ns); /* true: release them */
int mp_sched_late_waiting(const struct sched *s);

#endif
