#!/usr/bin/env python3
"""Instructions per operation of every CPU-bound row, counted by valgrind: the gate.

    python3 Scripts/instructions.py measure BINARY OUT.json [--jobs 2] [--filter TEXT]
    python3 Scripts/instructions.py check COMMITTED.json CURRENT.json [--tolerance 0.05] [--binary BINARY]
    python3 Scripts/instructions.py table CURRENT.json

`measure` runs each workload of the `InstructionCounts` executable (`list` names them)
twice under `valgrind --tool=cachegrind --cache-sim=no`, with a few iterations and with
many more; the difference of the two instruction totals divided by the difference of
the iteration counts is the cost of one operation, without process start, fixture
set-up or the first call. Wall clocks on a shared two-core machine wander by tens of
percent from run to run; these counts repeat within a fraction of a percent (the
concurrency runtime's thread start-up is the only varying part, and it cancels out).

`check` fails (exit 1) when a Latchkey row's instructions per operation rose by more
than the tolerance against the committed file, or when one of the derived rows did —
the parts of a row that are Latchkey's own code, where a regression is not diluted by
the cryptography:

- `JWT/<alg>/claims`: sig+claims − sig (claims parsing and validation), for HS256,
  RS256 and PS256 (ECDSA and EdDSA verification is too large beside it);
- `JWT/<alg>/overhead`: sig − the raw OpenSSL limit, for the same three (our parsing, base64url, key
  handling around the primitive);
- `Vault/load/2KB/overhead`: load − the by-hand open+read+AES-GCM;
- `Storage/get/layered-warm/2KB/overhead` and `…/layered-cold/…`: the layered store's
  get − the encrypted file's (the same store again; a new store's first read).

The derived rows get twice the tolerance (they are differences of two measured
counts). Valgrind presents the CPU without some instruction-set extensions, so OpenSSL
may take other code paths than natively: the counts are a gate for our code, the
wall-clock tables in results/latest.md say how fast things are.
"""

import concurrent.futures
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks import group_key, row_key, split_name  # noqa: E402

BASE_ITERATIONS = 5
FAST = ("decode", "HS256", "JWKS/", "Vault/decode")


def extra_iterations(name):
    """Enough operations that one op's count is exact to well under 1% (the process's
    thread start-up varies by up to some hundred thousand instructions), within seconds."""
    if any(marker in name for marker in FAST):
        return 2000
    if any(marker in name for marker in ("ES256", "ES384", "EdDSA", "Vault/save")):
        return 50
    # RSA rows: the derived claims row is a difference of two ~330k counts, so each must
    # be exact to a few dozen instructions.
    return 2000


def count(binary, name, iterations):
    env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
    process = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         binary, "run", name, str(iterations)],
        capture_output=True, text=True, env=env, timeout=900)
    match = re.search(r"I\s+refs:\s+([\d,]+)", process.stderr)
    if process.returncode != 0 or not match:
        raise RuntimeError(f"{name} ({iterations} iterations): valgrind exit {process.returncode}\n{process.stderr[-2000:]}")
    return int(match.group(1).replace(",", ""))


def per_operation(binary, name):
    extra = extra_iterations(name)
    low = count(binary, name, BASE_ITERATIONS)
    high = count(binary, name, BASE_ITERATIONS + extra)
    return name, (high - low) / extra


def measure(binary, out, jobs, text_filter):
    names = subprocess.run([binary, "list"], capture_output=True, text=True, check=True).stdout.split()
    names = [n for n in names if text_filter is None or text_filter in n]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for done, (name, value) in enumerate(pool.map(lambda n: per_operation(binary, n), names), 1):
            results[name] = round(value, 1)
            print(f"[{done}/{len(names)}] {name}: {value:,.0f} instructions/op", flush=True)
    with open(out, "w") as handle:
        json.dump(dict(sorted(results.items())), handle, indent=1)
        handle.write("\n")


def rows(results):
    """{group: {row: {"latchkey": x, "limit": (label, x), "peer": (label, x)}}}."""
    groups = {}
    for name, value in results.items():
        parsed = split_name(name)
        if parsed is None:
            continue
        group, row, role, label = parsed
        entry = groups.setdefault(group, {}).setdefault(row, {})
        entry[role] = value if role == "latchkey" else (label, value)
    return groups


def derived(results):
    """The Latchkey-only parts of rows: {name: instructions/op}."""
    out = {}
    for name, value in results.items():
        # Only where the signature is cheap enough that the difference is not noise.
        match = re.fullmatch(r"JWT/(HS256|RS256|PS256)/sig\+claims/latchkey", name)
        if match:
            alg = match.group(1)
            sig = results.get(f"JWT/{alg}/sig/latchkey")
            limit = results.get(f"JWT/{alg}/sig/limit:OpenSSL")
            if sig is not None:
                out[f"JWT/{alg}/claims"] = value - sig
            if sig is not None and limit is not None:
                out[f"JWT/{alg}/overhead"] = sig - limit
    load, by_hand = results.get("Vault/load/2KB/latchkey"), results.get("Vault/load/2KB/limit:open+read+AES-GCM")
    if load is not None and by_hand is not None:
        out["Vault/load/2KB/overhead"] = load - by_hand
    for temperature in ("warm", "cold"):
        layered = results.get(f"Storage/get/layered-{temperature}/2KB/latchkey")
        file = results.get(f"Storage/get/layered-{temperature}/2KB/limit:file")
        if layered is not None and file is not None:
            out[f"Storage/get/layered-{temperature}/2KB/overhead"] = layered - file
    return out


