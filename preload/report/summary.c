// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The run's summary in the log, after the loads: what was asked for and
 * collapsed, what loaded and failed and why, what was left to udev and
 * systemd-modules-load, the kernel's own counts and the profile.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static void human_bytes(uint64_t b, char *out, size_t n)
{
	if (b >= 10u * 1024 * 1024)
		snprintf(out, n, "%.1f MiB", (double)b / (1024.0 * 1024.0));
	else
		snprintf(out, n, "%.1f KiB", (double)b / 1024.0);
}

static void summary_kstats(struct mp_ctx *ctx)
{
	static const char *const keys[] = {
		"Mods failed on becoming", "Mods failed on load", "Failed becoming bytes",
		"Failed kmod bytes", "Virtual mem wasted bytes",
	};
	const struct mp_result *res = mp_ctx_result(ctx);
	char line[512];
	size_t i, len = 0;

	if (res->kstats_before == NULL || res->kstats_after == NULL)
		return;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		uint64_t b = 0, a = 0;

		if (mp_kstats_get(res->kstats_after, keys[i], &a) < 0)
			continue;
		mp_kstats_get(res->kstats_before, keys[i], &b);
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s +%llu",
					len ? ", " : "", keys[i], (unsigned long long)(a - b));
		if (len >= sizeof(line))
			break;
	}
	/* another kernel's labels: the report has them, the summary has
	 * nothing to say (and line was never written) */
	if (len == 0)
		return;
	mp_log(ctx, MP_LOG_NOTICE, "kernel module stats during the run: %s", line);
}

/*
 * What went wrong (outcome.c says what), module by module: one line each,
 * or (env.grouped) one line per kind, as many names as fit in a kernel
 * log record and a count of the rest, which the JSON report always has.
 */

struct problem_line {
	char buf[800];
	size_t len;
	unsigned n, left;
};

static const struct {
	const char *prefix; /* one module a line */
	const char *group;  /* one kind a line */
	int prio;
} problem_kinds[MP_PB_MAX] = {
	[MP_PB_NODEV] = { "no device for ", "no device", MP_LOG_INFO },
	[MP_PB_FAILED] = { "failed: ", "failed", MP_LOG_ERR },
	[MP_PB_HUNG] = { "hung: ", "hung", MP_LOG_ERR },
	[MP_PB_SKIPPED] = { "skipped: ", "skipped", MP_LOG_ERR },
	[MP_PB_LEFT_OUT] = { "skipped: ", "left out", MP_LOG_NOTICE },
	[MP_PB_MISSING] = { "not found: ", "not found", MP_LOG_ERR },
};

static void problem(struct mp_ctx *ctx, struct problem_line *lines, int kind,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void problem(struct mp_ctx *ctx, struct problem_line *lines, int kind,
		    const char *fmt, ...)
{
	struct problem_line *l = &lines[kind];
	char item[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (!mp_ctx_env(ctx)->grouped) {
		mp_log(ctx, problem_kinds[kind].prio, "%s%s", problem_kinds[kind].prefix, item);
		return;
	}
	l->n++;
	/* room for "; " and the tail "; and N more (see the report)" */
	if (l->left == 0 && l->len + (size_t)n + 2 + 40 < sizeof(l->buf)) {
		l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s%s",
					   l->len ? "; " : "", item);
	} else {
		l->left++;
	}
}

static void problems(struct mp_ctx *ctx)
{
	const struct mp_plan *p = mp_ctx_plan(ctx);
	bool grouped = mp_ctx_env(ctx)->grouped;
	struct problem_line lines[MP_PB_MAX] = { 0 };
	int i;

	for (i = 0; i < p->nmods; i++) {
		const struct mp_module *m = &p->mods[i];
		enum mp_problem k = mp_outcome_problem(p, m);

		if (k == MP_PB_NODEV)
			problem(ctx, lines, k, "%s: %s", m->name,
				m->state == MP_FAILED ? "its init() said ENODEV" : m->skip_why);
		else if (k == MP_PB_FAILED)
			problem(ctx, lines, k, "%s: %s (%s)", m->name,
				m->fail_why ? m->fail_why : mp_load_error(m->err), mp_errno_name(m->err));
		else if (k == MP_PB_HUNG)
			problem(ctx, lines, k, "%s: init() did not return within %u ms",
				m->name, mp_ctx_env(ctx)->timeout_ms);
		else if (k != MP_PB_NONE)
			problem(ctx, lines, k, "%s: %s", m->name, m->skip_why ? m->skip_why : "");
	}
	for (i = 0; i < p->nmissing; i++)
		problem(ctx, lines, MP_PB_MISSING, "%s", p->missing[i]);
	for (i = 0; grouped && i < MP_PB_MAX; i++) {
		const struct problem_line *l = &lines[i];
		char more[48] = "";

		if (l->n == 0)
			continue;
		if (l->left)
			snprintf(more, sizeof(more), "; and %u more (see the report)", l->left);
		mp_log(ctx, problem_kinds[i].prio, "%s (%u): %s%s", problem_kinds[i].group, l->n,
		       l->buf, more);
	}
}

/* One line each: what one device each asks for, left to udev, and what
 * only names ask for, left to systemd-modules-load (leave.c). */
static void summary_left(struct mp_ctx *ctx, unsigned n, bool names)
{
	const struct mp_plan *p = mp_ctx_plan(ctx);
	char list[400] = "";
	size_t len = 0;
	int i;

	for (i = 0; n > 0 && i < p->nmods && len < sizeof(list); i++)
		if (names ? p->mods[i].to_names : p->mods[i].to_udev)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
						p->mods[i].name);
	if (n > 0)
		mp_log(ctx, MP_LOG_NOTICE, "%u left to %s (no duplicate to collapse): %s%s", n,
		       names ? "systemd-modules-load, only a name asking for each" : "udev, one device asking for each",
		       list, len >= sizeof(list) ? "..." : "");
}

