// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stage 2 of 8, parse: readers of what comes from outside, each a function
 * of the bytes it is given, so that unit tests and fuzzers reach them
 * alone: the kernel command line (cmdline.c), modules-load.d lists
 * (confparse.c), uevents (uevent.c), depmod's indexes (index.c), the
 * kernel's module statistics (kstats.c) and the profile's format
 * (profile.c). They know no context and may call base only.
 */
/*
 * The kernel command line, split and unquoted as the kernel's next_arg()
 * does it: a double quote toggles quoting (blanks inside do not split),
 * but only a quote opening the word, one right after its first '=' and
 * the word's last one are dropped, so "a=b c" and a="b c" give key a,
 * value "b c" while a=x,"y z" keeps its value's quotes. A bare "--" ends
 * the kernel's part; what follows belongs to init. (One difference: a
 * word starting with '=' has an empty key here, the kernel's has none.)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "internal.h"

/* the kernel's isspace() */
static bool blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

struct word {
	const char *raw;  /* as written */
	size_t len;
	bool open;        /* a quote left open at the end of the text */
	char *key, *value;
};

typedef int (*word_fn)(void *data, const struct word *w);

static int walk(const char *text, word_fn fn, void *data)
{
	_cleanup_free_ char *buf = malloc(strlen(text) + 1);
	const char *p = text;

	if (buf == NULL)
		return -ENOMEM;
	for (;;) {
		struct word w = { .key = buf };
		bool lead, in, cut = false;
		const char *s;
		size_t n;
		int r;

		while (blank(*p))
			p++;
		if (*p == '\0')
			return 0;
		w.raw = p;
		lead = in = *p == '"';
		s = p += lead;
		for (; *p != '\0' && (in || !blank(*p)); p++)
			if (*p == '"')
				in = !in;
		w.len = (size_t)(p - w.raw);
		w.open = in;
		n = (size_t)(p - s);
		memcpy(buf, s, n);
		buf[n] = '\0';
		w.value = memchr(buf, '=', n);
		if (w.value != NULL) {
			*w.value++ = '\0';
			if (*w.value == '"') {
				w.value++;
				cut = buf[n - 1] == '"';
			}
		}
		if ((cut || lead) && n > 0 && buf[n - 1] == '"')
			buf[n - 1] = '\0';
		if (w.value == NULL && strcmp(buf, "--") == 0)
			return 0;
		r = fn(data, &w);
		if (r != 0)
			return r;
	}
}

struct each {
	mp_cmdline_cb cb;
	void *data;
};

static int each_word(void *data, const struct word *w)
{
	struct each *e = data;

	return e->cb(e->data, w->key, w->value);
}

int mp_cmdline_foreach(const char *text, mp_cmdline_cb cb, void *data)
{
	struct each e = { .cb = cb, .data = data };

	return walk(text, each_word, &e);
}

static int push(char ***list, int *n, const char *s)
{
	int cap = *n;
	char *copy = strdup(s);

	if (copy == NULL || mp_append(list, n, &cap, sizeof(char *)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	(*list)[*n - 1] = copy;
	return 0;
}

/* Comma-separated module names, each normalised. A name longer than any
 * module's is a bad value: the caller warns, naming it. */
static int push_list(struct mp_cmdline *c, const char *key, char ***list, int *n,
		     const char *value)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL, *tok;

	if (copy == NULL)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char name[256], shown[64];
		_cleanup_free_ char *why = NULL;
		int r;

		if (mp_normalize_name(tok, name, sizeof(name)) < 0) {
			mp_escape(tok, strlen(tok), shown, sizeof(shown));
			why = mp_strdup_printf("%s (a name longer than %zu bytes: \"%s\")", key,
					       sizeof(name) - 1, shown);
			r = why ? push(&c->bad, &c->nbad, why) : -ENOMEM;
			if (r < 0)
				return r;
			continue;
		}
		r = push(list, n, name);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/*
 * module.param[=value], as libkmod takes it from /proc/cmdline: the text
 * after "module." as written, a quote that opened the word moved to after
 * '=', a tab made a space; not an option where libkmod sees none (a
 * quote, a blank or a second dot before '=', a quote left open, a quoted
 * word without '='). The kernel reads the same value from it as from the
 * command line.
 */
static int add_option(struct mp_cmdline *c, const struct word *w)
{
	const char *key = w->key, *dot = strchr(key, '.');
	bool lead = w->raw[0] == '"';
	const char *raw = w->raw + lead + (dot - key) + 1, *end = w->raw + w->len;
	char module[256];
	int cap = c->noptions;
	struct mp_cmdline_option *o;

	if ((size_t)(dot - key) >= sizeof(module) || dot == key || dot[1] == '\0' || w->open ||
	    (lead && w->value == NULL) || strpbrk(dot + 1, "\". \t\n\v\f\r") != NULL)
		return 0;
	memcpy(module, key, (size_t)(dot - key));
	module[dot - key] = '\0';
	/* what the kernel would take for a module name, or not an option */
	for (char *q = module; *q; q++) {
		if (*q == '-')
			*q = '_';
		else if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			   (*q >= '0' && *q <= '9') || *q == '_'))
			return 0;
	}
	if (mp_append(&c->options, &c->noptions, &cap, sizeof(*o)) < 0)
		return -ENOMEM;
	o = &c->options[c->noptions - 1];
	o->module = strdup(module);
	if (lead) {
		raw += strlen(dot + 1) + 1;
		o->param = mp_strdup_printf("%s=\"%.*s", dot + 1, (int)(end - raw), raw);
	} else {
		o->param = strndup(raw, (size_t)(end - raw));
	}
	if (o->module == NULL || o->param == NULL)
		return -ENOMEM;
	for (char *q = o->param; (q = strchr(q, '\t')) != NULL;)
		*q = ' ';
	return 0;
}

