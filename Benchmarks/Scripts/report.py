#!/usr/bin/env python3
"""Writes results/latest.md and results/latest.svg from package-benchmark JMH exports.

    python3 Scripts/report.py results/latest.md results/latest.svg results/raw/run1.jmh.json [run2 …]
    python3 Scripts/report.py --readme results/latest.md README.md

With several runs, each benchmark is reported from the run in which it was fastest.

Every benchmark named `<group>/<row…>/<role>` (see Support/BenchmarkSupport/Suite.swift)
lands in its group's table; a row shows Latchkey's per-operation wall clock (p50, p90,
p99), CPU time, mallocs and throughput, then its ratio to the limit and to the peer
(each side at its best over the runs). New targets and groups need no change here; add a TARGETS
entry to have a project goal judged.
"""

import datetime
import json
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks import best_run_per_row, group_key, row_key, split_name  # noqa: E402

# The project's goals (issues 4 and 6). kind: "limit" (Latchkey ÷ limit ≤ max), "peer"
# (peer ÷ Latchkey ≥ min), "absolute" (Latchkey p50 < max µs), "overhead" ((Latchkey −
# limit) of the first row ÷ the limit of the second ≤ max), "fastest" (the first row's
# Latchkey ÷ the fastest Latchkey p50 of the other rows ≤ max). A row not measured is
# reported so.
TARGETS = [
    ("limit", "JWT", ("RS256", "sig+claims"), 1.10, "RS256 verify + claims ≤ 1.10× raw OpenSSL"),
    ("limit", "JWT", ("ES256", "sig+claims"), 1.10, "ES256 verify + claims ≤ 1.10× raw OpenSSL"),
    ("limit", "JWT", ("EdDSA", "sig+claims"), 1.10, "EdDSA verify + claims ≤ 1.10× raw BoringSSL (swift-crypto)"),
    ("peer", "JWT", ("ES384", "sig+claims"), 1.0, "ES384 verify + claims ahead of jwt-kit"),
    ("peer", "JWT", ("EdDSA", "sig+claims"), 1.0, "EdDSA verify + claims ahead of jwt-kit"),
    ("peer", "JWT", ("HS256", "sig+claims"), 15.0, "HS256 verify + claims ≥ 15× faster than jwt-kit"),
    ("peer", "JWT", ("HS256", "decode"), 40.0, "HS256 decode only ≥ 40× faster than jwt-kit"),
    ("limit", "Vault", ("load", "2KB"), 1.50, "encrypted-file vault load ≤ 1.5× by-hand open/read/close + AES-GCM open"),
    ("absolute", "Storage", ("get", "keyring", "2KB"), 10.0, "keyring get of 2 KB < 10 µs"),
    ("fastest", "Storage", (("get", "layered-warm", "2KB"), ("get", "file", "2KB"), ("get", "keyring", "2KB")), 1.20,
     "layered warm get ≤ 1.2× the fastest backend's get (file or keyring)"),
    ("limit", "Storage", ("get", "layered-cold", "2KB"), 2.00,
     "layered cold get (new store, empty keyring) ≤ 2× a new encrypted-file store's first get"),
    # What `send` adds (in-process: send − the bare transport, both measured here) as a
    # share of a real request (loopback HTTP through URLSession). Comparing the two
    # loopback rows directly would measure the network stack's ±20% run-to-run noise,
    # not the client's sub-microsecond work.
    ("overhead", "Session", (("send",), ("send", "loopback")), 0.05,
     "authorized-request overhead < 5% of the bare transport (send − bare, in-process, ÷ a loopback HTTP request)"),
    ("absolute", "Session", ("accessToken", "fresh"), 2.0, "accessToken() on a fresh token < 2 µs"),
    ("absolute", "Session", ("coldStart",), 1000.0, "cold start with a stored session to established (local part) < 1 ms"),
    # Tokens per second with 2 workers ÷ with 1 (the 1-worker p50 per token ÷ the 2-worker's).
    ("scaling", "JWKSThreads", (("RS256", "1worker"), ("RS256", "2workers")), 1.8,
     "JWKS-cache RS256 verify + claims, 2 workers ≥ 1.8× the throughput of 1"),
    ("scaling", "JWKSThreads", (("ES256", "1worker"), ("ES256", "2workers")), 1.8,
     "JWKS-cache ES256 verify + claims, 2 workers ≥ 1.8× the throughput of 1"),
]

ROW_LABELS = {"sig": "verify signature", "sig+claims": "verify + claims", "decode": "decode only"}


def percentile(metric, p):
    return metric["scorePercentiles"][f"{p:.1f}"]


