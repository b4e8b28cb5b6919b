"""The sandbox's seccomp profile (docs/sandbox.md): the system calls a bot's container may make, everything else
failing with EPERM.

It is Docker's default allow-list with less in it: no io_uring (a large, fast-moving kernel surface a bot has no
use for), no ptrace, process_vm_readv/writev or kcmp (Docker allows them on recent kernels; a bot inspects no
other process), and ``socket`` for four address families only (Unix, IPv4, IPv6, netlink: what Python and
Node.js open; never AF_VSOCK, AF_PACKET, AF_ALG, ...). Namespaces stay out of reach as under Docker's profile
(``clone`` without namespace flags, no ``unshare``, ``mount``, ``bpf``, ``keyctl``...). ``clone3`` fails with
ENOSYS so that glibc falls back to ``clone``, whose flags the filter can see.

``python -m supervisor.seccomp`` prints the profile as JSON (what ``docker run --security-opt seccomp=FILE``
takes); :func:`profile` is what :mod:`supervisor.docker_runtime` applies.
"""

from __future__ import annotations

import json
import socket

# Allowed whatever their arguments. Names a kernel or architecture lacks are ignored by runc.
ALLOWED = """
accept accept4 access adjtimex alarm arch_prctl bind brk capget capset chdir chmod chown chown32 clock_adjtime
clock_adjtime64 clock_getres clock_getres_time64 clock_gettime clock_gettime64 clock_nanosleep
clock_nanosleep_time64 close close_range connect copy_file_range creat dup dup2 dup3 epoll_create epoll_create1
epoll_ctl epoll_pwait epoll_pwait2 epoll_wait eventfd eventfd2 execve execveat exit exit_group faccessat
faccessat2 fadvise64 fadvise64_64 fallocate fchdir fchmod fchmodat fchown fchown32 fchownat fcntl fcntl64
fdatasync fgetxattr flistxattr flock fork fremovexattr fsetxattr fstat fstat64 fstatat64 fstatfs fstatfs64 fsync
ftruncate ftruncate64 futex futex_time64 futex_waitv futimesat getcpu getcwd getdents getdents64 getegid
getegid32 geteuid geteuid32 getgid getgid32 getgroups getgroups32 getitimer getpeername getpgid getpgrp getpid
getppid getpriority getrandom getresgid getresgid32 getresuid getresuid32 getrlimit get_robust_list getrusage
getsid getsockname getsockopt get_thread_area gettid gettimeofday getuid getuid32 getxattr inotify_add_watch
inotify_init inotify_init1 inotify_rm_watch io_cancel ioctl io_destroy io_getevents io_pgetevents
io_pgetevents_time64 ioprio_get ioprio_set io_setup io_submit ipc kill landlock_add_rule landlock_create_ruleset
landlock_restrict_self lchown lchown32 lgetxattr link linkat listen listxattr llistxattr _llseek lremovexattr
lseek lsetxattr lstat lstat64 madvise membarrier memfd_create mincore mkdir mkdirat mknod mknodat mlock mlock2
mlockall mmap mmap2 modify_ldt mprotect mq_getsetattr mq_notify mq_open mq_timedreceive mq_timedreceive_time64
mq_timedsend mq_timedsend_time64 mq_unlink mremap msgctl msgget msgrcv msgsnd msync munlock munlockall munmap
nanosleep newfstatat _newselect open openat openat2 pause pidfd_open pidfd_send_signal pipe pipe2 poll ppoll
ppoll_time64 prctl pread64 preadv preadv2 prlimit64 pselect6 pselect6_time64 pwrite64 pwritev pwritev2 read
readahead readlink readlinkat readv recv recvfrom recvmmsg recvmmsg_time64 recvmsg remap_file_pages removexattr
rename renameat renameat2 restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo
rt_sigreturn rt_sigsuspend rt_sigtimedwait rt_sigtimedwait_time64 rt_tgsigqueueinfo sched_getaffinity
sched_getattr sched_getparam sched_get_priority_max sched_get_priority_min sched_getscheduler
sched_rr_get_interval sched_rr_get_interval_time64 sched_setaffinity sched_setattr sched_setparam
sched_setscheduler sched_yield seccomp select semctl semget semop semtimedop semtimedop_time64 send sendfile
sendfile64 sendmmsg sendmsg sendto setfsgid setfsgid32 setfsuid setfsuid32 setgid setgid32 setgroups setgroups32
setitimer setpgid setpriority setregid setregid32 setresgid setresgid32 setresuid setresuid32 setreuid setreuid32
setrlimit set_robust_list setsid setsockopt set_thread_area set_tid_address setuid setuid32 setxattr shmat shmctl
shmdt shmget shutdown sigaltstack signalfd signalfd4 sigprocmask sigreturn socketpair splice stat stat64 statfs
statfs64 statx symlink symlinkat sync sync_file_range syncfs sysinfo tee tgkill time timer_create timer_delete
timer_getoverrun timer_gettime timer_gettime64 timer_settime timer_settime64 timerfd_create timerfd_gettime
timerfd_gettime64 timerfd_settime timerfd_settime64 times tkill truncate truncate64 ugetrlimit umask uname unlink
unlinkat utime utimensat utimensat_time64 utimes vfork vmsplice wait4 waitid waitpid write writev
""".split()

# socket(2) for these families only (its first argument).
SOCKET_FAMILIES = (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK)
# personality(2) for these values only (Linux, its 32-bit and address-randomisation-off variants, a query).
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)
# clone(2) without any of CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET (as Docker's profile).
CLONE_NAMESPACE_FLAGS = 0x7E020000
ENOSYS = 38


def _each(name: str, values) -> list[dict]:
    return [{"names": [name], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": int(v), "op": "SCMP_CMP_EQ"}]}
            for v in values]


def profile() -> dict:
    """The profile, as Docker takes it (``SecurityOpt: seccomp=<its JSON>``)."""
    return {
        "defaultAction": "SCMP_ACT_ERRNO",   # EPERM
        "archMap": [{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]},
                    {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": ["SCMP_ARCH_ARM"]}],
        "syscalls": [
            {"names": sorted(ALLOWED), "action": "SCMP_ACT_ALLOW"},
            *_each("socket", SOCKET_FAMILIES),
            *_each("personality", PERSONALITIES),
            {"names": ["clone"], "action": "SCMP_ACT_ALLOW",
             "args": [{"index": 0, "value": CLONE_NAMESPACE_FLAGS, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]},
            {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": ENOSYS},
        ],
    }


def security_opt() -> str:
    """The ``security_opt`` entry that applies :func:`profile`."""
    return "seccomp=" + json.dumps(profile(), separators=(",", ":"))


if __name__ == "__main__":
    print(json.dumps(profile(), indent=2))
