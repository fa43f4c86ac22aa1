#!/usr/bin/env bash
# `perfring trace -j`: every kind of tracepoint field this kernel has is
# decoded to the value the test itself caused. One traced run of a workload
# (python3, then an exec of a small C helper) makes known events:
#   oom:oom_score_adj_update, task:task_rename   short oom_score_adj, pid_t, char[16]
#   ext4:ext4_ext_rm_leaf                        short ee_len = -32768: a 32768-block extent
#                                                (on a loop-mounted ext4 made for it), its
#                                                ee_lblk / ee_pblk / ino / dev as FIEMAP and
#                                                stat give them
#   signal:signal_generate                       int: code SI_TKILL (-6)
#   sock:inet_sock_set_state (IPv4 and IPv6)     __u16 ports >= 32768, __u8[4] and __u8[16]
#                                                addresses, a kernel pointer (skaddr)
#   syscalls:sys_{enter,exit}_*                  8-byte argument slots narrowed by their C
#                                                type (int dfd = -100, off_t = -5, umode_t,
#                                                unsigned int fd, key_t = -5), unsigned long
#                                                > 2^63, a pointer argument, long ret < 0,
#                                                user strings (openat, execve) and argv
#   raw_syscalls:sys_enter                       unsigned long args[6]
#   sched:sched_process_exec                     __data_loc char[]
#   kvm:kvm_pvclock_update                       __s8 (-1), __u8, __u32 >= 2^31, __u64:
#                                                compared with the pvclock page the kernel
#                                                wrote into the helper's guest memory
# Then a coverage check: every field of every format in tracefs is classified
# (int size x sign, char array, other array, __data_loc char, __data_loc
# other, __rel_loc, pointer, syscall user string(s), syscall slot narrowed
# to another int type) and the test fails if a kind present is covered by no
# passing known-value check above (a signed kind needs a negative value).
# The one exception, __data_loc arrays of non-char type, is listed below with
# its reason, and the reason's premises are checked, so it cannot hide a new
# tracepoint or a machine where it could be triggered.
. "$(dirname "$0")/lib.sh"

t_require_tool
if ! t_need_root; then
	fail root "perfring trace needs root (BPF, tracefs)"
	t_finish
	exit 1
fi
EVENTS_DIR=/sys/kernel/tracing/events
# The real interpreter, not a wrapper script (pyenv's shim is bash): its comm is known.
PY=$(python3 -c 'import sys; print(sys.executable)')

# --- the helper: exec'd by the workload, runs a KVM guest with kvmclock ------

cat >"$T_TMP/helper.c" <<'EOF'
/*
 * Run by execve from the workload (argv[1]: where to write the facts).
 * Makes a one-vCPU KVM guest whose kvmclock (MSR_KVM_SYSTEM_TIME_NEW) is at
 * guest address 0x2000, runs it to its first exit (a hlt), and writes the
 * pvclock the kernel put there: the kvm:kvm_pvclock_update event records
 * the same structure. Also KVM_GET_TSC_KHZ, from which the test computes
 * tsc_shift and tsc_to_system_mul on its own.
 */
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MSR_KVM_SYSTEM_TIME_NEW 0x4b564d01
#define GUEST_CODE 0x1000
#define GUEST_PVCLOCK 0x2000
#define GUEST_SIZE 0x4000

struct pvclock {
	uint32_t version, pad0;
	uint64_t tsc_timestamp, system_time;
	uint32_t tsc_to_system_mul;
	int8_t tsc_shift;
	uint8_t flags, pad[2];
};

static int fail(FILE *out, const char *what)
{
	fprintf(out, "error %s\n", what);
	return 0;
}