def load(path):
    """{name: {"target", "ops", "wall": {50,90,99} µs/op, "mean", "cpu" µs/op, "mallocs"/op}}."""
    with open(path) as handle:
        elements = json.load(handle)
    results = {}
    for element in elements:
        identifier = element["benchmark"].removeprefix("package.benchmark.")
        target, _, name = identifier.partition(".")
        secondary = element["secondaryMetrics"]
        ops = percentile(secondary["operationsPerSample"], 50) if "operationsPerSample" in secondary else 1
        wall = secondary["Time (wall clock)"]
        results[name] = {
            "target": target,
            "ops": ops,
            "samples": len(wall.get("rawData", [[]])[0]),
            "wall": {p: percentile(wall, p) / ops for p in (50, 90, 99)},
            "mean": wall["score"] / ops,
            "cpu": percentile(secondary["cpuTime"], 50) / ops / 1000 if "cpuTime" in secondary else None,
            "mallocs": percentile(secondary["Malloc (total)"], 50) / ops if "Malloc (total)" in secondary else None,
        }
    return results


def grouped(results):
    groups = {}
    for name, result in results.items():
        parsed = split_name(name)
        if parsed is None:
            continue
        group, row, role, label = parsed
        entry = groups.setdefault(group, {}).setdefault(row, {})
        entry[role] = dict(result, label=label)
    return groups


def ratios(entry):
    """(Latchkey ÷ limit, peer ÷ Latchkey) at p50, None where a side is missing."""
    mine = entry.get("latchkey")
    limit, peer = entry.get("limit"), entry.get("peer")
    to_limit = mine["wall"][50] / limit["wall"][50] if mine and limit else None
    vs_peer = peer["wall"][50] / mine["wall"][50] if mine and peer else None
    return to_limit, vs_peer


def duration(us):
    if us is None:
        return "–"
    if us < 1:
        return f"{us * 1000:.0f} ns"
    if us < 100:
        return f"{us:.2f} µs"
    if us < 10_000:
        return f"{us:.0f} µs"
    return f"{us / 1000:.1f} ms"


def count(value):
    if value is None:
        return "–"
    return f"{value:.0f}" if abs(value - round(value)) < 0.05 else f"{value:.1f}"


def rate(us):
    per_second = 1e6 / us if us else 0
    if per_second >= 1e6:
        return f"{per_second / 1e6:.2f} M/s"
    if per_second >= 1e3:
        return f"{per_second / 1e3:.1f} k/s"
    return f"{per_second:.0f}/s"


def row_title(row):
    return " ".join(ROW_LABELS.get(part, part) for part in row)


