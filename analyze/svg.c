// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The run's timeline as SVG, as systemd-analyze plot draws units: a lane
 * per worker, a bar per module from the start of its load to its end,
 * coloured by how it ended; the critical chain outlined and linked, the
 * hand-over a dashed line, a held module's bar dashed. Every bar has a
 * <title> (a tooltip in a browser) with the module's name, times and how
 * it ended, so a bar too narrow for its name still says it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

enum {
	LEFT = 110,     /* the lanes' names */
	RIGHT = 30,
	PLOT = 1080,    /* the time axis */
	TOP = 78,       /* title, summary, the axis' labels */
	LANE = 22,
	BAR = 16,
	LEGEND = 56,
};

/* how wide a name is drawn at 11px sans-serif, near enough to decide
 * whether it fits in its bar */
static double text_width(const char *s)
{
	return 6.4 * (double)strlen(s);
}

/* a tick every 1, 2 or 5 times a power of ten: at most ten of them */
static double tick_step(double ms)
{
	double step = 1;

	while (ms / step > 10) {
		if (ms / (step * 2) <= 10)
			return step * 2;
		if (ms / (step * 5) <= 10)
			return step * 5;
		step *= 10;
	}
	return step;
}

static const char *bar_class(const struct an_module *m)
{
	const char *p = an_report_problem(m);

	if (p == NULL)
		return m->critical ? "crit" : "ok";
	return strcmp(p, "no device") == 0 ? "nodev" : strcmp(p, "hung") == 0 ? "hung" : "fail";
}

static int drawn(const struct an_module *m)
{
	return m->worker >= 0 && (m->end_ms > m->start_ms || strcmp(m->state, "hung") == 0);
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The lanes: the workers that loaded something, in order, each once;
 * sorted, not inserted one by one: a made-up report may give every
 * module a worker of its own. */
static int lanes(const struct an_report *r, int **out)
{
	int *l, n = 0, k = 0, i;

	*out = l = calloc((size_t)r->nmods + 1, sizeof(int));
	if (l == NULL)
		return -ENOMEM;
	for (i = 0; i < r->nmods; i++)
		if (drawn(&r->mods[i]))
			l[n++] = r->mods[i].worker;
	qsort(l, (size_t)n, sizeof(int), by_int);
	for (i = 0; i < n; i++)
		if (k == 0 || l[k - 1] != l[i])
			l[k++] = l[i];
	return k;
}

static int lane_of(const int *l, int n, int worker)
{
	const int *p = bsearch(&worker, l, (size_t)n, sizeof(int), by_int);

	return p ? (int)(p - l) : 0;
}

static void bar(FILE *out, const struct an_report *r, const struct an_module *m, double sx, int lane)
{
	double end = strcmp(m->state, "hung") == 0 ? r->end_ms : m->end_ms;
	double x = LEFT + m->start_ms * sx, w = (end - m->start_ms) * sx;
	int y = TOP + lane * LANE + (LANE - BAR) / 2;

	if (w < 1)
		w = 1;
	fprintf(out, "<rect class=\"%s%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>",
		bar_class(m), m->held ? " held" : "", x, y, w, BAR);
	an_put_xml(out, m->name);
	fputs(": ", out);
	an_put_xml(out, an_report_problem(m) ? an_report_problem(m) : m->state);
	fprintf(out, ", @%.1f ms +%.1f ms", m->start_ms, end - m->start_ms);
	if (m->error) {
		fputs(" (", out);
		an_put_xml(out, m->error);
		fputs(")", out);
	}
	if (m->critical)
		fputs(", on the critical chain", out);
	if (m->held)
		fputs(", handed over", out);
	fputs("</title></rect>\n", out);
	if (text_width(m->name) + 6 <= w) {
		fprintf(out, "<text class=\"name\" x=\"%.1f\" y=\"%d\">", x + 3, y + BAR - 4);
		an_put_xml(out, m->name);
		fputs("</text>\n", out);
	}
}

static void axis(FILE *out, const struct an_report *r, double sx, int nl)
{
	double step = tick_step(r->end_ms), t;
	int bottom = TOP + nl * LANE;

	for (t = 0; t <= r->end_ms + step / 1000; t += step) {
		double x = LEFT + t * sx;

		fprintf(out, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", x, TOP - 4, x,
			bottom);
		if (step >= 1000)
			fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%d\">%g s</text>\n", x, TOP - 8, t / 1000);
		else
			fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%d\">%g ms</text>\n", x, TOP - 8, t);
	}
}

/* The critical chain: a line from each link's end to the next link's
 * start, in the gap between them, where it hides no bar. */
