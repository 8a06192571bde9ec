#!/usr/bin/env bash
# Runs libFuzzer targets one after another for SECONDS each and prints one line per
# target: executions, coverage (cov = edges, ft = features), corpus, time, result.
#
#   Scripts/run-fuzzers.sh BIN_DIR SECONDS TARGET...
#
# Each run starts from a scratch copy of Corpus/<target>/ (plus Regressions/<target>/)
# in .build/fuzz-work/, so new inputs never bloat the repository; a crash, leak or
# timeout leaves its input in .build/fuzz-work/artifacts/ and fails the script.
# Dictionaries/<target>.dict, when there is one, is passed with -dict=.
# RSS_LIMIT_MB, TIMEOUT (seconds per input) and FUZZ_ARGS tune libFuzzer; FUZZ_WORK
# moves the scratch folder (for long runs beside `make fuzz-ci`).
set -uo pipefail
cd "$(dirname "$0")/.."
bin="$1"; seconds="$2"; shift 2
rss_limit="${RSS_LIMIT_MB:-2048}"
timeout="${TIMEOUT:-30}"
work="${FUZZ_WORK:-.build/fuzz-work}"
mkdir -p "$work/artifacts" "$work/logs"
# The Swift runtime's backtracer would race ASan's report; libFuzzer needs ASan's.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/lsan.supp:print_suppressions=0}"
summary=()
failed=0
for target in "$@"; do
  corpus="$work/corpus/$target"
  rm -rf "$corpus"; mkdir -p "$corpus"
  cp Corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  [ -d Regressions/"$target" ] && cp Regressions/"$target"/* "$corpus"/ 2>/dev/null
  log="$work/logs/$target.log"
  echo "== $target: ${seconds}s from $(ls "$corpus" | wc -l) seeds (log: Fuzz/$log)"
  start=$(date +%s)
  dict=(); [ -f Dictionaries/"$target".dict ] && dict=(-dict=Dictionaries/"$target".dict)
  "$bin/$target" -max_total_time="$seconds" -rss_limit_mb="$rss_limit" -timeout="$timeout" \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/artifacts/$target-" "${dict[@]}" \
    ${FUZZ_ARGS:-} "$corpus" > "$log" 2>&1
  status=$?
  elapsed=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
  result=ok
  if [ "$status" -ne 0 ]; then
    result="FAILED (exit $status): $(grep -m1 -E 'ERROR: |Fatal error|fuzz invariant|==[0-9]+== ' "$log" | cut -c1-160)"
    grep -E 'Test unit written|artifact' "$log" | tail -2
    failed=1
  fi
  summary+=("$(printf '%-18s %12s %7s %7s %6s %6ss  %s' "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$elapsed" "$result")")
done
echo
printf '%-18s %12s %7s %7s %6s %7s  %s\n' target executions cov ft corpus time result
printf '%s\n' "${summary[@]}"
exit $failed
