// SPDX-License-Identifier: LGPL-2.1-or-later
/* The graph on made-up plans: waves, cycles, critical path, propagation. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#define T_SUITE "graph"
#include "t.h"

/* What graph.c said, as the context would keep it for the report. */
struct said {
	char *warnings[4];
	int nwarnings;
};

static void keep(void *data, const char *msg)
{
	struct said *w = data;

	if (w->nwarnings < 4)
		w->warnings[w->nwarnings++] = strdup(msg);
}

static int node(struct mp_plan *p, const char *name)
{
	int idx = -1;

	CHECK(mp_graph_add(p, name, &idx) == 0);
	return idx;
}

static void free_plan(struct mp_plan *p, struct said *w)
{
	while (w && w->nwarnings > 0)
		free(w->warnings[--w->nwarnings]);
	mp_graph_free(p);
}

/* a <- b <- c, a <- d: waves 0,1,2 and 1 */
static void waves_chain(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	struct said w = { 0 }, *said = &w;
	int a = node(p, "a"), b = node(p, "b"), c = node(p, "c"), d = node(p, "d");

	mp_graph_depend(p, b, a, false);
	mp_graph_depend(p, c, b, false);
	mp_graph_depend(p, d, a, false);
	CHECK(mp_graph_waves(p, keep, said) == 0);
	CHECK(p->mods[a].wave == 0);
	CHECK(p->mods[b].wave == 1);
	CHECK(p->mods[c].wave == 2);
	CHECK(p->mods[d].wave == 1);
	CHECK(said->nwarnings == 0);
	free_plan(p, said);
}

/* The same edge twice stays one edge; hard wins over soft. */
static void edges_dedup(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	int a = node(p, "a"), b = node(p, "b");

	mp_graph_depend(p, b, a, true);
	mp_graph_depend(p, b, a, false);
	mp_graph_depend(p, b, a, true);
	mp_graph_depend(p, a, a, false);
	CHECK(p->mods[b].ndeps == 1);
	CHECK(!p->mods[b].deps[0].soft);
	CHECK(p->mods[a].nusers == 1);
	CHECK(p->mods[a].ndeps == 0);
	free_plan(p, NULL);
}

/* Softdep cycle: a pre: b, b pre: a. One soft edge goes, with a warning. */
static void soft_cycle_broken(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	struct said w = { 0 }, *said = &w;
	int a = node(p, "a"), b = node(p, "b"), c = node(p, "c");

	mp_graph_depend(p, a, b, true);
	mp_graph_depend(p, b, a, true);
	mp_graph_depend(p, c, a, false);
	CHECK(mp_graph_waves(p, keep, said) == 0);
	CHECK(said->nwarnings == 1);
	CHECK(said->nwarnings == 1 && strstr(said->warnings[0], "softdep cycle") != NULL);
	CHECK(p->mods[a].ndeps + p->mods[b].ndeps == 1);
	CHECK(p->mods[c].wave == p->mods[a].wave + 1);
	free_plan(p, said);
}

/* A cycle mixing hard and soft edges loses the soft one. */
static void mixed_cycle_keeps_hard(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	int a = node(p, "a"), b = node(p, "b"), c = node(p, "c");

	mp_graph_depend(p, b, a, false); /* b needs a */
	mp_graph_depend(p, c, b, false); /* c needs b */
	mp_graph_depend(p, a, c, true);  /* a softdep pre: c */
	CHECK(mp_graph_waves(p, NULL, NULL) == 0);
	CHECK(p->mods[a].ndeps == 0);
	CHECK(p->mods[b].ndeps == 1 && p->mods[c].ndeps == 1);
	CHECK(p->mods[c].wave == 2);
	free_plan(p, NULL);
}

/* A hard-only cycle (corrupt index) is still broken, never looped on. */
static void hard_cycle_broken(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	struct said w = { 0 }, *said = &w;
	int a = node(p, "a"), b = node(p, "b"), c = node(p, "c");

	mp_graph_depend(p, a, b, false);
	mp_graph_depend(p, b, c, false);
	mp_graph_depend(p, c, a, false);
	CHECK(mp_graph_waves(p, keep, said) == 0);
	CHECK(said->nwarnings == 1 && strstr(said->warnings[0], "dependency cycle") != NULL);
	CHECK(p->mods[a].ndeps + p->mods[b].ndeps + p->mods[c].ndeps == 2);
	free_plan(p, said);
}

