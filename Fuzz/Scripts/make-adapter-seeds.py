#!/usr/bin/env python3
"""Writes the seed corpora of the adapter targets (FuzzStytch, FuzzAuth0, FuzzSocialPlus).

Most seeds are the emulator's own answers (`latchkey emulator`, which answers as
/work/shared/providers.md documents), captured along the call sequences an app makes:
log in, check, renew, log out. The rest are shapes the emulator does not produce on
demand: Auth0's legacy error body, `expires_in` as a string, rate limits with headers,
a proxy's HTML page, a transport failure.

Each seed is a script (see Sources/AdapterFuzzSupport): the call on the first line,
then the answers, `<status>[;header=value]...\\n<body>`, separated by `\\n~~~\\n`. Signed
tokens (Stytch's `session_jwt`, Auth0's `id_token`) are written as their claims, moved
to the fuzz clock's time (2026-01-01) and to the fuzz configuration's issuer and
audience: the target signs them with the key its scripted JWKS publishes.

    Scripts/make-adapter-seeds.py path/to/latchkey

Seeds are named after the call sequence; rerunning rewrites them (the emulator's tokens
and IDs differ each time) and leaves the other files, the inputs merged back from long
runs, alone.
"""
import base64
import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

START = 1_767_225_600  # FuzzClock.start
SEP = "\n~~~\n"
STYTCH_PROJECT = "project-test-fuzz"
AUTH0_ISSUER = "https://tenant.fuzz.example/"
AUTH0_CLIENT = "fuzz-client"


def request(method, url, body=None, headers=None, form=False):
    data = None
    headers = dict(headers or {})
    if body is not None:
        if form:
            data = urllib.parse.urlencode(body).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        else:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def answer(status, body, headers=None):
    line = str(status)
    for name, value in (headers or {}).items():
        line += f";{name}={value}"
    if isinstance(body, (dict, list)):
        body = json.dumps(body, separators=(",", ":"))
    if isinstance(body, bytes):
        body = body.decode()
    return line + "\n" + body


def captured(result, rewrite=None):
    status, headers, body = result
    kept = {k.lower(): v for k, v in headers.items() if k.lower() in ("retry-after", "x-ratelimit-reset")}
    try:
        value = json.loads(body)
        if rewrite:
            value = rewrite(value)
        return answer(status, value, kept), value
    except ValueError:
        return answer(status, body, kept), None


