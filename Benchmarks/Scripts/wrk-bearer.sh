#!/usr/bin/env bash
# One route behind Latchkey's BearerAuthenticator and the same route behind jwt-kit
# (hummingbird-auth's JWT example shape), both in one process, both verifying the same
# RS256 Auth0 access token from the emulator; wrk against each with the same threads,
# connections and duration, in the order A B B A so that a drift in the machine's load
# falls on both. Prints a Markdown table and the ratio.
#
#   Benchmarks/Scripts/wrk-bearer.sh          (builds LoopbackLoad in release first)
#   BUILD=0 THREADS=2 CONNECTIONS=32 DURATION=15s Benchmarks/Scripts/wrk-bearer.sh
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-15s}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
[ "${BUILD:-1}" = 1 ] && swift build -c release --product LoopbackLoad >&2
bin=$(swift build -c release --show-bin-path)/LoopbackLoad

coproc SERVER { exec "$bin" bearer; }
trap 'exec {SERVER[1]}>&- 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT
latchkey= jwtkit= token=
while [ -z "$latchkey" ] || [ -z "$jwtkit" ] || [ -z "$token" ]; do
  read -r kind value <&"${SERVER[0]}" || { echo "LoopbackLoad bearer did not start"; exit 1; }
  case "$kind" in LATCHKEY) latchkey=$value ;; JWTKIT) jwtkit=$value ;; TOKEN) token=$value ;; esac
done
auth=("-H" "Authorization: Bearer $token")
for url in "$latchkey" "$jwtkit"; do
  status=$(curl -s -o /dev/null -w '%{http_code}' "${auth[@]}" "$url")
  [ "$status" = 200 ] || { echo "$url answered $status to the token"; exit 1; }
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$url")" = 401 ] || { echo "$url accepted no token"; exit 1; }
done

run() {  # name url → "name requests/s p99-ms"
  local out rps p99
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "${auth[@]}" "$2")
  grep -qE "Non-2xx|Socket errors" <<<"$out" && { echo "$1: errors under load:" >&2; echo "$out" >&2; }
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; print v}' <<<"$out")
  echo "$1 $rps $p99"
}

# Warm-up (JWKS fetched, connections and caches warm), not counted.
wrk -t"$THREADS" -c"$CONNECTIONS" -d3s "${auth[@]}" "$latchkey" >/dev/null
wrk -t"$THREADS" -c"$CONNECTIONS" -d3s "${auth[@]}" "$jwtkit" >/dev/null
results=()
results+=("$(run latchkey "$latchkey")")
results+=("$(run jwt-kit "$jwtkit")")
results+=("$(run jwt-kit "$jwtkit")")
results+=("$(run latchkey "$latchkey")")

echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| route | run | requests/s | p99 ms |"
echo "|---|---:|---:|---:|"
n=0
for r in "${results[@]}"; do n=$((n+1)); set -- $r; echo "| $1 | $n | $2 | $3 |"; done
printf '%s\n' "${results[@]}" | awk '
  { sum[$1] += $2; count[$1]++ }
  END {
    l = sum["latchkey"] / count["latchkey"]; j = sum["jwt-kit"] / count["jwt-kit"]
    printf "\nmean requests/s: latchkey %.0f, jwt-kit %.0f; ratio latchkey / jwt-kit = %.2f\n", l, j, l / j
  }'