def components(name):
    """The measured rows a checked row is made of (itself, or a derived row's two)."""
    match = re.fullmatch(r"JWT/([^/]+)/(claims|overhead)", name)
    if match:
        alg, part = match.groups()
        if part == "claims":
            return [f"JWT/{alg}/sig+claims/latchkey", f"JWT/{alg}/sig/latchkey"]
        return [f"JWT/{alg}/sig/latchkey", f"JWT/{alg}/sig/limit:OpenSSL"]
    if name == "Vault/load/2KB/overhead":
        return ["Vault/load/2KB/latchkey", "Vault/load/2KB/limit:open+read+AES-GCM"]
    match = re.fullmatch(r"Storage/get/(layered-(?:warm|cold))/2KB/overhead", name)
    if match:
        return [f"Storage/get/{match.group(1)}/2KB/latchkey", f"Storage/get/{match.group(1)}/2KB/limit:file"]
    return [name]


def evaluate(committed, current, tolerance):
    """[(name, old, new, allowed, regressed)] for every checked row."""
    results = []

    def compare(name, old, new, allowed):
        # A small absolute floor: a few instructions of a cheap row are not a regression.
        results.append((name, old, new, allowed, new > old * (1 + allowed) + 50))

    for name in sorted(current):
        if split_name(name) is None or not name.endswith("/latchkey") or name not in committed:
            continue
        compare(name, committed[name], current[name], tolerance)
    old_derived, new_derived = derived(committed), derived(current)
    for name in sorted(new_derived):
        if name in old_derived:
            compare(name, old_derived[name], new_derived[name], 2 * tolerance)
    return results


def check(committed_path, current_path, tolerance, binary=None, retries=2):
    """Compares; a row over its bound is counted again (up to `retries` more times, the
    lowest count kept) before it fails: idle runtime threads that spin under valgrind's
    serialized scheduling only ever add instructions, and once in a few hundred rows a
    burst of them inflates one count (a JWKS lookup once read +43%, then 0.0% three
    times). A real regression repeats."""
    with open(committed_path) as handle:
        committed = json.load(handle)
    with open(current_path) as handle:
        current = json.load(handle)
    results = evaluate(committed, current, tolerance)
    if binary:
        for attempt in range(retries):
            suspects = sorted({part for name, _, _, _, bad in results if bad for part in components(name)})
            if not suspects:
                break
            print(f"counting again (attempt {attempt + 1} of {retries}): {', '.join(suspects)}", flush=True)
            for part in suspects:
                _, value = per_operation(binary, part)
                current[part] = min(current[part], round(value, 1))
            results = evaluate(committed, current, tolerance)
        with open(current_path, "w") as handle:
            json.dump(dict(sorted(current.items())), handle, indent=1)
            handle.write("\n")
    failures = []
    for name, old, new, allowed, bad in results:
        line = f"{'REGRESSED' if bad else 'ok':9} {name}: {new:,.0f} instructions/op (committed {old:,.0f}, {new / old - 1 if old else 0:+.1%})"
        (failures.append if bad else print)(line)
    for name in sorted(current):
        if split_name(name) is not None and name.endswith("/latchkey") and name not in committed:
            print(f"note: new (not in the committed counts): {name}")
    for name in sorted(set(committed) - set(current)):
        print(f"note: not measured in this run: {name}")
    print(f"\n{len(results)} instruction checks, {len(failures)} regressions of more than {tolerance:.0%} ({2 * tolerance:.0%} for derived rows)")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


def table(current_path):
    """A markdown table: instructions per operation and the ratios they give."""
    with open(current_path) as handle:
        current = json.load(handle)
    lines = ["| Group | Row | Latchkey (instr/op) | Limit | ÷ limit | Peer | ÷ peer |", "|---|---|---:|---:|---:|---:|---:|"]
    groups = rows(current)
    for group in sorted(groups, key=group_key):
        limits = {}
        for row in sorted(groups[group], key=row_key):
            entry = groups[group][row]
            if "limit" in entry:
                limits[row[0]] = entry["limit"]
        for row in sorted(groups[group], key=row_key):
            entry = groups[group][row]
            mine = entry.get("latchkey")
            if mine is None:
                continue
            limit = entry.get("limit") or (limits.get(row[0]) if row[-1] == "sig+claims" else None)
            peer = entry.get("peer")
            cells = [group, "/".join(row), f"{mine:,.0f}"]
            cells += [f"{limit[1]:,.0f}", f"{mine / limit[1]:.2f}×"] if limit else ["", ""]
            cells += [f"{peer[1]:,.0f}", f"{mine / peer[1]:.2f}×"] if peer else ["", ""]
            lines.append("| " + " | ".join(cells) + " |")
    print("\n".join(lines))
    return 0


def main(argv):
    options = {}
    args = []
    index = 1
    while index < len(argv):
        if argv[index].startswith("--"):
            options[argv[index][2:]] = argv[index + 1]
            index += 2
        else:
            args.append(argv[index])
            index += 1
    if args[:1] == ["measure"] and len(args) == 3:
        measure(args[1], args[2], int(options.get("jobs", "2")), options.get("filter"))
        return 0
    if args[:1] == ["check"] and len(args) == 3:
        return check(args[1], args[2], float(options.get("tolerance", "0.05")), options.get("binary"))
    if args[:1] == ["table"] and len(args) == 2:
        return table(args[1])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