def claims_of(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def retimed(claims):
    """Moves iat/nbf/exp/auth_time so that iat is the fuzz clock's start."""
    if isinstance(claims.get("iat"), (int, float)):
        shift = START - claims["iat"]
        for name in ("iat", "nbf", "exp", "auth_time", "session_expiry"):
            if isinstance(claims.get(name), (int, float)):
                claims[name] = claims[name] + shift
    return claims


def write(target, name, call, answers):
    directory = os.path.join("Corpus", target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "w") as file:
        file.write(call + "\n" + SEP.join(answers))


# MARK: Stytch

def stytch_seeds(info):
    root = info["sdkBaseURL"]
    public = info["publicToken"]

    def post(path, body, session=None):
        secret = session or public
        auth = base64.b64encode(f"{public}:{secret}".encode()).decode()
        return request("POST", root + path, body, {"Authorization": "Basic " + auth})

    def sign_jwt(value):
        data = value.get("data") if isinstance(value, dict) else None
        if isinstance(data, dict) and isinstance(data.get("session_jwt"), str) and data["session_jwt"]:
            claims = retimed(claims_of(data["session_jwt"]))
            claims["iss"] = "stytch.com/" + STYTCH_PROJECT
            claims["aud"] = [STYTCH_PROJECT]
            data["session_jwt"] = claims
        return value

    def token_of(value):
        return (value or {}).get("data", {}).get("session_token")

    user = info["users"][0]
    login, value = captured(post("passwords/authenticate", {"email": user["email"], "password": user["password"],
                                                             "session_duration_minutes": 60}), sign_jwt)
    token = token_of(value)
    claims = value["data"]["session_jwt"]
    check, _ = captured(post("sessions/authenticate", {}, token), sign_jwt)
    extend, _ = captured(post("sessions/authenticate", {"session_duration_minutes": 120}, token), sign_jwt)
    revoke, _ = captured(post("sessions/revoke", {}, token))
    gone, _ = captured(post("sessions/authenticate", {}, token))
    write("FuzzStytch", "password-lifecycle", "password", [login, check, extend, revoke, gone])
    # The raw JWT string, as Stytch sends it (decoded, not verified, for its times).
    raw = captured(post("passwords/authenticate", {"email": user["email"], "password": user["password"],
                                                   "session_duration_minutes": 60}))[0]
    write("FuzzStytch", "password-raw-jwt", "password", [raw])
    wrong, _ = captured(post("passwords/authenticate", {"email": user["email"], "password": "wrong", "session_duration_minutes": 5}))
    write("FuzzStytch", "password-wrong", "password", [wrong])
    otp, _ = captured(post("otps/authenticate", {"token": "000000", "method_id": "phone-number-test", "session_duration_minutes": 5}))
    write("FuzzStytch", "otp-refused", "otp", [otp])
    link, _ = captured(post("magic_links/authenticate", {"token": "unknown", "session_duration_minutes": 5}))
    write("FuzzStytch", "magic-link-refused", "magic-link", [link])
    write("FuzzStytch", "validate-unauthorized", "validate", [gone])
    write("FuzzStytch", "extend", "extend", [extend, revoke])
    write("FuzzStytch", "revoke", "revoke", [revoke])
    verify = dict(claims)
    write("FuzzStytch", "verify", "verify", [answer(200, verify)])

    organization = info["organizations"][0]
    plain = next(m for m in organization["members"] if not m["mfaRequired"])
    mfa = next(m for m in organization["members"] if m["mfaRequired"])
    b2b, value = captured(post("b2b/passwords/authenticate", {"organization_id": organization["organizationID"],
                                                               "email_address": plain["email"], "password": plain["password"],
                                                               "session_duration_minutes": 60}), sign_jwt)
    token = token_of(value)
    member_claims = value["data"]["session_jwt"]
    b2b_check, _ = captured(post("b2b/sessions/authenticate", {}, token), sign_jwt)
    b2b_revoke, _ = captured(post("b2b/sessions/revoke", {}, token))
    b2b_gone, _ = captured(post("b2b/sessions/authenticate", {}, token))
    write("FuzzStytch", "b2b-password-lifecycle", "b2b-password", [b2b, b2b_check, b2b_revoke, b2b_gone])
    write("FuzzStytch", "b2b-verify", "b2b-verify", [answer(200, member_claims), b2b_check])
    pending, value = captured(post("b2b/passwords/authenticate", {"organization_id": organization["organizationID"],
                                                                   "email_address": mfa["email"], "password": mfa["password"],
                                                                   "session_duration_minutes": 60}))
    ist = value["data"]["intermediate_session_token"]
    ids = {"organization_id": organization["organizationID"], "member_id": mfa["memberID"], "intermediate_session_token": ist}
    sms_send, _ = captured(post("b2b/otps/sms/send", dict(ids, mfa_phone_number="+15555550100")))
    totp, _ = captured(post("b2b/totp/authenticate", dict(ids, code="000000", session_duration_minutes=60)))
    sms, _ = captured(post("b2b/otps/sms/authenticate", dict(ids, code="000000", session_duration_minutes=60)))
    recover, _ = captured(post("b2b/recovery_codes/recover", dict(ids, recovery_code="unknown", session_duration_minutes=60)))
    discovered, _ = captured(post("b2b/discovery/organizations", {"intermediate_session_token": ist}))
    exchange, _ = captured(post("b2b/discovery/intermediate_sessions/exchange", {"intermediate_session_token": ist,
                                                                                 "organization_id": organization["organizationID"],
                                                                                 "session_duration_minutes": 60}), sign_jwt)
    # An emulator without the MFA routes answers 404: a member session is what they give.
    if totp.startswith("404"):
        totp = sms = b2b
        sms_send = answer(200, {"data": {"request_id": "request-id-test-sms", "status_code": 200, "member_id": mfa["memberID"],
                                         "organization_id": organization["organizationID"]}})
    write("FuzzStytch", "b2b-mfa-pending", "b2b-password", [pending, totp, sms_send])
    write("FuzzStytch", "b2b-sms-send", "b2b-sms-send", [sms_send, sms])
    write("FuzzStytch", "b2b-totp", "b2b-totp", [totp])
    write("FuzzStytch", "b2b-recovery", "b2b-recovery", [recover])
    write("FuzzStytch", "b2b-discovery", "b2b-discovery", [discovered])
    write("FuzzStytch", "b2b-exchange", "b2b-exchange", [exchange, b2b_check])
    link, _ = captured(post("b2b/magic_links/authenticate", {"magic_links_token": "unknown", "session_duration_minutes": 5}))
    write("FuzzStytch", "b2b-magic-link-refused", "b2b-magic-link", [link])
    write("FuzzStytch", "b2b-validate", "b2b-validate", [b2b_check])
    write("FuzzStytch", "b2b-renew", "b2b-renew", [b2b_gone])
    write("FuzzStytch", "b2b-revoke", "b2b-revoke", [b2b_revoke])
    # What the emulator does not send on demand.
    limited = answer(429, {"status_code": 429, "request_id": "request-id-test-1", "error_type": "too_many_requests",
                           "error_message": "Too many requests.", "error_url": "https://stytch.com/docs/api/errors/429"},
                     {"retry-after": "7"})
    write("FuzzStytch", "rate-limited", "validate", [limited, "500\n<html><body>Bad gateway</body></html>", "timeout\n", check])
    write("FuzzStytch", "proxy-page", "password", ["401\nCaptcha required"])


# MARK: Auth0

def auth0_seeds(info):
    root = info["baseURL"]
    client = info["clientID"]
    realm = info["connection"]
    alice = next(u for u in info["users"] if not u["mfaRequired"])
    mfa_user = next(u for u in info["users"] if u["mfaRequired"])

    def token(fields):
        return request("POST", root + "oauth/token", dict(fields, client_id=client), form=True)

    def sign_id_token(value):
        if isinstance(value, dict) and isinstance(value.get("id_token"), str):
            claims = retimed(claims_of(value["id_token"]))
            claims["iss"] = AUTH0_ISSUER
            claims["aud"] = AUTH0_CLIENT
            value["id_token"] = claims
        return value

    grant = {"grant_type": "http://auth0.com/oauth/grant-type/password-realm", "username": alice["email"], "password": alice["password"],
             "realm": realm, "scope": "openid profile email offline_access"}
    login, value = captured(token(grant), sign_id_token)
    access, refresh = value["access_token"], value.get("refresh_token")
    id_claims = value["id_token"]
    userinfo, _ = captured(request("GET", root + "userinfo", headers={"Authorization": "Bearer " + access}))
    renewed, value = captured(token({"grant_type": "refresh_token", "refresh_token": refresh}), sign_id_token)
    revoked, _ = captured(request("POST", root + "oauth/revoke", {"client_id": client, "token": value.get("refresh_token") or refresh}, form=True))
    reused, _ = captured(token({"grant_type": "refresh_token", "refresh_token": refresh}))
    write("FuzzAuth0", "realm-lifecycle", "realm", [login, userinfo, renewed, revoked])
    write("FuzzAuth0", "renew-reused", "renew", [reused])
    wrong, _ = captured(token(dict(grant, password="wrong")))
    write("FuzzAuth0", "realm-wrong-password", "realm", [wrong])
    plain, _ = captured(token({"grant_type": "password", "username": alice["email"], "password": alice["password"],
                               "scope": "openid offline_access"}), sign_id_token)
    write("FuzzAuth0", "password", "password", [plain, userinfo])
    mfa, value = captured(token(dict(grant, username=mfa_user["email"], password=mfa_user["password"])))
    otp, _ = captured(token({"grant_type": "http://auth0.com/oauth/grant-type/mfa-otp", "mfa_token": value.get("mfa_token", ""), "otp": "000000"}))
    write("FuzzAuth0", "mfa-required", "password", [mfa, otp, plain])
    write("FuzzAuth0", "mfa-otp", "mfa-otp", [otp])
    write("FuzzAuth0", "mfa-recovery", "mfa-recovery", [otp])
    device, value = captured(request("POST", root + "oauth/device/code", {"client_id": client, "scope": "openid offline_access"}, form=True))
    poll, _ = captured(token({"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": value.get("device_code", "")}))
    slow = answer(429, {"error": "slow_down", "error_description": "You are polling faster than allowed."})
    write("FuzzAuth0", "device", "device", [device, poll, slow, "lost\n", login])
    write("FuzzAuth0", "validate", "validate", [userinfo])
    write("FuzzAuth0", "validate-id-token", "validate-id-token", [answer(200, id_claims), userinfo])
    write("FuzzAuth0", "revoke", "revoke", [revoked])
    # What the emulator does not send on demand.
    string_expiry = dict(json.loads(renewed.split("\n", 1)[1]))
    string_expiry["expires_in"] = "86400"
    string_expiry.pop("refresh_token", None)
    write("FuzzAuth0", "renew-string-expires-in", "renew-scope", [answer(200, string_expiry)])
    write("FuzzAuth0", "renew-legacy-error", "renew", [answer(403, {"code": "invalid_grant", "description": "Unknown or invalid refresh token."})])
    write("FuzzAuth0", "renew-blocked", "renew", [answer(401, {"error": "unauthorized", "error_description": "user is blocked"})])
    write("FuzzAuth0", "rate-limited", "validate",
          [answer(429, {"error": "too_many_requests", "error_description": "Too Many Requests"},
                  {"x-ratelimit-limit": "5", "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(START + 60)}),
           answer(429, "", {"retry-after": "Thu, 01 Jan 2026 00:01:00 GMT"}), "503\n<html>Service Unavailable</html>", userinfo])


# MARK: social.plus

def socialplus_seeds(info):
    root = info["baseURL"].rstrip("/")
    key = info["apiKey"]
    user = info["users"][0]
    body = {"userId": user["userID"], "displayName": user["displayName"], "deviceId": "device-fuzz",
            "deviceInfo": {"kind": "web", "model": "linux", "sdkVersion": "latchkey-swift/0.1"}}

    def rename(value):
        # The target logs in as alice; the emulator's first user may be named otherwise.
        text = json.dumps(value).replace('"' + user["userID"] + '"', '"alice"')
        return json.loads(text)

    login, value = captured(request("POST", root + "/api/v5/sessions", body, {"X-API-Key": key}), rename)
    access = value["accessToken"]
    check, _ = captured(request("GET", root + "/api/v3/users/" + urllib.parse.quote(user["userID"], safe=""),
                                headers={"Authorization": "Bearer " + access}), rename)
    again, _ = captured(request("POST", root + "/api/v5/sessions", body, {"X-API-Key": key}), rename)
    delete, _ = captured(request("DELETE", root + "/api/v4/sessions", headers={"Authorization": "Bearer " + access}))
    after, _ = captured(request("GET", root + "/api/v3/users/" + user["userID"], headers={"Authorization": "Bearer " + access}))
    write("FuzzSocialPlus", "login-lifecycle", "login", [login, check, again, delete])
    # An access-token login has no exchange: its one request is the user check.
    write("FuzzSocialPlus", "login-access-token", "login-access-token", [check])
    write("FuzzSocialPlus", "validate", "validate", [check])
    write("FuzzSocialPlus", "validate-after-logout", "validate", [after])
    write("FuzzSocialPlus", "renew", "renew", [again])
    write("FuzzSocialPlus", "renew-auth-token", "renew-auth-token", [again])
    write("FuzzSocialPlus", "renew-unable", "renew-unable", [again])
    write("FuzzSocialPlus", "renew-access-token", "renew-access-token", [check])
    write("FuzzSocialPlus", "revoke", "revoke", [delete])
    wrong_key, _ = captured(request("POST", root + "/api/v5/sessions", body, {"X-API-Key": "wrong"}))
    write("FuzzSocialPlus", "login-wrong-key", "login", [wrong_key])
    minted = request("POST", root + "/api/v4/authentication/token", {"userId": user["userID"]}, {"x-server-key": info["serverKey"]})
    write("FuzzSocialPlus", "mint", "mint", [answer(minted[0], minted[2])])
    refused, _ = captured(request("POST", root + "/api/v4/authentication/token", {"userId": user["userID"]}, {"x-server-key": "wrong"}))
    write("FuzzSocialPlus", "mint-refused", "mint", [refused])
    # What the emulator does not send on demand.
    banned = json.loads(login.split("\n", 1)[1])
    banned["users"][0]["isGlobalBanned"] = True
    write("FuzzSocialPlus", "login-banned-flag", "login", [answer(200, banned)])
    write("FuzzSocialPlus", "login-unauthorized", "login",
          [answer(401, {"status": "error", "code": 400100, "message": "User is banned from the system."})])
    write("FuzzSocialPlus", "validate-global-ban", "validate",
          [answer(403, {"status": "error", "code": "400312", "message": "User is globally banned."})])
    write("FuzzSocialPlus", "rate-limited", "renew",
          [answer(429, {"status": "error", "code": 429000, "message": "Too many requests"}, {"retry-after": "30"}), "timeout\n",
           "502\n<html>Bad gateway</html>", again])
    write("FuzzSocialPlus", "inspect-global-ban", "inspect",
          [answer(403, {"status": "error", "code": 400312, "message": "User is globally banned.", "data": {}})])


def main():
    latchkey = sys.argv[1] if len(sys.argv) > 1 else "../.build/debug/latchkey"
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    emulator = subprocess.Popen([latchkey, "emulator", "--json"], stdout=subprocess.PIPE, text=True)
    try:
        info = json.loads(emulator.stdout.readline())["providers"]
        stytch_seeds(info["stytch"])
        auth0_seeds(info["auth0"])
        socialplus_seeds(info["socialplus"])
    finally:
        emulator.terminate()
        emulator.wait()
    for target in ("FuzzStytch", "FuzzAuth0", "FuzzSocialPlus"):
        print(f"Corpus/{target}: {len(os.listdir(os.path.join('Corpus', target)))} seeds")


if __name__ == "__main__":
    main()
