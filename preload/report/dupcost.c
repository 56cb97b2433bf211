// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a duplicate load costs the kernel before it can refuse it: the
 * memory it allocates (vmalloc, vmap, module memory) for one load of a
 * module that is already there. CONFIG_MODULE_STATS counts this as
 * "Virtual mem wasted bytes"; most distribution kernels are built without
 * it, so the report estimates it from the file instead.
 *
 * The stages, from kernel/module/main.c:
 *   - the file: finit_module() reads it whole (kernel_read_file, vmalloc),
 *     init_module() copies the caller's image (the decompressed size);
 *   - with MODULE_INIT_COMPRESSED_FILE (5.17+) the kernel decompresses it
 *     into pages of its own (vmap): the image size again;
 *   - before 6.4 the name was checked for a duplicate only after
 *     layout_and_allocate(): the module's memory as layout_sections() and
 *     layout_symtab() size it, one page-aligned block per kind.
 * 6.4 moved the check before the allocation; 6.12's stats charge a refused
 * duplicate its image plus, for a compressed file, the compressed length.
 * 6.5 merges concurrent loads of the same file, which then cost nothing:
 * the estimate is for duplicates that reach the kernel, an upper bound.
 *
 * The image size comes from the compressed file's own header or trailer,
 * never by decompressing it: zstd's frame content size, xz's index, gzip's
 * ISIZE. Only the layout needs the ELF itself.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"

#define PAGE 4096u
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) / (a) * (a))

/* The ELF image's size in FD, a module file in format F (NULL: plain). */
int mp_dupcost_image_size(int fd, const struct mp_format *f, uint64_t *out)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (f == NULL) {
		*out = (uint64_t)st.st_size;
		return 0;
	}
	return f->size(fd, st.st_size, out);
}

/* The kinds of module memory, as 6.4+ names them (mod_mem_type). */
enum { L_TEXT, L_RODATA, L_RO_AFTER_INIT, L_DATA, L_INIT_TEXT, L_INIT_RODATA,
       L_INIT_DATA, L_MAX };

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* NAME in the section name table, or NULL when it is not a string in it */
static const char *sec_name(const Elf64_Shdr *strsec, const char *elf, size_t len, unsigned name)
{
	if (strsec->sh_offset > len || strsec->sh_size > len - strsec->sh_offset ||
	    name >= strsec->sh_size)
		return NULL;
	if (memchr(elf + strsec->sh_offset + name, '\0', strsec->sh_size - name) == NULL)
		return NULL;
	return elf + strsec->sh_offset + name;
}

static void place(uint64_t *size, const Elf64_Shdr *s)
{
	uint64_t a = s->sh_addralign ? s->sh_addralign : 1;

	*size = ALIGN_UP(*size, a) + s->sh_size;
}

/* The ELF as the layout reads it: its section headers, their flags as the
 * kernel has rewritten them by then, the symbol table's sections, and the
 * size of each kind of module memory so far. */
struct layout {
	const char *elf;
	size_t len;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *strsec;
	uint64_t *flags;
	unsigned symi, stri, pcpu;
	uint64_t size[L_MAX];
};

