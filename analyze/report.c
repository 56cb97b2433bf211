// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The report's fields analyze uses, from its JSON (preload/report/report.c
 * writes it; modpreload(8), REPORT, names them). A field a report lacks
 * (another version's, a dry run's) is left at its default; only a text
 * without "modpreload" and "modules" is no report at all.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* look-ups of a name that go through the list, more sort it */
#define AN_FEW_LOOKUPS 32

static const char *const count_names[] = {
	[AN_LOADED] = "loaded", [AN_LIVE] = "live", [AN_BUILTIN] = "builtin", [AN_FAILED] = "failed",
	[AN_SKIPPED] = "skipped", [AN_HUNG] = "hung", [AN_NODEV] = "no_device",
};

static double num(const struct an_json *j, const struct an_jval *o, const char *key, double def)
{
	return an_json_num(an_json_get(j, o, key), def);
}

/* The member as an int in [lo, hi], else def: a report's numbers are
 * doubles from a file, one outside int's range cast to int is undefined
 * behaviour, and a worker 1.5 is no worker either. */
static int int_in(const struct an_json *j, const struct an_jval *o, const char *key, int lo, int hi, int def)
{
	double v = num(j, o, key, def);

	return v >= lo && v <= hi && (int)v == v ? (int)v : def;
}

static const char *str(const struct an_json *j, const struct an_jval *o, const char *key)
{
	return an_json_str(an_json_get(j, o, key), NULL);
}

static int count(const struct an_json *j, const struct an_jval *arr)
{
	const struct an_jval *c;
	int n = 0;

	for (c = an_json_first(j, arr); c; c = an_json_next(j, c))
		n++;
	return n;
}

static int by_name(const void *a, const void *b)
{
	const struct an_module *x = *(const struct an_module *const *)a;
	const struct an_module *y = *(const struct an_module *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x > y) - (x < y);
}

/* The modules by name, a name's first module first: a made-up report may
 * name every module on the chain and as held, and a look-up each through
 * the list was quadratic (100,000 modules: a minute). */
static int by_names(const struct an_report *r, const struct an_module ***out)
{
	int i;

	*out = calloc((size_t)r->nmods + 1, sizeof(**out));
	if (*out == NULL)
		return -ENOMEM;
	for (i = 0; i < r->nmods; i++)
		(*out)[i] = &r->mods[i];
	qsort(*out, (size_t)r->nmods, sizeof(**out), by_name);
	return 0;
}

/* The first module called name, or -1; byname is by_names()'s, or NULL
 * for a look-up through the list. */