/* KEY=0|no|off sets *off; 1|yes|on, or no value, leaves it; anything
 * else is a word we do not understand. */
static int off_switch(struct mp_cmdline *c, const char *key, const char *value, bool *off)
{
	if (value && (strcmp(value, "0") == 0 || strcmp(value, "no") == 0 || strcmp(value, "off") == 0))
		*off = true;
	else if (value && strcmp(value, "1") != 0 && strcmp(value, "yes") != 0 && strcmp(value, "on") != 0)
		return push(&c->bad, &c->nbad, key);
	return 0;
}

static int on_word(void *data, const struct word *w)
{
	struct mp_cmdline *c = data;
	const char *key = w->key, *value = w->value;
	unsigned u;

	if (strcmp(key, "rd.modpreload") == 0)
		return off_switch(c, key, value, &c->disabled);
	/* The booted system's switches: modpreload.enable= is its unit's
	 * condition, modpreload.nodev= ours; neither is a module's option.
	 * The hand-over has one name for each stage; either turns it off. */
	if (strcmp(key, "modpreload.nodev") == 0)
		return off_switch(c, key, value, &c->nodev_off);
	if (strcmp(key, "rd.modpreload.handover") == 0 || strcmp(key, "modpreload.handover") == 0)
		return off_switch(c, key, value, &c->handover_off);
	if (strcmp(key, "modpreload.leave_single") == 0)
		return off_switch(c, key, value, &c->leave_single_off);
	if (strcmp(key, "rd.modpreload.rootfs") == 0)
		return off_switch(c, key, value, &c->rootfs_off);
	if (strcmp(key, "modpreload.enable") == 0)
		return 0;
	if (strcmp(key, "rd.modpreload.jobs") == 0) {
		if (parse_uint(value, mp_limits[MP_LIM_JOBS].max, &u) < 0 || u == 0)
			return push(&c->bad, &c->nbad, key);
		c->jobs = (int)u;
		return 0;
	}
	if (strcmp(key, "rd.modpreload.timeout") == 0) {
		if (parse_uint(value, mp_limits[MP_LIM_TIMEOUT_S].max, &u) < 0 || u == 0)
			return push(&c->bad, &c->nbad, key);
		c->timeout_s = u;
		return 0;
	}
	if (strchr(key, '.') != NULL && strncmp(key, "rd.", 3) != 0 &&
	    strncmp(key, "modprobe.", 9) != 0)
		return add_option(c, w);
	if (value == NULL)
		return 0;
	if (strcmp(key, "rd.modpreload.modules") == 0 || strcmp(key, "rd.driver.pre") == 0)
		return push_list(c, key, &c->modules, &c->nmodules, value);
	if (strcmp(key, "modules_load") == 0 || strcmp(key, "modules-load") == 0)
		return push_list(c, key, &c->modules_load, &c->nmodules_load, value);
	/* dracut writes rd.driver.blacklist= and rd.driver.post= (loaded
	 * by name once udev has settled) into modprobe.d as blacklist lines */
	if (strcmp(key, "modprobe.blacklist") == 0 || strcmp(key, "rd.driver.blacklist") == 0 ||
	    strcmp(key, "rd.driver.post") == 0)
		return push_list(c, key, &c->blacklist, &c->nblacklist, value);
	if (strcmp(key, "module_blacklist") == 0)
		return push_list(c, key, &c->kblacklist, &c->nkblacklist, value);
	if (strcmp(key, "root") == 0 || strcmp(key, "rootfstype") == 0) {
		char **slot = strcmp(key, "root") == 0 ? &c->root : &c->rootfstype;

		free(*slot);
		*slot = strdup(value);
		return *slot ? 0 : -ENOMEM;
	}
	return 0;
}

int mp_cmdline_parse(const char *text, struct mp_cmdline *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = walk(text, on_word, out);
	if (r < 0)
		mp_cmdline_free(out);
	return r;
}

static void free_list(char **list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void mp_cmdline_free(struct mp_cmdline *c)
{
	int i;

	free_list(c->modules, c->nmodules);
	free_list(c->modules_load, c->nmodules_load);
	free_list(c->blacklist, c->nblacklist);
	free_list(c->kblacklist, c->nkblacklist);
	free_list(c->bad, c->nbad);
	free(c->root);
	free(c->rootfstype);
	for (i = 0; i < c->noptions; i++) {
		free(c->options[i].module);
		free(c->options[i].param);
	}
	free(c->options);
	memset(c, 0, sizeof(*c));
}

bool mp_cmdline_listed(char *const *list, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}
