// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel command line. Words are split the way the kernel's next_arg()
 * splits them: a double quote toggles quoting anywhere in the word and is
 * dropped, so both "a=b c" and a="b c" give key a, value "b c". A bare
 * "--" ends the kernel's part; what follows belongs to init.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "internal.h"

int mp_cmdline_foreach(const char *text, mp_cmdline_cb cb, void *data)
{
	_cleanup_free_ char *word = malloc(strlen(text) + 1);
	const char *p = text;

	if (word == NULL)
		return -ENOMEM;
	for (;;) {
		bool quoted = false;
		char *value = NULL;
		size_t n = 0;
		int r;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			return 0;
		for (; *p != '\0'; p++) {
			if (*p == '"') {
				quoted = !quoted;
				continue;
			}
			if (!quoted && (*p == ' ' || *p == '\t' || *p == '\n'))
				break;
			if (*p == '=' && value == NULL) {
				word[n++] = '\0';
				value = word + n;
				continue;
			}
			word[n++] = *p;
		}
		word[n] = '\0';
		if (value == NULL && strcmp(word, "--") == 0)
			return 0;
		r = cb(data, word, value);
		if (r != 0)
			return r;
	}
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

static int add_option(struct mp_cmdline *c, const char *key, const char *value)
{
	const char *dot = strchr(key, '.');
	char module[256];
	int cap = c->noptions;
	struct mp_cmdline_option *o;

	if ((size_t)(dot - key) >= sizeof(module) || dot == key || dot[1] == '\0')
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
	if (value == NULL)
		o->param = strdup(dot + 1);
	else if (strpbrk(value, " \t") != NULL)
		o->param = mp_strdup_printf("%s=\"%s\"", dot + 1, value);
	else
		o->param = mp_strdup_printf("%s=%s", dot + 1, value);
	if (o->module == NULL || o->param == NULL)
		return -ENOMEM;
	return 0;
}

static int on_word(void *data, const char *key, const char *value)
{
	struct mp_cmdline *c = data;
	unsigned u;

	if (strcmp(key, "rd.modpreload") == 0) {
		if (value && (strcmp(value, "0") == 0 || strcmp(value, "no") == 0 ||
			      strcmp(value, "off") == 0))
			c->disabled = true;
		else if (value && strcmp(value, "1") != 0 && strcmp(value, "yes") != 0 &&
			 strcmp(value, "on") != 0)
			return push(&c->bad, &c->nbad, key);
		return 0;
	}
	/* The booted system's switches: modpreload.enable= is its unit's
	 * condition, modpreload.nodev= ours; neither is a module's option. */
	if (strcmp(key, "modpreload.nodev") == 0) {
		if (value && (strcmp(value, "0") == 0 || strcmp(value, "no") == 0 ||
			      strcmp(value, "off") == 0))
			c->nodev_off = true;
		else if (value && strcmp(value, "1") != 0 && strcmp(value, "yes") != 0 &&
			 strcmp(value, "on") != 0)
			return push(&c->bad, &c->nbad, key);
		return 0;
	}
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
		return add_option(c, key, value);
	if (value == NULL)
		return 0;
	if (strcmp(key, "rd.modpreload.modules") == 0 || strcmp(key, "rd.driver.pre") == 0)
		return push_list(c, key, &c->modules, &c->nmodules, value);
	if (strcmp(key, "modules_load") == 0 || strcmp(key, "modules-load") == 0)
		return push_list(c, key, &c->modules_load, &c->nmodules_load, value);
	if (strcmp(key, "modprobe.blacklist") == 0 || strcmp(key, "rd.driver.blacklist") == 0)
		return push_list(c, key, &c->blacklist, &c->nblacklist, value);
	if (strcmp(key, "module_blacklist") == 0)
		return push_list(c, key, &c->kblacklist, &c->nkblacklist, value);
	return 0;
}

int mp_cmdline_parse(const char *text, struct mp_cmdline *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = mp_cmdline_foreach(text, on_word, out);
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
