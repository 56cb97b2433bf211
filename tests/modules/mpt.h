/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared bits of the modpreload test modules.  Every module announces its
 * init on the console as "mpt: init <name>" so a guest can tell what ran.
 */
#ifndef MPT_H
#define MPT_H

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>

/* What the test modules export to each other (one place, so every
 * definition has a prototype). */
int mpt_fanbase_ping(const char *who);
int mpt_dia_base_value(void);
int mpt_dia_left_value(void);
int mpt_dia_right_value(void);
int mpt_seq_next(const char *who);
int mpt_fail_value(void);
int mpt_busy_value(void);
int mpt_nomem_value(void);
int mpt_hang_value(void);
int mpt_drvlib_probed(const char *drv, const char *dev);
/* Exported by nobody: mpt_nosym cannot load. */
int mpt_nosym_nowhere(void);

#define mpt_announce() pr_info("mpt: init %s\n", KBUILD_MODNAME)

/* A module whose init only announces itself and whose exit is empty. */
#define MPT_PLAIN_MODULE(desc)						\
	static int __init mpt_plain_init(void)				\
	{								\
		mpt_announce();						\
		return 0;						\
	}								\
	static void __exit mpt_plain_exit(void)				\
	{								\
	}								\
	module_init(mpt_plain_init);					\
	module_exit(mpt_plain_exit);					\
	MODULE_LICENSE("GPL");						\
	MODULE_DESCRIPTION(desc)

#endif
