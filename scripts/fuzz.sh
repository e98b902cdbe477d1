#!/usr/bin/env bash
# Builds the libFuzzer targets, the package in Tests/Fuzz (Swift's -sanitize=fuzzer, with
# AddressSanitizer, on the targets and the root package's modules they import), and runs each for
# FUZZ_SECONDS (default 60) from its seed corpus in Tests/Fuzz/corpus, or for FUZZ_RUNS inputs from
# FUZZ_SEED (what `make test` does: short, and the same every time). Inputs found that crash are
# written to .build/fuzz/crashes; keep each as Tests/Fuzz/regressions/<target>/<name>, which every
# run replays first.
# Inputs are at most 4096 bytes, except for rules-engine (8192: a rule set, then a text of up to
# 6,000 characters).
#   scripts/fuzz.sh [target ...]     targets: harm-data http-parser json message-features normalizer rules-engine strings-file
#                                    (default: all)
set -euo pipefail
# Swift's own crash backtracer and AddressSanitizer's report get in each other's way.
export SWIFT_BACKTRACE=enable=no
# When uninstrumented code (vectorscan) smashes its own stack, AddressSanitizer's report of it can
# fail one of its internal checks and die unwinding that stack, before libFuzzer writes the input;
# the fast unwinder lets it get that far. (Changes nothing when the check does not fail.)
export ASAN_OPTIONS=fast_unwind_on_check=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
out=.build/fuzz
mkdir -p "$out/crashes"

# The targets: one executable each in Tests/Fuzz/Sources.
all=()
for dir in Tests/Fuzz/Sources/*/; do all+=("$(basename "$dir")"); done

runs() {   # with FUZZ_RUNS: inputs for the target. The engine compiles a rule set for each input
  # (about 90 a second), so it gets a 25th of the others' count: 4,000 of `make test`'s 100,000,
  # where it found vectorscan's abort on long SOM scans after 929 with seed 1.
  case $1 in
    rules-engine) echo $(( FUZZ_RUNS / 25 > 100 ? FUZZ_RUNS / 25 : 100 )) ;;
    *) echo "$FUZZ_RUNS" ;;
  esac
}

max_len() {   # the longest input libFuzzer makes for the target
  case $1 in
    rules-engine) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

# The root package's modules are built as the root package declares them, with the targets' flags:
# -Xswiftc reaches the Swift code of dependencies too, and -Xcc any C code, so all of it is
# instrumented. -parse-as-library: the targets have no main(), libFuzzer's is linked in.
# -enable-testing: the normalizer's target reads its internal arrays through @testable import.
# (The linker's warnings about AddressSanitizer's local symbols are noise: kept in the log.)
# A build tool killed by a signal (SwiftPM has been seen to segfault while planning the build) is
# not a verdict on the code: that build is tried once more, and the second answer stands.
build() {   # a target, or with none every target at once (the modules build side by side)
  local attempt status
  for attempt in 1 2; do
    status=0
    swift build -c release --package-path Tests/Fuzz --scratch-path .build/fuzz-package ${1:+--product "$1"} \
      -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing \
      -Xcc -fsanitize=fuzzer-no-link,address >"$out/build.log" 2>&1 || status=$?
    [ "$status" -gt 128 ] && [ "$attempt" -eq 1 ] || break
    echo "fuzz: the build was killed by signal $((status - 128)); building again"
  done
  [ "$status" -eq 0 ] ||
    { grep -v "Cannot export local symbol" "$out/build.log" | tail -40; echo "fuzz: ${1:-the fuzz package} does not build (exit $status)"; exit 1; }
}

targets=("$@")
for target in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $target "* ]] || { echo "fuzz: no target $target (${all[*]})" >&2; exit 2; }
done
if [ ${#targets[@]} -eq 0 ]; then
  targets=("${all[@]}")
  echo "== building ${targets[*]}"
  build
else
  for target in "${targets[@]}"; do echo "== building $target"; build "$target"; done
fi
status=0
for target in "${targets[@]}"; do
  # Run as .build/fuzz/<target>, the name the targets' comments give for replaying an input.
  binary=$out/$target
  ln -sf "../fuzz-package/release/$target" "$binary"
  regressions=Tests/Fuzz/regressions/$target
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    echo "== $target: replaying $(ls "$regressions" | wc -l) kept crash inputs"
    "$binary" -runs=1 "$regressions"/* >"$out/$target-regressions.log" 2>&1 ||
      { tail -30 "$out/$target-regressions.log"; echo "fuzz: $target fails on a kept crash input" >&2; status=1; continue; }
  fi
  mkdir -p "$out/corpus/$target"
  if [ -n "${FUZZ_RUNS:-}" ]; then
    budget=(-runs="$(runs "$target")" -seed="${FUZZ_SEED:-1}")
    echo "== fuzzing $target for $(runs "$target") inputs (seed ${FUZZ_SEED:-1})"
  else
    budget=(-max_total_time="$seconds")
    echo "== fuzzing $target for ${seconds}s"
  fi
  touch "$out/$target.started"
  if ! "$binary" "${budget[@]}" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$out/crashes/$target-" "$out/corpus/$target" "Tests/Fuzz/corpus/$target" >"$out/$target.log" 2>&1; then
    tail -40 "$out/$target.log"
    if [ -n "$(find "$out/crashes" -name "$target-*" -newer "$out/$target.started")" ]; then
      echo "fuzz: $target found a crash; the input is in $out/crashes/" >&2
    else
      echo "fuzz: $target found a crash, but the process died before libFuzzer could write the input (see $out/$target.log)" >&2
    fi
    status=1
    continue
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)|cov: " "$out/$target.log" | tail -4
done
exit $status
