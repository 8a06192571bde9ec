#!/usr/bin/env python3
"""Fails when a malloc count regressed by more than 10%; reports the wall-clock ratios.

    python3 Scripts/check.py Thresholds results/raw/check1 [results/raw/check2 …] [--tolerance 0.10]

Both directories hold package-benchmark `<target>.<name>.p90.json` files: the
committed ones written by `swift package benchmark thresholds update` (`make
thresholds`), and this run's, exported in the same format. package-benchmark's own
thresholds are absolute (microseconds on one machine). For every Latchkey row this
compares, at p90 per operation:

- Latchkey's mallocs per operation, against the committed count: the lowest of the
  runs, failing on a rise of more than the tolerance and more than one (the interposer
  counts every thread's mallocs while a sample runs, and an async row's sample takes one
  more when the task allocator grows a slab: unchanged code reads 4 or 5 for the file
  store's get) — gated;
- Latchkey ÷ limit and Latchkey ÷ peer wall clock, against the same ratios computed
  from the committed files — reported, not gated, unless `--gate-wall`: on this shared
  two-core machine an unchanged build's ratios moved by up to 70% between independent
  runs (RS256 sig+claims ÷ jwt-kit 0.632 against 0.377), because the sides of a row
  run seconds apart in separate processes. The gate on speed is the instruction count
  (Scripts/instructions.py), which repeats within a fraction of a percent.

A benchmark that is new (not in the committed files) is reported, not failed: run
`make thresholds` to commit it. Rows of benchmarks.UNGATED (the Secret Service's D-Bus
round trips) are reported as not gated and never committed. Exit status 1 on a
regression, 2 on missing data.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks import best_run_per_row, group_key, is_gated, per_operation, read_p90_directory, row_key, rows_from  # noqa: E402


def best_of(directories):
    """One p90 set per benchmark from several runs, each from its fastest run (as the
    report and `make thresholds` choose), so one slow phase of the host does not fail the check."""
    runs = [read_p90_directory(directory) for directory in directories]
    keyed = [{f"{target}\0{name}": metrics for (target, name), metrics in run.items()} for run in runs]
    # Rows are identified by benchmark name; the target prefix rides along.
    by_name = [{key.split("\0", 1)[1]: (key, metrics) for key, metrics in run.items()} for run in keyed]
    merged = best_run_per_row(by_name, lambda pair: per_operation(pair[1], "wallClock"))
    return {tuple(key.split("\0", 1)): metrics for key, metrics in merged.values()}


def figures(results):
    def value_of(metrics):
        return {"wall": per_operation(metrics, "wallClock"), "mallocs": per_operation(metrics, "mallocCountTotal")}
    return rows_from(results, value_of)


def lowest_mallocs(directories):
    """{name: the lowest mallocs per operation over the runs}."""
    lowest = {}
    for directory in directories:
        for (_target, name), metrics in read_p90_directory(directory).items():
            value = per_operation(metrics, "mallocCountTotal")
            if value is not None and (name not in lowest or value < lowest[name]):
                lowest[name] = value
    return lowest


def main(argv):
    gate_wall = "--gate-wall" in argv
    args = [a for a in argv[1:] if not a.startswith("--")]
    tolerance = 0.10
    if "--tolerance" in argv:
        tolerance = float(argv[argv.index("--tolerance") + 1])
        args.remove(argv[argv.index("--tolerance") + 1])
    if len(args) < 2:
        sys.exit("usage: check.py <committed thresholds dir> <current p90 dir>… [--tolerance 0.10]")
    reference, current = figures(read_p90_directory(args[0])), figures(best_of(args[1:]))
    mallocs = lowest_mallocs(args[1:])
    if not reference:
        print(f"check.py: no committed thresholds in {args[0]}; run `make thresholds`")
        return 2
    if not current:
        print(f"check.py: no results in {args[1]}")
        return 2
    failures, checked, notes = [], 0, []
    limit = 1 + tolerance
    for group in sorted(set(reference) | set(current), key=group_key):
        for row in sorted(set(reference.get(group, {})) | set(current.get(group, {})), key=row_key):
            name = f"{group}/{'/'.join(row)}"
            old, new = reference.get(group, {}).get(row), current.get(group, {}).get(row)
            if not is_gated(name):
                notes.append(f"not gated (round trips to another process; benchmarks.UNGATED says why): {name}")
                continue
            if old is None or "latchkey" not in old:
                notes.append(f"new (not in the committed thresholds): {name}")
                continue
            if new is None or "latchkey" not in new:
                notes.append(f"not measured in this run: {name}")
                continue
            mine_old, mine_new = old["latchkey"], new["latchkey"]
            for role in ("limit", "peer"):
                if role in old and role in new and old[role][1]["wall"] and new[role][1]["wall"]:
                    ratio_old = mine_old["wall"] / old[role][1]["wall"]
                    ratio_new = mine_new["wall"] / new[role][1]["wall"]
                    checked += 1
                    regressed = ratio_new > ratio_old * limit
                    verdict = ("REGRESSED" if gate_wall else "slower") if regressed else "ok"
                    line = (f"{verdict:9} {name}: Latchkey ÷ {role} ({new[role][0]}) wall "
                            f"{ratio_new:.3f} (committed {ratio_old:.3f})")
                    if regressed and gate_wall:
                        failures.append(line)
                    else:
                        checked -= 0 if gate_wall else 1
                        print(line)
            lowest = mallocs.get(f"{group}/{'/'.join(row)}/latchkey", mine_new["mallocs"])
            if mine_old["mallocs"] is not None and lowest is not None:
                checked += 1
                # One malloc of slack on small counts: an async row's sample takes one more
                # when the task allocator grows a slab (unchanged code reads 4 or 5 for the
                # file store's get, p90, from run to run and size to size).
                grew = lowest > mine_old["mallocs"] * limit + 1e-9 and lowest > mine_old["mallocs"] + 1 + 1e-9
                line = f"{'REGRESSED' if grew else 'ok':9} {name}: mallocs/op {lowest:.1f} (committed {mine_old['mallocs']:.1f})"
                if grew:
                    failures.append(line)
                else:
                    print(line)
    for note in notes:
        print("note:", note)
    print(f"\n{checked} gated checks{' (wall-clock ratios included)' if gate_wall else ' (mallocs; wall-clock ratios reported above)'}, "
          f"{len(failures)} regressions of more than {tolerance:.0%}")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
