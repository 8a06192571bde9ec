#!/usr/bin/env bash
# `make bench-cli`: the `latchkey` CLI as a whole process, as scripts call it once per
# token — CPU time (user + system, hyperfine's means) and peak memory (the largest
# maximum resident set of RUNS_RSS runs, GNU time) of `verify` and `inspect` of an ES256
# token and `session token` against the emulator, beside Debian's `jose` (a C JOSE tool)
# verifying the same token with the same key. Prints a Markdown table and writes it
# between the `bench-cli` markers of Benchmarks/README.md.
#
#   Benchmarks/Scripts/cli-startup.sh              (builds the release binaries first, as `make install` does)
#   BIN=path/to/latchkey RUNS=100 Benchmarks/Scripts/cli-startup.sh
#
# BIN is the launcher; latchkey-jwt (inspect, verify), latchkey-token (session token) and latchkey-full
# (the rest) are beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT=${SWIFT:-swift}
RUNS=${RUNS:-60}
RUNS_RSS=${RUNS_RSS:-10}
for tool in hyperfine jose /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "cli-startup: $tool is not installed (make bench-cli installs hyperfine, jose and time)" >&2; exit 1; }
done
if [ -z "${BIN:-}" ]; then
  make -s --no-print-directory build-release >&2
  BIN=$(make -s --no-print-directory print-release-bin)
fi
tools=$(dirname "$BIN")
for tool in latchkey-jwt latchkey-token latchkey-full; do
  [ -x "$tools/$tool" ] || { echo "cli-startup: no $tool beside $BIN (make build-release builds all three)" >&2; exit 1; }
done
# The release CLI is built without the URLSession trait: libcurl must not be loaded.
if readelf -d "$tools/latchkey-full" | grep -q 'libcurl'; then
  echo "cli-startup: latchkey-full links libcurl (built with the package's URLSession trait?)" >&2
  exit 1
fi

work=$(mktemp -d)
emulator_pid=
cleanup() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
export XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config XDG_CACHE_HOME=$work/cache

# An ES256 key and token; jose reads the same public JWK.
"$BIN" keygen --alg ES256 --format jwk --kid bench --out "$work/key" >/dev/null 2>&1
echo '{"sub":"alice","iss":"https://issuer.example/","aud":"api","exp":4102444800}' >"$work/claims.json"
"$BIN" sign --key "$work/key" --alg ES256 --payload-file "$work/claims.json" | tr -d '\n' >"$work/token"
token=$(cat "$work/token")
jose jws ver -i "$work/token" -k "$work/key.pub.json" || { echo "cli-startup: jose refuses the token" >&2; exit 1; }

# A Stytch session in the emulator, in a file store of the work directory.
mkfifo "$work/emulator.out"
"$BIN" emulator --providers stytch --print-config stytch >"$work/emulator.out" 2>/dev/null &
emulator_pid=$!
read -r config <"$work/emulator.out"
python3 - "$config" "$work/latchkey.json" <<'EOF'
import json, sys
config = json.loads(sys.argv[1])
config["store"] = {"backend": "file", "namespace": "bench-cli"}
open(sys.argv[2], "w").write(json.dumps(config))
EOF
"$BIN" session login --config "$work/latchkey.json" --email alice@example.com --password-stdin <<<"alice-password-1" >/dev/null
"$BIN" session token --config "$work/latchkey.json" >/dev/null

# COUNT=FILE (`make bench-check`): the counts that repeat instead of timings
# (Scripts/cli_counts.py), of copies without debug information (valgrind 3.19 cannot read
# the toolchain's DWARF 5) in a directory without latchkey-full: `session token` must be
# answered by latchkey-token itself.
if [ -n "${COUNT:-}" ]; then
  mkdir -p "$work/counted"
  for tool in latchkey-jwt latchkey-token; do strip --strip-debug -o "$work/counted/$tool" "$tools/$tool"; done
  python3 Benchmarks/Scripts/cli_counts.py measure "$COUNT" \
    "jose verify=jose jws ver -i $work/token -k $work/key.pub.json" \
    "latchkey verify=$work/counted/latchkey-jwt verify --key $work/key.pub.json $token" \
    "latchkey inspect=$work/counted/latchkey-jwt inspect $token" \
    "latchkey session token=$work/counted/latchkey-token session token --config $work/latchkey.json"
  exit 0
fi

commands=(
  "jose verify|jose jws ver -i $work/token -k $work/key.pub.json"
  "latchkey verify|$BIN verify --key $work/key.pub.json $token"
  "latchkey inspect|$BIN inspect $token"
  "latchkey session token|$BIN session token --config $work/latchkey.json"
)
for entry in "${commands[@]}"; do
  name=${entry%%|*} command=${entry#*|}
  hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$work/$name.json" "$command" >/dev/null 2>&1 ||
    { echo "cli-startup: '$name' failed" >&2; $command; exit 1; }
  peak=0
  for _ in $(seq "$RUNS_RSS"); do
    /usr/bin/time -f "%M" -o "$work/time.out" $command >/dev/null 2>&1
    kb=$(tail -n 1 "$work/time.out")
    [ "$kb" -gt "$peak" ] && peak=$kb
  done
  echo "$peak" >"$work/$name.rss"
done

table=$(python3 - "$work" "$BIN" "$RUNS" <<'EOF'
import json, os, sys
work, binary, runs = sys.argv[1], sys.argv[2], sys.argv[3]
names = ["jose verify", "latchkey verify", "latchkey inspect", "latchkey session token"]
rows = {}
for name in names:
    result = json.load(open(os.path.join(work, name + ".json")))["results"][0]
    cpu = (result["user"] + result["system"]) * 1000
    rows[name] = (cpu, result["mean"] * 1000, int(open(os.path.join(work, name + ".rss")).read()) / 1024)
reference = rows["jose verify"][0]
print(f"`make bench-cli`: {runs} runs each (hyperfine -N, 5 warm-up runs); peak memory: the largest of the")
sizes = ", ".join(f"`{tool}` {os.path.getsize(os.path.join(os.path.dirname(binary), tool)) / 1e6:.0f} MB" for tool in ["latchkey", "latchkey-jwt", "latchkey-token", "latchkey-full"])
print(f"GNU time maximum resident sets; binaries: {sizes}. Target: CPU ≤ 2× `jose`'s verify, peak < 20 MiB.")
print()
print("| command | CPU (user + sys) | ÷ jose verify | wall | peak memory | target |")
print("|---|---:|---:|---:|---:|---|")
for name in names:
    cpu, wall, rss = rows[name]
    if name == "jose verify":
        verdict = "reference"
    else:
        verdict = "met" if cpu <= 2 * reference and rss < 20 else "**missed**"
    print(f"| `{name}` | {cpu:.2f} ms | {cpu / reference:.2f}× | {wall:.2f} ms | {rss:.1f} MiB | {verdict} |")
EOF
)
echo "$table"
python3 - Benchmarks/README.md "$table" <<'EOF'
import sys
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
begin, end = "<!-- bench-cli -->", "<!-- /bench-cli -->"
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    open(path, "w").write(head + begin + "\n" + table + "\n" + end + tail)
EOF
