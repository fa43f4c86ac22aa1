/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fault: fail the Nth call the library makes to malloc & co. and to the
 * syscalls it uses, to test every failure path.
 *
 * How: tests/unit/fault_*.c link with -Wl,--wrap=NAME for each NAME below
 * (Makefile, FAULT_WRAP), so every reference to NAME in the static library
 * (and in the test) goes to __wrap_NAME here, which calls __real_NAME.
 * This works under ASan (its interceptors stay behind __real_NAME) and
 * valgrind, unlike LD_PRELOAD. Calls inside shared libraries (libzstd's
 * own malloc, libc's internals) are not counted.
 *
 * Use: fault_start(0) counts the calls of a scenario (fault_stop() returns
 * the count); fault_start(n) makes the nth call fail with a realistic
 * errno (ENOMEM for allocations and mmap, EIO for read/write, EMFILE for
 * open, EINTR for wait calls is left to the retry loops). Calls outside
 * start/stop pass through uncounted.
 *
 * The syscalls without a libc wrapper (perf_event_open, bpf, epoll_pwait2)
 * go through syscall(), wrapped too and named by number: perf_event_open
 * fails with EMFILE, bpf with ENOMEM, epoll_pwait2 with EINVAL (not
 * ENOSYS/EPERM, which make the reader fall back to epoll_wait for good).
 * epoll_create1, eventfd and fcntl fail with EMFILE, epoll_ctl with ENOMEM,
 * epoll_wait with EINVAL; socket with EMFILE, bind with EPERM and recvmsg
 * with ENOBUFS (the reader's uevent socket for CPU hotplug).
 */
#ifndef PERFRING_TESTS_FAULT_H
#define PERFRING_TESTS_FAULT_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool fault_on;
static unsigned long fault_calls, fault_at;
static const char *fault_what; /* the call that was failed, for messages */

static void fault_start(unsigned long n)
{
	fault_calls = 0;
	fault_at = n;
	fault_what = NULL;
	fault_on = true;
}

static unsigned long fault_stop(void)
{
	fault_on = false;
	return fault_calls;
}

/* True if this call is the one to fail (errno set to err). */
static bool fault_hit(const char *name, int err)
{
	if (!fault_on)
		return false;
	if (++fault_calls != fault_at)
		return false;
	fault_what = name;
	errno = err;
	return true;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__real_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off);
int __real_open(const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
int __real_fstat(int fd, struct stat *st);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
void *__wrap_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off);
int __wrap_open(const char *path, int flags, ...);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
int __wrap_fstat(int fd, struct stat *st);
int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);

void *__wrap_malloc(size_t n)
{
	return fault_hit("malloc", ENOMEM) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return fault_hit("calloc", ENOMEM) ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fault_hit("realloc", ENOMEM) ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fault_hit("strdup", ENOMEM) ? NULL : __real_strdup(s);
}

void *__wrap_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	return fault_hit("mmap", ENOMEM) ? MAP_FAILED : __real_mmap(a, n, prot, flags, fd, off);
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	return fault_hit("open", EMFILE) ? -1 : __real_open(path, flags, mode);
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	return fault_hit("read", EIO) ? -1 : __real_read(fd, buf, n);
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	return fault_hit("pread", EIO) ? -1 : __real_pread(fd, buf, n, off);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	return fault_hit("write", EIO) ? -1 : __real_write(fd, buf, n);
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return fault_hit("pwrite", EIO) ? -1 : __real_pwrite(fd, buf, n, off);
}

int __wrap_fstat(int fd, struct stat *st)
{
	return fault_hit("fstat", EIO) ? -1 : __real_fstat(fd, st);
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	void *arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fault_hit("ioctl", EIO) ? -1 : __real_ioctl(fd, req, arg);
}

