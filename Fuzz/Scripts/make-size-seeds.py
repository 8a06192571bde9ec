#!/usr/bin/env python3
"""Writes the adapter targets' size-grammar seeds, Corpus/<target>/size-*: the smallest
seed of each call whose first answer is a JSON object, with hostile sizes written into
it (see Sources/AdapterFuzzSupport/ScriptedBody.swift): a 2 MiB and a ~1 MB string, a
number of ~1M digits, 100k-deep nesting, 10k keys, bodies just under, at and just over
the 1 MiB cap, a huge or lying Content-Length, header values at and over libcurl's
limit, and a 64 MiB body. Run from Fuzz/ (`make seeds` runs it)."""
import json
import re
import os

SEP = "\n~~~\n"
CAP = 1 << 20
# Per target: a login, with every variant, and a session check, with a few.
CALLS = {
    "FuzzStytch": ["b2b-password", "validate"],
    "FuzzAuth0": ["password", "renew"],
    "FuzzSocialPlus": ["login", "validate"],
}
FEW = {"string-1000k", "over-cap", "content-length-huge", "header-at-limit", "header-over-limit", "keys-10k"}


def bases(target):
    """Per call: the emulator's seed whose first body is the JSON object with the most
    members, a 2xx preferred (name order breaks ties)."""
    found = {}
    directory = os.path.join("Corpus", target)
    for name in sorted(os.listdir(directory)):
        # The emulator's seeds (make-adapter-seeds.py), not the inputs runs merged in.
        if name.startswith("size-") or re.fullmatch("[0-9a-f]{40}", name):
            continue
        text = open(os.path.join(directory, name), "rb").read().decode("utf-8", "replace")
        call, _, rest = text.partition("\n")
        answers = rest.split(SEP)
        head, _, body = answers[0].partition("\n")
        try:
            value = json.loads(body)
        except ValueError:
            continue
        if not isinstance(value, dict) or not value or not head.strip().isdigit():
            continue
        if call not in CALLS[target]:
            continue
        rank = (head.strip().startswith("2"), len(members(value, (str, int, float, dict, list))))
        if call not in found or rank > found[call][0]:
            found[call] = (rank, head, value, answers[1:])
    return found


def members(value, kind):
    """The paths of the members of `value` holding a `kind` (str or number), outermost first."""
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, child in node.items():
                if isinstance(child, kind) and not isinstance(child, bool):
                    paths.append(path + [key])
                walk(child, path + [key])
    walk(value, [])
    return paths


def with_member(value, path, marker):
    copy = json.loads(json.dumps(value))
    node = copy
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = marker
    return copy


def dump(value, marker=None, directive=None):
    text = json.dumps(value, separators=(",", ":"))
    return text.replace(json.dumps(marker), directive) if marker else text


def variants(head, value):
    status = head.split(";")[0]
    marker = "@@SIZE@@"
    strings, numbers = members(value, str), members(value, (int, float))
    if strings:
        yield "string-2mib", head, dump(with_member(value, strings[-1], marker), marker, '"<<2M*a>>"')
        yield "string-1000k", head, dump(with_member(value, strings[-1], marker), marker, '"<<1000K*a>>"')
        yield "escapes-300k", head, dump(with_member(value, strings[-1], marker), marker, '"<<300K*\\u00e9>>"')
    if numbers:
        yield "number-1m-digits", head, dump(with_member(value, numbers[-1], marker), marker, "<<1000K*9>>")
        yield "number-exponent", head, dump(with_member(value, numbers[-1], marker), marker, "1e<<100K*9>>")
    key = next(iter(value))
    inner = strings[-1] if strings else [key]
    yield "nesting-100k", head, dump(with_member(value, inner, marker), marker, "<<100000*[>>1<<100000*]>>")
    yield "nesting-open", head, "<<100000*[>>"
    yield "keys-10k", head, "{" + '<<10K+"k#":#,>>' + dump(value)[1:]
    yield "duplicate-keys-50k", head, "{" + "<<50K*" + json.dumps(key) + ':{},>>' + dump(value)[1:]
    rest = '{"pad":"<<1*a>>",' + dump(value)[1:]
    fixed = len(rest.replace("<<1*a>>", ""))
    for name, size in [("under-cap", CAP - 1), ("at-cap", CAP), ("over-cap", CAP + 1)]:
        yield name, head, rest.replace("<<1*a>>", f"<<{size - fixed}*a>>")
    yield "endless", head, "<<64M*x>>"
    yield "content-length-huge", f"{head};content-length=99999999999999999999", dump(value)
    yield "content-length-over-cap", f"{head};Content-Length={CAP + 1}", dump(value)
    yield "content-length-lies", f"{head};Content-Length=3", dump(value)
    yield "header-at-limit", f"{status};retry-after=<<100K*9>>;x-ratelimit-reset=1<<50K*0>>", dump(value)
    yield "header-over-limit", f"429;retry-after=<<101K*9>>", dump(value)


def main():
    for target in CALLS:
        for call, (_, head, value, rest) in sorted(bases(target).items()):
            for name, line, body in variants(head, value):
                if call != CALLS[target][0] and name not in FEW:
                    continue
                path = os.path.join("Corpus", target, f"size-{call}-{name}")
                with open(path, "w") as file:
                    file.write(call + "\n" + SEP.join([line + "\n" + body] + rest))


if __name__ == "__main__":
    main()
