#!/usr/bin/env bash
# make demo: a short walk-through of the latchkey JWT commands.
set -euo pipefail
LATCHKEY=${1:-latchkey}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Generate an ES256 key pair (private key mode 0600)"
"$LATCHKEY" keygen --alg ES256 --kid demo-key --out "$work/demo.key"
ls -l "$work" | sed 1d

step "Sign a token for user-1, audience my-app, valid 5 minutes"
token=$("$LATCHKEY" sign --alg ES256 --key "$work/demo.key" --kid demo-key --sub user-1 --iss https://demo.latchkey.dev/ --aud my-app --exp 5m --claim roles='["admin"]')
echo "$token"

step "Inspect it (decoded, not verified)"
NO_COLOR=1 "$LATCHKEY" inspect "$token"

step "Verify it with the public key"
"$LATCHKEY" verify --key "$work/demo.key.pub" --iss https://demo.latchkey.dev/ --aud my-app "$token"

step "Tamper with the payload: verification is refused (exit 1)"
IFS=. read -r header payload signature <<<"$token"
forged_payload=$(printf '%s' '{"sub":"admin","aud":"my-app","exp":4102444800}' | base64 | tr '+/' '-_' | tr -d '=\n')
set +e
"$LATCHKEY" verify --key "$work/demo.key.pub" "$header.$forged_payload.$signature"
status=$?
set -e
echo "exit status: $status"
[ "$status" -eq 1 ]

step "The wrong audience is refused too"
set +e
"$LATCHKEY" verify --key "$work/demo.key.pub" --aud someone-else "$token"
status=$?
set -e
echo "exit status: $status"
[ "$status" -eq 1 ]

step "HS256 with a shared secret, read from standard input"
secret="correct horse battery staple, long enough for HS256"
"$LATCHKEY" sign --alg HS256 --secret "$secret" --sub user-2 --exp 1h | "$LATCHKEY" verify --secret "$secret" -

printf '\nDone.\n'
