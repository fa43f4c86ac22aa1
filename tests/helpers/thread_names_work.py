#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Processes and threads made in known ways, for tests/cli/thread_names.sh:
each round starts threads (one renames itself with prctl), forks a child
that works, forks from a thread, runs a short program (fork and exec) and
waits for all.  thread_names_work.py [ROUNDS]"""
import ctypes
import os
import subprocess
import sys
import threading

PR_SET_NAME = 15
libc = ctypes.CDLL(None, use_errno=True)


def work(n=30000):
    s = 0
    for i in range(n):
        s += i * i
    return s


def renamed():
    libc.prctl(PR_SET_NAME, b'tn-renamed', 0, 0, 0)
    work()


def forks():
    work(10000)
    pid = os.fork()
    if pid == 0:
        work()
        os._exit(0)
    os.waitpid(pid, 0)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for _ in range(rounds):
        ts = [threading.Thread(target=work), threading.Thread(target=renamed), threading.Thread(target=forks)]
        for t in ts:
            t.start()
        pid = os.fork()
        if pid == 0:
            work()
            os._exit(0)
        subprocess.run(['/bin/true'], check=True)
        for t in ts:
            t.join()
        os.waitpid(pid, 0)


main()
