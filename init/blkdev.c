// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which block device is the root: the devices the kernel lists under
 * sysfs's class/block, each read once with util-linux's libblkid for its
 * file system type, UUID and LABEL and, for a partition, the partition
 * table's PARTUUID and PARTLABEL. There is no udev here, so no
 * /dev/disk/by-* links and no blkid cache: a rescan only reads devices it
 * has not seen before, which keeps waiting for a slow disk cheap.
 */
#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "init.h"
#include "util.h"

static void lookup(blkid_probe pr, const char *name, char *out, size_t outsz)
{
	const char *v = NULL;

	if (blkid_probe_lookup_value(pr, name, &v, NULL) == 0 && v != NULL)
		snprintf(out, outsz, "%s", v);
}

int blkdev_probe(const char *path, struct blkdev *d)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	int r;

	d->probed = true;
	d->type[0] = d->uuid[0] = d->label[0] = d->partuuid[0] = d->partlabel[0] = '\0';
	d->usage[0] = '\0';
	if (pr == NULL) {
		d->probe_err = errno ? -errno : -EIO;
		return d->probe_err;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_LABEL | BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	/* safeprobe: two file systems' signatures on one device (a disk
	 * reformatted without wiping) are reported as ambivalent rather than
	 * guessed at; such a device then has no type and no UUID. */
	r = blkid_do_safeprobe(pr);
	if (r == 0) {
		lookup(pr, "TYPE", d->type, sizeof(d->type));
		lookup(pr, "UUID", d->uuid, sizeof(d->uuid));
		lookup(pr, "LABEL", d->label, sizeof(d->label));
		lookup(pr, "USAGE", d->usage, sizeof(d->usage));
		lookup(pr, "PART_ENTRY_UUID", d->partuuid, sizeof(d->partuuid));
		lookup(pr, "PART_ENTRY_NAME", d->partlabel, sizeof(d->partlabel));
	}
	d->probe_err = r == -2 ? -EMEDIUMTYPE : r < 0 ? -EIO : 0;
	blkid_free_probe(pr);
	return d->probe_err;
}

/* MAJOR=, MINOR= and DEVNAME= from a sysfs uevent file. */
static int read_uevent(int dirfd, char *name, size_t namesz, dev_t *devnum)
{
	char buf[1024], *line, *save = NULL;
	unsigned major = 0, minor = 0;
	bool has_major = false;
	size_t n;
	int r;

	r = mp_read_fileat(dirfd, "uevent", buf, sizeof(buf), &n);
	if (r < 0)
		return r;
	if (n == 0)
		return -EIO;
	name[0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "MAJOR=", 6) == 0) {
			major = (unsigned)strtoul(line + 6, NULL, 10);
			has_major = true;
		} else if (strncmp(line, "MINOR=", 6) == 0) {
			minor = (unsigned)strtoul(line + 6, NULL, 10);
		} else if (strncmp(line, "DEVNAME=", 8) == 0) {
			snprintf(name, namesz, "%s", line + 8);
		}
	}
	if (!has_major || name[0] == '\0')
		return -ENOENT;
	*devnum = makedev(major, minor);
	return 0;
}

/* A device without media (an empty CD drive, an unbound loop device) has
 * size 0 until it gets some; it is looked at again on the next scan. */
static bool has_size(int dirfd)
{
	char buf[32];

	return mp_read_fileat(dirfd, "size", buf, sizeof(buf), NULL) == 0 &&
	       strtoull(buf, NULL, 10) > 0;
}

static int known(const struct blkdevs *s, const char *name, dev_t devnum)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->dev[i].devnum == devnum && strcmp(s->dev[i].name, name) == 0)
			return i;
	return -1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct blkdev *)a)->name, ((const struct blkdev *)b)->name);
}

void blkdevs_free(struct blkdevs *s)
{
	free(s->dev);
	s->dev = NULL;
	s->n = s->cap = 0;
}

/* Adds the devices not seen before and reads them. Returns how many are
 * new, or -ENOMEM with those read so far kept. */