/* One line: the profile, and the module whose time moved most from it. */
static void summary_profile(struct mp_ctx *ctx)
{
	const struct mp_plan *p = mp_ctx_plan(ctx);
	const struct mp_profile_use *use = &mp_ctx_env(ctx)->profile;
	const struct mp_module *most = NULL;
	uint64_t most_d = 0;
	unsigned known = 0, loads = 0;
	int i;

	if (use->profile == NULL || mp_ctx_env(ctx)->dry_run)
		return;
	for (i = 0; i < p->nmods; i++) {
		const struct mp_module *m = &p->mods[i];
		uint64_t took, d;

		if (!mp_profile_io_measured(m))
			continue;
		loads++;
		if (!m->expect_known)
			continue;
		known++;
		took = m->t_end - m->t_start;
		d = took > m->expect_ns ? took - m->expect_ns : m->expect_ns - took;
		if (most == NULL || d > most_d) {
			most = m;
			most_d = d;
		}
	}
	if (most)
		mp_log(ctx, MP_LOG_NOTICE, "profile %s: %u of %u loads known; the most moved: %s, "
		       "%.1f ms expected, %.1f ms taken", use->path, known, loads, most->name,
		       (double)most->expect_ns / 1e6, (double)(most->t_end - most->t_start) / 1e6);
	else
		mp_log(ctx, MP_LOG_NOTICE, "profile %s: none of %u loads known", use->path,
		       loads);
}

void mp_report_summary(struct mp_ctx *ctx)
{
	const struct mp_plan *p = mp_ctx_plan(ctx);
	const struct mp_result *res = mp_ctx_result(ctx);
	const struct mp_coldplug *cp = mp_ctx_coldplug_const(ctx);
	char src[256], nr[32], crit[512];
	_cleanup_free_ int *chain = malloc(((size_t)p->nmods + 1) * sizeof(int));
	struct mp_totals t;
	size_t len = 0, clen = 0;
	uint64_t cns = 0;
	int i, n = 0;

	mp_outcome_totals(ctx, &t);
	src[0] = crit[0] = '\0';
	for (i = 0; i < MP_SRC_MAX; i++)
		if (p->req_by_source[i] && len < sizeof(src))
			len += (size_t)snprintf(src + len, sizeof(src) - len, "%s%s %u",
						len ? ", " : "", mp_source_name(i), p->req_by_source[i]);
	human_bytes(t.bytes_not_read, nr, sizeof(nr));
	mp_log(ctx, MP_LOG_NOTICE, "%u requests (%s) for %d modules: %llu duplicates collapsed, %s not read",
	       p->req_total, src[0] ? src : "none", p->nmods, (unsigned long long)t.dup, nr);

	if (res->dupcost_dups) {
		human_bytes(res->dupcost_bytes, nr, sizeof(nr));
		mp_log(ctx, MP_LOG_NOTICE, "a loader per request would make the kernel allocate %s for the "
		       "%llu duplicates it refuses (estimate: %s)", nr,
		       (unsigned long long)res->dupcost_dups, mp_dupcost_model(ctx));
	}
	if (chain && mp_graph_critical_path(p, chain, &n, &cns) == 0)
		for (i = 0; i < n && clen < sizeof(crit); i++)
			clen += (size_t)snprintf(crit + clen, sizeof(crit) - clen, "%s%s",
						 i ? " > " : "", p->mods[chain[i]].name);
	if (mp_ctx_env(ctx)->dry_run)
		mp_log(ctx, MP_LOG_NOTICE, "dry run: %u to load, %u already live, %u builtin in %d waves; "
		       "longest chain: %s", t.by_state[MP_PENDING], t.by_state[MP_LIVE],
		       t.by_state[MP_BUILTIN], t.nwaves, crit);
	else
		mp_log(ctx, MP_LOG_NOTICE, "%u loaded, %u already live, %u builtin, %u failed, %u skipped, "
		       "%u hung (%u of those: no device for a coldplug driver); %d waves in %.1f ms; "
		       "critical path %.1f ms: %s", t.by_state[MP_LOADED], t.by_state[MP_LIVE], t.by_state[MP_BUILTIN],
		       t.by_state[MP_FAILED], t.by_state[MP_SKIPPED] - t.to_udev - t.to_names, t.by_state[MP_HUNG],
		       t.no_device, t.nwaves, (double)res->elapsed / 1e6, (double)cns / 1e6, crit);
	/* what the first load waited for: the boot waits for it too */
	mp_log(ctx, MP_LOG_NOTICE, "planned in %.1f ms: context %.1f, requests %.1f (sysfs %.1f, %u dirs), waves "
	       "%.1f; lookups %u known, %u by libkmod; indexes %u known", (double)res->planned / 1e6,
	       (double)res->planned_ctx / 1e6, (double)(res->planned_req - res->planned_ctx) / 1e6,
	       (double)(cp->scan_ns - cp->lookup_ns) / 1e6, cp->dirs, (double)(res->planned - res->planned_req) / 1e6,
	       res->lookups_known, res->lookups_libkmod, res->indexes_known);

	summary_left(ctx, t.to_udev, false);
	summary_left(ctx, t.to_names, true);
	problems(ctx);
	summary_kstats(ctx);
	summary_profile(ctx);
}
