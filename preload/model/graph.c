// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stage 3 of 8, model: the plan as data (model.h) and this file's graph
 * over it, without libkmod, threads or a context. It may call base and
 * parse (the profile's expected load times).
 */
/*
 * The plan as a graph: modules and "waits for" edges, with waves, cycle
 * breaking, the critical path and failure propagation. Nothing here knows
 * about libkmod or threads, so all of it is tested on made-up graphs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* inline names: no relocated pointers (base/util.c's errnames says why) */
static const char state_names[][8] = {
	[MP_PENDING] = "pending", [MP_QUEUED] = "queued", [MP_RUNNING] = "running",
	[MP_LOADED] = "loaded",   [MP_LIVE] = "live",     [MP_BUILTIN] = "builtin",
	[MP_FAILED] = "failed",   [MP_SKIPPED] = "skipped", [MP_HUNG] = "hung",
};

/* The one place states are named. A dry run has not loaded what is still
 * pending: it planned it. */
const char *mp_state_name(enum mp_state s, bool dry_run)
{
	if (dry_run && s == MP_PENDING)
		return "planned";
	return (unsigned)s < ARRAY_SIZE(state_names) ? state_names[s] : "?";
}

bool mp_state_done(enum mp_state s)
{
	return s >= MP_LOADED;
}

/* asked for by name (an argument, a list, the command line): what follows
 * a run in the boot asks for it by name again */
bool mp_module_named(const struct mp_module *m)
{
	return m->sources & (1u << MP_SRC_ARGUMENT | 1u << MP_SRC_CONFIG | 1u << MP_SRC_CMDLINE);
}

bool mp_module_rootfs(const struct mp_module *m)
{
	return m->sources == 1u << MP_SRC_ROOT;
}

bool mp_state_ok(enum mp_state s)
{
	return s == MP_LOADED || s == MP_LIVE || s == MP_BUILTIN;
}

int mp_graph_add(struct mp_plan *p, const char *name, int *idx)
{
	char *copy = strdup(name);

	if (copy == NULL || mp_append(&p->mods, &p->nmods, &p->cap, sizeof(*p->mods)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	p->mods[p->nmods - 1].name = copy;
	p->mods[p->nmods - 1].worker = -1;
	*idx = p->nmods - 1;
	return 0;
}

int mp_graph_depend(struct mp_plan *p, int mod, int dep, bool soft)
{
	struct mp_module *m = &p->mods[mod], *d = &p->mods[dep];
	struct mp_edge *e;
	int *u, i;

	if (mod == dep)
		return 0;
	for (i = 0; i < m->ndeps; i++)
		if (m->deps[i].dep == dep) {
			/* a hard edge wins over a soft one */
			m->deps[i].soft = m->deps[i].soft && soft;
			return 0;
		}
	e = realloc(m->deps, (size_t)(m->ndeps + 1) * sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	m->deps = e;
	u = realloc(d->users, (size_t)(d->nusers + 1) * sizeof(*u));
	if (u == NULL)
		return -ENOMEM;
	d->users = u;
	m->deps[m->ndeps++] = (struct mp_edge){ .dep = dep, .soft = soft };
	d->users[d->nusers++] = mod;
	return 0;
}

static void remove_edge(struct mp_plan *p, int mod, int dep)
{
	struct mp_module *m = &p->mods[mod], *d = &p->mods[dep];
	int i;

	for (i = 0; i < m->ndeps; i++)
		if (m->deps[i].dep == dep) {
			m->deps[i] = m->deps[--m->ndeps];
			break;
		}
	for (i = 0; i < d->nusers; i++)
		if (d->users[i] == mod) {
			d->users[i] = d->users[--d->nusers];
			break;
		}
}

/*
 * Kahn's algorithm. Returns the number of modules it could order; the
 * rest are on or behind a cycle. order[] receives the topological order.
 */
static int topo_order(const struct mp_plan *p, int *order, int *indeg)
{
	int i, j, head = 0, tail = 0;

	for (i = 0; i < p->nmods; i++) {
		indeg[i] = p->mods[i].ndeps;
		if (indeg[i] == 0)
			order[tail++] = i;
	}
	while (head < tail) {
		const struct mp_module *m = &p->mods[order[head++]];

		for (j = 0; j < m->nusers; j++)
			if (--indeg[m->users[j]] == 0)
				order[tail++] = m->users[j];
	}
	return tail;
}

static bool edge_soft(const struct mp_module *m, int dep)
{
	int k;

	for (k = 0; k < m->ndeps; k++)
		if (m->deps[k].dep == dep)
			return m->deps[k].soft;
	return false;
}

/*
 * Finds one cycle among the modules Kahn could not order (indeg > 0) and
 * removes an edge of it: a soft one if there is one (softdeps can form
 * cycles: "A pre: B" with "B pre: A" is legal config), else any, which
 * only a corrupt index can cause.
 */
static int break_cycle(struct mp_plan *p, const int *indeg, mp_warn_fn warn, void *data)
{
	char msg[512];
	_cleanup_free_ int *pos = malloc(((size_t)p->nmods + 1) * sizeof(int));
	_cleanup_free_ int *path = malloc(((size_t)p->nmods + 1) * sizeof(int));
	int cur = -1, len = 0, i, from, to;

	if (pos == NULL || path == NULL)
		return -ENOMEM;
	for (i = 0; i < p->nmods; i++) {
		pos[i] = -1;
		if (cur < 0 && indeg[i] > 0)
			cur = i;
	}
	/* Every unordered module waits for an unordered one: walk until one
	 * repeats. path[i] waits for path[i + 1]; the last waits for cur. */
	while (pos[cur] < 0) {
		const struct mp_module *m = &p->mods[cur];

		pos[cur] = len;
		path[len++] = cur;
		for (i = 0; i < m->ndeps; i++)
			if (indeg[m->deps[i].dep] > 0)
				break;
		cur = m->deps[i].dep;
	}
	from = path[pos[cur]];
	to = pos[cur] + 1 < len ? path[pos[cur] + 1] : cur;
	for (i = pos[cur]; i < len; i++) {
		int f = path[i], t = i + 1 < len ? path[i + 1] : cur;

		if (edge_soft(&p->mods[f], t)) {
			from = f;
			to = t;
			break;
		}
	}
	if (edge_soft(&p->mods[from], to))
		snprintf(msg, sizeof(msg), "softdep cycle: %s and %s wait for each other; loading %s "
			 "without waiting for %s", p->mods[from].name, p->mods[to].name,
			 p->mods[from].name, p->mods[to].name);
	else
		snprintf(msg, sizeof(msg), "dependency cycle through %s and %s (corrupt modules.dep?); "
			 "loading %s without waiting for %s", p->mods[from].name,
			 p->mods[to].name, p->mods[from].name, p->mods[to].name);
	if (warn)
		warn(data, msg);
	remove_edge(p, from, to);
	return 0;
}

static void skip(struct mp_plan *p, int mod, int because)
{
	struct mp_module *m = &p->mods[mod], *d = &p->mods[because];

	m->state = MP_SKIPPED;
	free(m->skip_why);
	switch (d->state) {
	case MP_FAILED:
		m->skip_why = mp_strdup_printf("depends on %s, which failed (%s)",
					       d->name, mp_errno_name(d->err));
		break;
	case MP_HUNG:
		m->skip_why = mp_strdup_printf("depends on %s, whose init() hung", d->name);
		break;
	default:
		m->skip_why = mp_strdup_printf("depends on %s, which was skipped", d->name);
		break;
	}
}

int mp_graph_waves(struct mp_plan *p, mp_warn_fn warn, void *data)
{
	_cleanup_free_ int *order = calloc((size_t)p->nmods + 1, sizeof(int));
	_cleanup_free_ int *indeg = calloc((size_t)p->nmods + 1, sizeof(int));
	int i, j, n;

	if (order == NULL || indeg == NULL)
		return -ENOMEM;
	while ((n = topo_order(p, order, indeg)) < p->nmods)
		if (break_cycle(p, indeg, warn, data) < 0)
			return -ENOMEM;
	/* In order, so what a module needs is settled before the module:
	 * its wave, and whether it can load at all (a dependency left out
	 * or already failed means it cannot). */
	for (i = 0; i < n; i++) {
		int k = order[i];
		struct mp_module *m = &p->mods[k];

		m->wave = 0;
		for (j = 0; j < m->ndeps; j++) {
			const struct mp_module *d = &p->mods[m->deps[j].dep];

			if (d->wave + 1 > m->wave)
				m->wave = d->wave + 1;
			if (m->state == MP_PENDING && !m->deps[j].soft && mp_state_done(d->state) &&
			    !mp_state_ok(d->state))
				skip(p, k, m->deps[j].dep);
		}
	}
	return 0;
}

/*
 * The chain that bounds the run: the path through the graph with the most
 * load time on it. Each module weighs its measured time plus 1 ns, so
 * before anything is measured (a dry run) it is the deepest chain.
 * chain[] gets the modules from first to load to last.
 */
int mp_graph_critical_path(const struct mp_plan *p, int *chain, int *len, uint64_t *ns)
{
	_cleanup_free_ int *order = calloc((size_t)p->nmods + 1, sizeof(int));
	_cleanup_free_ int *indeg = calloc((size_t)p->nmods + 1, sizeof(int));
	_cleanup_free_ uint64_t *dist = calloc((size_t)p->nmods + 1, sizeof(uint64_t));
	_cleanup_free_ int *prev = calloc((size_t)p->nmods + 1, sizeof(int));
	int i, j, n, best = -1;

	*len = 0;
	*ns = 0;
	if (order == NULL || indeg == NULL || dist == NULL || prev == NULL)
		return -ENOMEM;
	/* the graph is acyclic once mp_graph_waves() has run */
	n = topo_order(p, order, indeg);
	for (i = 0; i < n; i++) {
		int k = order[i];
		const struct mp_module *m = &p->mods[k];
		uint64_t own = 1;

		if (m->t_end > m->t_start)
			own += m->t_end - m->t_start;
		prev[k] = -1;
		dist[k] = own;
		for (j = 0; j < m->ndeps; j++) {
			int d = m->deps[j].dep;

			if (dist[d] + own > dist[k]) {
				dist[k] = dist[d] + own;
				prev[k] = d;
			}
		}
		if (best < 0 || dist[k] > dist[best])
			best = k;
	}
	if (best < 0)
		return 0;
	for (i = best; i >= 0; i = prev[i])
		(*len)++;
	j = *len;
	for (i = best; i >= 0; i = prev[i])
		chain[--j] = i;
	for (i = 0; i < *len; i++) {
		const struct mp_module *m = &p->mods[chain[i]];

		if (m->t_end > m->t_start)
			*ns += m->t_end - m->t_start;
	}
	return 0;
}

/*
 * Module idx has reached a final state: release what waited for it.
 * Users whose last dependency this was are appended to ready[] (room for
 * every module); users that needed it hard and cannot have it are skipped,
 * which in turn finishes them. Soft users never fail because of it.
 */
int mp_graph_finish(struct mp_plan *p, int idx, int *ready, int *nready)
{
	_cleanup_free_ int *stack = malloc(((size_t)p->nmods + 1) * sizeof(int));
	int top = 0, i;

	if (stack == NULL)
		return -ENOMEM;
	stack[top++] = idx;
	while (top > 0) {
		int cur = stack[--top];
		struct mp_module *c = &p->mods[cur];
		bool ok = mp_state_ok(c->state);

		for (i = 0; i < c->nusers; i++) {
			int u = c->users[i];
			struct mp_module *um = &p->mods[u];
			bool soft = edge_soft(um, cur);

			if (um->state != MP_PENDING)
				continue;
			if (!ok && !soft) {
				skip(p, u, cur);
				stack[top++] = u;
				continue;
			}
			if (--um->waiting == 0)
				ready[(*nready)++] = u;
		}
	}
	return 0;
}

void mp_graph_free(struct mp_plan *p)
{
	int i;

	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];

		free(m->name);
		free(m->path);
		free(m->options);
		free(m->why);
		free(m->skip_why);
		free(m->fail_why);
		free(m->deps);
		free(m->users);
	}
	free(p->mods);
	for (i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	for (i = 0; i < p->nmissing; i++)
		free(p->missing[i]);
	free(p->missing);
	memset(p, 0, sizeof(*p));
}

/*
 * Critical path first. A module's priority is the expected time of the
 * longest chain that starts with it: its own expected load plus the
 * largest priority among the modules waiting for it. Handing out the
 * highest first starts the chain that bounds the run as early as it can
 * start; arrival order may leave it queued behind short independent loads
 * (tests/unit: "fifo_worse"). Modules already final weigh nothing. An
 * urgent module (the caller waits for it to be final, or under way) and
 * what it needs come before every chain that is not (MP_URGENT_NS,
 * MP_FIRST_NS: above any real load time).
 */
int mp_graph_priorities(struct mp_plan *p, const struct mp_profile *prof)
{
	_cleanup_free_ int *order = calloc((size_t)p->nmods + 1, sizeof(int));
	_cleanup_free_ int *indeg = calloc((size_t)p->nmods + 1, sizeof(int));
	int i, j, n;

	if (order == NULL || indeg == NULL)
		return -ENOMEM;
	n = topo_order(p, order, indeg); /* acyclic: mp_graph_waves() broke cycles */
	for (i = n - 1; i >= 0; i--) {
		struct mp_module *m = &p->mods[order[i]];
		uint64_t below = 0;

		m->expect_ns = mp_profile_expect_ns(prof, m, &m->expect_known);
		for (j = 0; j < m->nusers; j++)
			if (p->mods[m->users[j]].prio > below)
				below = p->mods[m->users[j]].prio;
		m->prio = below + (mp_state_done(m->state) ? 0 : m->expect_ns);
		if (m->urgent == 2 && !mp_state_done(m->state) && m->prio < MP_URGENT_NS)
			m->prio += MP_URGENT_NS;
		else if (m->urgent == 1 && !mp_state_done(m->state) && m->prio < MP_FIRST_NS)
			m->prio += MP_FIRST_NS;
	}
	return 0;
}

/* Where a request came from, as the report names it. */
static const char source_names[MP_SRC_MAX][9] = {
	[MP_SRC_ARGUMENT] = "argument",
	[MP_SRC_CONFIG] = "config",
	[MP_SRC_CMDLINE] = "cmdline",
	[MP_SRC_COLDPLUG] = "coldplug",
	[MP_SRC_UEVENT] = "uevent",
	[MP_SRC_ROOT] = "rootfs",
};

const char *mp_source_name(enum mp_source s)
{
	return s < MP_SRC_MAX ? source_names[s] : "?";
}
