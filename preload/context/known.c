// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the last boot learned of this module tree, so that this boot does
 * not work it out again before udevd may start (--lookups FILE, written
 * by --lookups-out FILE at the end of a run).
 *
 * Two things cost the booted system's run most of its planning, and both
 * give the same answer on every boot of the same tree: the bounds check of
 * depmod's indexes (a walk of 2.7 MB) and libkmod's wildcard lookups of
 * every device's modalias in modules.alias.bin. The file keeps
 *   - each index's identity (device, inode, size, mtime and ctime, all to
 *     the nanosecond) as it was when the last run's check of it passed: an
 *     index with the same identity is not walked again (depmod writes a
 *     new file and renames it, which changes all of them);
 *   - a digest of what else a lookup reads (modprobe.d's aliases and
 *     install and remove commands, the kernel, the directory), and what
 *     each key's lookup found, before any blacklist: with the same indexes
 *     and the same digest, libkmod would find the same;
 *   - the identity of modules.alias (the text) and, for each module the
 *     hand-over looked at, which kinds of alias lead to it there (a
 *     device's, the kernel's): with the same file, the hand-over need not
 *     read its 1.3 MB again to know what it may hold;
 *   - the drivers that found no device for any CPU (nodev.c's blacklist):
 *     with the same lookups, the next boot's hand-over holds them and
 *     tries them only once udev's queue is empty (handover.c), not in the
 *     seconds when the boot's own units start;
 *   - whether the run handed over, what it held from udev then and what it
 *     waited for: with the same lookups and those live, the next boot's run
 *     holds the same before it walks sysfs, and lets the boot go on (early.c);
 *   - the names it left to systemd-modules-load (leave.c): the next boot's
 *     run takes the names gate before the walk only for another (gate.c).
 * Anything else (another kernel, a changed index or alias, a line that is
 * not ours) and the file is not used: the run checks and looks up as if
 * there were none. It is root's, as the indexes are, and says only which
 * of the tree's own modules a key finds: nothing outside the module
 * directory can come of it.
 */
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ctx.h"

#define KNOWN_MAGIC "modpreload lookups 5"
#define ALIAS_TEXT "modules.alias"
#define KNOWN_MAX (8u << 20)

struct mp_known {
	char *text;              /* the file, its lines cut in place */
	struct mp_strmap *keys;  /* key -> offset in text of its names */
	struct mp_index_id was[MP_NINDEXES];
	bool tree;               /* the file is for this kernel's directory */
	bool lookups;            /* and for this configuration */
	char digest[17];         /* this run's, once libkmod has read modprobe.d */
	char *out;               /* "= key names...\n" of this run's lookups */
	size_t len, cap;
	struct mp_strmap *learned;
	struct mp_strmap *options;   /* modprobe.d's options lines: their keys */
	struct mp_strmap *blacklist; /* modprobe.d's blacklist */
	bool broken;             /* out of memory while learning: write nothing */
	struct mp_index_id alias_was, alias_now; /* modules.alias: the file's, this run's */
	struct mp_strmap *kinds;          /* module -> MP_ALIAS_*, from the file */
	struct mp_strmap *kinds_learned;  /* this run's, written */
	/* from the file, in its text: no device for a CPU; what its hand-over
	 * held; what it waited for; the names it left to systemd-modules-load */
	const char **nodev, **held, **wait, **left;
	int nnodev, nheld, nwait, nleft;
	bool handover;                    /* it handed over: held says all */
	bool alias_counted, alias_read;   /* as an index not walked; walked after all */
};

static struct mp_known *known(struct mp_ctx *ctx)
{
	if (ctx->known == NULL)
		ctx->known = calloc(1, sizeof(*ctx->known));
	return ctx->known;
}

void mp_known_free(struct mp_known *k)
{
	if (k == NULL)
		return;
	free(k->text);
	free(k->out);
	mp_strmap_free(k->keys);
	mp_strmap_free(k->learned);
	mp_strmap_free(k->options);
	mp_strmap_free(k->blacklist);
	mp_strmap_free(k->kinds);
	mp_strmap_free(k->kinds_learned);
	free(k->nodev);
	free(k->held);
	free(k->wait);
	free(k->left);
	free(k);
}

void mp_index_id_of(const struct stat *st, struct mp_index_id *id)
{
	*id = (struct mp_index_id){
		.present = true, .dev = (unsigned long long)st->st_dev, .ino = (unsigned long long)st->st_ino,
		.size = (long long)st->st_size, .mtime = st->st_mtim, .ctime = st->st_ctim,
	};
}

static bool same_id(const struct mp_index_id *a, const struct mp_index_id *b)
{
	if (!a->present || !b->present)
		return a->present == b->present;
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* The index at i is as it was when the last run's check of it passed. */
bool mp_known_index_same(struct mp_ctx *ctx, size_t i, const struct mp_index_id *now)
{
	return ctx->known && ctx->known->tree && ctx->known->was[i].checked && same_id(&ctx->known->was[i], now);
}

/* A module name as depmod writes it, or a key as mp_normalize_name makes it. */
static bool plain(const char *s, bool name)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f ||
		    (name && !(*s == '_' || *s == '-' || (*s >= '0' && *s <= '9') ||
			       (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))))
			return false;
	return true;
}

