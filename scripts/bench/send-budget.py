#!/usr/bin/env python3
"""Reads `perf report --children` of the server under the send bench and prints the send path's
budget: each stage's inclusive share of the server's samples, and that share of the server's CPU
time a send in µs. A stage is the functions that are its entry points (their callees count in
it); neither the stages nor a stage's entry points call one another, and what falls in none of
them (the event loop's own work, routing, scheduling, the runtime outside them) is the rest.

    send-budget.py REPORT CPU_US_A_SEND"""
import re
import sys

# Stage, and the patterns of its entry points: Swift's mangled names (stable across builds, and
# unambiguous where a demangled one is not), C and kernel symbols as they are.
STAGES = [
    ("socket reads (kernel)", [r"\] ksys_read$", r"__x64_sys_recvfrom"]),
    ("socket writes (kernel)", [r"__x64_sys_sendto", r"\] ksys_write$", r"__x64_sys_writev"]),
    ("event loop waits and wakes (kernel)", [r"__x64_sys_epoll_wait", r"__x64_sys_epoll_ctl", r"__x64_sys_futex"]),
    ("HTTP parse", [r"HTTPRequestParserV4step"]),
    ("token check", [r"AuthenticatorV8identity"]),
    ("JSON body", [r"MessagesRoutes[CV]9SendInputVyAE10HTTPServer7RequestVAF9HTTPErrorVYKcfC"]),
    ("normalization", [r"NormalizedTextVyACSScfC$"]),
    ("matching (vectorscan)", [r"hs_scan$"]),
    # The whole check, less the two stages inside it above.
    ("rules: the verdict and the rest of the check", [r"CompiledRuleSetC5check_7channel6sender"]),
    ("rate rules", [r"RateRules.*judge"]),
    ("events and statistics", [r"MessageEventsV6ofSend", r"RuleHitsC5count", r"MetricsC3add"]),
    # The writer's thread: statements, the event log's rows, the commit's writes and syncs.
    ("store: group commit (SQLite, writes, syncs)", [r"DatabaseWriterC5drain"]),
    ("response JSON", [r"MessageJSONV5write", r"MessageJSONV_3for6choice"]),
    ("response serialization", [r"ResponseSerializerO9serialize"]),
    ("access log and request metrics", [r"buildApplication.*AccessLogEntry"]),
]

LINE = re.compile(r"^\s*([\d.]+)%\s+([\d.]+)%\s+\[([.k])\]\s+(.+?)\s*$")


def main():
    report, cpu = sys.argv[1], float(sys.argv[2])
    rows = []
    with open(report, errors="replace") as lines:
        for line in lines:
            match = LINE.match(line)
            if match:
                # The kind of symbol ([k] kernel, [.] user) is kept with its name.
                # (A wide report pads the name and adds columns after it.)
                name = re.split(r"\s{2,}", match.group(4))[0]
                rows.append((float(match.group(1)), f"[{match.group(3)}] {name}"))
    symbols = [name for _, name in rows]
    totals = {}
    for stage, patterns in STAGES:
        # Each pattern's largest share (its outermost match: a recursive or overloaded function
        # is counted once), summed over the stage's patterns, which do not call one another.
        totals[stage] = sum(max((children for children, symbol in rows if re.search(pattern, symbol)), default=0.0)
                            for pattern in patterns)
    totals["rules: the verdict and the rest of the check"] = max(
        0.0, totals["rules: the verdict and the rest of the check"] - totals["normalization"] - totals["matching (vectorscan)"])
    counted = sum(totals.values())
    width = max(len(stage) for stage, _ in STAGES) + 2
    print(f"{'stage':{width}} {'share':>7} {'µs a send':>10}")
    for stage, _ in STAGES:
        print(f"{stage:{width}} {totals[stage]:6.1f}% {totals[stage] / 100 * cpu:10.1f}")
    rest = max(0.0, 100 - counted)
    print(f"{'the rest (routing, loop, runtime, Dispatch)':{width}} {rest:6.1f}% {rest / 100 * cpu:10.1f}")
    print(f"{'all of the server':{width}} {100:6.1f}% {cpu:10.1f}")


if __name__ == "__main__":
    main()
