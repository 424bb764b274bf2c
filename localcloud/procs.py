"""Start, find, stop and measure the processes localcloud runs (pid files, process groups)."""

import hashlib
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request

from . import guard


class StartError(RuntimeError):
    pass


def log(msg):
    print("[localcloud %s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def _read_pid(pidfile):
    try:
        with open(pidfile) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _start_time(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def running_pid(layout, name):
    """The pid recorded for `name` if that very process is still alive.

    The pid file holds pid and start time, so a recycled pid is never mistaken for ours.
    """
    pidfile = layout.pidfile(name)
    try:
        with open(pidfile) as f:
            parts = f.read().split()
        pid, started = int(parts[0]), parts[1] if len(parts) > 1 else None
    except (OSError, ValueError, IndexError):
        return None
    now = _start_time(pid)
    if now is None or (started not in (None, "-") and now != started):
        return None
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        if state == "Z":
            return None
    except OSError:
        return None
    return pid


def _files(path):
    if os.path.isfile(path):
        yield path
    elif os.path.isdir(path):
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.endswith("-keys") and d != "__pycache__")
            for f in sorted(files):
                if not f.endswith((".pyc", ".tmp")):
                    yield os.path.join(root, f)


def fingerprint(argv, env, watch):
    """What a running process was started from: command, environment, watched files."""
    h = hashlib.sha256(json.dumps([argv, sorted((env or {}).items())]).encode())
    for path in watch or ():
        for f in _files(path):
            h.update(f.encode())
            with open(f, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()[:16]


def _stored_fingerprint(layout, name):
    try:
        with open(layout.pidfile(name)) as f:
            parts = f.read().split()
        return parts[2] if len(parts) > 2 else None
    except OSError:
        return None


def start(layout, name, argv, env=None, cwd=None, watch=()):
    """Start argv as its own session (process group), output appended to logs/<name>.log.

    If it is already running from the same command, environment and watched files (configs,
    code), leave it; if any of those changed, restart it. When the local cloud's network
    guard is active the process starts inside its cgroup."""
    fp = fingerprint(argv, env, watch)
    pid = running_pid(layout, name)
    if pid:
        if _stored_fingerprint(layout, name) == fp:
            return pid, False
        log("%s: configuration or code changed, restarting it" % name)
        stop(layout, name)
    cloud = guard.cloud_guard()
    full_env = dict(os.environ)
    full_env.pop("PYTHONPATH", None)
    full_env.pop("VIRTUAL_ENV", None)
    if env:
        full_env.update(env)
    logf = open(layout.log(name), "ab")
    logf.write(("\n==== %s starting: %s\n" % (time.strftime("%F %T"), " ".join(argv))).encode())
    logf.flush()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=logf,
        stderr=subprocess.STDOUT,
        env=full_env,
        cwd=cwd or layout.root,
        start_new_session=True,
        preexec_fn=cloud.preexec() if cloud.active() else None,
    )
    logf.close()
    with open(layout.pidfile(name), "w") as f:
        f.write("%d %s %s\n" % (proc.pid, _start_time(proc.pid) or "-", fp))
    return proc.pid, True


def group_members(pgid):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid:
                pids.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return pids


def stop(layout, name, timeout=15):
    """Stop the process group we started for `name`; True if something was stopped."""
    return bool(stop_many(layout, [name], timeout))


def stop_many(layout, names, timeout=15):
    """Stop several services at once (SIGTERM to all, then wait, then SIGKILL)."""
    pids = {}
    for name in names:
        pid = running_pid(layout, name)
        if pid:
            pids[name] = pid
            try:
                os.killpg(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        else:
            _remove(layout.pidfile(name))
    deadline = time.time() + timeout
    while time.time() < deadline and any(group_members(p) for p in pids.values()):
        time.sleep(0.2)
    for name, pid in pids.items():
        if group_members(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        _remove(layout.pidfile(name))
    return list(pids)


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def memory(pid):
    """(rss_kib, pss_kib, nprocs) summed over the process group led by pid."""
    rss = pss = 0
    members = group_members(pid)
    for p in members:
        try:
            with open("/proc/%d/smaps_rollup" % p) as f:
                for line in f:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1])
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1])
        except OSError:
            continue
    return rss, pss, len(members)


def http_ok(url, timeout=3.0, ok_codes=(200, 300, 401)):
    """True if url answers with a status in ok_codes (any HTTP answer for ok_codes=None)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            code = resp.status
    except urllib.error.HTTPError as e:
        code = e.code
    except Exception:
        return False
    return ok_codes is None or code in ok_codes


def tail(path, lines=25):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 16384))
            data = f.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


def wait_until(layout, name, probe, timeout, what=None):
    """Wait until probe() is true while the service's process stays alive."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if probe():
            return
        if not running_pid(layout, name):
            raise StartError(
                "%s exited while starting; last lines of %s:\n%s"
                % (name, layout.log(name), tail(layout.log(name)))
            )
        time.sleep(0.3)
    raise StartError(
        "%s did not become ready (%s) within %ds; last lines of %s:\n%s"
        % (name, what or "probe", timeout, layout.log(name), tail(layout.log(name)))
    )


def run(argv, env=None, logpath=None, check=True, timeout=600, input=None):
    """Run a one-shot command, output to logpath (appended) or captured."""
    full_env = dict(os.environ)
    full_env.pop("PYTHONPATH", None)
    if env:
        full_env.update(env)
    if logpath:
        with open(logpath, "ab") as logf:
            logf.write(("\n==== %s run: %s\n" % (time.strftime("%F %T"), " ".join(argv))).encode())
            logf.flush()
            res = subprocess.run(
                argv, env=full_env, stdout=logf, stderr=subprocess.STDOUT, timeout=timeout,
                input=input.encode() if input else None,
            )
        if check and res.returncode != 0:
            raise StartError(
                "command failed (%d): %s\nlast lines of %s:\n%s"
                % (res.returncode, " ".join(argv), logpath, tail(logpath))
            )
        return res.returncode, ""
    res = subprocess.run(
        argv, env=full_env, capture_output=True, text=True, timeout=timeout, input=input
    )
    if check and res.returncode != 0:
        raise StartError(
            "command failed (%d): %s\n%s%s"
            % (res.returncode, " ".join(argv), res.stdout, res.stderr)
        )
    return res.returncode, res.stdout
