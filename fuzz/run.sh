#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, one after another, on the
# committed corpus in fuzz/corpus/<target>; new inputs go to WORK/<target> (default: a
# temporary directory), so the checkout is left as it was. Prints one summary line per
# target: executions, seconds, corpus size. Exits non-zero on the first crash, leak,
# timeout or out-of-memory (libFuzzer's artifact lands in fuzz/artifacts/<target>/).
#
#   fuzz/run.sh SECONDS [target...]        e.g. fuzz/run.sh 30;  WORK=/tmp/fw fuzz/run.sh 600 blif
#
# Needs cargo-fuzz; on a stable toolchain it runs with RUSTC_BOOTSTRAP=1 (cargo-fuzz uses
# nightly-only sanitizer flags).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz/run.sh SECONDS [target...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(csv pla pla_gz blif aiger model_json specs idx)
fi
work=${WORK:-$(mktemp -d)}
export RUSTC_BOOTSTRAP=1
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  log="$work/$t.log"
  if ! cargo fuzz run -O "$t" "$work/$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz target $t FAILED (log: $log)"
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
  corpus=$(find "$work/$t" "fuzz/corpus/$t" -type f | wc -l)
  echo "fuzz $t: ${runs:-?} executions in ${seconds}s, peak RSS ${peak:-?} MB, corpus $corpus files (committed $(ls "fuzz/corpus/$t" | wc -l))"
done
