#!/usr/bin/env bash
# Builds the libFuzzer targets in Tests/Fuzz (Swift's -sanitize=fuzzer, with AddressSanitizer) and
# runs each for FUZZ_SECONDS (default 60) from its seed corpus in Tests/Fuzz/corpus, or for
# FUZZ_RUNS inputs from FUZZ_SEED (what `make test` does: short, and the same every time). Inputs found
# that crash are written to .build/fuzz/crashes; keep each as Tests/Fuzz/regressions/<target>/<name>,
# which every run replays first.
# Inputs are at most 4096 bytes, except for rules-engine (8192: a rule set, then a text of up to
# 6,000 characters).
#   scripts/fuzz.sh [target ...]     targets: http-parser strings-file normalizer rules-engine (default: all)
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

sources() {   # the module's own sources, then the target
  case $1 in
    http-parser) echo Sources/HTTPServer/*.swift Tests/Fuzz/HTTPParserFuzz.swift ;;
    strings-file) echo Sources/BouncerLocalization/*.swift Sources/BouncerLocalization/Bundled/*.swift Tests/Fuzz/StringsFileFuzz.swift ;;
    normalizer) echo Sources/BouncerModeration/*.swift Tests/Fuzz/NormalizerFuzz.swift ;;
    rules-engine) echo Sources/BouncerModeration/*.swift Tests/Fuzz/RulesEngineFuzz.swift ;;
    *) echo "fuzz: no target $1 (http-parser, strings-file, normalizer, rules-engine)" >&2; exit 2 ;;
  esac
}

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

# The modules the others import (Locking, JSON), each built once for every target.
build_module() {
  mkdir -p "$out/modules"
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "$1" -emit-module -emit-module-path "$out/modules/$1.swiftmodule" \
    -emit-library -static -o "$out/modules/lib$1.a" "Sources/$1"/*.swift >"$out/$1-build.log" 2>&1 ||
    { tail -20 "$out/$1-build.log"; echo "fuzz: the $1 module does not build" >&2; exit 1; }
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(http-parser strings-file normalizer rules-engine)
status=0
build_module Locking
build_module JSON
for target in "${targets[@]}"; do
  binary=$out/$target
  echo "== building $target"
  # shellcheck disable=SC2046
  # (The linker's warnings about AddressSanitizer's local symbols are noise: kept in the log.)
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "Fuzz${target//-/}" \
    -I Sources/CEpoll -I Sources/CVectorscan -I "$out/modules" -L "$out/modules" -lLocking -lJSON $(sources "$target") -o "$binary" >"$out/$target-build.log" 2>&1 ||
    { grep -v "Cannot export local symbol" "$out/$target-build.log" | tail -40; echo "fuzz: $target does not build" >&2; exit 1; }
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
