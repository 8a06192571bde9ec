"""Shared reading of package-benchmark output for report.py and check.py.

Benchmark names follow Support/BenchmarkSupport/Suite.swift: `<group>/<row…>/<role>`,
role `latchkey`, `limit:<label>` or `peer:<label>`. Every metric is recorded per
sample; `operationsPerSample` says how many operations a sample timed, so per-operation
figures are value / operationsPerSample. Nothing here knows which targets exist.
"""

import json
import os
import re

# Tokens that sort rows in a sensible order; anything else sorts after, alphabetically.
ORDER = [
    "HS256", "RS256", "PS256", "ES256", "ES384", "EdDSA",
    "decode", "sig", "sig+claims", "lookup", "1keys", "10keys", "100keys",
    "load", "read", "save", "get", "set", "remove",
    "memory", "keyring", "file", "layered", "layered-warm", "layered-cold",
    "256B", "2KB", "16KB",
    "accessToken", "fresh", "send", "coldStart", "expired1000",
]
GROUP_ORDER = ["JWT", "JWKS", "Session", "Vault", "Storage"]


def split_name(name):
    """`JWT/HS256/sig/limit:OpenSSL` -> ("JWT", ("HS256", "sig"), "limit", "OpenSSL")."""
    parts = name.split("/")
    if len(parts) < 3:
        return None
    role, _, label = parts[-1].partition(":")
    if role not in ("latchkey", "limit", "peer"):
        return None
    return parts[0], tuple(parts[1:-1]), role, label


def token_key(token):
    return (ORDER.index(token), "") if token in ORDER else (len(ORDER), token)


def row_key(row):
    return tuple(token_key(t) for t in row)


def group_key(group):
    return (GROUP_ORDER.index(group), "") if group in GROUP_ORDER else (len(GROUP_ORDER), group)


def read_p90_directory(path):
    """{(target, name): {metric: p90 per sample}} from `*.p90.json` files.

    package-benchmark names them `<target>.<name>.p90.json` with `/` and spaces turned
    into `_`; our names contain neither `_` nor spaces, so `_` maps back to `/`.
    """
    results = {}
    if not os.path.isdir(path):
        return results
    for file in sorted(os.listdir(path)):
        match = re.fullmatch(r"([^.]+)\.(.+)\.p90\.json", file)
        if not match:
            continue
        with open(os.path.join(path, file)) as handle:
            results[(match.group(1), match.group(2).replace("_", "/"))] = json.load(handle)
    return results


def per_operation(metrics, metric):
    """The metric per operation (None if absent)."""
    value = metrics.get(metric)
    if value is None:
        return None
    return value / max(1, metrics.get("operationsPerSample", 1))


def rows_from(results, value_of):
    """{group: {row: {"latchkey": x, "limit": (label, x), "peer": (label, x)}}}."""
    groups = {}
    for (_target, name), metrics in results.items():
        parsed = split_name(name)
        if parsed is None:
            continue
        group, row, role, label = parsed
        entry = groups.setdefault(group, {}).setdefault(row, {})
        value = value_of(metrics)
        entry[role] = value if role == "latchkey" else (label, value)
    return groups


def best_run_per_row(runs, wall_of):
    """Merges several runs of the suites into one, a row at a time.

    `runs` is a list of {name: result}. For every row (`<group>/<row…>`) the run in
    which the row's measurements — Latchkey, limit and peer together — took the least
    wall time wins, and all of the row's results come from that run, so every ratio is
    still measured within one run. On a shared machine a process can run slow from
    start to end; this keeps the quietest run of each row. Names that are not rows are
    taken from the run where they were fastest.
    """
    rows = {}
    for index, run in enumerate(runs):
        for name in run:
            parsed = split_name(name)
            key = (parsed[0], parsed[1]) if parsed else ("", (name,))
            rows.setdefault(key, {}).setdefault(index, []).append(name)
    merged = {}
    for _key, by_run in rows.items():
        def total(index):
            walls = [wall_of(runs[index][name]) for name in by_run[index]]
            # A run missing some of the row's roles cannot be compared fairly: rank it last.
            complete = len(by_run[index]) == max(len(names) for names in by_run.values())
            return (not complete, sum(w for w in walls if w is not None))
        best = min(by_run, key=total)
        for name in by_run[best]:
            merged[name] = runs[best][name]
    return merged