int main(int argc, char **argv)
{
	struct { struct kvm_msrs h; struct kvm_msr_entry e; } msrs;
	struct kvm_userspace_memory_region region;
	struct kvm_regs regs;
	struct kvm_sregs sregs;
	struct pvclock pv;
	FILE *out;
	uint8_t *mem;
	int kvm, vm, vcpu, khz;

	if (argc < 2 || !(out = fopen(argv[1], "w")))
		return 1;
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		return fail(out, "no /dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	mem = mmap(NULL, GUEST_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (vm < 0 || mem == MAP_FAILED)
		return fail(out, "KVM_CREATE_VM");
	mem[GUEST_CODE] = 0xf4; /* hlt */
	region = (struct kvm_userspace_memory_region){ .memory_size = GUEST_SIZE, .userspace_addr = (uintptr_t)mem };
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region))
		return fail(out, "KVM_SET_USER_MEMORY_REGION");
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0 || ioctl(vcpu, KVM_GET_SREGS, &sregs))
		return fail(out, "KVM_CREATE_VCPU");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	regs = (struct kvm_regs){ .rip = GUEST_CODE, .rflags = 2 };
	memset(&msrs, 0, sizeof(msrs));
	msrs.h.nmsrs = 1;
	msrs.e.index = MSR_KVM_SYSTEM_TIME_NEW;
	msrs.e.data = GUEST_PVCLOCK | 1; /* enabled */
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) || ioctl(vcpu, KVM_SET_REGS, &regs) ||
	    ioctl(vcpu, KVM_SET_MSRS, &msrs) != 1)
		return fail(out, "setting up the vCPU");
	khz = ioctl(vcpu, KVM_GET_TSC_KHZ, 0);
	if (ioctl(vcpu, KVM_RUN, 0))
		return fail(out, "KVM_RUN");
	memcpy(&pv, mem + GUEST_PVCLOCK, sizeof(pv));
	fprintf(out, "pvclock %u %llu %llu %u %d %u %d\n", pv.version, (unsigned long long)pv.tsc_timestamp,
		(unsigned long long)pv.system_time, pv.tsc_to_system_mul, pv.tsc_shift, pv.flags, khz);
	return fclose(out) ? 1 : 0;
}
EOF
# Its comm after the exec is the first 15 bytes of this name.
HELPER="$T_TMP/tf-helper-with-a-long-name"
if ! gcc -O2 -Wall -o "$HELPER" "$T_TMP/helper.c" 2>"$T_TMP/gcc.err"; then
	fail helper_built "gcc could not build the KVM helper:"
	t_show "$T_TMP/gcc.err"
	t_finish
	exit 1
fi

# --- an ext4 whose block group 1 is free: a file of 32768 blocks fills it ----

MNT=$T_TMP/mnt
trap 'umount "$MNT" 2>/dev/null; rm -rf "$T_TMP"' EXIT
mkdir "$MNT"
truncate -s 1G "$T_TMP/ext4.img" # sparse
# Machines without loop devices or KVM (a container, a VM without nested
# virtualisation) cannot cause the events that need them: those checks, and
# the field kinds only they cover, are skipped there, saying why.
export TF_NO_LOOP= TF_NO_KVM=
[ -e /dev/loop-control ] || TF_NO_LOOP="no loop devices (/dev/loop-control) to mount the test's ext4"
[ -c /dev/kvm ] || TF_NO_KVM="no /dev/kvm (KVM) to run the test's guest"
if [ -n "$TF_NO_LOOP" ]; then
	skip ext4_mount "$TF_NO_LOOP"
	MNT=
elif mkfs.ext4 -q -F -b 4096 -T default -O ^resize_inode,sparse_super2 -E num_backup_sb=0 "$T_TMP/ext4.img" \
	>"$T_TMP/mkfs.out" 2>&1 && mount -o loop "$T_TMP/ext4.img" "$MNT" >>"$T_TMP/mkfs.out" 2>&1; then
	ok ext4_mount
else
	fail ext4_mount "mkfs.ext4 or mount -o loop failed:"
	t_show "$T_TMP/mkfs.out"
	MNT=
fi

# --- the workload: each step causes events with values known here ----------

cat >"$T_TMP/work.py" <<'EOF'
import ctypes, fcntl, json, mmap, os, signal, socket, struct, sys, threading

facts_path, helper, tmp, mnt = sys.argv[1:5]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def syscall(nr, *args):
    """nr(args) with every integer in a full 64-bit register; (result, errno)."""
    conv = [ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_ulong(a & (2**64 - 1)) for a in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *conv)
    return r, ctypes.get_errno()


facts = {"pid": os.getpid(), "comm0": open("/proc/self/comm").read().rstrip("\n")}

# oom:oom_score_adj_update, then task:task_rename carries it (raising it needs no
# CAP_SYS_RESOURCE, which this machine's root lacks: the negative short is ext4's below).
with open("/proc/self/oom_score_adj", "w") as f:
    f.write("123")