int blkdevs_scan(struct blkdevs *s)
{
	char path[512];
	struct dirent *de;
	int added = 0, dfd, i;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/class/block", s->sysfs);
	dp = opendir(path);
	if (dp == NULL)
		return -errno;
	while ((de = readdir(dp)) != NULL) {
		struct blkdev *d;
		char name[sizeof(d->name)];
		dev_t devnum = 0;

		if (de->d_name[0] == '.')
			continue;
		dfd = openat(dirfd(dp), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			continue;
		if (!has_size(dfd) || read_uevent(dfd, name, sizeof(name), &devnum) < 0) {
			close(dfd);
			continue;
		}
		close(dfd);
		i = known(s, name, devnum);
		if (i >= 0) {
			/* a read error may pass (media still spinning up); a
			 * device that was read is not read again */
			if (s->dev[i].probe_err < 0 && s->dev[i].probe_err != -EMEDIUMTYPE) {
				snprintf(path, sizeof(path), "%s/%s", s->devdir, s->dev[i].name);
				blkdev_probe(path, &s->dev[i]);
			}
			continue;
		}
		if (mp_append(&s->dev, &s->n, &s->cap, sizeof(*s->dev)) < 0) {
			added = -ENOMEM;
			break;
		}
		d = &s->dev[s->n - 1];
		snprintf(d->name, sizeof(d->name), "%s", name);
		d->devnum = devnum;
		snprintf(path, sizeof(path), "%s/%s", s->devdir, d->name);
		blkdev_probe(path, d);
		added++;
	}
	closedir(dp);
	/* the first match wins: make "first" mean the same on every boot */
	if (s->n > 1)
		qsort(s->dev, (size_t)s->n, sizeof(s->dev[0]), cmp_name);
	return added;
}

static bool matches(const struct blkdev *d, const struct root_spec *r)
{
	switch (r->kind) {
	case ROOT_DEVNUM:
		return major(d->devnum) == r->major && minor(d->devnum) == r->minor;
	case ROOT_UUID:
		/* FAT's serials are upper case, ext4's lower: compare as blkid does */
		return d->uuid[0] && strcasecmp(d->uuid, r->value) == 0;
	case ROOT_LABEL:
		return d->label[0] && strcmp(d->label, r->value) == 0;
	case ROOT_PARTUUID:
		return d->partuuid[0] && strcasecmp(d->partuuid, r->value) == 0;
	case ROOT_PARTLABEL:
		return d->partlabel[0] && strcmp(d->partlabel, r->value) == 0;
	default:
		return false;
	}
}

/*
 * Returns the index of the first device that matches (in name order) or
 * -ENODEV; *nmatch says how many did, so that a duplicated UUID (a cloned
 * disk) can be warned about.
 */
int blkdevs_find(struct blkdevs *s, const struct root_spec *r, int *nmatch)
{
	int i, first = -ENODEV;

	*nmatch = 0;
	if (r->kind == ROOT_PATH) {
		struct stat st;

		/* devtmpfs makes the node when the driver adds the device */
		if (stat(r->value, &st) < 0 || !S_ISBLK(st.st_mode))
			return -ENODEV;
		for (i = 0; i < s->n; i++)
			if (s->dev[i].devnum == st.st_rdev) {
				*nmatch = 1;
				return i;
			}
		return -ENODEV;
	}
	for (i = 0; i < s->n; i++) {
		if (!matches(&s->dev[i], r))
			continue;
		if (*nmatch == 0)
			first = i;
		(*nmatch)++;
	}
	return first;
}

/* "vda (ext4 UUID=... LABEL=...), vdb (unreadable: ...)": what was looked at. */
void blkdevs_describe(const struct blkdevs *s, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	if (n == 0)
		return;
	buf[0] = '\0';
	if (s->n == 0) {
		snprintf(buf, n, "no block devices at all");
		return;
	}
	for (i = 0; i < s->n && len < n; i++) {
		const struct blkdev *d = &s->dev[i];
		int w;

		if (d->probe_err == -EMEDIUMTYPE)
			w = snprintf(buf + len, n - len, "%s%s (ambivalent signatures)",
				     i ? ", " : "", d->name);
		else if (d->probe_err < 0)
			w = snprintf(buf + len, n - len, "%s%s (unreadable: %s)", i ? ", " : "",
				     d->name, strerror(-d->probe_err));
		else if (d->type[0] == '\0' && d->partuuid[0] == '\0')
			w = snprintf(buf + len, n - len, "%s%s (no file system)", i ? ", " : "",
				     d->name);
		else
			w = snprintf(buf + len, n - len, "%s%s (%s%s%s%s%s%s%s%s%s)", i ? ", " : "",
				     d->name, d->type[0] ? d->type : "no file system",
				     d->uuid[0] ? " UUID=" : "", d->uuid,
				     d->label[0] ? " LABEL=" : "", d->label,
				     d->partuuid[0] ? " PARTUUID=" : "", d->partuuid,
				     d->partlabel[0] ? " PARTLABEL=" : "", d->partlabel);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}