/* Critical path follows measured time, not depth. */
static void critical_path_by_time(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	int a = node(p, "a"), b = node(p, "b"), c = node(p, "c"), d = node(p, "d");
	int chain[8], len;
	uint64_t ns;

	/* a(10) <- b(10) <- c(10);  d(100) alone */
	mp_graph_depend(p, b, a, false);
	mp_graph_depend(p, c, b, false);
	p->mods[a].t_end = 10;
	p->mods[b].t_start = 10;
	p->mods[b].t_end = 20;
	p->mods[c].t_start = 20;
	p->mods[c].t_end = 30;
	p->mods[d].t_end = 100;
	CHECK(mp_graph_waves(p, NULL, NULL) == 0);
	CHECK(mp_graph_critical_path(p, chain, &len, &ns) == 0);
	CHECK(len == 1 && chain[0] == d && ns == 100);

	p->mods[d].t_end = 20;
	CHECK(mp_graph_critical_path(p, chain, &len, &ns) == 0);
	CHECK(len == 3 && chain[0] == a && chain[1] == b && chain[2] == c && ns == 30);
	free_plan(p, NULL);
}

/* Before anything ran, the critical path is the deepest chain. */
static void critical_path_dry(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	int x = node(p, "x"), a = node(p, "a"), b = node(p, "b"), c = node(p, "c");
	int chain[8], len;
	uint64_t ns;

	mp_graph_depend(p, b, a, false);
	mp_graph_depend(p, c, b, false);
	(void)x;
	CHECK(mp_graph_waves(p, NULL, NULL) == 0);
	CHECK(mp_graph_critical_path(p, chain, &len, &ns) == 0);
	CHECK(len == 3 && chain[2] == c && ns == 0);
	free_plan(p, NULL);
}

/*
 * Failure propagation: base fails; hard users are skipped transitively,
 * a soft user still becomes ready, and unrelated modules are untouched.
 */
static void finish_propagates(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	int base = node(p, "base"), kid = node(p, "kid"), grandkid = node(p, "grandkid");
	int soft = node(p, "soft"), other = node(p, "other"), both = node(p, "both");
	int ready[16], n = 0;

	mp_graph_depend(p, kid, base, false);
	mp_graph_depend(p, grandkid, kid, false);
	mp_graph_depend(p, soft, base, true);
	mp_graph_depend(p, both, other, false);
	mp_graph_depend(p, both, soft, false);
	CHECK(mp_graph_waves(p, NULL, NULL) == 0);
	p->mods[kid].waiting = 1;
	p->mods[grandkid].waiting = 1;
	p->mods[soft].waiting = 1;
	p->mods[both].waiting = 2;

	p->mods[base].state = MP_FAILED;
	p->mods[base].err = 19;
	CHECK(mp_graph_finish(p, base, ready, &n) == 0);
	CHECK(p->mods[kid].state == MP_SKIPPED);
	CHECK(p->mods[grandkid].state == MP_SKIPPED);
	CHECK_STR(p->mods[kid].skip_why, "depends on base, which failed (ENODEV)");
	CHECK_STR(p->mods[grandkid].skip_why, "depends on kid, which was skipped");
	CHECK(n == 1 && ready[0] == soft);
	CHECK(p->mods[other].state == MP_PENDING);

	n = 0;
	p->mods[soft].state = MP_LOADED;
	CHECK(mp_graph_finish(p, soft, ready, &n) == 0);
	CHECK(n == 0 && p->mods[both].waiting == 1);
	p->mods[other].state = MP_HUNG;
	CHECK(mp_graph_finish(p, other, ready, &n) == 0);
	CHECK(p->mods[both].state == MP_SKIPPED);
	CHECK_STR(p->mods[both].skip_why, "depends on other, whose init() hung");
	free_plan(p, NULL);
}

