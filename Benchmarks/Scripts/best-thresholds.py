#!/usr/bin/env python3
"""Keeps, per benchmark, the `thresholds update` output of its fastest run.

    python3 Scripts/best-thresholds.py Thresholds results/raw/thresholds1 [results/raw/thresholds2 …]

Each input directory holds what `swift package benchmark thresholds update <run>` wrote
for one run; the file of the run with the lowest p90 wall clock per operation is copied
unchanged into the output directory, the rule report.py and check.py apply too.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks import per_operation, read_p90_directory  # noqa: E402


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    output, runs = argv[1], argv[2:]
    chosen = {}
    for directory in runs:
        for key, metrics in read_p90_directory(directory).items():
            wall = per_operation(metrics, "wallClock") or 0
            if key not in chosen or wall < chosen[key][0]:
                chosen[key] = (wall, directory)
    os.makedirs(output, exist_ok=True)
    for name in os.listdir(output):
        if name.endswith(".p90.json"):
            os.remove(os.path.join(output, name))
    for (target, name), (_, directory) in sorted(chosen.items()):
        file = f"{target}.{name.replace('/', '_')}.p90.json"
        shutil.copyfile(os.path.join(directory, file), os.path.join(output, file))
    print(f"{output}: {len(chosen)} thresholds, each from the fastest of {len(runs)} runs")


if __name__ == "__main__":
    main(sys.argv)
