#!/usr/bin/env python3
"""Reads `perf report --children` of the server under the send bench and prints the send path's
budget: each stage's inclusive share of the server's samples, and that share of the server's CPU
time a send in µs. A stage is the functions that are its entry points (their callees count in
it); neither the stages nor a stage's entry points call one another, and what falls in none of
them (the event loop's own work, routing, scheduling, the runtime outside them) is the rest.

    send-budget.py REPORT CPU_US_A_SEND"""
import re
import subprocess
import sys

# Stage, and the patterns of its entry points in demangled symbols (kernel symbols as they are).
STAGES = [
    ("socket reads (kernel)", [r"__x64_sys_recvfrom", r"__x64_sys_read$", r"__x64_sys_readv"]),
    ("socket writes (kernel)", [r"__x64_sys_sendto", r"__x64_sys_write$", r"__x64_sys_writev", r"__x64_sys_sendmsg"]),
    ("event loop waits and wakes (kernel)", [r"__x64_sys_epoll_wait", r"__x64_sys_epoll_ctl", r"__x64_sys_futex", r"__x64_sys_eventfd"]),
    ("HTTP parse", [r"HTTPRequestParser\.next\("]),
    ("token check", [r"Authenticator\.identity"]),
    ("JSON body", [r"SendInput\.init"]),
    ("normalization", [r"NormalizedText\.init"]),
    ("matching (vectorscan)", [r"^hs_scan", r"hs_scan_vector"]),
    ("rate rules", [r"RateRules\.judgeSend", r"RateRules\.judgeAlone"]),
    ("events and statistics", [r"MessageEvents\.ofSend", r"RuleHits\.count", r"EventLog\.append", r"Metrics\.add"]),
    # Statements, and the commits' writes and syncs inside them.
    ("store: SQLite, its writes and syncs", [r"^sqlite3_step", r"^sqlite3_prepare", r"^sqlite3_bind", r"^sqlite3_reset"]),
    ("response JSON", [r"MessageJSON\.json", r"MessageJSON\.write"]),
    ("response serialization", [r"ResponseSerializer\.serialize"]),
    ("access log and request metrics", [r"Logger\.request", r"Metrics\.requestCompleted"]),
]

LINE = re.compile(r"^\s*([\d.]+)%\s+([\d.]+)%\s+\[([.k])\]\s+(.+?)\s*$")


def main():
    report, cpu = sys.argv[1], float(sys.argv[2])
    rows = []
    with open(report, errors="replace") as lines:
        for line in lines:
            match = LINE.match(line)
            if match:
                rows.append((float(match.group(1)), match.group(4)))
    names = [name for _, name in rows]
    demangled = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    if len(demangled) != len(names):
        demangled = names
    totals = {}
    for stage, patterns in STAGES:
        # Each pattern's largest share (its outermost match: a recursive or overloaded function
        # is counted once), summed over the stage's patterns, which do not call one another.
        totals[stage] = sum(max((children for (children, _), symbol in zip(rows, demangled) if re.search(pattern, symbol)), default=0.0)
                            for pattern in patterns)
    counted = sum(totals.values())
    print(f"{'stage':40} {'share':>7} {'µs a send':>10}")
    for stage, _ in STAGES:
        print(f"{stage:40} {totals[stage]:6.1f}% {totals[stage] / 100 * cpu:10.1f}")
    print(f"{'the rest (loop, runtime, scheduling)':40} {max(0.0, 100 - counted):6.1f}% {max(0.0, 100 - counted) / 100 * cpu:10.1f}")
    print(f"{'all of the server':40} {100:6.1f}% {cpu:10.1f}")


if __name__ == "__main__":
    main()
