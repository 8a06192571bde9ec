#!/usr/bin/env bash
# Runs a command with network namespaces for the fleet soak's instances, then removes them.
# make soak-fleet runs the soak under it (outside Scripts/with-postgres.sh, which must
# listen on the address made here).
#
#   Scripts/fleet-network.sh INSTANCES command [arguments…]
#
# For each instance i: a namespace `lkfleet<pid>-<i>` and a veth pair whose host end is
# 10.213.i.1/30 and whose namespace end is 10.213.i.2/30 (the namespace's default route),
# so an instance reaches the database and the emulator over a real link: its own
# interface, its own TCP stack, a link the soak can cut. Everything listens on the first
# pair's host address. The command gets:
#   LATCHKEY_FLEET_NETNS                 the namespaces, space-separated, instance order
#   LATCHKEY_FLEET_LINKS                 their host-side interfaces (cut to drop the link)
#   LATCHKEY_FLEET_HOST_ADDRESS          10.213.0.1: where the database and emulator listen
#   LATCHKEY_TEST_POSTGRES_ALSO_LISTEN   the same, for Scripts/with-postgres.sh
#   LATCHKEY_TEST_POSTGRES_CLIENTS       10.213.0.0/16, the namespaces' addresses
# Where namespaces cannot be made (not root, no `ip`, a kernel without them) the command
# runs without them and the soak says so in its report.
set -uo pipefail
[ $# -gt 1 ] || { echo "usage: $0 INSTANCES command [arguments…]" >&2; exit 64; }
count=$1
shift
prefix="lkfleet$$"
made_namespaces=()
made_links=()
cleanup() {
  local name
  for name in "${made_links[@]}"; do ip link del "$name" >/dev/null 2>&1; done
  for name in "${made_namespaces[@]}"; do ip netns del "$name" >/dev/null 2>&1; done
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

setup() {
  [ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
  command -v ip >/dev/null || { echo "no ip command (iproute2)"; return 1; }
  local i namespace host inside
  for i in $(seq 0 $((count - 1))); do
    namespace="$prefix-$i"
    host="lkf$$h$i"
    inside="lkf$$n$i"
    # Interface names hold 15 bytes at most.
    [ ${#host} -le 15 ] || { host="lkfh$i$RANDOM"; inside="lkfn$i$RANDOM"; }
    ip netns add "$namespace" || { echo "ip netns add failed"; return 1; }
    made_namespaces+=("$namespace")
    ip link add "$host" type veth peer name "$inside" || { echo "cannot make a veth pair"; return 1; }
    made_links+=("$host")
    ip link set "$inside" netns "$namespace" || return 1
    ip addr add "10.213.$i.1/30" dev "$host" || return 1
    ip link set "$host" up || return 1
    ip -n "$namespace" addr add "10.213.$i.2/30" dev "$inside" || return 1
    ip -n "$namespace" link set lo up || return 1
    ip -n "$namespace" link set "$inside" up || return 1
    ip -n "$namespace" route add default via "10.213.$i.1" || return 1
  done
  # The first link's host address must answer from every namespace (a local address of
  # the host: no forwarding needed).
  ip netns exec "$prefix-0" true || { echo "cannot enter a namespace"; return 1; }
}

why_file=$(mktemp)
# setup runs in this shell (not a $(…) subshell) so cleanup sees what it made.
if ! setup >"$why_file" 2>&1; then
  why=$(tr '\n' ' ' <"$why_file")
  rm -f "$why_file"
  echo "fleet-network: WARNING: no network namespaces ($why); the instances share the host's loopback" >&2
  cleanup
  made_namespaces=()
  made_links=()
  LATCHKEY_FLEET_NETWORK_UNAVAILABLE="$why" "$@" &
else
  rm -f "$why_file"
  LATCHKEY_FLEET_NETNS="${made_namespaces[*]}" LATCHKEY_FLEET_LINKS="${made_links[*]}" \
    LATCHKEY_FLEET_HOST_ADDRESS=10.213.0.1 LATCHKEY_TEST_POSTGRES_ALSO_LISTEN=10.213.0.1 \
    LATCHKEY_TEST_POSTGRES_CLIENTS=10.213.0.0/16 "$@" &
fi
command_pid=$!
trap 'kill -TERM "$command_pid" 2>/dev/null; exit 143' TERM
trap 'kill -INT "$command_pid" 2>/dev/null; exit 130' INT
wait "$command_pid"