/* A 64-bit ELF whose section headers are all inside it, aligned. */
static bool elf_ok(const Elf64_Ehdr *eh, size_t len)
{
	return len >= sizeof(*eh) && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
	       eh->e_shnum != 0 && eh->e_shstrndx < eh->e_shnum && eh->e_shoff <= len &&
	       (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= len - eh->e_shoff && eh->e_shoff % 8 == 0;
}

/* What rewrite_section_headers(), find_pcpusec() and layout_and_allocate()
 * change before the layout; where the symbol table and its strings are. */
static int rewrite_flags(struct layout *l)
{
	unsigned i;

	for (i = 0; i < l->eh->e_shnum; i++) {
		const char *n = sec_name(l->strsec, l->elf, l->len, l->sh[i].sh_name);

		if (n == NULL)
			return -ENOEXEC;
		l->flags[i] = l->sh[i].sh_flags;
		if (l->sh[i].sh_type == SHT_SYMTAB) {
			l->symi = i;
			l->stri = l->sh[i].sh_link;
		}
		if (strcmp(n, "__versions") == 0 || strcmp(n, ".modinfo") == 0)
			l->flags[i] &= ~(uint64_t)SHF_ALLOC;
		else if (strcmp(n, ".data..percpu") == 0) {
			l->flags[i] &= ~(uint64_t)SHF_ALLOC;
			l->pcpu = i;
		} else if (strcmp(n, ".data..ro_after_init") == 0 || strcmp(n, "__jump_table") == 0)
			l->flags[i] |= 1u << 21;
	}
	if (l->symi == 0 || l->stri == 0 || l->stri >= l->eh->e_shnum)
		return -ENOEXEC;
	return 0;
}

/* layout_sections(): core, then init, each kind in the kernel's order of
 * masks; a section goes to the first kind whose mask it fits. */
static void layout_sections(struct layout *l, bool *placed)
{
	static const struct { uint64_t want, not; } masks[] = {
		{ SHF_EXECINSTR | SHF_ALLOC, 0 },
		{ SHF_ALLOC, SHF_WRITE },
		{ (1u << 21) | SHF_ALLOC, 0 }, /* SHF_RO_AFTER_INIT, set by the kernel */
		{ SHF_WRITE | SHF_ALLOC, 0 },
	};
	static const int core_kind[] = { L_TEXT, L_RODATA, L_RO_AFTER_INIT, L_DATA };
	static const int init_kind[] = { L_INIT_TEXT, L_INIT_RODATA, -1, L_INIT_DATA };
	unsigned i, m;

	for (int init = 0; init <= 1; init++)
		for (m = 0; m < ARRAY_SIZE(masks); m++)
			for (i = 0; i < l->eh->e_shnum; i++) {
				const char *n = sec_name(l->strsec, l->elf, l->len, l->sh[i].sh_name);
				int kind = init ? init_kind[m] : core_kind[m];

				if ((l->flags[i] & masks[m].want) != masks[m].want ||
				    (l->flags[i] & masks[m].not) || placed[i] ||
				    init != starts(n, ".init") || kind < 0)
					continue;
				place(&l->size[kind], &l->sh[i]);
				placed[i] = true;
			}
}

/* Whether symbol i stays in core kallsyms: the first, and those of core
 * text (not per-CPU, not .init). */
static bool core_symbol(const struct layout *l, const Elf64_Sym *s, unsigned i)
{
	const char *sn;

	if (i == 0)
		return true;
	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= l->eh->e_shnum || !s->st_name || s->st_shndx == l->pcpu)
		return false;
	sn = sec_name(l->strsec, l->elf, l->len, l->sh[s->st_shndx].sh_name);
	return (l->flags[s->st_shndx] & SHF_ALLOC) && (l->flags[s->st_shndx] & SHF_EXECINSTR) &&
	       !starts(sn, ".init");
}

/* layout_symtab(), kallsyms: the whole symtab and strtab go to init data;
 * the symbols of core text, their names and a type byte each stay. */
static int layout_symtab(struct layout *l)
{
	const Elf64_Shdr *sym = &l->sh[l->symi], *str = &l->sh[l->stri];
	unsigned i, nsym, ncore = 0;
	uint64_t corestr = 0;

	if (sym->sh_offset > l->len || sym->sh_size > l->len - sym->sh_offset || sym->sh_offset % 8 ||
	    str->sh_offset > l->len || str->sh_size > l->len - str->sh_offset)
		return -ENOEXEC;
	place(&l->size[L_INIT_DATA], sym);
	nsym = (unsigned)(sym->sh_size / sizeof(Elf64_Sym));
	for (i = 0; i < nsym; i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(l->elf + sym->sh_offset) + i;

		if (!core_symbol(l, s, i))
			continue;
		if (s->st_name >= str->sh_size)
			return -ENOEXEC;
		ncore++;
		corestr += strnlen(l->elf + str->sh_offset + s->st_name, str->sh_size - s->st_name) + 1;
	}
	l->size[L_DATA] = ALIGN_UP(l->size[L_DATA], sym->sh_addralign ? sym->sh_addralign : 1) +
			  (uint64_t)ncore * sizeof(Elf64_Sym) + corestr + ncore;
	place(&l->size[L_INIT_DATA], str);
	/* struct mod_kallsyms (4 pointer-sized fields), then a type byte per symbol */
	l->size[L_INIT_DATA] = ALIGN_UP(l->size[L_INIT_DATA], 8) + 32 + nsym;
	return 0;
}

/*
 * layout_sections(), layout_symtab() and module_memory_alloc() of 6.12 for
 * x86-64 with CONFIG_MODULE_UNLOAD and CONFIG_KALLSYMS (not KALLSYMS_ALL):
 * what layout_and_allocate() asks execmem/module_alloc for. Before 6.4 the
 * same sections went into two blocks (core, init) with the same page
 * alignment between kinds, so the sum is the same within a page or two.
 */
