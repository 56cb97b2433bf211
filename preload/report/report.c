// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stage 7 of 8, report: what the outcome means for people and programs,
 * after the loads: the JSON report (this file), the summary in the log
 * (summary.c), the no-device blacklist (nodev.c), and, when asked, what the duplicates
 * would have cost the kernel (dupcost.c). It may call every stage before
 * it, base to load. Both read the plan after the scheduler is done with it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static void json_requests(struct mp_json *j, const struct mp_plan *p)
{
	int i;

	mp_json_obj_begin(j, "requests");
	mp_json_u64(j, "total", p->req_total);
	mp_json_obj_begin(j, "by_source");
	for (i = 0; i < MP_SRC_MAX; i++)
		mp_json_u64(j, mp_source_name(i), p->req_by_source[i]);
	mp_json_obj_end(j);
	mp_json_u64(j, "unmatched", p->req_unmatched);
	mp_json_u64(j, "blacklisted", p->req_blacklisted);
	mp_json_u64(j, "refused", p->req_refused);
	mp_json_u64(j, "missing", p->req_missing);
	mp_json_arr_begin(j, "missing_names");
	for (i = 0; i < p->nmissing; i++)
		mp_json_str(j, NULL, p->missing[i]);
	mp_json_arr_end(j);
	mp_json_obj_end(j);
}

static void json_waves(struct mp_json *j, const struct mp_plan *p, int nwaves)
{
	int w, i;

	mp_json_arr_begin(j, "waves");
	for (w = 0; w < nwaves; w++) {
		uint64_t first = UINT64_MAX, last = 0;

		mp_json_obj_begin(j, NULL);
		mp_json_u64(j, "wave", (uint64_t)w);
		mp_json_arr_begin(j, "modules");
		for (i = 0; i < p->nmods; i++) {
			const struct mp_module *m = &p->mods[i];

			if (m->wave != w)
				continue;
			mp_json_str(j, NULL, m->name);
			if (m->t_end > m->t_start) {
				if (m->t_start < first)
					first = m->t_start;
				if (m->t_end > last)
					last = m->t_end;
			}
		}
		mp_json_arr_end(j);
		mp_json_ms(j, "ms", last > first ? last - first : 0);
		mp_json_obj_end(j);
	}
	mp_json_arr_end(j);
}

static void json_critical(struct mp_json *j, const struct mp_plan *p)
{
	_cleanup_free_ int *chain = malloc(((size_t)p->nmods + 1) * sizeof(int));
	uint64_t ns = 0;
	int len = 0, i;

	if (chain)
		mp_graph_critical_path(p, chain, &len, &ns);
	mp_json_obj_begin(j, "critical_path");
	mp_json_arr_begin(j, "modules");
	for (i = 0; i < len; i++)
		mp_json_str(j, NULL, p->mods[chain[i]].name);
	mp_json_arr_end(j);
	mp_json_ms(j, "ms", ns);
	mp_json_obj_end(j);
}

