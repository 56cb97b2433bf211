// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a person asks after a slow boot, in the order they ask it: what
 * ran, what took longest (as systemd-analyze blame), which chain bounded
 * the run (as systemd-analyze critical-chain), what went wrong and why,
 * what was handed over, and what the duplicates would have cost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* 1.234s or 56ms, as systemd-analyze writes them */
static void put_time(FILE *out, double ms, int width)
{
	char buf[32];

	if (ms >= 1000)
		snprintf(buf, sizeof(buf), "%.3fs", ms / 1000);
	else
		snprintf(buf, sizeof(buf), "%.0fms", ms);
	fprintf(out, "%*s", width, buf);
}

static void put_bytes(FILE *out, double b)
{
	if (b >= 1024.0 * 1024)
		fprintf(out, "%.1f MiB", b / (1024.0 * 1024));
	else
		fprintf(out, "%.1f KiB", b / 1024);
}

static void header(FILE *out, const struct an_report *r)
{
	static const char *const what[] = {
		[AN_LOADED] = "loaded", [AN_LIVE] = "already live", [AN_BUILTIN] = "builtin",
		[AN_FAILED] = "failed", [AN_SKIPPED] = "skipped", [AN_HUNG] = "hung",
	};
	int i;

	fputs("modpreload ", out);
	an_put_text(out, r->version);
	if (r->kernel) {
		fputs(" on ", out);
		an_put_text(out, r->kernel);
	}
	fprintf(out, ": %.0f modules", r->unique);
	if (r->dry_run) {
		fputs(", a dry run: nothing was loaded\n", out);
	} else {
		fputs(" in ", out);
		put_time(out, r->end_ms, 0);
		fputs(" (", out);
		an_put_text(out, r->mode ? r->mode : "dataflow");
		fprintf(out, ", %.0f job%s)\n ", r->jobs, r->jobs == 1 ? "" : "s");
		for (i = AN_LOADED; i <= AN_HUNG; i++)
			fprintf(out, "%s %.0f %s", i ? "," : "", r->counts[i], what[i]);
		if (r->counts[AN_NODEV] > 0)
			fprintf(out, " (no device: %.0f)", r->counts[AN_NODEV]);
		if (r->left_to_udev > 0)
			fprintf(out, " (left to udev, one device each: %.0f)", r->left_to_udev);
		if (r->left_to_names > 0)
			fprintf(out, " (left to systemd-modules-load, names only: %.0f)", r->left_to_names);
		fputs("\n", out);
	}
	fprintf(out, "  %.0f requests, %.0f duplicates collapsed, ", r->requests, r->dups);
	put_bytes(out, r->bytes_not_read);
	fputs(" not read\n", out);
}

static int by_ms(const void *a, const void *b)
{
	const struct an_module *x = *(const struct an_module *const *)a;
	const struct an_module *y = *(const struct an_module *const *)b;

	return x->ms < y->ms ? 1 : x->ms > y->ms ? -1 : strcmp(x->name, y->name);
}

/* The modules that took time, slowest first. */
static int blame(FILE *out, const struct an_report *r)
{
	const struct an_module **l = calloc((size_t)r->nmods + 1, sizeof(*l));
	int i, n = 0;

	if (l == NULL)
		return -ENOMEM;
	for (i = 0; i < r->nmods; i++)
		if (r->mods[i].ms > 0 || strcmp(r->mods[i].state, "hung") == 0)
			l[n++] = &r->mods[i];
	qsort(l, (size_t)n, sizeof(*l), by_ms);
	fprintf(out, "\nLoad time, slowest first (%d modules):\n", n);
	for (i = 0; i < n; i++) {
		if (strcmp(l[i]->state, "hung") == 0)
			fprintf(out, "%10s", "hung");
		else
			put_time(out, l[i]->ms, 10);
		fputs("  ", out);
		an_put_text(out, l[i]->name);
		if (strcmp(l[i]->state, "loaded") != 0) {
			fputs(" (", out);
			an_put_text(out, an_report_problem(l[i]) ? an_report_problem(l[i]) : l[i]->state);
			fputs(")", out);
		}
		if (l[i]->held)
			fputs(" (handed over)", out);
		fputs("\n", out);
	}
	free(l);
	return 0;
}

/* The chain with the most load time: when each link started, what it
 * took, and how long it waited after the link before it. */
static void chain(FILE *out, const struct an_report *r)
{
	int i;

	if (r->nchain == 0 || r->dry_run)
		return;
	fputs("\nCritical chain (", out);
	put_time(out, r->chain_ms, 0);
	fputs(" of load time; @start +took):\n", out);
	for (i = 0; i < r->nchain; i++) {
		const struct an_module *m = &r->mods[r->chain[i]];

		fputs("  @", out);
		put_time(out, m->start_ms, -9);
		fputs(" +", out);
		put_time(out, m->ms, -9);
		fputs(" ", out);
		an_put_text(out, m->name);
		if (i > 0) {
			const struct an_module *prev = &r->mods[r->chain[i - 1]];

			if (m->start_ms - prev->end_ms >= 1) {
				fputs(" (", out);
				put_time(out, m->start_ms - prev->end_ms, 0);
				fputs(" after ", out);
				an_put_text(out, prev->name);
				fputs(")", out);
			}
		}
		fputs("\n", out);
	}
}