int mp_dupcost_layout(const void *image, size_t len, uint64_t *out)
{
	struct layout l = { .elf = image, .len = len, .eh = image };
	_cleanup_free_ uint64_t *flags = NULL;
	_cleanup_free_ bool *placed = NULL;
	uint64_t total = 0;
	unsigned i;
	int r;

	if (!elf_ok(l.eh, len))
		return -ENOEXEC;
	l.sh = (const Elf64_Shdr *)(l.elf + l.eh->e_shoff);
	l.strsec = &l.sh[l.eh->e_shstrndx];
	l.flags = flags = calloc(l.eh->e_shnum, sizeof(*flags));
	placed = calloc(l.eh->e_shnum, sizeof(*placed));
	if (flags == NULL || placed == NULL)
		return -ENOMEM;
	r = rewrite_flags(&l);
	if (r < 0)
		return r;
	layout_sections(&l, placed);
	r = layout_symtab(&l);
	if (r < 0)
		return r;
	for (i = 0; i < L_MAX; i++)
		total += ALIGN_UP(l.size[i], PAGE);
	*out = total;
	return 0;
}

/*
 * One refused duplicate of the module in FD, loaded the way load.c would
 * on a kernel of version KERNEL (mp_kernel_version) with in-kernel
 * decompression of KCOMP ("" for none). The ELF is read only when the
 * kernel reaches the layout stage (before 6.4), and decompressed for it
 * through BUDGET.
 */
int mp_dupcost_file(int fd, const struct mp_format *f, int kernel, const char *kcomp,
		    struct mp_budget *budget, struct mp_dupcost *out)
{
	struct stat st;
	bool finit_comp = f != NULL && kcomp != NULL && strcmp(kcomp, f->name) == 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) < 0)
		return -errno;
	out->file = (uint64_t)st.st_size;
	r = mp_dupcost_image_size(fd, f, &out->image);
	if (r < 0)
		return r;
	if (f == NULL)
		out->bytes = out->file;             /* finit: the file, read whole */
	else if (finit_comp)
		out->bytes = out->file + out->image; /* read, then decompressed */
	else
		out->bytes = out->image;            /* init: the image we hand over */

	if (kernel >= 6004)
		return 0;
	if (f == NULL) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (map == MAP_FAILED)
			return -errno;
		r = mp_dupcost_layout(map, (size_t)st.st_size, &out->layout);
		munmap(map, (size_t)st.st_size);
	} else {
		void *image = NULL;
		size_t len = 0;

		r = mp_decompress(f, fd, budget, 0, &image, &len);
		if (r < 0)
			return r;
		r = mp_dupcost_layout(image, len, &out->layout);
		free(image);
		mp_budget_give(budget, len);
	}
	if (r == 0)
		out->bytes += out->layout;
	return r;
}

/*
 * Every module the plan asked for more than once (its dependents' requests
 * included: a per-request modprobe loads what a module needs first): what
 * one refused duplicate of it costs this kernel, in m->dup_bytes, and the
 * sum over all duplicates in *total. A module whose cost cannot be told is
 * left out with a debug message.
 */
int mp_dupcost_plan(struct mp_ctx *ctx, uint64_t *total, uint64_t *dups)
{
	struct mp_plan *p = mp_ctx_plan(ctx);
	const struct mp_env *env = mp_ctx_env(ctx);
	struct mp_budget budget;
	int kernel = mp_kernel_version(env->kver);
	int i;

	*total = *dups = 0;
	if (kernel < 0)
		return kernel;
	mp_budget_init(&budget, MP_DECOMPRESS_MAX);
	for (i = 0; i < p->nmods; i++) {
		struct mp_module *m = &p->mods[i];
		struct mp_dupcost c;
		int fd, r;

		/* requests_with_dependents: a per-request loader asks the
		 * kernel for kvm too each time a CPU asks for kvm_amd while kvm
		 * is still coming (the 128-vCPU storm had 127 such refusals) */
		if (m->requests_with_dependents < 2 || m->path == NULL || m->state == MP_BUILTIN)
			continue;
		fd = mp_open_beneath(env, m->path);
		if (fd < 0) {
			mp_log(ctx, MP_LOG_DEBUG, "%s: no duplicate cost: %s", m->name, mp_errno_name(-fd));
			continue;
		}
		r = mp_dupcost_file(fd, mp_decompress_format(m->path), kernel, env->compression, &budget, &c);
		close(fd);
		if (r < 0) {
			mp_log(ctx, MP_LOG_DEBUG, "%s: no duplicate cost: %s", m->name, mp_errno_name(-r));
			continue;
		}
		m->dup_bytes = c.bytes;
		*total += c.bytes * (m->requests_with_dependents - 1);
		*dups += m->requests_with_dependents - 1;
	}
	mp_budget_destroy(&budget);
	return 0;
}

/* what a duplicate cost the kernel, by its version: the model counted */
const char *mp_dupcost_model(const struct mp_ctx *ctx)
{
	return mp_kernel_version(mp_ctx_env(ctx)->kver) >= 6004 ? "file and decompressed copy (6.4+)"
						     : "file, decompressed copy and module memory (before 6.4)";
}
