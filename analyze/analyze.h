/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * modpreload analyze: a report read back for people. A program of its own
 * (main.c), so that the static binary early boot runs does not carry it:
 * `modpreload analyze` execs it.
 *
 * json.c reads JSON into a tree, report.c takes the report's fields from
 * it, text.c and svg.c say what a person asks after a slow boot. Functions
 * return 0 or -errno, as the preloader's do.
 */
#ifndef MP_ANALYZE_H
#define MP_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* --- json.c: a JSON text as a tree of values in one array ---------------- */

enum an_jtype { AN_JNULL, AN_JBOOL, AN_JNUM, AN_JSTR, AN_JARR, AN_JOBJ };

struct an_jval {
	enum an_jtype type;
	const char *key; /* a member of an object: its name */
	const char *str; /* AN_JSTR: decoded, NUL-terminated */
	double num;      /* AN_JNUM; AN_JBOOL: 0 or 1 */
	int first;       /* AN_JARR, AN_JOBJ: the first child, or -1 */
	int next;        /* the next sibling, or -1 */
};

struct an_json {
	struct an_jval *v; /* v[0] is the text's value */
	int n, cap;
	size_t err_at;     /* where a text that is no JSON went wrong */
};

/* Parses buf (len bytes, which it decodes strings into: buf must stay as
 * long as j), -EBADMSG for what is not one JSON value, -ENOMEM. */
int an_json_parse(struct an_json *j, char *buf, size_t len);
void an_json_free(struct an_json *j);
/* obj's member called key, or NULL (obj NULL or no object: NULL) */
const struct an_jval *an_json_get(const struct an_json *j, const struct an_jval *obj, const char *key);
/* the first child of an array or object, the next sibling: NULL at the end */
const struct an_jval *an_json_first(const struct an_json *j, const struct an_jval *v);
const struct an_jval *an_json_next(const struct an_json *j, const struct an_jval *v);
/* the value as a number (a number or a boolean) or string, else def */
double an_json_num(const struct an_jval *v, double def);
const char *an_json_str(const struct an_jval *v, const char *def);

/* --- report.c: the fields analyze uses -------------------------------------- */

struct an_module {
	const char *name, *state, *error, *message, *why, *skipped_because;
	double ms, start_ms, end_ms, dup_bytes; /* dup_bytes < 0: not estimated */
	int worker, wave;
	bool no_device, held, critical;
	bool to_udev; /* left to udev or systemd-modules-load (--leave-single): not a problem */
};

struct an_report {
	const char *version, *kernel, *mode, *boot_id;
	bool dry_run;
	double elapsed_ms, jobs, timeout_ms;
	double requests, unique, dups, bytes_not_read;
	double counts[7]; /* loaded, live, builtin, failed, skipped, hung, no_device */
	double left_to_udev, left_to_names; /* of the skipped */
	struct an_module *mods;
	int nmods;
	int *chain; /* indexes into mods, first link first */
	int nchain;
	double chain_ms;
	bool handover;
	double handover_ms, replayed;
	/* written by a unit's main process after its loader died: the signal
	 * (0: none known), the devices asked for again; stale_holds, released */
	bool loader_died;
	double died_signal, died_replayed, stale_holds;
	bool has_dupcost;
	double dupcost_bytes, dupcost_dups;
	const char *dupcost_model;
	const char **missing, **warnings;
	int nmissing, nwarnings;
	double end_ms; /* the last module's end, or the run's elapsed time */
};

enum { AN_LOADED, AN_LIVE, AN_BUILTIN, AN_FAILED, AN_SKIPPED, AN_HUNG, AN_NODEV };

/* -EBADMSG: the JSON is no modpreload report; -ENOMEM */
int an_report_read(struct an_report *r, const struct an_json *j);
void an_report_free(struct an_report *r);
/* the kind of problem a module is, or NULL: "failed", "hung", "skipped",
 * "no device" */
const char *an_report_problem(const struct an_module *m);

/* whose boot the report is: this one's (or this one's id is unknown:
 * this_boot NULL), another's, or it carries no boot id */
enum an_boot { AN_BOOT_THIS, AN_BOOT_OTHER, AN_BOOT_NONE };
enum an_boot an_report_boot(const struct an_report *r, const char *this_boot);

/* --- text.c, svg.c ------------------------------------------------------------ */

int an_text(FILE *out, const struct an_report *r);
/* the run's timeline: a lane per worker, a bar per module */
int an_svg(FILE *out, const struct an_report *r);

/* --- escape.c: a report's strings for the terminal and for XML ---------------- */

/* put s on out with what would upset the reader escaped: for a terminal,
 * controls (C0, DEL, C1), the backslash and bytes that are no UTF-8 as
 * \xNN; for XML, markup as entities and what XML 1.0 cannot hold as '?' */
void an_put_text(FILE *out, const char *s);
void an_put_xml(FILE *out, const char *s);

#endif
