// SPDX-License-Identifier: LGPL-2.1-or-later
/* A string -> int map. Coldplug asks the same alias hundreds of times (one
 * per CPU); this is what makes the second ask free. */
#include <errno.h>
#include <string.h>

#include "internal.h"

struct mp_strmap_slot {
	char *key;
	int val;
};

struct mp_strmap {
	struct mp_strmap_slot *slots;
	size_t size; /* a power of two */
	size_t used;
};

static size_t hash(const char *s)
{
	size_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct mp_strmap *mp_strmap_new(void)
{
	struct mp_strmap *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->size = 64;
	m->slots = calloc(m->size, sizeof(*m->slots));
	if (m->slots == NULL) {
		free(m);
		return NULL;
	}
	return m;
}

void mp_strmap_free(struct mp_strmap *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->size; i++)
		free(m->slots[i].key);
	free(m->slots);
	free(m);
}

static struct mp_strmap_slot *find(const struct mp_strmap *m, const char *key)
{
	size_t i = hash(key) & (m->size - 1);

	while (m->slots[i].key != NULL && strcmp(m->slots[i].key, key) != 0)
		i = (i + 1) & (m->size - 1);
	return &m->slots[i];
}

int mp_strmap_get(const struct mp_strmap *m, const char *key, int *val)
{
	const struct mp_strmap_slot *s = find(m, key);

	if (s->key == NULL)
		return -ENOENT;
	*val = s->val;
	return 0;
}

static int grow(struct mp_strmap *m)
{
	struct mp_strmap old = *m;
	size_t i;

	m->size *= 2;
	m->slots = calloc(m->size, sizeof(*m->slots));
	if (m->slots == NULL) {
		*m = old;
		return -ENOMEM;
	}
	for (i = 0; i < old.size; i++)
		if (old.slots[i].key != NULL)
			*find(m, old.slots[i].key) = old.slots[i];
	free(old.slots);
	return 0;
}

int mp_strmap_put(struct mp_strmap *m, const char *key, int val)
{
	struct mp_strmap_slot *s;

	if ((m->used + 1) * 2 > m->size && grow(m) < 0)
		return -ENOMEM;
	s = find(m, key);
	if (s->key == NULL) {
		s->key = strdup(key);
		if (s->key == NULL)
			return -ENOMEM;
		m->used++;
	}
	s->val = val;
	return 0;
}
