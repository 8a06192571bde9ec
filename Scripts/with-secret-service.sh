#!/usr/bin/env bash
# Runs a command with a private D-Bus session bus and an unlocked GNOME Keyring (a real
# Secret Service) of its own, then stops both. make test runs the secrets tests under
# it, so the Secret Service store is tested against the real thing.
#
#   Scripts/with-secret-service.sh command [arguments…]
#
# Nothing of the user's is touched: the bus, the keyring's files and its control socket
# live in a temporary directory that is removed afterwards. Where the service cannot be
# started (no dbus-daemon or gnome-keyring installed) the command still runs, and its
# Secret Service tests skip with a warning; under CI=true that is a failure instead.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: $0 command [arguments…]" >&2; exit 64; }

work=$(mktemp -d /tmp/latchkey-secret-service-XXXXXX)
chmod 700 "$work"
mkdir -m 700 "$work/data" "$work/run"
bus_pid=""
keyring_pid=""
cleanup() {
  # TERM first; a daemon busy with a prompt may not stop, so KILL after 5 s.
  for pid in $keyring_pid $bus_pid; do kill "$pid" 2>/dev/null; done
  for _ in $(seq 1 50); do
    alive=""
    for pid in $keyring_pid $bus_pid; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  for pid in $keyring_pid $bus_pid; do kill -9 "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

unavailable() {
  local why=$1
  shift
  if [ "${CI:-}" = true ]; then
    echo "with-secret-service: $why (CI=true: the Secret Service tests must run)" >&2
    exit 1
  fi
  echo "with-secret-service: WARNING: $why; running without a Secret Service (its tests skip)" >&2
  "$@"
}

start() {
  command -v dbus-daemon >/dev/null || { echo "dbus-daemon is not installed (apt-get install dbus-daemon)"; return 1; }
  command -v gnome-keyring-daemon >/dev/null || { echo "gnome-keyring-daemon is not installed (apt-get install gnome-keyring)"; return 1; }
  address="unix:path=$work/bus"
  bus_pid=$(dbus-daemon --session --address="$address" --fork --print-pid) || { echo "dbus-daemon did not start"; return 1; }
  # The keyring keeps its files and control socket in the temporary directory. The
  # password on stdin creates and unlocks the "login" collection, the default one.
  printf '%s' "latchkey-test-password" | env DBUS_SESSION_BUS_ADDRESS="$address" XDG_DATA_HOME="$work/data" \
    XDG_RUNTIME_DIR="$work/run" HOME="$work" gnome-keyring-daemon --foreground --unlock --components=secrets \
    >"$work/keyring.log" 2>&1 &
  keyring_pid=$!
  # Wait (generously: a loaded 2-core machine) until the service owns its bus name.
  for _ in $(seq 1 300); do
    if DBUS_SESSION_BUS_ADDRESS="$address" dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; then
      return 0
    fi
    kill -0 "$keyring_pid" 2>/dev/null || { echo "gnome-keyring-daemon exited: $(tail -n 5 "$work/keyring.log")"; return 1; }
    sleep 0.1
  done
  echo "gnome-keyring-daemon did not take the Secret Service's bus name within 30 s"
  return 1
}

# start runs in this shell (not a $(…) subshell) so cleanup sees the daemons' ids.
if ! start >"$work/why" 2>&1; then
  unavailable "$(cat "$work/why")" "$@"
  exit $?
fi
# In the background so a TERM or INT reaches the traps (and stops the daemons) at once.
DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bus" "$@" &
command_pid=$!
trap 'kill -TERM "$command_pid" 2>/dev/null; exit 143' TERM
trap 'kill -INT "$command_pid" 2>/dev/null; exit 130' INT
wait "$command_pid"
