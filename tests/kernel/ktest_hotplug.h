/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Taking CPU 1 offline in a test. Tests and benchmarks that pin CPUs hold
 * /tmp/perfring-cpu.lock shared; a test that takes CPU 1 offline holds it
 * exclusively for its whole run (ktest_cpu_lock() ... ktest_cpu_unlock()).
 * When the test itself runs under `flock -s` of that lock (a suite runner),
 * it inherits the runner's descriptor and converts that one (else it would
 * wait for itself); other holders are waited for at most KTEST_LOCK_WAIT_S,
 * then the test is skipped, naming them. CPU 1 is always brought back: at
 * unlock, at exit, on a fatal signal and on the harness watchdog.
 */
#ifndef PERFRING_KTEST_HOTPLUG_H
#define PERFRING_KTEST_HOTPLUG_H

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#define KTEST_CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"
#define KTEST_CPU_LOCK "/tmp/perfring-cpu.lock"
#define KTEST_LOCK_WAIT_S 30

static int ktest_hp_lock = -1;
static bool ktest_hp_inherited;
static bool ktest_hp_gave_up; /* later tests of the process wait 5 s only */

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

static void ktest_cpu1_alarm(int sig)
{
	ktest_cpu1_restore();
	th_watchdog(sig);
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

/* A descriptor of the lock file inherited from a `flock` runner, or -1. */
static inline int ktest_inherited_lock(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[256];
	int fd = -1;
	ssize_t n;

	if (!d)
		return -1;
	while ((e = readdir(d)) && fd < 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, KTEST_CPU_LOCK) && atoi(e->d_name) != dirfd(d))
			fd = atoi(e->d_name);
	}
	closedir(d);
	return fd;
}

/* Take the lock exclusively: 0, or 1 with why (held by others too long). */
static inline int ktest_cpu_lock(char *why, size_t len)
{
	static bool hooked;
	int wait_s = ktest_hp_gave_up ? 5 : KTEST_LOCK_WAIT_S;
	uint64_t end = ktest_now_ns() + (uint64_t)wait_s * 1000000000ull;

	if (!hooked) {
		hooked = true;
		atexit(ktest_cpu1_restore);
		signal(SIGINT, ktest_cpu1_signal);
		signal(SIGTERM, ktest_cpu1_signal);
		signal(SIGABRT, ktest_cpu1_signal);
		signal(SIGSEGV, ktest_cpu1_signal);
	}
	ktest_hp_lock = ktest_inherited_lock();
	ktest_hp_inherited = ktest_hp_lock >= 0;
	if (!ktest_hp_inherited)
		ktest_hp_lock = open(KTEST_CPU_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (ktest_hp_lock < 0) {
		snprintf(why, len, "cannot open %s: %s", KTEST_CPU_LOCK, strerror(errno));
		return 1;
	}
	while (flock(ktest_hp_lock, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK || ktest_now_ns() > end) {
			snprintf(why, len, "%s stayed locked by other test or benchmark runs for %d s (see /proc/locks): "
				 "taking CPU 1 offline under them would disturb them", KTEST_CPU_LOCK, wait_s);
			ktest_hp_gave_up = true;
			if (ktest_hp_inherited)
				flock(ktest_hp_lock, LOCK_SH); /* the failed conversion dropped the runner's lock */
			else
				close(ktest_hp_lock);
			ktest_hp_lock = -1;
			return 1;
		}
		ktest_sleep_ns(50000000);
	}
	signal(SIGALRM, ktest_cpu1_alarm);
	return 0;
}

/* CPU 1 back online; the lock back to what it was. */
static inline int ktest_cpu_unlock(void)
{
	int err = ktest_cpu1_write("1");

	signal(SIGALRM, th_watchdog);
	if (ktest_hp_lock >= 0) {
		if (ktest_hp_inherited) {
			flock(ktest_hp_lock, LOCK_SH);
		} else {
			flock(ktest_hp_lock, LOCK_UN);
			close(ktest_hp_lock);
		}
		ktest_hp_lock = -1;
	}
	return err;
}

/* CPU 1 offline or online; hold ktest_cpu_lock() first. */
static inline int ktest_cpu1_set(bool online)
{
	return ktest_cpu1_write(online ? "1" : "0");
}

/* Skip the test unless CPU 1 can be taken offline and the lock is ours. */
#define KTEST_CPU_LOCK_OR_SKIP(kt)                                                         \
	do {                                                                               \
		if (!ktest_cpu1_hotpluggable((kt)->why, sizeof((kt)->why)) ||              \
		    ktest_cpu_lock((kt)->why, sizeof((kt)->why))) {                        \
			ktest_teardown(kt);                                                \
			SKIP("%s", (kt)->why);                                             \
		}                                                                          \
	} while (0)

#endif /* PERFRING_KTEST_HOTPLUG_H */
