#!/usr/bin/env python3
"""Writes the seed corpora Corpus/<target>/ from the repository's test vectors.

Run from Fuzz/: `python3 Scripts/make-seeds.py`. Seeds are small files named after their
source; rerunning rewrites them identically. Corpus/FuzzSecretFile is written by the
fuzzer itself (`make seeds` in this folder), since it needs the library to encrypt.
"""
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTORS = os.path.join(ROOT, "Tests", "LatchkeyJWTTests", "Vectors")
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")
MAX_SEED = 8192


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_SEED:
        return
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:60]
    with open(os.path.join(directory, safe), "wb") as f:
        f.write(data)


def load(name):
    with open(os.path.join(VECTORS, name)) as f:
        return json.load(f)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def main():
    tokens = []
    jwks = []
    for file in ("rfc7515.json", "rfc7520.json"):
        for vector in load(file):
            tokens.append((vector["name"], vector["token"]))
            if vector.get("jwk"):
                jwks.append((vector["name"], vector["jwk"]))
            if vector.get("payload", "").startswith("{"):
                write("FuzzJSON", vector["name"] + "-payload", vector["payload"])
    for vector in load("interop-signed.json")["tokens"]:
        tokens.append((vector["name"], vector["token"]))
    # Tokens written into the Swift tests (JWT-shaped literals).
    pattern = re.compile(r'"(eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)"')
    for directory, _, files in os.walk(os.path.join(ROOT, "Tests")):
        for file in sorted(files):
            if file.endswith(".swift"):
                with open(os.path.join(directory, file)) as f:
                    for match in pattern.finditer(f.read()):
                        token = match.group(1)
                        tokens.append((file[:-6] + "-" + hashlib.sha1(token.encode()).hexdigest()[:8], token))
    for name, token in tokens:
        write("FuzzJWS", name, token)
    for name, jwk in jwks:
        write("FuzzJWK", name, compact(jwk))
        write("FuzzJWK", name + "-set", compact({"keys": [jwk]}))
        write("FuzzJSON", name + "-jwk", json.dumps(jwk, indent=2))
    write("FuzzJWK", "all-set", compact({"keys": [jwk for _, jwk in jwks]}))
    for file in sorted(os.listdir(VECTORS)):
        path = os.path.join(VECTORS, file)
        with open(path, "rb") as f:
            data = f.read()
        if file.endswith(".pem"):
            write("FuzzPEM", file, data)
        elif file.endswith(".jwk.json"):
            write("FuzzJWK", file, data)
            write("FuzzJSON", file, data)
    write("FuzzJSON", "interop-comment", compact({"comment": load("interop-signed.json")["comment"]}))
    for name, value in {
        "numbers": "[0,-0,1e308,-1e-308,123456789012345678901234567890,0.1,1E+2,-12.5e-3]",
        "strings": '["\\u00e9","e\\u0301","\\ud83d\\ude00","\\\\\\"\\/\\b\\f\\n\\r\\t",""]',
        "nested": "[[[[[[[[[[{\"a\":[{}]}]]]]]]]]]]",
        "literals": '{"t":true,"f":false,"n":null}',
    }.items():
        write("FuzzJSON", name, value)
    configurations = {
        "full": {
            "provider": "stytch",
            "settings": {"public_token": "public-token-test-1", "port": 8080, "flag": True},
            "store": {"backend": "file", "namespace": "com.example.app"},
            "session": {"heartbeat_seconds": 180, "session_duration_minutes": 60},
        },
        "minimal": {"provider": "auth0"},
        "huge-setting": {"provider": "auth0", "settings": {"n": 1e19}},
        "memory-store": {"provider": "x", "store": {"backend": "memory"}, "session": {"renew_proactively": False}},
    }
    for name, value in configurations.items():
        write("FuzzConfiguration", name, json.dumps(value, indent=2))
    with open(os.path.join(ROOT, "Sources", "Latchkey", "Configuration", "LatchkeyConfiguration.swift")) as f:
        source = f.read()
    keys = sorted(set(re.findall(r'"([a-z_]+)"', source)))
    write("FuzzConfiguration", "all-keys", compact({"provider": "p", "session": {k: 1 for k in keys}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
