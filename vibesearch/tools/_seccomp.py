"""The system-call filter of the ``bwrap`` sandbox: a classic-BPF seccomp program, compiled here
for x86_64 and aarch64, that refuses (EPERM) the calls making namespaces or mounts, using the
kernel keyrings, tracing or reading other processes, loading BPF or modules, or holding memory
outside the limits; clone3 gets ENOSYS (its flags sit in a struct a filter cannot read) and clone
with a namespace flag EPERM. ``sandbox`` hands the program to ``bwrap --seccomp``; docs/tools.md
lists what it refuses.
"""

from __future__ import annotations

import errno
import platform
import struct
import sys

# seccomp_data.arch of the native system-call ABI, by platform.machine()
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_SYSCALL_BIT = 0x40000000  # x86_64 numbers with this bit are the x32 ABI's

# Refused with EPERM: name -> (x86_64 number, aarch64 number); None where the call does not exist.
_DENIED_SYSCALLS: dict[str, tuple[int | None, int | None]] = {
    # new namespaces and mounts (with the new mount API), changing the root
    "unshare": (272, 97), "setns": (308, 268), "mount": (165, 40), "umount2": (166, 39),
    "pivot_root": (155, 41), "chroot": (161, 51), "open_tree": (428, 428), "move_mount": (429, 429),
    "fsopen": (430, 430), "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433),
    "mount_setattr": (442, 442),
    # kernel keyrings: a key stored by one run would be readable by the next run of the same uid
    "add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219),
    # other processes' memory and files
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "pidfd_getfd": (438, 438), "name_to_handle_at": (303, 264), "open_by_handle_at": (304, 265),
    # kernel interfaces a benchmark's code has no use for
    "bpf": (321, 280), "perf_event_open": (298, 241), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294), "init_module": (175, 105),
    "finit_module": (313, 273), "delete_module": (176, 106), "swapon": (167, 224), "swapoff": (168, 225),
    "reboot": (169, 142), "acct": (163, 89), "quotactl": (179, 60), "syslog": (103, 116),
    "lookup_dcookie": (212, 18), "vhangup": (153, 58), "iopl": (172, None), "ioperm": (173, None),
    # memory that RLIMIT_AS does not count and no tmpfs size bounds
    "memfd_create": (319, 279), "memfd_secret": (447, 447), "shmget": (29, 194), "msgget": (68, 186),
}
# clone3 takes its flags in a struct the filter cannot read: ENOSYS makes the C library use clone
_CLONE3 = 435
_CLONE = (56, 220)
# clone() with any of these (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET) is refused
_CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

# classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h)
_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_JGE_K = 0x35
_BPF_JSET_K = 0x45
_BPF_RET_K = 0x06
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000


def _bpf(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def seccomp_program() -> bytes | None:
    """The compiled filter for ``bwrap --seccomp`` on this machine, or None where there is no
    syscall table for it (any machine but x86_64 and aarch64, or a 32-bit interpreter)."""
    machine = platform.machine()
    arch = _AUDIT_ARCH.get(machine)
    if arch is None or struct.calcsize("P") != 8 or sys.byteorder != "little":
        return None
    col = 0 if machine == "x86_64" else 1
    enosys = _SECCOMP_RET_ERRNO | errno.ENOSYS
    eperm = _SECCOMP_RET_ERRNO | errno.EPERM
    # struct seccomp_data: int nr at 0, u32 arch at 4, u64 args[6] from 16 (low half first)
    prog = [
        _bpf(_BPF_LD_W_ABS, 4),
        _bpf(_BPF_JEQ_K, arch, jt=1),
        _bpf(_BPF_RET_K, enosys),  # another ABI (32-bit calls): its numbers differ, refuse them all
        _bpf(_BPF_LD_W_ABS, 0),
    ]
    if machine == "x86_64":
        prog += [_bpf(_BPF_JGE_K, _X32_SYSCALL_BIT, jf=1), _bpf(_BPF_RET_K, enosys)]
    for numbers in _DENIED_SYSCALLS.values():
        nr = numbers[col]
        if nr is not None:
            prog += [_bpf(_BPF_JEQ_K, nr, jf=1), _bpf(_BPF_RET_K, eperm)]
    prog += [_bpf(_BPF_JEQ_K, _CLONE3, jf=1), _bpf(_BPF_RET_K, enosys)]
    prog += [
        _bpf(_BPF_JEQ_K, _CLONE[col], jf=3),
        _bpf(_BPF_LD_W_ABS, 16),  # clone's flags (first argument, both machines); the bits are all low
        _bpf(_BPF_JSET_K, _CLONE_NAMESPACE_FLAGS, jf=1),
        _bpf(_BPF_RET_K, eperm),
        _bpf(_BPF_RET_K, _SECCOMP_RET_ALLOW),
    ]
    return b"".join(prog)
