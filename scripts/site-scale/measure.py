#!/usr/bin/env python3
"""Run a command and report its wall time and memory (scripts/site-scale).

    measure.py LABEL OUT.json -- command args...

Samples every 20 ms the resident set of the command's whole process tree
(/proc: the command and every descendant, summed), and writes one JSON
object: wall seconds, CPU seconds (user + system, the command and its
waited-for descendants: less sensitive than wall time to other load on the
machine), the tree's peak RSS, the command's own peak RSS
(getrusage of the process itself, exact), and, while a descendant named
hugo runs, the largest RSS of the command itself and of the tree then
(did the caller's heap stay resident while Hugo ran?). Exits with the
command's status. Standard library only.
"""
import json
import os
import subprocess
import sys
import threading
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def tree(root):
    """Returns {pid: (comm, rss_bytes)} of root and its descendants."""
    children, info = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            with open(f"/proc/{d}/statm") as f:
                rss = int(f.read().split()[1]) * PAGE
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(d))
        info[int(d)] = (comm, rss)
    out, todo = {}, [root]
    while todo:
        p = todo.pop()
        if p in info:
            out[p] = info[p]
        todo.extend(children.get(p, []))
    return out


def main():
    label, out = sys.argv[1], sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    start = time.monotonic()
    proc = subprocess.Popen(cmd)
    peak = {"tree": 0, "root_during_hugo": 0, "tree_during_hugo": 0, "hugo": 0}
    done = threading.Event()

    def sample():
        while not done.is_set():
            t = tree(proc.pid)
            total = sum(r for _, r in t.values())
            peak["tree"] = max(peak["tree"], total)
            hugo = [r for c, r in t.values() if c.startswith("hugo")]
            if hugo:
                peak["hugo"] = max(peak["hugo"], max(hugo))
                peak["root_during_hugo"] = max(peak["root_during_hugo"], t.get(proc.pid, ("", 0))[1])
                peak["tree_during_hugo"] = max(peak["tree_during_hugo"], total)
            time.sleep(0.02)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    done.set()
    th.join()
    code = os.waitstatus_to_exitcode(status)
    rec = {"label": label, "wall_s": round(wall, 3), "cpu_s": round(ru.ru_utime + ru.ru_stime, 3), "exit": code,
           "peak_rss_mib": round(ru.ru_maxrss / 1024, 1),
           "peak_tree_rss_mib": round(peak["tree"] / 2**20, 1),
           "hugo_peak_rss_mib": round(peak["hugo"] / 2**20, 1),
           "root_rss_during_hugo_mib": round(peak["root_during_hugo"] / 2**20, 1),
           "tree_rss_during_hugo_mib": round(peak["tree_during_hugo"] / 2**20, 1)}
    with open(out, "a") as f:
        f.write(json.dumps(rec) + "\n")
    print(json.dumps(rec), file=sys.stderr)
    sys.exit(code)


if __name__ == "__main__":
    main()