/* The next number of an index line, and what ends it ("." or " " or the end). */
static bool number(char **p, unsigned long long *v, char end)
{
	char *e;

	if (**p < '0' || **p > '9')
		return false;
	errno = 0;
	*v = strtoull(*p, &e, 10);
	if (errno != 0 || *e != end)
		return false;
	*p = end ? e + 1 : e;
	return true;
}

/* "NAME DEV INO SIZE MTIME.NS CTIME.NS", or "NAME -": absent or empty */
static int parse_index(struct mp_known *k, char *rest)
{
	struct mp_index_id id = { .present = true, .checked = true };
	unsigned long long size, ms, mn, cs, cn;
	char *sp = strchr(rest, ' '), *p;
	size_t i;

	if (sp == NULL)
		return -EBADMSG;
	*sp = '\0';
	p = sp + 1;
	if (strcmp(p, "-") == 0) {
		id = (struct mp_index_id){ .checked = true };
		goto found;
	}
	if (!number(&p, &id.dev, ' ') || !number(&p, &id.ino, ' ') || !number(&p, &size, ' ') ||
		 !number(&p, &ms, '.') || !number(&p, &mn, ' ') || !number(&p, &cs, '.') || !number(&p, &cn, 0) ||
		 mn >= 1000000000 || cn >= 1000000000 || size > LLONG_MAX || ms > LLONG_MAX || cs > LLONG_MAX)
		return -EBADMSG;
	id.size = (long long)size;
	id.mtime = (struct timespec){ .tv_sec = (time_t)ms, .tv_nsec = (long)mn };
	id.ctime = (struct timespec){ .tv_sec = (time_t)cs, .tv_nsec = (long)cn };
found:
	if (strcmp(rest, ALIAS_TEXT) == 0) {
		k->alias_was = id;
		return 0;
	}
	for (i = 0; i < MP_NINDEXES; i++)
		if (strcmp(rest, mp_indexes[i]) == 0) {
			k->was[i] = id;
			return 0;
		}
	return -EBADMSG;
}

/* "NAME [device] [kernel]": the kinds of alias that lead to NAME */
static int parse_kinds(struct mp_known *k, char *rest)
{
	char *w = strchr(rest, ' '), *e;
	int kinds = 0;

	if (w)
		*w++ = '\0';
	if (!plain(rest, true))
		return -EBADMSG;
	for (; w && *w; w = *e ? e + 1 : e) {
		e = strchrnul(w, ' ');
		if (e - w == 6 && memcmp(w, "device", 6) == 0)
			kinds |= MP_ALIAS_DEVICE;
		else if (e - w == 6 && memcmp(w, "kernel", 6) == 0)
			kinds |= MP_ALIAS_KERNEL;
		else
			return -EBADMSG;
	}
	if (k->kinds == NULL && (k->kinds = mp_strmap_new()) == NULL)
		return -ENOMEM;
	return mp_strmap_put(k->kinds, rest, kinds);
}

/* "NAME", into *list (in the file's text): a driver that found no device for
 * any CPU, a module its hand-over held or waited for, a name it left to
 * systemd-modules-load; a name twice is once */
static int parse_listed(const char ***list, int *n, const char *name)
{
	const char **more;
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp((*list)[i], name) == 0)
			return 0;
	if (!plain(name, true) || (more = realloc(*list, ((size_t)*n + 1) * sizeof(**list))) == NULL)
		return -EBADMSG;
	*list = more;
	(*list)[(*n)++] = name;
	return 0;
}