def machine():
    def run(command):
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    model = ""
    try:
        with open("/proc/cpuinfo") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "")
    except OSError:
        pass
    return {
        "cpu": model or platform.processor() or "unknown CPU",
        "cores": os.cpu_count(),
        "swift": run(["swift", "--version"]).splitlines()[0] if run(["swift", "--version"]) else "unknown",
        "openssl": run(["openssl", "version"]) or "unknown",
        "kernel": platform.release(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def markdown(groups, info):
    lines = [
        "# Latchkey benchmarks: latest run",
        "",
        f"- Machine: {info['cpu']}, {info['cores']} cores (shared), Linux {info['kernel']}",
        f"- Toolchain: {info['swift']}; {info['openssl']}",
        f"- Date: {info['date']}",
        f"- Runs: best of {info['runs']} (each benchmark in a fresh process per run)",
        "- Generated by `make bench` (Benchmarks/Scripts/report.py) from package-benchmark's export.",
        "",
        f"The suites ran {info['runs']} times, each time in fresh processes; every benchmark (Latchkey, limit, peer)",
        "is taken from the run in which it was fastest, so each ratio compares both sides at their quietest",
        "(on a shared machine slowdowns come and go with the host; see Benchmarks/README.md).",
        "Times are per operation: the median (p50), p90 and p99 of the samples (a sample of a",
        "fast operation times a batch of 1,000 calls), CPU time at the median, mallocs per",
        "operation, throughput from the mean. **× limit** is Latchkey's p50 divided by the limit's",
        "(the raw primitive or the by-hand code on the same input, 1.00 = as fast as the limit);",
        "**× faster** is the peer's p50 divided by Latchkey's.",
        "",
    ]
    for group in sorted(groups, key=group_key):
        rows = groups[group]
        lines += [f"## {group}", ""]
        has_limit = any("limit" in e for e in rows.values())
        has_peer = any("peer" in e for e in rows.values())
        header = ["operation", "p50", "p90", "p99", "CPU", "mallocs", "throughput"]
        if has_limit:
            header += ["limit p50", "× limit"]
        if has_peer:
            header += ["peer p50", "peer mallocs", "× faster"]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
        for row in sorted(rows, key=row_key):
            entry = rows[row]
            mine = entry.get("latchkey")
            to_limit, vs_peer = ratios(entry)
            cells = [row_title(row)]
            if mine:
                cells += [duration(mine["wall"][50]), duration(mine["wall"][90]), duration(mine["wall"][99]),
                          duration(mine["cpu"]), count(mine["mallocs"]), rate(mine["mean"])]
            else:
                cells += ["–"] * 6
            if has_limit:
                limit = entry.get("limit")
                cells += [f"{duration(limit['wall'][50])} ({limit['label']})" if limit else "–",
                          f"**{to_limit:.2f}×**" if to_limit else "–"]
            if has_peer:
                peer = entry.get("peer")
                cells += [f"{duration(peer['wall'][50])} ({peer['label']})" if peer else "–",
                          count(peer["mallocs"]) if peer else "–",
                          f"**{vs_peer:.1f}×**" if vs_peer else "–"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Targets", "", "| target | measured | status |", "|---|---:|---|"]
    for kind, group, row, bound, text in TARGETS:
        if kind == "overhead":
            work, real = (groups.get(group, {}).get(r) for r in row)
            if not work or not real or "latchkey" not in work or "limit" not in work or "limit" not in real:
                lines.append(f"| {text} | not measured | – |")
                continue
            added = work["latchkey"]["wall"][50] - work["limit"]["wall"][50]
            share = added / real["limit"]["wall"][50]
            lines.append(f"| {text} | {duration(added)} of {duration(real['limit']['wall'][50])} = {share * 100:.2f}% | "
                         f"{'met' if share <= bound else '**missed**'} |")
            continue
        if kind == "fastest":
            mine, *others = (groups.get(group, {}).get(r) for r in row)
            measured = [(r[1], o["latchkey"]["wall"][50]) for r, o in zip(row[1:], others) if o and "latchkey" in o]
            if not mine or "latchkey" not in mine or not measured:
                lines.append(f"| {text} | not measured | – |")
                continue
            label, fastest = min(measured, key=lambda pair: pair[1])
            ratio = mine["latchkey"]["wall"][50] / fastest
            lines.append(f"| {text} | {ratio:.2f}× ({label} {duration(fastest)}) | {'met' if ratio <= bound else '**missed**'} |")
            continue
        if kind == "scaling":
            one, two = (groups.get(group, {}).get(r) for r in row)
            if not one or not two or "latchkey" not in one or "latchkey" not in two:
                lines.append(f"| {text} | not measured | – |")
                continue
            speedup = one["latchkey"]["wall"][50] / two["latchkey"]["wall"][50]
            peer = ""
            if "peer" in one and "peer" in two:
                peer = f" (jwt-kit: {one['peer']['wall'][50] / two['peer']['wall'][50]:.2f}×)"
            lines.append(f"| {text} | {speedup:.2f}×{peer} | {'met' if speedup >= bound else '**missed**'} |")
            continue
        entry = groups.get(group, {}).get(row)
        if not entry or "latchkey" not in entry:
            lines.append(f"| {text} | not measured | – |")
            continue
        to_limit, vs_peer = ratios(entry)
        if kind == "limit":
            value, ok, shown = to_limit, to_limit is not None and to_limit <= bound, f"{to_limit:.2f}×" if to_limit else "–"
        elif kind == "peer":
            value, ok, shown = vs_peer, vs_peer is not None and vs_peer >= bound, f"{vs_peer:.1f}× faster" if vs_peer else "–"
        else:
            value = entry["latchkey"]["wall"][50]
            ok, shown = value < bound, duration(value)
        lines.append(f"| {text} | {shown} | {'met' if ok else '**missed**'} |")
    lines.append("")
    return "\n".join(lines)


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(groups, info):
    """Two horizontal bar panels: Latchkey ÷ limit (linear), peer ÷ Latchkey (log)."""
    import math
    limit_bars, peer_bars = [], []
    for group in sorted(groups, key=group_key):
        for row in sorted(groups[group], key=row_key):
            to_limit, vs_peer = ratios(groups[group][row])
            title = f"{group} {row_title(row)}"
            if to_limit is not None:
                limit_bars.append((title, to_limit, groups[group][row]["limit"]["label"]))
            if vs_peer is not None:
                peer_bars.append((title, vs_peer, groups[group][row]["peer"]["label"]))
    bar, gap, label_width, plot_width, margin = 16, 5, 260, 420, 20
    height = margin * 2 + 60 + (len(limit_bars) + len(peer_bars)) * (bar + gap) + 120
    width = label_width + plot_width + 140
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{margin}" y="{margin + 4}" font-size="15" font-weight="bold">Latchkey benchmarks: each side of a ratio at its best of the runs</text>',
           f'<text x="{margin}" y="{margin + 22}" fill="#555">{escape(info["cpu"])}, {info["cores"]} cores · '
           f'{escape(info["swift"])} · {escape(info["date"])}</text>']
    y = margin + 50

    def panel(title, bars, scale, ticks, colour, reference):
        nonlocal y
        out.append(f'<text x="{margin}" y="{y}" font-weight="bold">{escape(title)}</text>')
        y += 12
        top = y
        for name, value, label in bars:
            length = max(1.0, scale(value))
            out.append(f'<text x="{label_width - 8}" y="{y + bar - 4}" text-anchor="end">{escape(name)}</text>')
            out.append(f'<rect x="{label_width}" y="{y}" width="{length:.1f}" height="{bar}" fill="{colour}"/>')
            shown = f"{value:.2f}×" if value < 10 else f"{value:.1f}×"
            out.append(f'<text x="{label_width + length + 6:.1f}" y="{y + bar - 4}">{shown} <tspan fill="#777">vs {escape(label)}</tspan></text>')
            y += bar + gap
        for tick in ticks:
            x = label_width + scale(tick)
            dash = "" if tick == reference else ' stroke-dasharray="3,3"'
            out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{y}" stroke="#999"{dash}/>')
            out.append(f'<text x="{x:.1f}" y="{y + 12}" text-anchor="middle" fill="#555">{tick:g}×</text>')
        y += 40

    if limit_bars:
        top_value = max(2.0, max(v for _, v, _ in limit_bars) * 1.05)
        panel("Latchkey ÷ limit (p50; 1× = the raw primitive; lower is better)", limit_bars,
              lambda v: v / top_value * plot_width, [t for t in (0.5, 1, 1.5, 2, 3, 4, 5) if t <= top_value], "#3b7dd8", 1)
    if peer_bars:
        top_value = max(10.0, max(v for _, v, _ in peer_bars) * 1.2)
        panel("× faster than the peer (jwt-kit 5.8; p50; log scale; higher is better)", peer_bars,
              lambda v: max(0.0, math.log10(max(v, 1)) / math.log10(top_value) * plot_width),
              [t for t in (1, 2, 5, 10, 20, 50, 100, 200) if t <= top_value], "#2a9d5c", 1)
    out.append("</svg>")
    return "\n".join(out) + "\n"


README_START = "<!-- benchmarks:start (generated by `make -C Benchmarks readme`) -->"
README_END = "<!-- benchmarks:end -->"
README_GROUPS = ["JWT", "Vault"]


def readme_block(markdown_text):
    """The README's share of latest.md: header lines, the JWT and Vault tables, the targets."""
    sections, current = {}, None
    for line in markdown_text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    header = [line for line in markdown_text.splitlines() if line.startswith(("- Machine", "- Toolchain", "- Date", "- Runs"))]
    out = header + [""]
    for name in README_GROUPS + ["Targets"]:
        if name in sections:
            body = sections[name]
            while body and not body[0].strip():
                body = body[1:]
            out += [f"**{name}**", ""] + body
    return "\n".join(out).rstrip() + "\n"


def update_readme(markdown_path, readme_path):
    with open(markdown_path) as handle:
        block = readme_block(handle.read())
    with open(readme_path) as handle:
        text = handle.read()
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        sys.exit(f"report.py: {readme_path} has no {README_START} … {README_END} block")
    text = text[:start + len(README_START)] + "\n" + block + text[end:]
    with open(readme_path, "w") as handle:
        handle.write(text)
    print(f"updated the benchmark block in {readme_path}")


def best_of(paths):
    """One result per benchmark from several runs: each from the run in which it was
    fastest (see benchmarks.best_run_per_row)."""
    runs = [load(path) for path in paths]
    return best_run_per_row(runs, lambda result: result["wall"][50])


def main(argv):
    if len(argv) == 4 and argv[1] == "--readme":
        update_readme(argv[2], argv[3])
        return
    if len(argv) < 4:
        sys.exit("usage: report.py <latest.md> <latest.svg> <run.jmh.json>… | report.py --readme <latest.md> <README.md>")
    runs = argv[3:]
    groups = grouped(best_of(runs))
    if not groups:
        sys.exit(f"report.py: no Latchkey benchmarks in {', '.join(runs)}")
    info = machine()
    info["runs"] = len(runs)
    with open(argv[1], "w") as handle:
        handle.write(markdown(groups, info))
    with open(argv[2], "w") as handle:
        handle.write(svg(groups, info))
    print(f"wrote {argv[1]} and {argv[2]} ({sum(len(r) for r in groups.values())} rows in {len(groups)} groups, best of {len(runs)} runs)")


if __name__ == "__main__":
    main(sys.argv)
