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
 *   - each index's identity (device, inode, size, mtime and ctime, to the
 *     ns) when the last run's check of it passed: the same, not walked
 *     again (depmod writes a new file and renames it, changing them all);
 *   - a digest of what else a lookup reads (modprobe.d's aliases, install
 *     and remove commands, the kernel, the directory), and what each key's
 *     lookup found before any blacklist: with the same indexes and digest,
 *     libkmod would find the same;
 *   - modules.alias's identity and, for each module the hand-over looked
 *     at, which kinds of alias lead to it there (kinds.c);
 *   - the drivers that found no device for any CPU (nodev.c): with the same
 *     lookups the next boot holds them and tries them only once udev's
 *     queue is empty (handover.c), not while the boot's units start;
 *   - whether the run handed over, what it held from udev and what it
 *     waited for: with the same lookups and those live, the next boot's
 *     run holds the same before it walks sysfs, and lets the boot go on
 *     (early.c); the names it left to systemd-modules-load (leave.c): it
 *     takes the names gate before the walk only for another (gate.c).
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

#include "known.h"

#define KNOWN_MAGIC "modpreload lookups 5"
#define ALIAS_TEXT "modules.alias"
#define KNOWN_MAX (8u << 20)

/* the lines of the lists (known.h) */
static const char *const list_key[NLISTS] = { "nodev ", "held ", "wait ", "left " };

struct mp_known *mp_known_of(struct mp_ctx *ctx)
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
	for (int i = 0; i < NLISTS; i++)
		free(k->list[i].names);
	free(k);
}

void mp_index_id_of(const struct stat *st, struct mp_index_id *id)
{
	*id = (struct mp_index_id){
		.present = true, .dev = (unsigned long long)st->st_dev, .ino = (unsigned long long)st->st_ino,
		.size = (long long)st->st_size, .mtime = st->st_mtim, .ctime = st->st_ctim,
	};
}

bool mp_known_same_id(const struct mp_index_id *a, const struct mp_index_id *b)
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
	const struct mp_known *k = ctx->known;

	return k && k->tree && k->was[i].checked && mp_known_same_id(&k->was[i], now);
}

/* A module name as depmod writes it, or a key as mp_normalize_name makes it. */
bool mp_known_plain(const char *s, bool name)
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
	if (!mp_known_plain(rest, true))
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

/* "NAME", into a list (in the file's text); a name twice is once */
static int parse_listed(struct listed *l, const char *name)
{
	const char **more;
	int i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0)
			return 0;
	if (!mp_known_plain(name, true) || (more = realloc(l->names, ((size_t)l->n + 1) * sizeof(*more))) == NULL)
		return -EBADMSG;
	l->names = more;
	l->names[l->n++] = name;
	return 0;
}

/* "KEY NAME": one of the lists; 1 not such a line */
static int parse_list_line(struct mp_known *k, const char *line)
{
	for (int i = 0; i < NLISTS; i++)
		if (strncmp(line, list_key[i], strlen(list_key[i])) == 0)
			return parse_listed(&k->list[i], line + strlen(list_key[i]));
	return 1;
}