long __real_syscall(long nr, ...);
long __wrap_syscall(long nr, ...);
int __real_epoll_create1(int flags);
int __wrap_epoll_create1(int flags);
int __real_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev);
int __wrap_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev);
int __real_epoll_wait(int epfd, struct epoll_event *evs, int max, int ms);
int __wrap_epoll_wait(int epfd, struct epoll_event *evs, int max, int ms);
int __real_eventfd(unsigned int count, int flags);
int __wrap_eventfd(unsigned int count, int flags);
int __real_fcntl(int fd, int cmd, ...);
int __wrap_fcntl(int fd, int cmd, ...);
int __real_socket(int domain, int type, int protocol);
int __wrap_socket(int domain, int type, int protocol);
int __real_bind(int fd, const struct sockaddr *sa, socklen_t len);
int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len);
ssize_t __real_recvmsg(int fd, struct msghdr *msg, int flags);
ssize_t __wrap_recvmsg(int fd, struct msghdr *msg, int flags);

/* Every syscall() argument is a long or a pointer (one register each on
 * x86-64 and arm64). Only as many are read as the call takes: reading more
 * would read the caller's stack (ASan: stack-buffer-underflow). */
long __wrap_syscall(long nr, ...)
{
	long a[6] = { 0 };
	const char *name = "syscall";
	int err = ENOSYS, i, nargs = 6;
	va_list ap;

#ifndef __NR_epoll_pwait2
#define __NR_epoll_pwait2 441
#endif
	if (nr == __NR_perf_event_open)
		name = "perf_event_open", err = EMFILE, nargs = 5;
	else if (nr == __NR_bpf)
		name = "bpf", err = ENOMEM, nargs = 3;
	else if (nr == __NR_epoll_pwait2)
		name = "epoll_pwait2", err = EINVAL, nargs = 6;
	va_start(ap, nr);
	for (i = 0; i < nargs; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (fault_hit(name, err))
		return -1;
	return __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int __wrap_epoll_create1(int flags)
{
	return fault_hit("epoll_create1", EMFILE) ? -1 : __real_epoll_create1(flags);
}

int __wrap_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	return fault_hit("epoll_ctl", ENOMEM) ? -1 : __real_epoll_ctl(epfd, op, fd, ev);
}

int __wrap_epoll_wait(int epfd, struct epoll_event *evs, int max, int ms)
{
	return fault_hit("epoll_wait", EINVAL) ? -1 : __real_epoll_wait(epfd, evs, max, ms);
}

int __wrap_eventfd(unsigned int count, int flags)
{
	return fault_hit("eventfd", EMFILE) ? -1 : __real_eventfd(count, flags);
}

/* The lock commands take a pointer, the others an int (or nothing). */
int __wrap_fcntl(int fd, int cmd, ...)
{
	void *ptr = NULL;
	int arg = 0;
	bool is_ptr;
	va_list ap;

	is_ptr = cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_GETLK || cmd == F_OFD_SETLK ||
		 cmd == F_OFD_SETLKW || cmd == F_GETOWN_EX || cmd == F_SETOWN_EX;
	va_start(ap, cmd);
	if (is_ptr)
		ptr = va_arg(ap, void *);
	else
		arg = va_arg(ap, int);
	va_end(ap);
	if (fault_hit("fcntl", EMFILE))
		return -1;
	return is_ptr ? __real_fcntl(fd, cmd, ptr) : __real_fcntl(fd, cmd, arg);
}

int __wrap_socket(int domain, int type, int protocol)
{
	return fault_hit("socket", EMFILE) ? -1 : __real_socket(domain, type, protocol);
}

int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	return fault_hit("bind", EPERM) ? -1 : __real_bind(fd, sa, len);
}

ssize_t __wrap_recvmsg(int fd, struct msghdr *msg, int flags)
{
	return fault_hit("recvmsg", ENOBUFS) ? -1 : __real_recvmsg(fd, msg, flags);
}

#endif /* PERFRING_TESTS_FAULT_H */