/* Cuts the file's lines in place; the names of "= key names" stay in text. */
static int parse(struct mp_ctx *ctx, struct mp_known *k, size_t len, const char **digest)
{
	char *line = k->text, *end = k->text + len, *nl, *sp;
	bool kernel = false, dir = false;
	unsigned n = 0;

	k->keys = mp_strmap_new();
	if (k->keys == NULL)
		return -ENOMEM;
	for (; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		/* cut short, or a NUL inside a line, which would end its words early */
		if (nl == NULL || memchr(line, '\0', (size_t)(nl - line)))
			return -EBADMSG;
		*nl = '\0';
		if (++n == 1) {
			if (strcmp(line, KNOWN_MAGIC) != 0)
				return strncmp(line, "modpreload lookups ", 19) == 0 ? -EPROTO : -EBADMSG;
		} else if (strncmp(line, "= ", 2) == 0) {
			sp = strchr(line + 2, ' ');
			if (sp)
				*sp = '\0';
			if (!plain(line + 2, false) || mp_strmap_put(k->keys, line + 2, (int)(sp ? sp + 1 - k->text :
									     nl - k->text)) < 0)
				return -EBADMSG;
			for (char *w = sp ? sp + 1 : nl, *e; w < nl; w = e + 1) {
				e = strchrnul(w, ' ');
				*e = '\0';
				if (!plain(w, true))
					return -EBADMSG;
				if (e < nl)
					*e = ' ';
			}
		} else if (strncmp(line, "index ", 6) == 0) {
			if (parse_index(k, line + 6) < 0)
				return -EBADMSG;
		} else if (strncmp(line, "kinds ", 6) == 0) {
			if (parse_kinds(k, line + 6) < 0)
				return -EBADMSG;
		} else if (strncmp(line, "nodev ", 6) == 0) {
			if (parse_listed(&k->nodev, &k->nnodev, line + 6) < 0)
				return -EBADMSG;
		} else if (strncmp(line, "held ", 5) == 0 || strncmp(line, "wait ", 5) == 0) {
			if (parse_listed(line[0] == 'h' ? &k->held : &k->wait, line[0] == 'h' ? &k->nheld : &k->nwait,
					 line + 5) < 0)
				return -EBADMSG;
		} else if (strncmp(line, "left ", 5) == 0) {
			if (parse_listed(&k->left, &k->nleft, line + 5) < 0)
				return -EBADMSG;
		} else if (strcmp(line, "handover") == 0) {
			k->handover = true;
		} else if (strncmp(line, "kernel ", 7) == 0) {
			kernel = strcmp(line + 7, ctx->env.kver) == 0;
		} else if (strncmp(line, "dir ", 4) == 0) {
			dir = strcmp(line + 4, ctx->env.moddir) == 0;
		} else if (strncmp(line, "config ", 7) == 0) {
			*digest = line + 7;
		} else {
			return -EBADMSG;
		}
	}
	k->tree = kernel && dir;
	return 0;
}

/* Reads opts.lookups, once the module directory is known; quiet when there
 * is none (the first boot, /var not mounted yet). */
void mp_known_read(struct mp_ctx *ctx)
{
	const char *path = ctx->opts.lookups;
	const char *digest = NULL;
	struct mp_known *k;
	size_t len;
	int r;

	if (path == NULL || path[0] == '\0' || (k = known(ctx)) == NULL)
		return;
	r = mp_read_file_alloc(path, KNOWN_MAX, &k->text, &len);
	if (r == -ENOENT) {
		mp_log(ctx, MP_LOG_DEBUG, "%s: none yet: checking and looking up from scratch", path);
		return;
	}
	if (r == 0 && len == 0)
		r = -EBADMSG;
	if (r == 0)
		r = parse(ctx, k, len, &digest);
	if (r == 0 && digest && strlen(digest) == 16)
		memcpy(k->digest, digest, 17);
	if (r == -EPROTO)
		mp_log(ctx, MP_LOG_INFO, "%s: written by another version of modpreload: not used", path);
	else if (r < 0)
		mp_warn(ctx, "%s: %s (%s): not used; checking and looking up from scratch", path,
			r == -EBADMSG ? "not a modpreload lookup cache" : strerror(-r), mp_errno_name(-r));
	if (r < 0) {
		k->tree = false;
		mp_strmap_free(k->keys);
		k->keys = NULL;
		mp_strmap_free(k->kinds);
		k->kinds = NULL;
		k->nnodev = 0;
		k->nleft = 0;
		k->handover = false;
		return;
	}
	if (!k->tree)
		mp_log(ctx, MP_LOG_INFO, "%s: for another kernel or module directory: not used", path);
}

