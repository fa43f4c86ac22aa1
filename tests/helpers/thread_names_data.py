#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Write a small perf.data whose thread records come in an order a live
recording makes only now and then (tests/cli/thread_names.sh compares perf's
reading of it with perfring's).  thread_names_data.py CASE FILE

One cpu-clock event (IP, TID, TIME, PERIOD; sample_id_all); samples, COMM
and FORK records in time order:
  late        a thread sampled before its first COMM (perf report names the
              earlier sample by the later name, perf script by ":TID")
  reuse       a named thread, then a FORK of its tid by a parent no record
              named (the new thread has no name)
  fork_after  sampled unnamed, a FORK of the tid by a named parent, an exec
  two         sampled unnamed, a COMM, then an exec's COMM
  thread      a process's thread sampled unnamed, then named; a FORK by an
              unnamed parent, then an exec
"""
import struct
import sys

SAMPLE_TYPE = 0x1 | 0x2 | 0x4 | 0x100  # IP, TID, TIME, PERIOD
EVENT_ID = 7


def attr():
    # perf_event_attr of 128 bytes (PERF_ATTR_SIZE_VER7): software cpu-clock,
    # period 1000, sample_id_all (flag bit 18)
    return struct.pack('<IIQQQQQIIQQQQIiQIHHIIQ', 1, 128, 0, 1000, SAMPLE_TYPE, 0, 1 << 18,
                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


def trailer(pid, tid, t):  # sample_id_all: TID and TIME
    return struct.pack('<IIQ', pid, tid, t)


def sample(pid, tid, t):
    # PERF_RECORD_SAMPLE (9), user space (misc 2)
    return struct.pack('<IHHQIIQQ', 9, 2, 40, 0x1000, pid, tid, t, 1000)


def comm(pid, tid, name, t, exec_=False):
    n = name.encode() + b'\0'
    n += b'\0' * (-len(n) % 8)
    body = struct.pack('<II', pid, tid) + n + trailer(pid, tid, t)
    return struct.pack('<IHH', 3, 0x2000 if exec_ else 0, 8 + len(body)) + body


def fork(pid, ppid, tid, ptid, t):
    body = struct.pack('<IIIIQ', pid, ppid, tid, ptid, t) + trailer(pid, tid, t)
    return struct.pack('<IHH', 7, 0, 8 + len(body)) + body


CASES = {
    'late': [sample(4242, 4242, 100), comm(4242, 4242, 'python3', 200), sample(4242, 4242, 300)],
    'reuse': [comm(50, 50, 'bash', 10), sample(50, 50, 20), fork(50, 60, 50, 60, 30), sample(50, 50, 40)],
    'fork_after': [comm(70, 70, 'sh', 5), sample(80, 80, 10), fork(80, 70, 80, 70, 20), sample(80, 80, 30),
                   comm(80, 80, 'python3', 40, True), sample(80, 80, 50)],
    'two': [sample(90, 90, 10), comm(90, 90, 'sh', 20), sample(90, 90, 30), comm(90, 90, 'python3', 40, True),
            sample(90, 90, 50)],
    'thread': [sample(100, 101, 10), comm(100, 101, 'worker', 20), fork(110, 105, 110, 105, 25),
               sample(110, 110, 30), comm(110, 110, 'python3', 40, True), sample(110, 110, 50)],
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        sys.exit('usage: thread_names_data.py {%s} FILE' % ','.join(CASES))
    data = b''.join(CASES[sys.argv[1]])
    ids = struct.pack('<Q', EVENT_ID)
    header_size = 104
    attr_size = 128 + 16  # the attr and its ids' file section
    attr_off = header_size
    ids_off = attr_off + attr_size
    data_off = ids_off + len(ids)
    header = b'PERFILE2' + struct.pack('<QQQQQQQQ', header_size, attr_size, attr_off, attr_size, data_off,
                                       len(data), 0, 0) + b'\0' * 32  # no features
    with open(sys.argv[2], 'wb') as f:
        f.write(header + attr() + struct.pack('<QQ', ids_off, len(ids)) + ids + data)


main()