/* A wide fan-out: 64 users of one base are all wave 1 and all released at once. */
static void fanout_release(void)
{
	struct mp_plan plan = { 0 }, *p = &plan;
	int base = node(p, "base"), i, ready[80], n = 0;
	char name[16];

	for (i = 0; i < 64; i++) {
		int k;

		snprintf(name, sizeof(name), "fan%02d", i);
		k = node(p, name);
		mp_graph_depend(p, k, base, false);
		p->mods[k].waiting = 1;
	}
	CHECK(mp_graph_waves(p, NULL, NULL) == 0);
	for (i = 1; i <= 64; i++)
		CHECK(p->mods[i].wave == 1);
	p->mods[base].state = MP_LIVE;
	CHECK(mp_graph_finish(p, base, ready, &n) == 0);
	CHECK(n == 64);
	free_plan(p, NULL);
}

/*
 * Priorities: the longest chain of expected time a module starts. Without
 * a profile every module weighs MP_EXPECT_BASE_US plus its size's share;
 * a profile's figure replaces the guess, and a module already final
 * weighs nothing.
 */
static void priorities(void)
{
	static const char prof[] = "modpreload-profile 1\nkernel 1.0\nd 10000\n";
	struct mp_plan plan = { 0 }, *p = &plan;
	struct mp_profile *profile = NULL;
	int a = node(p, "a"), b = node(p, "b"), c = node(p, "c"), d = node(p, "d");
	const uint64_t base = MP_EXPECT_BASE_US * 1000ull;

	mp_graph_depend(p, b, a, false);
	mp_graph_depend(p, c, b, true);
	p->mods[c].size = 128 * 1024; /* two 64 KiB shares */
	CHECK(mp_graph_waves(p, NULL, NULL) == 0);
	CHECK(mp_graph_priorities(p, NULL) == 0);
	CHECK(p->mods[c].expect_ns == base + 2 * MP_EXPECT_US_PER_64K * 1000ull);
	CHECK(p->mods[c].prio == p->mods[c].expect_ns);
	CHECK(p->mods[b].prio == base + p->mods[c].prio);
	CHECK(p->mods[a].prio == 2 * base + p->mods[c].prio);
	CHECK(p->mods[d].prio == base);
	CHECK(!p->mods[d].expect_known);

	CHECK(mp_profile_parse(prof, sizeof(prof) - 1, &profile) == 0);
	p->mods[a].state = MP_LIVE;
	CHECK(mp_graph_waves(p, NULL, NULL) == 0);
	CHECK(mp_graph_priorities(p, profile) == 0);
	CHECK(p->mods[d].expect_known);
	CHECK(p->mods[d].prio == 10000000u);
	CHECK(p->mods[d].prio > p->mods[b].prio);
	CHECK(p->mods[a].prio == p->mods[b].prio);
	mp_profile_free(profile);
	free_plan(p, NULL);
}

/* The names the report and the log use; a dry run's pending is planned. */
static void state_names(void)
{
	CHECK(strcmp(mp_state_name(MP_LOADED, false), "loaded") == 0);
	CHECK(strcmp(mp_state_name(MP_HUNG, false), "hung") == 0);
	CHECK(strcmp(mp_state_name(MP_PENDING, false), "pending") == 0);
	CHECK(strcmp(mp_state_name(MP_PENDING, true), "planned") == 0);
	CHECK(strcmp(mp_state_name(MP_FAILED, true), "failed") == 0);
	CHECK(strcmp(mp_state_name((enum mp_state)99, false), "?") == 0);
}

int main(void)
{
	RUN(waves_chain);
	RUN(edges_dedup);
	RUN(soft_cycle_broken);
	RUN(mixed_cycle_keeps_hard);
	RUN(hard_cycle_broken);
	RUN(critical_path_by_time);
	RUN(critical_path_dry);
	RUN(finish_propagates);
	RUN(fanout_release);
	RUN(priorities);
	RUN(state_names);
	return t_failed ? 1 : 0;
}
