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
    "1worker", "2workers",
    "load", "read", "save", "get", "set", "remove",
    "memory", "keyring", "file", "layered", "layered-warm", "layered-cold", "secret-service", "postgres",
    "renewal-under-lock",
    "256B", "2KB", "16KB",
    "accessToken", "fresh", "send", "coldStart", "expired1000", "load10000",
]
GROUP_ORDER = ["JWT", "JWKS", "JWKSThreads", "Session", "Host", "Vault", "Storage"]

# Rows reported but never gated nor given committed thresholds: a Secret Service call is
# D-Bus round trips to another process (gnome-keyring-daemon), and the mallocs the
# interposer counts include those of libsecret's GDBus worker thread, which vary with
# message timing; its wall clock is the daemon's as much as ours. Nothing of it repeats
# the way the gate needs. The PostgreSQL rows (only registered when LATCHKEY_POSTGRES_URL
# names a server) are round trips to another process over TCP, and PostgresNIO's event
# loop threads allocate while a sample runs: the same holds.
UNGATED = ("/secret-service/", "/postgres/")


def is_gated(name):
    """Whether `make bench-check` gates the benchmark (or row) `name`, and `make thresholds` keeps it."""
    return not any(marker in f"/{name}/" for marker in UNGATED)


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
    """Merges several runs of the suites into one, a benchmark at a time.

    `runs` is a list of {name: result}. Every benchmark (Latchkey, limit or peer of a
    row) is taken from the run in which it was fastest, so a ratio compares each side
    at its quietest. On the shared machine the figures come from, slowdowns come and go
    with the host for seconds at a time, and the sides of a row run in separate
    processes seconds apart: taking a row's sides from one run gave no protection (the
    same run could hold a slow limit and a fast Latchkey, or the reverse), while the
    best of each side over several runs is the closest estimate of its uncontended cost.
    """
    merged = {}
    for run in runs:
        for name, result in run.items():
            wall = wall_of(result)
            if wall is None:
                merged.setdefault(name, result)
                continue
            current = merged.get(name)
            if current is None or wall_of(current) is None or wall < wall_of(current):
                merged[name] = result
    return merged
