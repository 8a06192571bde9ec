#!/bin/sh
# Instructions per verification of every openssl-paths path (valgrind, exact), then the
# best-of-ROUNDS wall time of each (noisy on a shared machine), then the build facts.
#   sh run.sh BINARY [ROUNDS]
# Instructions per op = (count at LOW+EXTRA ops - count at LOW ops) / EXTRA, as
# Scripts/instructions.py does, so process start and set-up cancel out.
set -eu
BIN=$1
ROUNDS=${2:-7}
LOW=5
EXTRA=50
count() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$BIN" run "$1" "$2" 2>&1 \
        | sed -n 's/.*I *refs: *//p' | tr -d ,
}
echo "== instructions per verification (valgrind)"
for name in $("$BIN" list); do
    low=$(count "$name" $LOW)
    high=$(count "$name" $((LOW + EXTRA)))
    printf '%-28s %12.0f\n' "$name" "$(echo "($high - $low) / $EXTRA" | bc -l)"
done
echo "== wall, best of $ROUNDS batches"
"$BIN" wall "$ROUNDS"
echo "== facts"
"$BIN" facts