static void feed(uint64_t *h, const char *s)
{
	for (; s && *s; s++)
		*h = (*h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a, 64 bits */
	*h = (*h ^ '\n') * 0x100000001b3ull;
}

static uint64_t digest_of(struct kmod_config_iter *it, uint64_t h, const char *kind, struct mp_strmap *keys)
{
	while (it && kmod_config_iter_next(it)) {
		const char *key = kmod_config_iter_get_key(it);

		feed(&h, kind);
		feed(&h, key);
		feed(&h, kmod_config_iter_get_value(it));
		if (keys && key)
			(void)mp_strmap_put(keys, key, 0);
	}
	kmod_config_iter_free_iter(it);
	return h;
}

/*
 * Once libkmod has read modprobe.d: what a lookup reads besides the
 * indexes, as a digest; the lookups the file has are used if it is the
 * same. The blacklist and the options' keys are kept for the resolver.
 */
int mp_known_config(struct mp_ctx *ctx)
{
	struct mp_known *k = known(ctx);
	uint64_t h = 0xcbf29ce484222325ull;
	char digest[17];
	size_t i;

	if (k == NULL)
		return -ENOMEM;
	k->options = mp_strmap_new();
	k->blacklist = mp_strmap_new();
	if (k->options == NULL || k->blacklist == NULL)
		return -ENOMEM;
	feed(&h, ctx->env.kver);
	feed(&h, ctx->env.moddir);
	h = digest_of(kmod_config_get_aliases(ctx->kmod), h, "alias", NULL);
	h = digest_of(kmod_config_get_install_commands(ctx->kmod), h, "install", NULL);
	h = digest_of(kmod_config_get_remove_commands(ctx->kmod), h, "remove", NULL);
	(void)digest_of(kmod_config_get_options(ctx->kmod), 0, "", k->options);
	(void)digest_of(kmod_config_get_blacklists(ctx->kmod), 0, "", k->blacklist);
	snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)h);
	k->lookups = k->tree && k->keys;
	for (i = 0; i < MP_NINDEXES && k->lookups; i++)
		k->lookups = i == SYMBOLS_INDEX || (ctx->now[i].checked && mp_known_index_same(ctx, i, &ctx->now[i]));
	if (k->tree && !k->lookups)
		mp_log(ctx, MP_LOG_INFO, "%s: depmod's indexes changed since: its lookups not used", ctx->opts.lookups);
	else if (k->lookups && strcmp(digest, k->digest) != 0) {
		k->lookups = false;
		mp_log(ctx, MP_LOG_INFO, "%s: modprobe.d's aliases or commands changed since: its lookups not "
		       "used", ctx->opts.lookups);
	}
	memcpy(k->digest, digest, sizeof(digest));
	return 0;
}

/* name found no device for any CPU on the last boot, which looked up
 * what this one would (the same indexes and modprobe.d's aliases) */
bool mp_known_nodev(const struct mp_ctx *ctx, const char *name)
{
	int i;

	for (i = 0; ctx->known && ctx->known->lookups && i < ctx->known->nnodev; i++)
		if (strcmp(ctx->known->nodev[i], name) == 0)
			return true;
	return false;
}

/* NAME was asked for by name alone on the last boot, which looked up what
 * this one would, and left to systemd-modules-load (leave.c) */
bool mp_known_left(const struct mp_ctx *ctx, const char *name)
{
	int i;

	for (i = 0; ctx->known && ctx->known->lookups && i < ctx->known->nleft; i++)
		if (strcmp(ctx->known->left[i], name) == 0)
			return true;
	return false;
}

/* what the last boot's hand-over held (*names) and waited for (*waits), that
 * boot having looked up what this one would: how many held, -1 unknown */