# task:task_rename: a 15-byte name, the longest comm (its NUL is the 16th byte).
facts["comm1"] = "tf-rename-q7xyz"
libc.prctl(15, facts["comm1"].encode(), 0, 0, 0)  # PR_SET_NAME

# signal:signal_generate from tgkill: code SI_TKILL (-6).
signal.signal(signal.SIGUSR1, lambda *a: None)
signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)

# lseek(77, -5, SEEK_CUR) at offset 0: EINVAL. unsigned int fd, off_t offset, unsigned int whence.
fd = os.open(os.path.join(tmp, "lseek-file"), os.O_RDWR | os.O_CREAT, 0o600)
os.dup2(fd, 77)
facts["lseek"] = syscall(8, 77, -5, 1)

# openat(AT_FDCWD, a missing file whose name needs JSON escapes, O_RDONLY | O_CLOEXEC, 0640): ENOENT.
facts["open_path"] = tmp + '/no such dir "q" \\ \u00e9\t\u2713/x'
facts["openat"] = syscall(257, -100, facts["open_path"].encode(), 0o2000000, 0o640)

# madvise(an unsigned long above 2^63, a size_t, int -7): EINVAL.
facts["madvise"] = syscall(28, 0xFEDCBA9876543210, 0x123456789, -7)
# shmget(key_t -5, 4096, 0): key_t is an int.
facts["shmget"] = syscall(29, -5, 4096, 0)
# uname(a pointer the test chose): EFAULT.
facts["uname"] = syscall(63, 0xFEDCBA9876543210)

# TCP connections to the test's own listeners: the ports are ephemeral (>= 32768 here).
for fam, addr, key in ((socket.AF_INET, "127.0.0.1", "tcp4"), (socket.AF_INET6, "::1", "tcp6")):
    lst = socket.socket(fam, socket.SOCK_STREAM)
    lst.bind((addr, 0))
    lst.listen(1)
    cli = socket.socket(fam, socket.SOCK_STREAM)
    cli.bind((addr, 0))
    facts[key] = {"lport": lst.getsockname()[1], "cport": cli.getsockname()[1]}
    cli.connect(lst.getsockname())
    srv, _ = lst.accept()
    for s in (cli, srv, lst):
        s.close()

