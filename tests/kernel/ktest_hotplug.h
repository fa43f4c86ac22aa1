/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Taking CPU 1 offline in a test: while it is offline the test holds
 * /tmp/perfring-cpu.lock exclusively (tests and benchmarks that pin CPUs
 * hold it shared), and CPU 1 is always brought back: at exit and on a
 * fatal signal. Do not run these tests under `flock -s` of the same lock.
 */
#ifndef PERFRING_KTEST_HOTPLUG_H
#define PERFRING_KTEST_HOTPLUG_H

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#define KTEST_CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"
#define KTEST_CPU_LOCK "/tmp/perfring-cpu.lock"

static int ktest_hp_lock = -1;

static inline int ktest_cpu1_write(const char *value)
{
	int fd = open(KTEST_CPU1_ONLINE, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

static void ktest_cpu1_restore(void)
{
	ktest_cpu1_write("1");
}

static void ktest_cpu1_signal(int sig)
{
	ktest_cpu1_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Whether this machine lets the test take CPU 1 offline (else why). */
static inline bool ktest_cpu1_hotpluggable(char *why, size_t len)
{
	if (access(KTEST_CPU1_ONLINE, W_OK)) {
		snprintf(why, len, "%s is not writable (%s): this machine cannot take CPU 1 offline", KTEST_CPU1_ONLINE,
			 strerror(errno));
		return false;
	}
	return true;
}

/* CPU 1 offline (taking the lock first) or online (releasing it after). */
static inline int ktest_cpu1_set(bool online)
{
	static bool hooked;
	int err;

	if (online) {
		err = ktest_cpu1_write("1");
		if (ktest_hp_lock >= 0) {
			flock(ktest_hp_lock, LOCK_UN);
			close(ktest_hp_lock);
			ktest_hp_lock = -1;
		}
		return err;
	}
	if (!hooked) {
		hooked = true;
		atexit(ktest_cpu1_restore);
		signal(SIGINT, ktest_cpu1_signal);
		signal(SIGTERM, ktest_cpu1_signal);
		signal(SIGABRT, ktest_cpu1_signal);
		signal(SIGSEGV, ktest_cpu1_signal);
	}
	if (ktest_hp_lock < 0) {
		ktest_hp_lock = open(KTEST_CPU_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
		if (ktest_hp_lock >= 0)
			flock(ktest_hp_lock, LOCK_EX);
	}
	err = ktest_cpu1_write("0");
	if (err)
		ktest_cpu1_set(true);
	return err;
}

#endif /* PERFRING_KTEST_HOTPLUG_H */