/* Cuts the file's lines in place; the names of "= key names" stay in text. */
static int parse(struct mp_ctx *ctx, struct mp_known *k, size_t len, const char **digest)
{
	char *line = k->text, *end = k->text + len, *nl, *sp;
	bool kernel = false, dir = false;
	unsigned n = 0;
	int r;

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
			if (!mp_known_plain(line + 2, false) ||
			    mp_strmap_put(k->keys, line + 2, (int)(sp ? sp + 1 - k->text : nl - k->text)) < 0)
				return -EBADMSG;
			for (char *w = sp ? sp + 1 : nl, *e; w < nl; w = e + 1) {
				e = strchrnul(w, ' ');
				*e = '\0';
				if (!mp_known_plain(w, true))
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
		} else if ((r = parse_list_line(k, line)) <= 0) {
			if (r < 0)
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

	if (path == NULL || path[0] == '\0' || (k = mp_known_of(ctx)) == NULL)
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
		k->kinds = NULL; /* the lists: used only with the lookups */
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
	struct mp_known *k = mp_known_of(ctx);
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

/* NAME is in a list of the last boot's, which looked up what this one would
 * (the same indexes and modprobe.d's aliases): it found no device for any
 * CPU; it was asked for by name alone and left to systemd-modules-load */
static bool listed(const struct mp_ctx *ctx, int which, const char *name)
{
	for (int i = 0; ctx->known && ctx->known->lookups && i < ctx->known->list[which].n; i++)
		if (strcmp(ctx->known->list[which].names[i], name) == 0)
			return true;
	return false;
}

bool mp_known_nodev(const struct mp_ctx *ctx, const char *name) { return listed(ctx, NODEV, name); }
bool mp_known_left(const struct mp_ctx *ctx, const char *name) { return listed(ctx, LEFT, name); }

/* what the last boot's hand-over held (*names) and waited for (*waits), that
 * boot having looked up what this one would: how many held, -1 unknown */
int mp_known_held(const struct mp_ctx *ctx, const char *const **names, const char *const **waits, int *nwaits)
{
	const struct mp_known *k = ctx->known;

	if (k == NULL || !k->lookups || !k->handover)
		return -1;
	*names = k->list[HELD].names;
	*waits = k->list[WAIT].names;
	*nwaits = k->list[WAIT].n;
	return k->list[HELD].n;
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

/* known.h */
bool mp_known_reserve(struct mp_known *k, struct mp_strmap **learned, const char *key, size_t need)
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
	struct mp_known *k = mp_known_of(ctx);
	size_t need = strlen(key) + 4;
	int i;

	if (k == NULL || k->broken || ctx->opts.lookups_out == NULL || !mp_known_plain(key, false))
		return;
	for (i = 0; i < n; i++)
		need += strlen(names[i]) + 1;
	if (!mp_known_reserve(k, &k->learned, key, need))
		return;
	k->len += (size_t)sprintf(k->out + k->len, "= %s", key);
	for (i = 0; i < n; i++)
		k->len += (size_t)sprintf(k->out + k->len, " %s", names[i]);
	k->out[k->len++] = '\n';
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

/* M is in this run's list W: the no-device blacklist; what the hand-over
 * held, and waited for (must_finish); a name left to systemd-modules-load */
static bool in_list(const struct mp_ctx *ctx, const struct mp_module *m, int w)
{
	bool ho = ctx->result.handover_at != 0;

	return w == NODEV ? m->nodev_listed : w == LEFT ? m->to_names : w == HELD ? ho && m->ho.held :
	       ho && !m->ho.held && m->urgent == 2 && !mp_module_named(m);
}

static int fill(int fd, void *data)
{
	struct mp_ctx *ctx = data;
	const struct mp_known *k = ctx->known;
	char head[PATH_MAX * 2 + 256];
	size_t i;
	int n, r, w;

	n = snprintf(head, sizeof(head), KNOWN_MAGIC "\nkernel %s\ndir %s\nconfig %s\n", ctx->env.kver,
		     ctx->env.moddir, k->digest);
	r = mp_write_full(fd, head, (size_t)n);
	for (i = 0; i < MP_NINDEXES && r == 0; i++)
		if (ctx->now[i].checked)
			r = mp_write_full(fd, head, (size_t)id_line(head, sizeof(head), mp_indexes[i], &ctx->now[i]));
	if (r == 0 && k->alias_now.present)
		r = mp_write_full(fd, head, (size_t)id_line(head, sizeof(head), ALIAS_TEXT, &k->alias_now));
	if (r == 0 && ctx->result.handover_at)
		r = mp_write_full(fd, "handover\n", 9);
	for (w = 0; w < NLISTS; w++)
		for (i = 0; i < (size_t)ctx->plan.nmods && r == 0; i++)
			if (in_list(ctx, &ctx->plan.mods[i], w) && mp_known_plain(ctx->plan.mods[i].name, true))
				r = mp_write_full(fd, head, (size_t)snprintf(head, sizeof(head), "%s%s\n", list_key[w],
									     ctx->plan.mods[i].name));
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
