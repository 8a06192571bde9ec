#!/usr/bin/env bash
# make test: every test target, each group in a process of its own.
#
# Why groups: the adapter and emulator suites serve HTTP from an in-process emulator on
# Swift's cooperative pool (one thread per core), and the CLI suites wait for child
# processes synchronously. In one process on a 2-core machine the waiting starves the
# emulators and their clients time out. Each group runs in parallel inside its own process.
# A group written `Package:Targets` is another package's (Soak/, built by `make test`).
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

groups=(
  "LatchkeyCryptoTests|LatchkeyJSONTests|LatchkeyJWTTests|LatchkeySecretsTests|LatchkeySwiftConfigurationTests"
  "LatchkeyDocsTests"
  "LatchkeyPostgresTests"
  "LatchkeyTests"
  "LatchkeyEmulatorTests"
  "LatchkeyStytchTests"
  "LatchkeyAuth0Tests"
  "LatchkeySocialPlusTests"
  "LatchkeyHummingbirdTests"
  "LatchkeyAsyncHTTPClientTests"
  "Soak:LatchkeySoakTests"
  "LatchkeyCLITests"
)

# The adapters' groups run a second time on the AsyncHTTPClient transport: their
# harnesses take the transport from LATCHKEY_TEST_TRANSPORT
# (Tests/LatchkeyTransportTestSupport), so every adapter is proven on both transports.
# ADAPTERS_ON_AHC=0 skips the second pass.
TRANSPORT_VARIABLE=LATCHKEY_TEST_TRANSPORT
second_pass=(
  "LatchkeyStytchTests"
  "LatchkeyAuth0Tests"
  "LatchkeySocialPlusTests"
)

# Runs one group (on $transport, when set) and records a failure.
run_group() {
  local group=$1 package=. found target start log status wrap
  if [[ "$group" == *:* ]]; then package=${group%%:*}; group=${group#*:}; fi
  # Skip groups whose test target does not exist (yet).
  found=0
  for target in ${group//|/ }; do [ -d "$package/Tests/$target" ] && found=1; done
  [ "$found" = 1 ] || return
  echo "== ${transport:+$TRANSPORT_VARIABLE=$transport }swift test --package-path $package --filter '^($group)\.'"
  start=$(date +%s)
  log=$(mktemp)
  # A group that hangs (a test waiting for something that never comes) fails after
  # GROUP_TIMEOUT seconds with its log, instead of holding CI until its own limit.
  # The secrets group runs inside a private session bus and GNOME Keyring, so the Secret
  # Service store is tested against the real thing (the script stops both afterwards).
  # It, the PostgreSQL group and the CLI group (the bench's PostgreSQL row) get a private
  # PostgreSQL server each (Scripts/with-postgres.sh).
  wrap=()
  [[ "$group" == *LatchkeySecretsTests* ]] && wrap=(./Scripts/with-postgres.sh ./Scripts/with-secret-service.sh)
  [[ "$group" == *LatchkeyPostgresTests* || "$group" == LatchkeyCLITests ]] && wrap=(./Scripts/with-postgres.sh)
  # Swift Testing's event stream goes to a file record by record (the console log reaches the
  # pipe in blocks), so a group that hangs can name the tests it was still running.
  events=$(mktemp --suffix=.events.jsonl)
  env ${transport:+"$TRANSPORT_VARIABLE=$transport"} \
    timeout --kill-after=30 "${GROUP_TIMEOUT:-900}" "${wrap[@]}" "$SWIFT" test --package-path "$package" --skip-build \
    --filter "^($group)\." --event-stream-output-path "$events" --event-stream-version 0 >"$log" 2>&1
  status=$?
  # 124: timed out and ended by TERM; 137 (128 + KILL): it had to be killed after --kill-after.
  case $status in 124 | 137) report_hang "$log" "$events" ;; esac
  rm -f "$events"
  # The failures and the summary; the whole log when the run itself broke.
  grep -E "^✘|Test run with|error:|Fatal error|Crash" "$log" | head -n 200
  [ "$status" = 0 ] || grep -qE "Test run with" "$log" || tail -n 60 "$log"
  # A failed group also shows what its failures said past their first line (an issue's
  # comments, a child's report): CI's output is all there is to diagnose a rare failure.
  if [ "$status" != 0 ]; then
    echo "-- details of the failures:"
    grep -vE "^(◇|✔)|^\s*$| started\.$| passed after |^Test Suite |Executed [0-9]+ tests|^↳ (Testing Library|Target Platform)" "$log" \
      | grep -vE "^✘ (Suite|Test run)" | head -n 400
  fi
  rm -f "$log"
  echo "   ($(( $(date +%s) - start )) s, exit $status)"
  [ "$status" = 0 ] || failed+=("${transport:+$transport:}$group")
}

# A group that timed out: the tests it started and never ended (from its event stream), the
# threads of its test process (gdb; the toolchain's lldb needs a Python Debian 12 lacks), then
# that process and its children are stopped: the test process runs in a process group of its
# own, which `timeout` does not reach, and would run on beside the next groups.
report_hang() {
  local log=$1 events=$2 pid
  echo "   timed out after ${GROUP_TIMEOUT:-900} s; the log's last lines:"
  tail -n 40 "$log"; echo
  echo "-- tests started and never ended:"
  unfinished_tests "$events"
  for pid in $(pgrep -f -- "--event-stream-output-path $events"); do
    echo "-- threads of the hung test process $pid (frames in our code and the libraries'):"
    timeout 120 gdb -p "$pid" -batch -ex "thread apply all bt 40" 2>/dev/null \
      | grep -E "^Thread |^#[0-9]+ .* at /" | grep -vE "/(nptl|sysdeps)/" | "$SWIFT" demangle --simplified | cut -c1-220 | head -n 500
    pkill -KILL -P "$pid"
    kill -KILL "$pid" 2>/dev/null
  done
}

# The IDs of an event stream's testStarted records that have no testEnded record.
unfinished_tests() {
  sed -nE 's/.*"kind":"(testStarted|testEnded)".*"testID":"([^"]*)".*/\1 \2/p' "$1" \
    | awk '$1 == "testStarted" { open[$2] = 1 } $1 == "testEnded" { delete open[$2] } END { for (id in open) print "   " id }' \
    | sed 's#\\/#/#g' | sort
}

failed=()
transport=
for group in "${groups[@]}"; do run_group "$group"; done
if [ "${ADAPTERS_ON_AHC:-1}" = 1 ]; then
  transport=async-http-client
  for group in "${second_pass[@]}"; do run_group "$group"; done
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test groups passed"