static void chain(FILE *out, const struct an_report *r, double sx, const int *l, int nl)
{
	int i;

	for (i = 1; i < r->nchain; i++) {
		const struct an_module *a = &r->mods[r->chain[i - 1]], *b = &r->mods[r->chain[i]];

		if (!drawn(a) || !drawn(b))
			continue;
		fprintf(out, "<line class=\"chain\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			LEFT + a->end_ms * sx, TOP + lane_of(l, nl, a->worker) * LANE + LANE / 2,
			LEFT + b->start_ms * sx, TOP + lane_of(l, nl, b->worker) * LANE + LANE / 2);
	}
}

static void legend(FILE *out, int y)
{
	static const struct {
		const char *cls, *what;
	} keys[] = {
		{ "ok", "loaded" },      { "crit", "critical chain" }, { "fail", "failed" },
		{ "nodev", "no device" }, { "hung", "hung" },          { "ok held", "handed over" },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int x = LEFT + (int)i * 150;

		fprintf(out, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"24\" height=\"%d\"/>\n", keys[i].cls, x,
			y, BAR);
		fprintf(out, "<text class=\"lane\" x=\"%d\" y=\"%d\">%s</text>\n", x + 30, y + BAR - 4,
			keys[i].what);
	}
}

int an_svg(FILE *out, const struct an_report *r)
{
	int *l, nl, i, width = LEFT + PLOT + RIGHT, height;
	double sx;

	nl = lanes(r, &l);
	if (nl < 0)
		return nl;
	height = TOP + (nl ? nl : 1) * LANE + LEGEND;
	sx = PLOT / (r->end_ms > 1 ? r->end_ms : 1);
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		width, height, width, height);
	fputs("<style>\n"
	      "text { font-family: sans-serif; font-size: 11px; fill: #222; }\n"
	      ".title { font-size: 14px; font-weight: bold; } .axis { text-anchor: middle; fill: #555; }\n"
	      ".tick { stroke: #ddd; } .lane { fill: #333; } .name { fill: #fff; }\n"
	      "rect { stroke: none; } .ok { fill: #4a86c5; } .crit { fill: #e07b24; stroke: #7a3b00; "
	      "stroke-width: 1.5; }\n"
	      ".fail { fill: #c8302a; } .nodev { fill: #9a9a9a; } .hung { fill: #6b1510; }\n"
	      ".held { stroke: #111; stroke-width: 1.5; stroke-dasharray: 4 2; }\n"
	      ".chain { stroke: #7a3b00; stroke-width: 1.5; }\n"
	      ".handover { stroke: #2a8a3a; stroke-width: 2; stroke-dasharray: 6 3; } .ho { fill: #2a8a3a; }\n"
	      "</style>\n"
	      "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" style=\"fill: #fff\"/>\n", out);
	fputs("<text class=\"title\" x=\"10\" y=\"20\">modpreload ", out);
	an_put_xml(out, r->version);
	if (r->kernel) {
		fputs(" on ", out);
		an_put_xml(out, r->kernel);
	}
	fprintf(out, ": %.0f modules loaded in %.1f ms</text>\n", r->nmods ? r->counts[AN_LOADED] : 0, r->end_ms);
	fprintf(out, "<text x=\"10\" y=\"38\">a bar per load, from its start to its end; a lane per worker; "
		"critical chain %.1f ms (%d modules)%s</text>\n", r->chain_ms, r->nchain,
		r->dry_run ? "; a dry run: nothing was loaded" : "");
	axis(out, r, sx, nl ? nl : 1);
	for (i = 0; i < nl; i++)
		fprintf(out, "<text class=\"lane\" x=\"10\" y=\"%d\">worker %d</text>\n",
			TOP + i * LANE + LANE / 2 + 4, l[i]);
	for (i = 0; i < r->nmods; i++)
		if (drawn(&r->mods[i]))
			bar(out, r, &r->mods[i], sx, lane_of(l, nl, r->mods[i].worker));
	chain(out, r, sx, l, nl);
	if (r->handover) {
		double x = LEFT + r->handover_ms * sx;

		fprintf(out, "<line class=\"handover\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", x, TOP - 4, x,
			TOP + nl * LANE);
		/* near the right edge the label goes on the line's left */
		if (x + 4 + text_width("hand-over") > LEFT + PLOT + RIGHT)
			fprintf(out, "<text class=\"ho\" x=\"%.1f\" y=\"%d\" text-anchor=\"end\">hand-over</text>\n",
				x - 4, TOP - 22);
		else
			fprintf(out, "<text class=\"ho\" x=\"%.1f\" y=\"%d\">hand-over</text>\n", x + 4, TOP - 22);
	}
	legend(out, TOP + (nl ? nl : 1) * LANE + 20);
	fputs("</svg>\n", out);
	free(l);
	return 0;
}