static void json_module(struct mp_json *j, const struct mp_ctx *ctx, const struct mp_module *m)
{
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	int i;

	mp_json_obj_begin(j, NULL);
	mp_json_str(j, "name", m->name);
	mp_json_str(j, "path", m->path);
	mp_json_u64(j, "wave", (uint64_t)m->wave);
	mp_json_str(j, "state", mp_state_name(m->state, mp_ctx_env(ctx)->dry_run));
	if (m->err) {
		mp_json_u64(j, "errno", (uint64_t)m->err);
		mp_json_str(j, "error", mp_errno_name(m->err));
		mp_json_str(j, "message", m->fail_why ? m->fail_why : mp_load_error(m->err));
	} else {
		mp_json_null(j, "errno");
	}
	mp_json_ms(j, "ms", m->t_end > m->t_start ? m->t_end - m->t_start : 0);
	mp_json_ms(j, "expected_ms", m->expect_ns);
	mp_json_str(j, "expected_from", m->expect_known ? "profile" : "size");
	mp_json_ms(j, "start_ms", m->t_start);
	mp_json_ms(j, "end_ms", m->t_end);
	mp_json_i64(j, "worker", m->worker);
	mp_json_str(j, "why", m->why);
	if (m->skip_why)
		mp_json_str(j, "skipped_because", m->skip_why);
	if (m->to_udev || m->to_names)
		mp_json_bool(j, m->to_udev ? "left_to_udev" : "left_to_modules_load", true);
	mp_json_str(j, "how", m->how);
	mp_json_str(j, "options", m->options);
	mp_json_u64(j, "size", (uint64_t)m->size);
	if (mp_ctx_result_const(ctx)->estimated)
		mp_json_u64(j, "duplicate_cost_bytes", m->dup_bytes);
	else
		mp_json_null(j, "duplicate_cost_bytes");
	mp_json_u64(j, "requests", m->requests);
	mp_json_u64(j, "requests_with_dependents", m->requests_with_dependents);
	mp_json_bool(j, "no_device", mp_outcome_no_device(p, m));
	mp_json_arr_begin(j, "depends");
	for (i = 0; i < m->ndeps; i++)
		if (!m->deps[i].soft)
			mp_json_str(j, NULL, p->mods[m->deps[i].dep].name);
	mp_json_arr_end(j);
	mp_json_arr_begin(j, "softdeps");
	for (i = 0; i < m->ndeps; i++)
		if (m->deps[i].soft)
			mp_json_str(j, NULL, p->mods[m->deps[i].dep].name);
	mp_json_arr_end(j);
	mp_json_obj_end(j);
}

static void json_kstats_fields(struct mp_json *j, const char *k, const struct mp_kstats *s)
{
	int i;

	mp_json_obj_begin(j, k);
	for (i = 0; i < s->nfields; i++)
		mp_json_u64(j, s->fields[i].label, s->fields[i].value);
	mp_json_obj_end(j);
}

static void json_kstats(struct mp_json *j, const struct mp_ctx *ctx)
{
	const struct mp_result *res = mp_ctx_result_const(ctx);
	const struct mp_kstats *b = res->kstats_before, *a = res->kstats_after;
	int i;

	if (b == NULL || a == NULL) {
		mp_json_null(j, "kernel_stats");
		return;
	}
	mp_json_obj_begin(j, "kernel_stats");
	json_kstats_fields(j, "before", b);
	json_kstats_fields(j, "after", a);
	mp_json_obj_begin(j, "delta");
	for (i = 0; i < a->nfields; i++) {
		uint64_t before = 0;

		if (!mp_kstats_is_counter(a->fields[i].label))
			continue;
		mp_kstats_get(b, a->fields[i].label, &before);
		mp_json_i64(j, a->fields[i].label, (int64_t)(a->fields[i].value - before));
	}
	mp_json_obj_end(j);
	mp_json_arr_begin(j, "duplicate_failed_modules");
	for (i = 0; i < a->ndups; i++) {
		mp_json_obj_begin(j, NULL);
		mp_json_str(j, "name", a->dups[i].name);
		mp_json_u64(j, "times", a->dups[i].times);
		mp_json_str(j, "reason", a->dups[i].reason);
		mp_json_obj_end(j);
	}
	mp_json_arr_end(j);
	mp_json_obj_end(j);
}

/* The report's "profile": which one ordered this run, and how far the
 * measured times moved from it (each module has its expected_ms). */
static void json_profile(struct mp_json *j, const struct mp_ctx *ctx)
{
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	const struct mp_env *env = mp_ctx_env(ctx);
	const struct mp_profile_use *use = &env->profile;
	unsigned known = 0;
	int i;

	for (i = 0; i < p->nmods; i++)
		known += p->mods[i].expect_known;
	mp_json_obj_begin(j, "profile");
	mp_json_str(j, "path", use->path[0] ? use->path : NULL);
	mp_json_str(j, "state", use->state ? use->state : "none");
	mp_json_u64(j, "modules", use->profile ? (uint64_t)use->profile->n : 0);
	mp_json_u64(j, "known", known);
	mp_json_str(j, "order", env->fifo ? "fifo" : "critical");
	mp_json_str(j, "pool", env->adaptive ? "adaptive" : "fixed");
	mp_json_obj_end(j);
}

