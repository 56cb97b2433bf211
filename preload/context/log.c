// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library's log: every line through the function the face installed,
 * its control bytes escaped; a warning is also kept for the report. */
#include <stdio.h>

#include "ctx.h"

void mp_log_direct(mp_log_fn log, void *data, int prio, const char *fmt, ...)
{
	va_list ap;

	if (log == NULL)
		return;
	va_start(ap, fmt);
	log(data, prio, fmt, ap);
	va_end(ap);
}

/* Every line the library logs quotes input somewhere (a name, an alias,
 * a path, an option): its control bytes go out escaped, whatever the
 * caller's log function does with the line. */
void mp_logv(struct mp_ctx *ctx, int prio, const char *fmt, va_list ap)
{
	char text[1024], shown[1024];

	if (ctx->log == NULL)
		return;
	vsnprintf(text, sizeof(text), fmt, ap);
	mp_escape_ctl(text, shown, sizeof(shown));
	mp_log_direct(ctx->log, ctx->log_data, prio, "%s", shown);
}

void mp_log(struct mp_ctx *ctx, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mp_logv(ctx, prio, fmt, ap);
	va_end(ap);
}

/* A warning is logged and kept for the report. */
void mp_warn(struct mp_ctx *ctx, const char *fmt, ...)
{
	struct mp_plan *p = &ctx->plan;
	va_list ap;
	char *s = NULL;
	int cap = p->nwarnings;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s == NULL)
		return;
	mp_log(ctx, MP_LOG_WARNING, "%s", s);
	/* warnings are few: grow one at a time */
	if (mp_append(&p->warnings, &p->nwarnings, &cap, sizeof(char *)) < 0) {
		free(s);
		return;
	}
	p->warnings[p->nwarnings - 1] = s;
}

/* mp_warn for the stages that do not know the context (graph.c). */
void mp_warn_cb(void *ctx, const char *msg)
{
	mp_warn(ctx, "%s", msg);
}
