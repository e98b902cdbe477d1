"""Allocations a send, from heaptrack's stacks (`heaptrack_print -F STACKS --flamegraph-cost-type
allocations`: one line a stack, frames from the outermost, then its count).
Usage: allocation-sites.py STACKS SENDS LABEL [SITES]
Prints LABEL's allocations a send; with SITES > 0, that many sites that allocate most, each as
the innermost frame in Bouncer's own code and the frame it called, per send."""
import collections
import re
import subprocess
import sys

stacks_path, sends, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sites_wanted = int(sys.argv[4]) if len(sys.argv) > 4 else 0
# The modules of Bouncer's own code, as Swift's mangling spells them.
OWN = re.compile(r"\d+(Bouncer[A-Za-z]+|HTTPServer|JSON|Locking|bouncer)\d")

total = 0
by_site = collections.Counter()
with open(stacks_path, errors="replace") as stacks:
    for line in stacks:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not count.isdigit():
            continue
        total += int(count)
        if sites_wanted:
            frames = [frame.split(" (")[0] for frame in stack.split(";") if frame]
            own = [index for index, frame in enumerate(frames) if OWN.search(frame)]
            if own:
                inner = own[-1]
                by_site[tuple(frames[inner:inner + 2])] += int(count)
            else:
                by_site[("(outside Bouncer's code)",)] += int(count)

print(f"{label}: {sends} sends, {total / max(sends, 1):.1f} allocations a send")
if sites_wanted:
    names = sorted({frame for site in by_site for frame in site})
    mangled = [("$" + name) if re.match(r"s\d", name) else name for name in names]
    demangled = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(mangled),
                               capture_output=True, text=True).stdout.split("\n")
    readable = {name: demangled[index] if index < len(demangled) and demangled[index] else name
                for index, name in enumerate(names)}
    for site, count in by_site.most_common(sites_wanted):
        print(f"  {count / max(sends, 1):5.2f}  " + "  ->  ".join(readable[frame][:90] for frame in site))
