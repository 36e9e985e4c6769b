"""The terminal stays the host's: a contained command can't type into it.

Why: a contained command keeps the terminal the host started it from (no
new session: a host stops a command by its process group, and ``sudo``,
``ssh`` or ``git`` still ask their questions there).  Where the kernel still
allows ``TIOCSTI`` (``dev.tty.legacy_tiocsti = 1``, the default on most
kernels), a command could push keystrokes into that terminal, which the host
then reads as the user's own input: past every boundary.  ``TIOCLINUX``
pastes into a Linux console the same way.

So bubblewrap starts each command with a seccomp filter (``--seccomp``) that
answers those two ioctls with ``EPERM`` and lets everything else through, the
rule Flatpak applies to every app.  The filter is not written here: it is
what libseccomp makes for :data:`REFUSED` (:func:`make`), with the command
compared on its low 32 bits as the kernel reads it, for every ABI the machine
runs (a 64-bit process can make 32-bit system calls).  It ships as data, one
file per machine (``filters/<machine>.bpf``, made by
``tools/make_terminal_filters.py``; a test checks each against libseccomp),
so the hook loads no library to use it.

Stdlib only: :func:`shipped` is on the hook's path; :func:`make` is not.
"""

from __future__ import annotations

import os

__all__ = ["ABIS", "REFUSED", "make", "shipped", "shipped_path"]

# the ioctls that put bytes into a terminal's input: same numbers on x86 and arm
REFUSED = {"TIOCSTI": 0x5412, "TIOCLINUX": 0x541C}

# each machine (``os.uname().machine``) and the libseccomp architectures its processes can use
ABIS = {"x86_64": ("x86_64", "x86", "x32"), "aarch64": ("aarch64", "arm")}

_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "filters")


def shipped_path(machine: str = "") -> str:
    """Where the package keeps the filter for ``machine`` (this one when empty).

    Read-only inside the boundary (agentreflex's code folders, ``{installed}``).
    """
    return os.path.join(_FOLDER, (machine or os.uname().machine) + ".bpf")


def shipped(machine: str = "") -> bytes | None:
    """The filter for ``machine`` (this one when empty), or None where none ships."""
    machine = machine or os.uname().machine
    if machine not in ABIS:
        return None
    try:
        with open(shipped_path(machine), "rb") as handle:
            data = handle.read(1 << 16)
    except OSError:
        return None
    return data if data and len(data) % 8 == 0 else None  # whole BPF instructions, or none


def make(machine: str) -> bytes:
    """libseccomp's filter for ``machine``: :data:`REFUSED` get ``EPERM``, the rest runs.

    Raises OSError when libseccomp can't be loaded or refuses a step.
    """
    import ctypes
    import errno

    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)

    class ArgCompare(ctypes.Structure):  # libseccomp's struct scmp_arg_cmp
        _fields_ = [
            ("arg", ctypes.c_uint),
            ("op", ctypes.c_int),
            ("datum_a", ctypes.c_uint64),
            ("datum_b", ctypes.c_uint64),
        ]

    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_arch_resolve_name.restype = ctypes.c_uint32
    lib.seccomp_arch_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.seccomp_arch_remove.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(ArgCompare),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]

    allow, refuse = 0x7FFF0000, 0x00050000 | errno.EPERM  # SCMP_ACT_ALLOW, SCMP_ACT_ERRNO(EPERM)
    masked_equal = 7  # SCMP_CMP_MASKED_EQ: the kernel reads an ioctl's command as 32 bits

    def check(result: int, step: str) -> None:
        if result < 0:
            raise OSError(-result, f"libseccomp: {step} failed for {machine}")

    ctx = lib.seccomp_init(allow)
    if not ctx:
        raise OSError("libseccomp: seccomp_init failed")
    try:
        wanted = [lib.seccomp_arch_resolve_name(name.encode()) for name in ABIS[machine]]
        native = lib.seccomp_arch_resolve_name(os.uname().machine.encode())
        for arch in wanted:
            if arch != native:
                check(lib.seccomp_arch_add(ctx, arch), "seccomp_arch_add")
        if native not in wanted:
            check(lib.seccomp_arch_remove(ctx, native), "seccomp_arch_remove")
        ioctl = lib.seccomp_syscall_resolve_name(b"ioctl")
        for number in REFUSED.values():
            compare = ArgCompare(1, masked_equal, 0xFFFFFFFF, number)
            check(lib.seccomp_rule_add_array(ctx, refuse, ioctl, 1, ctypes.byref(compare)), "rule")
        read, write = os.pipe()
        try:
            check(lib.seccomp_export_bpf(ctx, write), "seccomp_export_bpf")
        finally:
            os.close(write)
        with os.fdopen(read, "rb") as handle:
            return handle.read()
    finally:
        lib.seccomp_release(ctx)
