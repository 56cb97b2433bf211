// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the run came to, decided once: which modules count as failures
 * and which are only news (no device), the totals, the exit status.
 * report.c renders this, as JSON and as the summary; it decides nothing.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/*
 * Coldplug asks for every driver that matches a device, and a driver whose
 * init() finds nothing it can drive says ENODEV (acpi_cpufreq on a machine
 * without the firmware interface, an EDAC driver on another vendor's
 * CPU); one whose place is taken says EEXIST (acpi_cpufreq or
 * pcc_cpufreq while intel_pstate, or the other, is the cpufreq driver:
 * the device is driven, by someone else). Linux 7.1 and later hand an
 * init()'s EEXIST to userspace as EBUSY, so that EEXIST only ever means
 * "already loaded"; there an EBUSY with nothing of that name coming
 * (load.c) is that same answer, and is taken as one, an init()'s own
 * EBUSY with it, which the errno no longer tells apart. For a module only
 * coldplug wanted, that and what it takes down
 * with it is news, not a failure: reported, but not counted.
 */
bool mp_outcome_no_device(const struct mp_plan *p, const struct mp_module *m)
{
	const unsigned coldplug = 1u << MP_SRC_COLDPLUG | 1u << MP_SRC_UEVENT;
	bool any = false;
	int i;

	if (m->sources == 0 || (m->sources & ~coldplug) != 0)
		return false;
	if (m->state == MP_FAILED)
		return m->err == ENODEV || m->err == EEXIST || (m->err == EBUSY && p->init_eexist_ebusy);
	if (m->state != MP_SKIPPED || m->excluded)
		return false;
	/* skipped for a dependency that found no device, and for nothing
	 * else: a hung dependency or a run out of time is a problem */
	for (i = 0; i < m->ndeps; i++) {
		const struct mp_module *d = &p->mods[m->deps[i].dep];

		if (m->deps[i].soft || mp_state_ok(d->state))
			continue;
		if (!mp_outcome_no_device(p, d))
			return false;
		any = true;
	}
	return any;
}

enum mp_problem mp_outcome_problem(const struct mp_plan *p, const struct mp_module *m)
{
	if (mp_outcome_no_device(p, m))
		return MP_PB_NODEV;
	switch (m->state) {
	case MP_FAILED:
		return MP_PB_FAILED;
	case MP_HUNG:
		return MP_PB_HUNG;
	case MP_SKIPPED:
		if (m->to_udev || m->to_names)
			return MP_PB_NONE;
		return m->excluded ? MP_PB_LEFT_OUT : MP_PB_SKIPPED;
	default:
		return MP_PB_NONE;
	}
}

void mp_outcome_totals(const struct mp_ctx *ctx, struct mp_totals *t)
{
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < p->nmods; i++) {
		const struct mp_module *m = &p->mods[i];

		t->by_state[m->state]++;
		t->to_udev += m->to_udev;
		t->to_names += m->to_names;
		if (mp_outcome_no_device(p, m))
			t->no_device++;
		if (m->requests > 1) {
			t->dup += m->requests - 1;
			t->bytes_not_read += (uint64_t)m->size * (m->requests - 1);
		}
		if (m->requests_with_dependents > 1) {
			t->dup_deps += m->requests_with_dependents - 1;
			t->bytes_not_read_deps += (uint64_t)m->size * (m->requests_with_dependents - 1);
		}
		/* a dry run counts what it would read */
		if (m->read || (mp_ctx_env(ctx)->dry_run && m->state == MP_PENDING))
			t->bytes_read += (uint64_t)m->size;
		if (m->wave + 1 > t->nwaves)
			t->nwaves = m->wave + 1;
	}
}

/*
 * 0, or 1 when the caller did not get what it asked for: a module failed,
 * hung or was skipped (not for want of a device, not left out on
 * purpose), a named one does not exist, or the run stopped on an error
 * (run_err). 3 when nothing could be done at all. A report that could not
 * be written (report_err) is 4, over 0 and 1: a caller that sees 1 looks
 * in the report for what failed, so it must hear first that there is none.
 */
int mp_outcome_exit_status(const struct mp_ctx *ctx, int run_err, int report_err)
{
	const struct mp_plan *p = mp_ctx_plan_const(ctx);
	int status = run_err < 0 || p->req_missing > 0 ? MP_EXIT_SOME_FAILED : MP_EXIT_OK, i;

	if (mp_ctx_result_const(ctx)->fatal)
		return MP_EXIT_NOTHING;
	for (i = 0; i < p->nmods && status == MP_EXIT_OK; i++)
		switch (mp_outcome_problem(p, &p->mods[i])) {
		case MP_PB_FAILED:
		case MP_PB_HUNG:
		case MP_PB_SKIPPED:
			status = MP_EXIT_SOME_FAILED;
			break;
		default:
			break;
		}
	return report_err < 0 ? MP_EXIT_OUTPUT : status;
}