/* the steps before the first load, ms from the run's start; the first scan's sysfs time */
static void json_planned(struct mp_json *j, const struct mp_result *res, const struct mp_coldplug *cp)
{
	mp_json_obj_begin(j, "planned");
	mp_json_ms(j, "context_ms", res->planned_ctx);
	mp_json_ms(j, "requests_ms", res->planned_req);
	mp_json_ms(j, "waves_ms", res->planned);
	mp_json_ms(j, "sysfs_ms", cp->scan_ns - cp->lookup_ns);
	mp_json_u64(j, "lookups_known", res->lookups_known);
	mp_json_u64(j, "lookups_libkmod", res->lookups_libkmod);
	mp_json_u64(j, "indexes_known", res->indexes_known);
	mp_json_obj_end(j);
}

/* When the caller went on while init()s ran (handover.c), what was held
 * from udev until it was final, and what was left to the kernel, which
 * joins others' calls to ours; null when the run went to its end. */
static void json_handover(struct mp_json *j, const struct mp_ctx *ctx)
{
	const struct mp_result *res = mp_ctx_result_const(ctx);
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	const struct mp_handover *ho = mp_ctx_handover_const(ctx);
	int i, k;

	if (res->handover_at == 0) {
		mp_json_null(j, "handover");
		return;
	}
	mp_json_obj_begin(j, "handover");
	mp_json_ms(j, "at_ms", res->handover_at);
	/* late: they waited for udev's queue to empty (handover.c, waits.c) */
	for (k = 0; k < 3; k++) {
		mp_json_arr_begin(j, k == 0 ? "held" : k == 1 ? "joined" : "late");
		for (i = 0; i < p->nmods; i++)
			if (k == 0 ? mp_handover_held(&p->mods[i]) : k == 1 ? mp_handover_joined(&p->mods[i]) :
			    p->mods[i].late)
				mp_json_str(j, NULL, p->mods[i].name);
		mp_json_arr_end(j);
	}
	/* held before the plan, as the last boot's run held them (early.c) */
	mp_json_arr_begin(j, "early");
	for (i = 0; i < ho->nearly; i++)
		mp_json_str(j, NULL, ho->early[i]);
	mp_json_arr_end(j);
	mp_json_u64(j, "replayed", res->replayed);
	mp_json_obj_end(j);
}

/* The holds of a loader that was gone, removed before the plan
 * (context/stale.c): the module and that loader's pid (0: a file of a
 * modpreload before the holder line). */
static void json_stale(struct mp_json *j, const struct mp_result *res)
{
	int i;

	mp_json_arr_begin(j, "stale_holds");
	for (i = 0; i < res->nstale; i++) {
		mp_json_obj_begin(j, NULL);
		mp_json_str(j, "module", res->stale[i].name);
		mp_json_i64(j, "pid", res->stale[i].pid);
		mp_json_obj_end(j);
	}
	mp_json_arr_end(j);
}

/* Written by a unit's main process when its loader died after the
 * hand-over: what it loaded is in the kernel, not here; its holds are
 * stale_holds, and their devices were asked for again. */
static void json_loader_died(struct mp_json *j, const struct mp_result *res)
{
	if (res->loader_died == 0) {
		mp_json_null(j, "loader_died");
		return;
	}
	mp_json_obj_begin(j, "loader_died");
	if (res->loader_died > 0)
		mp_json_i64(j, "signal", res->loader_died);
	else
		mp_json_null(j, "signal");
	mp_json_u64(j, "replayed", res->replayed);
	mp_json_obj_end(j);
}

