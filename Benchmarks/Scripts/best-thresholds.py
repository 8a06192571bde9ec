#!/usr/bin/env python3
"""Keeps, per benchmark, the `thresholds update` output of its fastest run.

    python3 Scripts/best-thresholds.py Thresholds results/raw/thresholds1 [results/raw/thresholds2 …]

Each input directory holds what `swift package benchmark thresholds update <run>` wrote
for one run; for every benchmark (Latchkey, limit or peer of a row) the file of the run
with the least p90 wall clock is copied unchanged into the output directory: the rule
report.py and check.py apply too (see benchmarks.best_run_per_row). Rows that are not
gated (benchmarks.UNGATED) are left out.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks import best_run_per_row, is_gated, per_operation, read_p90_directory  # noqa: E402


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    output = argv[1]
    runs = []
    for directory in runs_dirs(runs_arg := argv[2:]):
        runs.append({name: (target, directory, metrics) for (target, name), metrics in read_p90_directory(directory).items()})
    chosen = best_run_per_row(runs, lambda entry: per_operation(entry[2], "wallClock"))
    # Ungated rows get no committed threshold (benchmarks.UNGATED says why).
    chosen = {name: entry for name, entry in chosen.items() if is_gated(name)}
    os.makedirs(output, exist_ok=True)
    for name in os.listdir(output):
        if name.endswith(".p90.json"):
            os.remove(os.path.join(output, name))
    for name, (target, directory, _) in sorted(chosen.items()):
        file = f"{target}.{name.replace('/', '_')}.p90.json"
        shutil.copyfile(os.path.join(directory, file), os.path.join(output, file))
    print(f"{output}: {len(chosen)} thresholds, each from the fastest of {len(runs_arg)} runs")


def runs_dirs(directories):
    return list(directories)


if __name__ == "__main__":
    main(sys.argv)