int mp_known_held(const struct mp_ctx *ctx, const char *const **names, const char *const **waits, int *nwaits)
{
	const struct mp_known *k = ctx->known;

	if (k == NULL || !k->lookups || !k->handover)
		return -1;
	*names = k->held;
	*waits = k->wait;
	*nwaits = k->nwait;
	return k->nheld;
}

/* modprobe.d's "blacklist NAME" (libkmod's KMOD_FILTER_BLACKLIST) */
bool mp_known_blacklisted(const struct mp_ctx *ctx, const char *name)
{
	int unused;

	return ctx->known && ctx->known->blacklist && mp_strmap_get(ctx->known->blacklist, name, &unused) == 0;
}

/*
 * What the last boot's lookup of key found: the names, space-separated
 * ("" for none), or NULL to look it up. Not for a key with options of its
 * own in modprobe.d: libkmod gives a module it found by that alias those
 * options too, which one made from its name alone lacks.
 */
const char *mp_known_lookup(const struct mp_ctx *ctx, const char *key)
{
	const struct mp_known *k = ctx->known;
	int off, unused;

	if (k == NULL || !k->lookups || mp_strmap_get(k->options, key, &unused) == 0 ||
	    mp_strmap_get(k->keys, key, &off) < 0)
		return NULL;
	return k->text + off;
}

/* Room for need more bytes of lines to write, and key not written yet
 * (added to *learned); false with nothing to do, or out of memory. */
static bool reserve(struct mp_known *k, struct mp_strmap **learned, const char *key, size_t need)
{
	int unused;

	if (*learned == NULL && (*learned = mp_strmap_new()) == NULL)
		goto broken;
	if (mp_strmap_get(*learned, key, &unused) == 0)
		return false;
	if (k->len + need > k->cap) {
		size_t cap = (k->cap ? k->cap * 2 : 16384) + need;
		char *p = realloc(k->out, cap);

		if (p == NULL)
			goto broken;
		k->out = p;
		k->cap = cap;
	}
	if (mp_strmap_put(*learned, key, 0) == 0)
		return true;
broken:
	k->broken = true;
	return false;
}

/* What this run's lookup of key found, for the next boot. */
void mp_known_learn(struct mp_ctx *ctx, const char *key, const char *const *names, int n)
{
	struct mp_known *k = known(ctx);
	size_t need = strlen(key) + 4;
	int i;

	if (k == NULL || k->broken || ctx->opts.lookups_out == NULL || !plain(key, false))
		return;
	for (i = 0; i < n; i++)
		need += strlen(names[i]) + 1;
	if (!reserve(k, &k->learned, key, need))
		return;
	k->len += (size_t)sprintf(k->out + k->len, "= %s", key);
	for (i = 0; i < n; i++)
		k->len += (size_t)sprintf(k->out + k->len, " %s", names[i]);
	k->out[k->len++] = '\n';
}

/*
 * The kinds of alias (MP_ALIAS_*) that lead to name in modules.alias, as
 * the last boot read them from a file with the identity st has; -1: read it.
 */
int mp_known_alias_kinds(const struct mp_ctx *ctx, const struct stat *st, const char *name)
{
	int kinds;

	if (!mp_known_alias_same(ctx, st) || mp_strmap_get(ctx->known->kinds, name, &kinds) < 0)
		return -1;
	return kinds;
}

/* modules.alias (identity st) is the one the last boot's kinds are of */
bool mp_known_alias_same(const struct mp_ctx *ctx, const struct stat *st)
{
	const struct mp_known *k = ctx->known;
	struct mp_index_id now;

	if (k == NULL || !k->tree || k->kinds == NULL)
		return false;
	mp_index_id_of(st, &now);
	return same_id(&k->alias_was, &now);
}

/* What this run knows of name's aliases in modules.alias (identity st),
 * for the next boot. */
void mp_known_learn_kinds(struct mp_ctx *ctx, const struct stat *st, const char *name, int kinds)
{
	struct mp_known *k = known(ctx);

	if (k == NULL || k->broken || ctx->opts.lookups_out == NULL || !plain(name, true) ||
	    !reserve(k, &k->kinds_learned, name, strlen(name) + 24))
		return;
	mp_index_id_of(st, &k->alias_now);
	k->len += (size_t)sprintf(k->out + k->len, "kinds %s%s%s\n", name, kinds & MP_ALIAS_DEVICE ? " device" : "",
				  kinds & MP_ALIAS_KERNEL ? " kernel" : "");
}

