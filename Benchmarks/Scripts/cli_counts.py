#!/usr/bin/env python3
"""The CLI's start-up as counts that repeat: the gate of `make bench-check` for `make bench-cli`.

Wall and CPU times of a 10 ms process wander by 20% between runs on a shared machine;
what a whole process executes in user space (valgrind's instruction count) and the page
faults it takes (GNU time's minor faults) repeat within a fraction of a percent. A
regression of the start-up — a library linked back in, a thread started, a command handed
to `latchkey-full` — moves them.

  cli_counts.py measure OUT.json NAME=COMMAND...   count each command (exit 0 required)
  cli_counts.py check COMMITTED.json CURRENT.json --tolerance T
"""
import json
import re
import shlex
import subprocess
import sys


def count(command):
    """(instructions, minor page faults) of one run of `command`, which must succeed."""
    arguments = shlex.split(command)
    process = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"] + arguments,
        capture_output=True, text=True)
    if process.returncode != 0:
        raise SystemExit(f"cli_counts: `{command}` exited {process.returncode} under valgrind:\n{process.stderr[-2000:]}")
    match = re.search(r"I\s+refs:\s+([\d,]+)", process.stderr)
    if not match:
        raise SystemExit(f"cli_counts: no instruction count from valgrind for `{command}`")
    instructions = int(match.group(1).replace(",", ""))
    faults = []
    for _ in range(3):
        timed = subprocess.run(["/usr/bin/time", "-f", "%R"] + arguments, capture_output=True, text=True)
        if timed.returncode != 0:
            raise SystemExit(f"cli_counts: `{command}` exited {timed.returncode}:\n{timed.stderr[-2000:]}")
        faults.append(int(timed.stderr.strip().splitlines()[-1]))
    return instructions, min(faults)


def measure(out, entries):
    counts = {}
    for entry in entries:
        name, command = entry.split("=", 1)
        instructions, faults = count(command)
        counts[name] = {"instructions": instructions, "page_faults": faults}
        print(f"{name}: {instructions:,} instructions, {faults} page faults", flush=True)
    with open(out, "w") as handle:
        json.dump(counts, handle, indent=1, sort_keys=True)
        handle.write("\n")


def check(committed_path, current_path, tolerance):
    """Instructions may rise by `tolerance`, page faults by twice that (the kernel's
    fault-around and the environment's size move them by a few)."""
    with open(committed_path) as handle:
        committed = json.load(handle)
    with open(current_path) as handle:
        current = json.load(handle)
    failures, checks = [], 0
    reference = current.get("jose verify", {}).get("instructions")
    for name in sorted(committed):
        if name not in current:
            failures.append(f"REGRESSED {name}: not measured")
            continue
        for metric, allowed in (("instructions", tolerance), ("page_faults", 2 * tolerance)):
            old, new = committed[name][metric], current[name][metric]
            checks += 1
            bad = new > old * (1 + allowed)
            line = f"{'REGRESSED' if bad else 'ok':9} {name}: {new:,} {metric.replace('_', ' ')} (committed {old:,}, {new / old - 1:+.1%})"
            (failures.append if bad else print)(line)
        if reference and name != "jose verify":
            print(f"          {name}: {current[name]['instructions'] / reference:.2f}× jose's instructions")
    print(f"\n{checks} CLI start-up checks, {len(failures)} regressions")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "measure":
        measure(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 6 and sys.argv[1] == "check" and sys.argv[4] == "--tolerance":
        sys.exit(check(sys.argv[2], sys.argv[3], float(sys.argv[5])))
    else:
        sys.exit(__doc__)