int mp_report_json(struct mp_ctx *ctx, int fd)
{
	const struct mp_plan *p = mp_ctx_plan(ctx);
	const struct mp_env *env = mp_ctx_env(ctx);
	struct mp_json j;
	struct mp_totals t;
	char boot_id[64] = "";
	int i;

	mp_outcome_totals(ctx, &t);
	mp_json_init(&j, fd);
	mp_json_obj_begin(&j, NULL);
	mp_json_str(&j, "modpreload", MP_VERSION);
	mp_json_str(&j, "kernel", env->kver);
	/* whose boot the report is: analyze says when it is not this one's */
	mp_boot_id(boot_id, sizeof(boot_id));
	mp_json_str(&j, "boot_id", boot_id[0] ? boot_id : NULL);
	mp_json_str(&j, "moddir", env->moddir);
	mp_json_bool(&j, "dry_run", env->dry_run);
	mp_json_str(&j, "mode", env->waves ? "waves" : "dataflow");
	mp_json_u64(&j, "jobs", (uint64_t)env->jobs);
	mp_json_u64(&j, "timeout_ms", env->timeout_ms);
	mp_json_str(&j, "kernel_decompression", env->compression[0] ? env->compression : NULL);
	mp_json_ms(&j, "elapsed_ms", mp_ctx_result(ctx)->elapsed);
	json_planned(&j, mp_ctx_result(ctx), mp_ctx_coldplug_const(ctx));
	json_handover(&j, ctx);
	json_stale(&j, mp_ctx_result(ctx));
	json_loader_died(&j, mp_ctx_result(ctx));
	json_requests(&j, p);
	mp_json_u64(&j, "unique", (uint64_t)p->nmods);
	mp_json_u64(&j, "duplicates_collapsed", t.dup);
	mp_json_u64(&j, "bytes_read", t.bytes_read);
	mp_json_u64(&j, "bytes_not_read", t.bytes_not_read);
	/* the same, counting a request as one for everything it needs: what
	 * per-request modprobe would touch if every request raced */
	mp_json_u64(&j, "duplicates_with_dependencies", t.dup_deps);
	mp_json_u64(&j, "bytes_not_read_with_dependencies", t.bytes_not_read_deps);
	/* and what the kernel would allocate for them before refusing them;
	 * null unless estimated (--estimate, -n) */
	if (mp_ctx_result(ctx)->estimated) {
		mp_json_obj_begin(&j, "duplicate_cost");
		mp_json_u64(&j, "duplicates", mp_ctx_result(ctx)->dupcost_dups);
		mp_json_u64(&j, "bytes", mp_ctx_result(ctx)->dupcost_bytes);
		mp_json_str(&j, "model", mp_dupcost_model(ctx));
		mp_json_obj_end(&j);
	} else {
		mp_json_null(&j, "duplicate_cost");
	}
	mp_json_obj_begin(&j, "counts");
	for (i = MP_LOADED; i <= MP_HUNG; i++)
		mp_json_u64(&j, mp_state_name(i, false), t.by_state[i]);
	if (env->dry_run)
		mp_json_u64(&j, mp_state_name(MP_PENDING, true), t.by_state[MP_PENDING]);
	mp_json_u64(&j, "no_device", t.no_device);
	mp_json_u64(&j, "left_to_udev", t.to_udev);
	mp_json_u64(&j, "left_to_modules_load", t.to_names);
	mp_json_obj_end(&j);
	json_waves(&j, p, t.nwaves);
	json_critical(&j, p);
	json_profile(&j, ctx);
	mp_json_arr_begin(&j, "modules");
	for (i = 0; i < p->nmods; i++)
		json_module(&j, ctx, &p->mods[i]);
	mp_json_arr_end(&j);
	mp_json_arr_begin(&j, "warnings");
	for (i = 0; i < p->nwarnings; i++)
		mp_json_str(&j, NULL, p->warnings[i]);
	mp_json_arr_end(&j);
	json_kstats(&j, ctx);
	mp_json_obj_end(&j);
	return mp_json_finish(&j);
}
