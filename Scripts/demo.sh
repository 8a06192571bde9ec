#!/usr/bin/env bash
# make demo: a session walked through each provider (emulated), then the latchkey JWT commands.
#   usage: Scripts/demo.sh [path/to/latchkey]
# Runs without a terminal (headings are bold only on one, and never with NO_COLOR).
set -euo pipefail

LATCHKEY=${1:-latchkey}
if ! command -v "$LATCHKEY" >/dev/null 2>&1; then
    echo "demo: cannot run '$LATCHKEY' (build it with: swift build -c release --product latchkey)" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/latchkey-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -t 1 ] && [ -z "${NO_COLOR+set}" ]; then bold=$'\033[1m' reset=$'\033[0m'; else bold='' reset=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$reset"; }
show() { printf '$ %s\n' "$*"; }

# Runs a command that must fail with the given status, shows the status, and stops the
# demo if it is anything else.
expect_status() {
    local expected=$1; shift
    local status=0
    "$@" || status=$?
    echo "exit status: $status"
    if [ "$status" -ne "$expected" ]; then
        echo "demo: expected exit status $expected, got $status" >&2
        exit 1
    fi
}

step "Sessions: Stytch, Auth0 and social.plus against the built-in emulator"
show latchkey demo
"$LATCHKEY" demo

issuer=https://demo.latchkey.dev/

step "1. Generate an ES256 key pair (the private key file gets mode 0600)"
show latchkey keygen --alg ES256 --kid demo-key --out demo.key
"$LATCHKEY" keygen --alg ES256 --kid demo-key --out "$work/demo.key"
ls -l "$work" | sed 1d | awk '{ print $1, $NF }' | sed "s|$work/||"

step "2. Sign a token: subject user-1, audience my-app, valid 5 minutes, a custom claim"
show "latchkey sign --alg ES256 --key demo.key --kid demo-key --sub user-1 --iss $issuer --aud my-app --exp 5m --claim 'roles=[\"admin\"]'"
token=$("$LATCHKEY" sign --alg ES256 --key "$work/demo.key" --kid demo-key \
    --sub user-1 --iss "$issuer" --aud my-app --exp 5m --claim 'roles=["admin"]')
echo "$token"

step "3. Inspect it: decoded, not verified"
show 'latchkey inspect "$token"'
"$LATCHKEY" inspect "$token"

step "4. Verify it with the public key (exit 0)"
show "latchkey verify --key demo.key.pub --iss $issuer --aud my-app \"\$token\""
expect_status 0 "$LATCHKEY" verify --key "$work/demo.key.pub" --iss "$issuer" --aud my-app "$token"

step "5. Tamper with it: flip one character of the payload (exit 1)"
IFS=. read -r header payload signature <<<"$token"
middle=$(( ${#payload} / 2 ))
original=${payload:$middle:1}
if [ "$original" = A ]; then replacement=B; else replacement=A; fi
tampered="$header.${payload:0:$middle}$replacement${payload:$((middle + 1))}.$signature"
echo "payload character $middle: '$original' -> '$replacement'"
show 'latchkey verify --key demo.key.pub "$tampered"'
expect_status 1 "$LATCHKEY" verify --key "$work/demo.key.pub" "$tampered"

step "6. The wrong audience is refused too, here as JSON (exit 1)"
show 'latchkey verify --key demo.key.pub --aud someone-else --json "$token"'
expect_status 1 "$LATCHKEY" verify --key "$work/demo.key.pub" --aud someone-else --json "$token"

step "7. HS256 with a shared secret; the token goes through standard input with a Bearer prefix"
secret="correct horse battery staple, long enough for HS256"
show 'latchkey sign --alg HS256 --secret "$secret" --sub user-2 --exp 1h'
hs_token=$("$LATCHKEY" sign --alg HS256 --secret "$secret" --sub user-2 --exp 1h)
echo "$hs_token"
show 'echo "Bearer $hs_token" | latchkey verify --secret "$secret"'
echo "Bearer $hs_token" | "$LATCHKEY" verify --secret "$secret"
show 'latchkey verify --secret "a different secret, also long enough" "$hs_token"'
expect_status 1 "$LATCHKEY" verify --secret "a different secret, also long enough" "$hs_token"

printf '\nDone: signed, inspected, verified, and refused a tampered token, a wrong audience and a wrong secret.\n'