static void problem(FILE *out, const struct an_report *r, const struct an_module *m, const char *kind)
{
	fputs("  ", out);
	an_put_text(out, kind);
	fputs(": ", out);
	an_put_text(out, m->name);
	if (m->skipped_because) {
		fputs(": ", out);
		an_put_text(out, m->skipped_because);
	} else if (strcmp(m->state, "hung") == 0) {
		fprintf(out, ": init() did not return within %.0f s", r->timeout_ms / 1000);
	} else if (m->message || m->error) {
		fputs(": ", out);
		an_put_text(out, m->message ? m->message : "");
		if (m->error) {
			fputs(" (", out);
			an_put_text(out, m->error);
			fputs(")", out);
		}
	}
	if (m->why) {
		fputs("; ", out);
		an_put_text(out, m->why);
	}
	fputs("\n", out);
}

/* What went wrong, kind by kind, each with why. */
static void problems(FILE *out, const struct an_report *r)
{
	static const char *const kinds[] = { "failed", "hung", "skipped", "no device" };
	size_t k;
	int i, n = 0;

	for (i = 0; i < r->nmods; i++)
		n += an_report_problem(&r->mods[i]) != NULL;
	if (n + r->nmissing == 0) {
		fputs("\nNothing failed, hung, was skipped or found no device.\n", out);
		return;
	}
	fprintf(out, "\nFailed, hung, skipped, no device (%d), not found (%d):\n", n, r->nmissing);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (i = 0; i < r->nmods; i++) {
			const char *p = an_report_problem(&r->mods[i]);

			if (p && strcmp(p, kinds[k]) == 0)
				problem(out, r, &r->mods[i], kinds[k]);
		}
	for (i = 0; i < r->nmissing; i++) {
		fputs("  not found: ", out);
		an_put_text(out, r->missing[i]);
		fputs("\n", out);
	}
}

/* When the caller went on, and how each held module ended. */
static void handover(FILE *out, const struct an_report *r)
{
	int i, n = 0;

	if (!r->handover) {
		if (!r->dry_run)
			fputs("\nNo hand-over: the run returned when every init() had.\n", out);
		return;
	}
	for (i = 0; i < r->nmods; i++)
		n += r->mods[i].held;
	fputs("\nHand-over at ", out);
	put_time(out, r->handover_ms, 0);
	fprintf(out, ": the boot went on; %d module%s held from udev until final, %.0f device%s replayed\n",
		n, n == 1 ? "" : "s", r->replayed, r->replayed == 1 ? "" : "s");
	for (i = 0; i < r->nmods; i++) {
		const struct an_module *m = &r->mods[i];

		if (!m->held)
			continue;
		fputs("  ", out);
		an_put_text(out, m->name);
		fputs(": ", out);
		an_put_text(out, m->state);
		if (m->end_ms > 0) {
			fputs(" at ", out);
			put_time(out, m->end_ms, 0);
			if (m->end_ms > r->handover_ms) {
				fputs(", ", out);
				put_time(out, m->end_ms - r->handover_ms, 0);
				fputs(" after the hand-over", out);
			}
		}
		fputs("\n", out);
	}
}

static void duplicates(FILE *out, const struct an_report *r)
{
	if (!r->has_dupcost)
		return;
	fprintf(out, "\nDuplicates: a loader per request would have made the kernel allocate ");
	put_bytes(out, r->dupcost_bytes);
	fprintf(out, " for the %.0f duplicates it refuses", r->dupcost_dups);
	if (r->dupcost_model) {
		fputs(" (estimate: ", out);
		an_put_text(out, r->dupcost_model);
		fputs(")", out);
	}
	fputs("\n", out);
}

static void warnings(FILE *out, const struct an_report *r)
{
	int i;

	if (r->nwarnings == 0)
		return;
	fprintf(out, "\nWarnings (%d):\n", r->nwarnings);
	for (i = 0; i < r->nwarnings; i++) {
		fputs("  ", out);
		an_put_text(out, r->warnings[i]);
		fputs("\n", out);
	}
}

/* A report the unit's main process wrote after its loader died: it tells
 * what was released, not what was loaded. */
static bool loader_died(FILE *out, const struct an_report *r)
{
	if (!r->loader_died)
		return false;
	fputs("\nThe loader died after the hand-over", out);
	if (r->died_signal >= 1 && r->died_signal <= 64)
		fprintf(out, " (signal %.0f)", r->died_signal);
	fprintf(out, ".\n  holds released: %.0f, devices asked for again (for udev): %.0f\n"
		"  What it had loaded is in the kernel (/proc/modules) and its log, not here.\n",
		r->stale_holds, r->died_replayed);
	return true;
}

int an_text(FILE *out, const struct an_report *r)
{
	int e;

	header(out, r);
	if (loader_died(out, r))
		return 0;
	if (!r->dry_run) {
		e = blame(out, r);
		if (e < 0)
			return e;
	}
	chain(out, r);
	problems(out, r);
	handover(out, r);
	duplicates(out, r);
	warnings(out, r);
	return 0;
}