static int find(const struct an_report *r, const struct an_module *const *byname, const char *name)
{
	int i, lo = 0, hi = r->nmods;

	if (name == NULL)
		return -1;
	if (byname == NULL) {
		for (i = 0; i < r->nmods; i++)
			if (strcmp(r->mods[i].name, name) == 0)
				return i;
		return -1;
	}
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(byname[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->nmods || strcmp(byname[lo]->name, name) != 0)
		return -1;
	return (int)(byname[lo] - r->mods);
}

/* The strings of an array (those that are strings), into a new list. */
static int strings(const struct an_json *j, const struct an_jval *arr, const char ***out, int *n)
{
	const struct an_jval *c;

	*n = 0;
	*out = calloc((size_t)count(j, arr) + 1, sizeof(char *));
	if (*out == NULL)
		return -ENOMEM;
	for (c = an_json_first(j, arr); c; c = an_json_next(j, c))
		if (c->type == AN_JSTR)
			(*out)[(*n)++] = c->str;
	return 0;
}

static void module(const struct an_json *j, const struct an_jval *o, struct an_module *m)
{
	const struct an_jval *dup = an_json_get(j, o, "duplicate_cost_bytes");

	m->name = str(j, o, "name");
	m->state = str(j, o, "state");
	m->error = str(j, o, "error");
	m->message = str(j, o, "message");
	m->why = str(j, o, "why");
	m->skipped_because = str(j, o, "skipped_because");
	m->ms = num(j, o, "ms", 0);
	m->start_ms = num(j, o, "start_ms", 0);
	m->end_ms = num(j, o, "end_ms", 0);
	m->dup_bytes = dup && dup->type == AN_JNUM ? dup->num : -1;
	m->worker = int_in(j, o, "worker", 0, INT_MAX, -1);
	m->wave = int_in(j, o, "wave", 0, INT_MAX, 0);
	m->no_device = num(j, o, "no_device", 0) != 0;
	m->to_udev = num(j, o, "left_to_udev", 0) != 0 || num(j, o, "left_to_modules_load", 0) != 0;
	if (m->state == NULL)
		m->state = "unknown";
}

static int modules(struct an_report *r, const struct an_json *j, const struct an_jval *arr)
{
	const struct an_jval *c;

	r->mods = calloc((size_t)count(j, arr) + 1, sizeof(*r->mods));
	if (r->mods == NULL)
		return -ENOMEM;
	for (c = an_json_first(j, arr); c; c = an_json_next(j, c)) {
		struct an_module *m = &r->mods[r->nmods];

		if (c->type != AN_JOBJ)
			continue;
		module(j, c, m);
		if (m->name == NULL)
			continue;
		r->nmods++;
		if (m->end_ms > r->end_ms)
			r->end_ms = m->end_ms;
	}
	return 0;
}

static int critical(struct an_report *r, const struct an_module *const *byname, const struct an_json *j,
		    const struct an_jval *cp)
{
	const struct an_jval *c, *names = an_json_get(j, cp, "modules");

	r->chain = calloc((size_t)count(j, names) + 1, sizeof(int));
	if (r->chain == NULL)
		return -ENOMEM;
	r->chain_ms = num(j, cp, "ms", 0);
	for (c = an_json_first(j, names); c; c = an_json_next(j, c)) {
		int i = find(r, byname, an_json_str(c, NULL));

		if (i < 0)
			continue;
		r->chain[r->nchain++] = i;
		r->mods[i].critical = true;
	}
	return 0;
}

static void handover(struct an_report *r, const struct an_module *const *byname, const struct an_json *j,
		     const struct an_jval *h)
{
	const struct an_jval *c;

	if (h == NULL || h->type != AN_JOBJ)
		return;
	r->handover = true;
	r->handover_ms = num(j, h, "at_ms", 0);
	r->replayed = num(j, h, "replayed", 0);
	for (c = an_json_first(j, an_json_get(j, h, "held")); c; c = an_json_next(j, c)) {
		int i = find(r, byname, an_json_str(c, NULL));

		if (i >= 0)
			r->mods[i].held = true;
	}
}

/* What names modules: the critical chain, the hand-over's held list. A
 * run's are short (a chain of ten, a few held): a few look-ups through the
 * list cost less than sorting it, and stay linear. */
static int links(struct an_report *r, const struct an_json *j, const struct an_jval *top)
{
	const struct an_jval *cp = an_json_get(j, top, "critical_path"), *h = an_json_get(j, top, "handover");
	const struct an_module **byname = NULL;
	int e = 0;

	if (count(j, an_json_get(j, cp, "modules")) + count(j, an_json_get(j, h, "held")) > AN_FEW_LOOKUPS)
		e = by_names(r, &byname);
	if (e < 0)
		return e;
	e = critical(r, byname, j, cp);
	if (e == 0)
		handover(r, byname, j, h);
	free(byname);
	return e;
}

int an_report_read(struct an_report *r, const struct an_json *j)
{
	const struct an_jval *top = j->n ? &j->v[0] : NULL, *v;
	int i, e;

	*r = (struct an_report){ 0 };
	v = an_json_get(j, top, "modules");
	if (str(j, top, "modpreload") == NULL || v == NULL || v->type != AN_JARR)
		return -EBADMSG;
	r->version = str(j, top, "modpreload");
	r->kernel = str(j, top, "kernel");
	r->mode = str(j, top, "mode");
	r->boot_id = str(j, top, "boot_id");
	r->dry_run = num(j, top, "dry_run", 0) != 0;
	r->elapsed_ms = num(j, top, "elapsed_ms", 0);
	r->jobs = num(j, top, "jobs", 0);
	r->timeout_ms = num(j, top, "timeout_ms", 0);
	r->requests = num(j, an_json_get(j, top, "requests"), "total", 0);
	r->unique = num(j, top, "unique", 0);
	r->dups = num(j, top, "duplicates_collapsed", 0);
	r->bytes_not_read = num(j, top, "bytes_not_read", 0);
	for (i = 0; i <= AN_NODEV; i++)
		r->counts[i] = num(j, an_json_get(j, top, "counts"), count_names[i], 0);
	r->left_to_udev = num(j, an_json_get(j, top, "counts"), "left_to_udev", 0);
	r->left_to_names = num(j, an_json_get(j, top, "counts"), "left_to_modules_load", 0);
	e = modules(r, j, v);
	if (e == 0)
		e = links(r, j, top);
	if (e == 0)
		e = strings(j, an_json_get(j, an_json_get(j, top, "requests"), "missing_names"), &r->missing,
			    &r->nmissing);
	if (e == 0)
		e = strings(j, an_json_get(j, top, "warnings"), &r->warnings, &r->nwarnings);
	if (e < 0) {
		an_report_free(r);
		return e;
	}
	/* an estimate the run made (modpreload --estimate, -n): an object;
	 * null or missing when it made none */
	v = an_json_get(j, top, "duplicate_cost");
	if (v && v->type == AN_JOBJ && an_json_get(j, v, "bytes")) {
		r->has_dupcost = true;
		r->dupcost_bytes = num(j, v, "bytes", 0);
		r->dupcost_dups = num(j, v, "duplicates", 0);
		r->dupcost_model = str(j, v, "model");
	}
	v = an_json_get(j, top, "loader_died");
	if (v && v->type == AN_JOBJ) {
		r->loader_died = true;
		r->died_signal = num(j, v, "signal", 0);
		r->died_replayed = num(j, v, "replayed", 0);
	}
	r->stale_holds = count(j, an_json_get(j, top, "stale_holds"));
	if (r->elapsed_ms > r->end_ms)
		r->end_ms = r->elapsed_ms;
	return 0;
}

void an_report_free(struct an_report *r)
{
	free(r->mods);
	free(r->chain);
	free(r->missing);
	free(r->warnings);
	*r = (struct an_report){ 0 };
}

/* As preload/load/outcome.c decides it: no device before failed and skipped. */
const char *an_report_problem(const struct an_module *m)
{
	if (m->to_udev)
		return NULL;
	if (m->no_device)
		return "no device";
	if (strcmp(m->state, "failed") == 0)
		return "failed";
	if (strcmp(m->state, "hung") == 0)
		return "hung";
	if (strcmp(m->state, "skipped") == 0)
		return "skipped";
	return NULL;
}

/* A report is read on other machines and after other boots: the boot id
 * says whose it is (the kernel's random one, new at each boot). */
enum an_boot an_report_boot(const struct an_report *r, const char *this_boot)
{
	if (r->boot_id == NULL || r->boot_id[0] == '\0')
		return AN_BOOT_NONE;
	if (this_boot == NULL || strcmp(r->boot_id, this_boot) == 0)
		return AN_BOOT_THIS;
	return AN_BOOT_OTHER;
}
