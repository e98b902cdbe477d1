#!/usr/bin/env bash
# Runs a test step with a time limit, so that a step that hangs fails early with what it was doing
# instead of holding the whole run until the run's own limit ends it with nothing to show.
#   scripts/time-limit.sh SECONDS COMMAND [ARGUMENT ...]
# Past SECONDS it prints the step's processes (everything the command started, in a session of
# its own, orphans included) and every thread's stack of each Swift test runner among them (gdb),
# then, last (a CI log may keep only its end), the Swift tests that started and had not ended and
# where the runner's threads were in the tests' code; it ends the session and exits 124.
# Otherwise it exits with the command's status.
# Swift Testing's line for each test that starts or passes stays out of what it prints (kept for
# the report): a run has thousands, and a CI log that keeps only so much would lose the rest to
# them. Failures, suites' results and each run's summary are printed.
set -uo pipefail
limit=$1
shift
[[ $limit =~ ^[0-9]+$ ]] || { echo "time-limit: SECONDS must be a whole number, not '$limit'" >&2; exit 2; }

quieter() {   # the output less each "◇ ... started." and "✔ Test ... passed" (an argument may span lines)
  awk 'within { if (/ (started|seconds)\.$/) within = 0; next }
       /^◇ Test run / || /^✔ Test run / { print; fflush(); next }
       /^◇ (Test|Suite) / || /^✔ Test / { if (!/ (started|seconds)\.$/) within = 1; next }
       { print; fflush() }'
}

# A session of its own: the step and whatever it starts (services, databases, browsers) can be
# found and ended as one, even those whose parent has gone.
output=$(mktemp "${TMPDIR:-/tmp}/time-limit.XXXXXX")
setsid "$@" > >(tee "$output" | quieter) 2>&1 &
step=$!
end_session() {   # every process of the session: Foundation starts each child in a group of its own
  pkill -TERM -s "$step" 2>/dev/null
  for _ in $(seq 50); do pgrep -s "$step" >/dev/null || return 0; sleep 0.2; done
  pkill -KILL -s "$step" 2>/dev/null
}
# Interrupted (Ctrl-C, or the run's own limit): the session is not in the terminal's foreground
# group, so it is ended here.
trap 'end_session; rm -f "$output" "$output".*; exit 130' INT TERM

stacks() {   # every thread's stack of process $1
  if ! command -v gdb >/dev/null; then
    echo "(gdb is not installed: no stacks)"
    return
  fi
  timeout 120 gdb -p "$1" -batch -ex "thread apply all bt 40" 2>/dev/null |
    if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi
}

unfinished_tests() {   # Swift Testing's "◇ Test X started." without a "✔/✘ Test X ..." after it
  sed -n 's/^◇ Test \(.*\) started\.$/\1/p' "$output" | sort -u | while IFS= read -r name; do
    grep -qE "^(✔|✘) Test $(printf '%s' "$name" | sed 's/[][\.*^$()+?{}|]/\\&/g') (passed|failed|with)" "$output" ||
      echo "  $name"
  done
}

test_frames() {   # each thread of a gdb dump as the frames of its stack in the tests' code, counted
  awk '/^Thread / { if (chain != "") print chain; chain = ""; last = ""; depth = 0 }
       / at \/.*\/Tests\/[^ ]*:[0-9]+$/ { n = split($NF, parts, "/"); frame = parts[n]
                                          if (frame == last || depth == 5) next
                                          last = frame; depth++
                                          chain = chain == "" ? frame : chain " < " frame }
       END { if (chain != "") print chain }' "$1" | sort | uniq -c | sort -rn | head -20
}

report() {
  local runners
  runners=$(ps -s "$step" -o pid=,args= | awk '$2 ~ /\.xctest$/ {print $1}')
  echo "time-limit: still running after ${limit} s: $*"
  echo "time-limit: its processes:"
  ps -s "$step" -o pid,ppid,etimes,stat,args --forest
  for pid in $runners; do
    echo "time-limit: the threads of test runner $pid:"
    stacks "$pid" | tee "$output.$pid"
  done
  echo "time-limit: the tests that started and had not ended:"
  unfinished_tests
  for pid in $runners; do
    echo "time-limit: test runner $pid's threads in the tests' code (innermost frame first):"
    test_frames "$output.$pid"
  done
  echo "time-limit: still running after ${limit} s: $*"
}

# The watcher: sleeps out the limit unless the step ends first (then it is stopped, and exits 0);
# past the limit it reports, ends the session and exits 124, and can no longer be stopped.
(
  trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  sleep "$limit" &
  sleeper=$!
  wait "$sleeper"
  trap '' TERM
  report "$@" >&2
  end_session
  exit 124
) &
watcher=$!

wait "$step"
status=$?
kill -TERM "$watcher" 2>/dev/null
wait "$watcher"
fired=$?
wait   # for the last process substitution too, until it has passed on the step's last output
rm -f "$output" "$output".*
[ $fired -eq 124 ] && exit 124
exit "$status"
