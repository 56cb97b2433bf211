// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rescue shell: busybox's sh, when the image has one. PID 1 waits for
 * it (reaping whatever else ends meanwhile) and then goes on with the boot.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "init.h"
#include "util.h"

bool shell_available(void)
{
	return access(INIT_SHELL, X_OK) == 0;
}

/*
 * /dev/console cannot be a controlling terminal, and a shell without one
 * has no job control and no ^C. The terminal behind it is the last name
 * in /sys/class/tty/console/active (busybox's cttyhack asks the same).
 */
static int open_tty(void)
{
	char buf[256], path[300], *name;
	size_t n;
	int fd;

	if (mp_read_file("/sys/class/tty/console/active", buf, sizeof(buf), &n) == 0 && n > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		name = strrchr(buf, ' ');
		name = name ? name + 1 : buf;
		snprintf(path, sizeof(path), "/dev/%s", name);
		fd = open(path, O_RDWR | O_NOCTTY);
		if (fd >= 0)
			return fd;
	}
	return open("/dev/console", O_RDWR | O_NOCTTY);
}

static void exec_shell(void)
{
	signal(SIGTTOU, SIG_DFL);
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/", 1);
	setenv("PS1", "(initramfs) \\w # ", 1);
	if (getenv("TERM") == NULL)
		setenv("TERM", "linux", 1);
	/* a login shell ("-sh") reads /etc/profile: a place for an image to
	 * put what its rescue shell should show or run */
	execl(INIT_SHELL, "-sh", (char *)NULL);
	_exit(127);
}

/*
 * The session leader that owns the terminal. When a session leader exits,
 * the kernel hangs its terminal up, and a hangup throws away output not
 * yet sent: the shell's last lines would be lost. So the leader is this
 * process, not the shell, and it lets the output drain before it goes.
 */
static void leader(void)
{
	int fd, status = 0;
	pid_t pid;

	setsid();
	fd = open_tty();
	if (fd >= 0) {
		(void)ioctl(fd, TIOCSCTTY, 1);
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	pid = fork();
	if (pid == 0)
		exec_shell();
	/* the shell takes the terminal's foreground; draining it from the
	 * background must not stop us */
	signal(SIGTTOU, SIG_IGN);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	(void)tcdrain(STDOUT_FILENO);
	_exit(pid < 0 ? 127 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* Waits for the shell; returns its exit status or -errno. */
int shell_run(struct init_log *l)
{
	int status;
	pid_t pid, w;

	pid = fork();
	if (pid < 0) {
		init_shout(l, "cannot start a shell: %s", strerror(errno));
		return -errno;
	}
	if (pid == 0)
		leader();
	for (;;) {
		w = waitpid(-1, &status, 0);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void reap_children(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

void init_halt(struct init_log *l, const char *why)
{
	init_shout(l, "%s", why);
	init_shout(l, "nothing more to try: the system is halted (PID 1 waits here for a reboot)");
	for (;;) {
		if (waitpid(-1, NULL, 0) < 0)
			sleep(3600);
	}
}