# ext4:ext4_ext_rm_leaf: a 128 MiB file written with O_DIRECT on the test's fresh ext4 (4 KiB
# blocks, no backup superblocks) is one extent of 32768 blocks, all of block group 1, whose
# length the tracepoint stores in a short: -32768. FIEMAP says where the extent is. Should
# the allocator place it otherwise, another file is tried (the first one is kept: FIEMAP
# merges contiguous extents, so only a file of one 32768-block extent is truncated).
def fiemap(fd, nslots=8):
    req = bytearray(struct.pack("=QQIIII", 0, 2**64 - 1, 1, 0, nslots, 0) + bytes(56 * nslots))  # FIEMAP_FLAG_SYNC
    fcntl.ioctl(fd, 0xC020660B, req)  # FS_IOC_FIEMAP
    extents = []
    for i in range(min(struct.unpack_from("=I", req, 20)[0], nslots)):
        logical, physical, length = struct.unpack_from("=QQQ", req, 32 + 56 * i)
        extents.append([logical // 4096, physical // 4096, length // 4096])
    return extents


if mnt:
    big = mmap.mmap(-1, 128 << 20)
    for attempt in range(1, 4):
        fd = os.open(os.path.join(mnt, "extent-file-%d" % attempt), os.O_RDWR | os.O_CREAT | os.O_DIRECT, 0o600)
        n = os.write(fd, big)
        os.fsync(fd)
        extents = fiemap(fd)
        if [x[2] for x in extents] == [32768] or attempt == 3:
            break
        os.close(fd)
    st = os.fstat(fd)
    facts["ext4"] = {"written": n, "ino": st.st_ino, "dev": os.major(st.st_dev) << 20 | os.minor(st.st_dev),
                     "extents": extents, "attempts": attempt}
    os.ftruncate(fd, 0)
    os.close(fd)

# A direct write and fsync: if the disk's driver used the DMA API, dma:dma_map_sg
# would fire here (see the dyn-array exception in the checker).
dfd = os.open(os.path.join(tmp, "direct-file"), os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600)
buf = mmap.mmap(-1, 65536)
buf.write(b"\xa5" * 65536)
os.write(dfd, buf)
os.fsync(dfd)
os.close(dfd)

# execve: a user string and an argv with an empty string, escapes, UTF-8 and a 255-byte one.
facts["helper"] = helper
facts["argv"] = [helper, os.path.join(tmp, "kvm.facts"), "tf arg with spaces", 'quote" back\\ tab\t',
                 "\u00fcn\u00efc\u00f6d\u00e9 \u2713", "", "-100", "y" * 255]
with open(facts_path, "w") as f:
    json.dump(facts, f)
sys.stdout.flush()
os.execv(helper, facts["argv"])
EOF

EVENTS=(oom:oom_score_adj_update task:task_rename signal:signal_generate sock:inet_sock_set_state
	syscalls:sys_enter_lseek syscalls:sys_exit_lseek raw_syscalls:sys_enter
	syscalls:sys_enter_openat syscalls:sys_exit_openat syscalls:sys_enter_madvise syscalls:sys_exit_madvise
	syscalls:sys_enter_shmget syscalls:sys_enter_newuname syscalls:sys_exit_newuname
	syscalls:sys_enter_execve sched:sched_process_exec kvm:kvm_pvclock_update ext4:ext4_ext_rm_leaf 'dma:*')
eargs=()
for e in "${EVENTS[@]}"; do eargs+=(-e "$e"); done
t_run "$T_TMP/trace.json" "$T_TMP/trace.err" timeout 60 "$PERFRING" trace -j -b 1024 "${eargs[@]}" -- \
	"$PY" "$T_TMP/work.py" "$T_TMP/facts.json" "$HELPER" "$T_TMP" "$MNT"
t_check trace_run "perfring trace exit $T_RC, or the workload did not exit 0: $(tail -n 3 "$T_TMP/trace.err")" \
	bash -c "[ $T_RC -eq 0 ] && grep -q 'exited with status 0' '$T_TMP/trace.err' && [ -s '$T_TMP/facts.json' ]"

# --- the checks ------------------------------------------------------------

cat >"$T_TMP/check.py" <<'EOF'
import glob, json, os, re, sys

out_path, facts_path, kvm_path, events_dir = sys.argv[1:5]
facts = json.load(open(facts_path))
U64 = 2**64


def report(ok, name, why=""):
    print(("ok %s" % name) if ok else ("FAIL %s: %s" % (name, why)))


# What this machine lacks (set by the shell part): events that need it are not checked.
NO_KVM = os.environ.get("TF_NO_KVM", "")
NO_LOOP = os.environ.get("TF_NO_LOOP", "")


# --- field kinds, from the format files ---
# A syscall argument's C type, where the kernel stores it in an 8-byte slot.
NATURAL = {"int": (4, 1), "unsigned int": (4, 0), "unsigned": (4, 0), "long": (8, 1), "unsigned long": (8, 0),
           "size_t": (8, 0), "ssize_t": (8, 1), "off_t": (8, 1), "loff_t": (8, 1), "umode_t": (2, 0),
           "pid_t": (4, 1), "uid_t": (4, 0), "gid_t": (4, 0), "key_t": (4, 1), "key_serial_t": (4, 1),
           "clockid_t": (4, 1), "timer_t": (4, 1), "mqd_t": (4, 1), "qid_t": (4, 0), "rwf_t": (4, 0),
           "u32": (4, 0), "__u32": (4, 0), "__s32": (4, 1), "__u64": (8, 0), "u64": (8, 0)}
FIELD_RE = re.compile(r"field:(.*?);\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);")
DECL_RE = re.compile(r"^(.*?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?$")


def squash(t):
    return re.sub(r"\s+", "", t)


def kind_of(system, decl, size, signed):
    m = DECL_RE.match(decl)
    ctype, name, dim = m.group(1).strip(), m.group(2), m.group(3)
    if ctype.startswith("__rel_loc"):
        return "rel-loc"
    if ctype.startswith("__data_loc"):
        elem = re.sub(r"^__data_loc\s+", "", ctype).split("[")[0].strip()
        return "dyn-string" if elem in ("char", "const char", "signed char") else "dyn-array"
    if dim is not None:
        return "chars" if ctype in ("char", "const char", "signed char") else "array"
    if "*" in ctype:
        if system == "syscalls" and squash(ctype) == "constchar*" and name not in ("buf", "ubuf"):
            return "user-string"
        if system == "syscalls" and squash(ctype) == "constchar*const*" and name == "argv":
            return "user-strings"
        return "pointer"
    if system == "syscalls" and size == 8:
        nat = NATURAL.get(re.sub(r"^const\s+", "", ctype))
        if nat and nat != (8, signed):
            return "slot-int%d%s" % (nat[0], "s" if nat[1] else "u")
    return "int%d%s" % (size, "s" if signed else "u")


def read_format(path):
    fields = {}
    for decl, off, size, signed in FIELD_RE.findall(open(path).read()):
        m = DECL_RE.match(decl.strip())
        if m and not m.group(2).startswith("common_"):
            fields[m.group(2)] = (decl.strip(), int(size), int(signed))
    return fields


_kinds = {}


def kinds(event):  # "sys:name" -> {field: kind}
    if event not in _kinds:
        system, name = event.split(":")
        fmt = read_format(os.path.join(events_dir, system, name, "format"))
        _kinds[event] = {f: kind_of(system, *v) for f, v in fmt.items()}
    return _kinds[event]


covered, negative = set(), set()


def mark(event, field, value):
    k = kinds(event)[field]
    covered.add(k)
    vals = value if isinstance(value, list) else [value]
    if any(isinstance(v, int) and v < 0 for v in vals):
        negative.add(k)


# --- the trace ---
events, bad = [], []
for i, line in enumerate(open(out_path), 1):
    try:
        o = json.loads(line)
        if not (isinstance(o, dict) and {"time_ns", "ktime_ns", "cpu", "comm", "pid", "tid", "event", "fields"} <= o.keys()):
            raise ValueError("not an event object")
        if "lost" in o or o.get("truncated"):
            raise ValueError("lost or truncated")
        events.append(o)
    except ValueError as e:
        bad.append("line %d: %s: %s" % (i, e, line[:120]))
report(not bad and len(events) > 100, "json_lines",
       "%d events; %d bad lines: %s" % (len(events), len(bad), "; ".join(bad[:3])))
pid = facts["pid"]
report(all(o["pid"] == pid for o in events), "only_the_command",
       "events from other pids: %s" % sorted({o["pid"] for o in events} - {pid})[:5])


def find(event, **want):
    return [o for o in events if o["event"] == event and all(o["fields"].get(k) == v for k, v in want.items())]


def as_json_bytes(s):
    """How perfring's JSON carries a string: its bytes, those >= 0x7f as \\u00XX (tools/shared/pd_emit.c:
    file names need not be UTF-8), so a UTF-8 string reads back as one character per byte."""
    return s.encode("utf-8").decode("latin-1")


def expect(name, event, want, select=None, after=None):
    """One event named event (matching select; with after, the first one of after's thread
    that follows it) whose fields equal want; marks their kinds covered."""
    cands = find(event, **(select or {}))
    if after is not None:
        cands = [o for o in cands if o["tid"] == after["tid"] and o["ktime_ns"] >= after["ktime_ns"]]
        cands = sorted(cands, key=lambda o: o["ktime_ns"])[:1]
    if len(cands) != 1:
        report(False, name, "%d %s events match %s (want 1)" % (len(cands), event, select))
        return None
    got = cands[0]["fields"]
    diff = ["%s: got %r, want %r" % (k, got.get(k), v) for k, v in want.items() if got.get(k) != v]
    report(not diff, name, "%s: %s" % (event, "; ".join(diff)))
    if not diff:
        for k, v in want.items():
            mark(event, k, v)
    return cands[0]


comm0, comm1 = facts["comm0"], facts["comm1"]
helper_comm = os.path.basename(facts["helper"])[:15]
expect("oom_score_adj_update", "oom:oom_score_adj_update",
       {"pid": pid, "comm": comm0, "oom_score_adj": 123})
expect("task_rename_prctl", "task:task_rename",
       {"pid": pid, "oldcomm": comm0, "newcomm": comm1, "oom_score_adj": 123}, {"newcomm": comm1})
expect("task_rename_exec", "task:task_rename",
       {"pid": pid, "oldcomm": comm1, "newcomm": helper_comm, "oom_score_adj": 123}, {"newcomm": helper_comm})

# ext4: one event per extent removed by the truncation, as FIEMAP found them.
e4 = facts.get("ext4")
if NO_LOOP:
    print("SKIP ext4_extents: %s" % NO_LOOP)
elif not e4:
    report(False, "ext4_extents", "no ext4 facts (mount failed?)")
else:
    exts = e4["extents"]
    report(e4["written"] == 128 << 20 and [x[2] for x in exts] == [32768], "ext4_extents",
           "wrote %d bytes, extents %s after %d files: want one of 32768 blocks" % (e4["written"], exts, e4["attempts"]))
    for i, (lblk, pblk, blocks) in enumerate(exts):
        short = blocks - 65536 if blocks >= 32768 else blocks
        expect("ext4_ext_rm_leaf_%d" % i, "ext4:ext4_ext_rm_leaf",
               {"dev": e4["dev"], "ino": e4["ino"], "start": 0, "ee_lblk": lblk, "ee_pblk": pblk, "ee_len": short},
               {"ino": e4["ino"], "ee_pblk": pblk})
expect("signal_generate", "signal:signal_generate",
       {"sig": 10, "errno": 0, "code": -6, "comm": comm1, "pid": pid, "group": 0, "result": 0}, {"sig": 10})

# TCP over loopback: listen, connect (client and the accepted socket), IPv4 and IPv6.
ISS = "sock:inet_sock_set_state"
lo4, any4 = [127, 0, 0, 1], [0, 0, 0, 0]
mapped = lambda a: [0] * 10 + [255, 255] + a
lo6 = [0] * 15 + [1]
t4, t6 = facts["tcp4"], facts["tcp6"]
report(min(t4["lport"], t4["cport"], t6["lport"], t6["cport"]) >= 32768, "ports_high",
       "ephemeral ports %s %s: want >= 32768 so that a sign-extended __u16 shows" % (t4, t6))
v4 = {"family": 2, "protocol": 6}
expect("inet4_listen", ISS, dict(v4, sport=t4["lport"], dport=0, saddr=lo4, daddr=any4,
                                 saddr_v6=mapped(lo4), daddr_v6=mapped(any4)),
       {"oldstate": 7, "newstate": 10, "family": 2})
# Only transitions made in the workload's own syscalls (listen, connect, close): those the
# handshake makes in softirq context may run in ksoftirqd, outside the traced process.
conn = [expect("inet4_%s" % s, ISS, dict(v4, sport=t4["cport"], dport=t4["lport"], saddr=lo4, daddr=lo4,
                                         saddr_v6=mapped(lo4), daddr_v6=mapped(lo4)),
               {"oldstate": a, "newstate": b, "family": 2})
        for s, a, b in (("connect", 7, 2), ("close", 1, 4))]
expect("inet6_connect", ISS, {"family": 10, "protocol": 6, "sport": t6["cport"], "dport": t6["lport"],
                              "saddr_v6": lo6, "daddr_v6": lo6}, {"oldstate": 7, "newstate": 2, "family": 10})
# skaddr: the client socket's address, in hex, the same when it connects and closes; a kernel one.
if all(conn):
    p = [c["fields"]["skaddr"] for c in conn]
    good = p[0] == p[1] and isinstance(p[0], str) and re.fullmatch(r"0x[0-9a-f]+", p[0]) and int(p[0], 16) >= 0xFFFF800000000000
    report(good, "inet4_skaddr", "skaddr %s, want one kernel address '0x...' for both client events" % p)
else:
    report(False, "inet4_skaddr", "client events missing")

# Syscalls: 8-byte argument slots narrowed by their C type, exit values.
def expect_exit(name, event, ret, enter):
    """The first exit event of enter's thread after it: ret."""
    if enter is None:
        report(False, name, "its enter event was not found")
    else:
        expect(name, event, {"ret": ret}, after=enter)


report(facts["lseek"][1] == 22 and facts["openat"][1] == 2 and facts["madvise"][1] == 22 and facts["uname"][1] == 14,
       "workload_errnos", "errnos %s %s %s %s, want 22 2 22 14" % (facts["lseek"], facts["openat"], facts["madvise"], facts["uname"]))
# An exit is the first of its kind after the enter, on the same thread.
en = expect("lseek_enter", "syscalls:sys_enter_lseek", {"fd": 77, "offset": -5, "whence": 1}, {"fd": 77})
expect_exit("lseek_exit", "syscalls:sys_exit_lseek", -22, en)
raw = [o for o in find("raw_syscalls:sys_enter", id=8) if o["fields"]["args"][:1] == [77]]
want_args = [77, U64 - 5, 1]
report(len(raw) == 1 and len(raw[0]["fields"]["args"]) == 6 and raw[0]["fields"]["args"][:3] == want_args,
       "raw_sys_enter_args", "lseek(77, ...) as raw_syscalls:sys_enter: %s, want 1 event with args[6] starting %s"
       % ([o["fields"]["args"] for o in raw], want_args))
if len(raw) == 1 and raw[0]["fields"]["args"][:3] == want_args:
    mark("raw_syscalls:sys_enter", "args", want_args)
    mark("raw_syscalls:sys_enter", "id", 8)
open_path = as_json_bytes(facts["open_path"])
en = expect("openat_enter", "syscalls:sys_enter_openat",
            {"dfd": -100, "filename": open_path, "flags": 0o2000000, "mode": 0o640}, {"filename": open_path})
expect_exit("openat_exit", "syscalls:sys_exit_openat", -2, en)
en = expect("madvise_enter", "syscalls:sys_enter_madvise",
            {"start": 0xFEDCBA9876543210, "len_in": 0x123456789, "behavior": -7}, {"len_in": 0x123456789})
expect_exit("madvise_exit", "syscalls:sys_exit_madvise", -22, en)
# key_t is an int (__kernel_key_t): -5, not 2^64 - 5.
expect("shmget_key_t", "syscalls:sys_enter_shmget", {"key": -5, "size": 4096, "shmflg": 0}, {"size": 4096})
en = expect("uname_pointer", "syscalls:sys_enter_newuname", {"name": "0xfedcba9876543210"},
            {"name": "0xfedcba9876543210"})
expect_exit("uname_exit", "syscalls:sys_exit_newuname", -14, en)
ex = expect("execve_enter", "syscalls:sys_enter_execve",
            {"filename": facts["helper"], "argv": [as_json_bytes(a) for a in facts["argv"]]}, {"filename": facts["helper"]})
if ex:
    envp = ex["fields"].get("envp")
    report(isinstance(envp, str) and re.fullmatch(r"0x[0-9a-f]+", envp) and int(envp, 16) != 0, "execve_envp",
           "envp %r, want a non-zero '0x...' pointer" % envp)
expect("sched_process_exec", "sched:sched_process_exec", {"filename": facts["helper"], "pid": pid, "old_pid": pid},
       {"filename": facts["helper"]})

# kvmclock: the event against the page the kernel wrote in the guest.
kvm = open(kvm_path).read().split() if os.path.exists(kvm_path) else ["error", "no facts from the helper"]
if NO_KVM:
    print("SKIP kvm_pvclock: %s" % NO_KVM)
elif kvm[0] != "pvclock":
    report(False, "kvm_pvclock", "the KVM helper failed: %s" % " ".join(kvm[1:]))
else:
    version, tsc, systime, mul, shift, flags, khz = map(int, kvm[1:])
    expect("kvm_pvclock", "kvm:kvm_pvclock_update",
           {"vcpu_id": 0, "version": version, "tsc_timestamp": tsc, "system_time": systime,
            "tsc_to_system_mul": mul, "tsc_shift": shift, "flags": flags}, {"version": version})

    def time_scale(scaled, base):  # KVM's kvm_get_time_scale(): ns = (tsc << shift) * mul >> 32
        sh = 0
        while base > 2 * scaled or base >> 32:
            base >>= 1
            sh -= 1
        while base <= scaled or scaled >> 32:
            if scaled >> 32 or base & 0x80000000:
                scaled >>= 1
            else:
                base <<= 1
            sh += 1
        return sh, (scaled << 32) // base

    report(time_scale(10**9, khz * 1000) == (shift, mul) and shift < 0 and mul >= 2**31, "kvm_pvclock_scale",
           "TSC %d kHz gives shift, mul %s; the guest page has %s (want equal, shift < 0, mul >= 2^31)"
           % (khz, time_scale(10**9, khz * 1000), (shift, mul)))

# --- coverage ---
present = {}  # kind -> example "sys:name field"
dyn_array_tps = set()
for path in sorted(glob.glob(os.path.join(events_dir, "*", "*", "format"))):
    system, name = path.split("/")[-3:-1]
    for field, (decl, size, signed) in read_format(path).items():
        k = kind_of(system, decl, size, signed)
        present.setdefault(k, "%s:%s %s" % (system, name, field))
        if k == "dyn-array":
            dyn_array_tps.add("%s:%s" % (system, name))

# Kinds no test can cause here, each with why and the premises of the why, checked.
exceptions = {}
if "dyn-array" in present and "dyn-array" not in covered:
    # __data_loc arrays of a non-char type are in three places only:
    #  ipi:ipi_send_cpumask: traced when a cross-CPU call targets two CPUs or more (one target is
    #    ipi:ipi_send_cpu); the sender's CPU is never a target, so it takes 3 CPUs;
    #  dma:*: drivers that map scatterlists through the DMA API; virtio devices without
    #    VIRTIO_F_ACCESS_PLATFORM bypass it (the workload's O_DIRECT write and fsync, traced with
    #    dma:*, check that nothing here fires them);
    #  ras:*: hardware error reports (machine checks, CPER, ARM errors): nothing to cause.
    why = []
    others = sorted(t for t in dyn_array_tps
                    if not (t == "ipi:ipi_send_cpumask" or t.startswith("dma:") or t.startswith("ras:")))
    if others:
        why.append("new tracepoints with __data_loc arrays, check one of them: %s" % ", ".join(others))
    possible = open("/sys/devices/system/cpu/possible").read().strip()
    hi = max(int(r.split("-")[-1]) for r in possible.split(","))
    if hi + 1 >= 3:
        why.append("%d possible CPUs: ipi:ipi_send_cpumask can be caused (membarrier with threads on 2 others)" % (hi + 1))
    dma = sorted({o["event"] for o in events if o["event"].startswith("dma:")})
    if dma:
        why.append("the workload fired %s: check its __data_loc arrays" % ", ".join(dma))
    report(not why, "coverage_exception_dyn_array", "; ".join(why))
    if not why:
        exceptions["dyn-array"] = "ipi_send_cpumask needs 3 CPUs (%s here), dma:* did not fire, ras:* needs hardware errors" % possible

# Kinds only the KVM guest or the ext4 extent can show with a known value.
for k, lack, by in (("int1s", NO_KVM, "kvm:kvm_pvclock_update"), ("int1u", NO_KVM, "kvm:kvm_pvclock_update"),
                    ("int2s", NO_LOOP, "ext4:ext4_ext_rm_leaf")):
    if lack and k in present and (k not in covered or k not in negative):
        exceptions[k] = "only %s shows it with a known value here, and there is %s" % (by, lack)
        print("SKIP coverage_%s: %s" % (k, exceptions[k]))

uncovered = []
for k in sorted(present):
    if k in exceptions:
        continue
    if k not in covered:
        uncovered.append("%s (e.g. %s)" % (k, present[k]))
    elif re.fullmatch(r"(slot-)?int\ds", k) and k not in negative:
        uncovered.append("%s (no negative value checked)" % k)
report(not uncovered, "coverage", "kinds present in tracefs that no passing check covers: %s" % "; ".join(uncovered))
print("info kinds present: %s" % " ".join(sorted(present)))
print("info covered by known values: %s" % " ".join(sorted(k for k in covered if k in present)))
for k, why in exceptions.items():
    print("info not covered: %s: %s" % (k, why))
EOF

if [ -s "$T_TMP/facts.json" ]; then
	python3 "$T_TMP/check.py" "$T_TMP/trace.json" "$T_TMP/facts.json" "$T_TMP/kvm.facts" "$EVENTS_DIR" \
		>"$T_TMP/check.out" 2>"$T_TMP/check.err"
	crc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "${line#ok }" ;;
		"FAIL "*)
			rest=${line#FAIL }
			fail "${rest%%: *}" "${rest#*: }"
			;;
		"SKIP "*)
			rest=${line#SKIP }
			skip "${rest%%: *}" "${rest#*: }"
			;;
		*) echo "$line" ;;
		esac
	done <"$T_TMP/check.out"
	t_check checker_exit "the checker exited $crc: $(tail -n 3 "$T_TMP/check.err")" [ "$crc" -eq 0 ]
fi

t_finish
