"""Without user namespaces: a seccomp filter for what Landlock leaves open on the network.

Standard library only (it runs inside the wrapper, see wrapper.py). Landlock's TCP rules deny bind/connect,
but neither UDP nor `connect()` to a pathname Unix socket (ssh-agent, docker, the D-Bus bus) is mediated, and
no filter can read the address a socket connects to. So the command may create only TCP sockets (which
Landlock holds) and connected Unix socket pairs of the stream kinds:
  socket()      anything but AF_INET/AF_INET6 + SOCK_STREAM + TCP       -> EACCES (UDP, ICMP, raw, Unix, netlink…)
  socketpair()  a datagram pair (it could `sendto()` a socket by path)   -> EACCES
  listen()      an unbound socket would get a port without bind()        -> EACCES
  sendto()/sendmsg()/sendmmsg() with MSG_FASTOPEN (a connect in disguise) -> EACCES
  io_uring_*    (its operations bypass this filter)                       -> ENOSYS
A system call of another ABI (i386 on x86_64, x32) kills the process: its numbers are not the ones checked.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from paicli.tools.sandbox import wrapper
else:
    try:
        import wrapper
    except ImportError:
        from paicli.tools.sandbox import wrapper

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_ALLOW, _KILL_PROCESS, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_EACCES, _ENOSYS = 13, 38
_AF_UNIX, _AF_INET, _AF_INET6 = 1, 2, 10
_SOCK_STREAM, _SOCK_DGRAM, _IPPROTO_TCP = 1, 2, 6
_MSG_FASTOPEN = 0x20000000
_X32_BIT = 0x40000000
_IO_URING = (425, 426, 427)  # io_uring_setup/enter/register: one number on every architecture
# machine -> (AUDIT_ARCH_*, socket, socketpair, listen, sendto, sendmsg, sendmmsg)
_ARCHES = {
    "x86_64": (0xC000003E, 41, 53, 50, 44, 46, 307),
    "aarch64": (0xC00000B7, 198, 199, 201, 206, 211, 269),
    "riscv64": (0xC00000F3, 198, 199, 201, 206, 211, 269),
}
_LD, _JEQ, _JGE, _JSET, _AND, _RET = 0x20, 0x15, 0x35, 0x45, 0x54, 0x06


def _arg(index: int) -> int:
    """Offset of the low 32 bits of argument `index` in struct seccomp_data."""
    return 16 + 8 * index + (0 if sys.byteorder == "little" else 4)


def _source(machine: str) -> list[tuple]:  # type: ignore[type-arg]
    """The filter as (label?, op, k, jump-if-true, jump-if-false); a jump is a label or None (next)."""
    if machine not in _ARCHES:
        raise wrapper.SandboxError(f"seccomp: unsupported architecture {machine}")
    audit, socket, pair, listen, sendto, sendmsg, sendmmsg = _ARCHES[machine]
    code: list[tuple] = [  # type: ignore[type-arg]
        ("", _LD, 4, None, None),
        ("", _JEQ, audit, None, "kill"),
        ("", _LD, 0, None, None),
        ("", _JGE, _X32_BIT, "kill", None),
        ("", _JEQ, socket, "socket", None),
        ("", _JEQ, pair, "pair", None),
        ("", _JEQ, listen, "deny", None),
        ("", _JEQ, sendto, "flags3", None),
        ("", _JEQ, sendmmsg, "flags3", None),
        ("", _JEQ, sendmsg, "flags2", None),
    ]
    code += [("", _JEQ, number, "nosys", None) for number in _IO_URING]
    code += [
        ("", _RET, _ALLOW, None, None),
        ("socket", _LD, _arg(0), None, None),
        ("", _JEQ, _AF_INET, "stream", None),
        ("", _JEQ, _AF_INET6, "stream", "deny"),
        ("stream", _LD, _arg(1), None, None),
        ("", _AND, 0xF, None, None),
        ("", _JEQ, _SOCK_STREAM, None, "deny"),
        ("", _LD, _arg(2), None, None),
        ("", _JEQ, 0, "allow", None),
        ("", _JEQ, _IPPROTO_TCP, "allow", "deny"),
        ("pair", _LD, _arg(0), None, None),
        ("", _JEQ, _AF_UNIX, None, "deny"),
        ("", _LD, _arg(1), None, None),
        ("", _AND, 0xF, None, None),
        ("", _JEQ, _SOCK_DGRAM, "deny", "allow"),
        ("flags3", _LD, _arg(3), None, None),
        ("", _JSET, _MSG_FASTOPEN, "deny", "allow"),
        ("flags2", _LD, _arg(2), None, None),
        ("", _JSET, _MSG_FASTOPEN, "deny", "allow"),
        ("allow", _RET, _ALLOW, None, None),
        ("deny", _RET, _ERRNO | _EACCES, None, None),
        ("nosys", _RET, _ERRNO | _ENOSYS, None, None),
        ("kill", _RET, _KILL_PROCESS, None, None),
    ]
    return code


def program(machine: str) -> bytes:
    """The assembled classic-BPF filter (struct sock_filter[])."""
    code = _source(machine)
    where = {label: index for index, (label, *_rest) in enumerate(code) if label}
    out = bytearray()
    for index, (_, op, k, true, false) in enumerate(code):
        jt = where[true] - index - 1 if true else 0
        jf = where[false] - index - 1 if false else 0
        out += op.to_bytes(2, sys.byteorder) + bytes((jt, jf)) + k.to_bytes(4, sys.byteorder)
    return bytes(out)


def install() -> None:
    """Apply the filter to this process (after NO_NEW_PRIVS, which Landlock has already set)."""
    import _ctypes

    code = program(os.uname().machine)

    class _Char(_ctypes._SimpleCData):  # type: ignore[type-arg]
        _type_ = "c"

    array = type("_Filter", (_ctypes.Array,), {"_type_": _Char, "_length_": len(code)})
    buffer = array.from_buffer_copy(code)  # type: ignore[attr-defined]
    header = (len(code) // 8).to_bytes(2, sys.byteorder) + bytes(6)
    fprog = header + _ctypes.addressof(buffer).to_bytes(8, sys.byteorder)
    result = wrapper._call("prctl", _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, fprog, 0, 0)
    wrapper._check(result, "seccomp")