/* modules.alias counted as an index not walked (walked: false, once), or
 * not after all, as it was walked for a module the file did not have */
void mp_known_alias_used(struct mp_ctx *ctx, bool walked)
{
	struct mp_known *k = ctx->known;

	if (k == NULL || k->alias_read)
		return;
	if (walked) {
		k->alias_read = true;
		if (k->alias_counted)
			ctx->result.indexes_known--;
	} else if (!k->alias_counted) {
		k->alias_counted = true;
		ctx->result.indexes_known++;
	}
}

/* "index NAME DEV INO SIZE MTIME.NS CTIME.NS", or "index NAME -" */
static int id_line(char *buf, size_t size, const char *name, const struct mp_index_id *id)
{
	if (!id->present)
		return snprintf(buf, size, "index %s -\n", name);
	return snprintf(buf, size, "index %s %llu %llu %lld %lld.%09ld %lld.%09ld\n", name, id->dev, id->ino,
			id->size, (long long)id->mtime.tv_sec, id->mtime.tv_nsec, (long long)id->ctime.tv_sec,
			id->ctime.tv_nsec);
}

static int fill(int fd, void *data)
{
	struct mp_ctx *ctx = data;
	const struct mp_known *k = ctx->known;
	char head[PATH_MAX * 2 + 256];
	size_t i;
	int n, r;

	n = snprintf(head, sizeof(head), KNOWN_MAGIC "\nkernel %s\ndir %s\nconfig %s\n", ctx->env.kver,
		     ctx->env.moddir, k->digest);
	r = mp_write_full(fd, head, (size_t)n);
	for (i = 0; i < MP_NINDEXES && r == 0; i++)
		if (ctx->now[i].checked)
			r = mp_write_full(fd, head, (size_t)id_line(head, sizeof(head), mp_indexes[i], &ctx->now[i]));
	if (r == 0 && k->alias_now.present)
		r = mp_write_full(fd, head, (size_t)id_line(head, sizeof(head), ALIAS_TEXT, &k->alias_now));
	/* what this run's no-device blacklist has (nodev.c) */
	for (i = 0; i < (size_t)ctx->plan.nmods && r == 0; i++)
		if (ctx->plan.mods[i].nodev_listed && plain(ctx->plan.mods[i].name, true))
			r = mp_write_full(fd, head, (size_t)snprintf(head, sizeof(head), "nodev %s\n",
								     ctx->plan.mods[i].name));
	/* the names it left to systemd-modules-load (leave.c) */
	for (i = 0; i < (size_t)ctx->plan.nmods && r == 0; i++)
		if (ctx->plan.mods[i].to_names && plain(ctx->plan.mods[i].name, true))
			r = mp_write_full(fd, head, (size_t)snprintf(head, sizeof(head), "left %s\n",
								     ctx->plan.mods[i].name));
	/* what this run's hand-over held, and waited for (must_finish: handover.c) */
	if (r == 0 && ctx->result.handover_at)
		r = mp_write_full(fd, "handover\n", 9);
	for (i = 0; i < (size_t)ctx->plan.nmods && r == 0 && ctx->result.handover_at; i++) {
		const struct mp_module *m = &ctx->plan.mods[i];

		if ((m->ho.held || (m->urgent == 2 && !mp_module_named(m))) && plain(m->name, true))
			r = mp_write_full(fd, head, (size_t)snprintf(head, sizeof(head), "%s %s\n",
								     m->ho.held ? "held" : "wait", m->name));
	}
	return r == 0 && k->len ? mp_write_full(fd, k->out, k->len) : r;
}

/* This run's identities and lookups, for the next boot: a warning at most. */
void mp_known_write(struct mp_ctx *ctx)
{
	const char *path = ctx->opts.lookups_out, *name;
	int r, dirfd;

	if (path == NULL || path[0] == '\0' || ctx->known == NULL || ctx->known->broken ||
	    ctx->known->blacklist == NULL)
		return;
	dirfd = mp_ctx_at(ctx, path, &name);
	r = mp_write_atomic(dirfd, name, NULL, 0644, fill, ctx);
	if (r < 0)
		mp_warn(ctx, "%s: cannot keep this run's lookups: %s (%s)", path, strerror(-r), mp_errno_name(-r));
}
