"""Every credential shape the cleaner must catch, the request bodies that carry them down each write path, and the
check that none of them reached the database file: shared by the MCP, HTTP and CLI tests.

Each shape carries its own marker (letters and digits no cleaned text holds by accident), so a leak is found by
searching the database's bytes for it, the WAL included, and every stored string is also checked to be what the
one cleaner would store for it.

FORMATS holds a realistic fake of every provider format the cleaner knows (tests/core/test_secret_rules.py checks
each against its rule); the import bundle carries all of them, and a private key written one line per observation
(KEY_LINES), down every transport. The fakes are generated here, at their real lengths and alphabets, from a fixed
seed per format, so no token-shaped literal sits in the source.
"""

from __future__ import annotations

import base64
import json
import os
import random
import sqlite3
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memesh.core.clean import is_clean

_SHAPES = {
    # The shapes the hostile probe found unredacted.
    "url-userinfo": "https://deploy:{m}@example.com/repo.git",
    "redis-password-only": "redis://:{m}@cache.internal:6379/0",
    "database-url-slash-in-password": "postgres://app:{m}/x9@db.internal:5432/prod",
    "pgp-private-key": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBG{m}\n-----END PGP PRIVATE KEY BLOCK-----",
    "private-key-assignment": "private_key={m}",
    "credentials-assignment": "credentials={m}",
    "json-escaped-password": '{{\\"password\\":\\"{m}\\"}}',
    "zero-width-inside-key-word": "pass\u200bword={m}",
    "soft-hyphen-inside-api-key": "sk-\u00adproj-{m}",
    "zero-width-inside-github-token": "ghp_{m}\u200b{m}",
    # A few the cleaner always caught, as a baseline.
    "openai-key": "sk-proj-{m}",
    "password-assignment": "password={m}",
    "bearer": "Bearer {m}",
}


def _marker(index: int) -> str:
    return f"Qz7Kx{index:02d}Vb2Lp9Rt4W"


SHAPES: dict[str, tuple[str, str]] = {
    kind: (template.format(m=_marker(index)), _marker(index)) for index, (kind, template) in enumerate(_SHAPES.items())
}
MARKERS = [marker for _, marker in SHAPES.values()]

_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_UPPER = string.ascii_uppercase + string.digits
_LOWER = string.ascii_lowercase + string.digits
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "-_"
_DIGITS = string.digits
_BASE32 = string.ascii_lowercase + "234567"


@dataclass(frozen=True)
class Format:
    """A credential format: the rule of memesh.core.secret_formats that must catch it, a realistic line holding a
    fake of it, and the part of that line that must never survive cleaning."""

    rule: str
    text: str
    secret: str


def _fake(seed: str, alphabet: str, length: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(length))


def _uuid(seed: str) -> str:
    h = _fake(seed, _HEX, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _format(rule: str, template: str, **parts: tuple[str, int]) -> Format:
    """`template` with each `{part}` a fake of (alphabet, length); the secret is the longest part."""
    fakes = {name: _fake(f"{rule}:{template}:{name}", alphabet, length) for name, (alphabet, length) in parts.items()}
    return Format(rule, template.format(**fakes), max(fakes.values(), key=len))


def _formats() -> dict[str, Format]:
    f = _format
    pem_lines = [_fake(f"pem{i}", _B64, 64) for i in range(3)]
    pem = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *pem_lines, "-----END RSA PRIVATE KEY-----"])
    gcp_body = _fake("gcp-sa", _B64, 64)
    wrapped_jwt = base64.b64encode(
        f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ{_fake('jwt-b64-p', _ALNUM, 30)}.{_fake('jwt-b64-k', _URLSAFE, 43)}".encode()
    ).decode()
    bedrock_id = base64.b64encode(b"BedrockAPIKey-" + _fake("bedrock-id", _LOWER, 13).encode()).decode()
    return {
        # Private keys.
        "pem-rsa": Format("private-key", f"key file:\n{pem}\n", pem_lines[1]),
        "openssh": f(
            "private-key",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{k}\n-----END OPENSSH PRIVATE KEY-----",
            k=(_B64, 60),
        ),
        "ssh2": f(
            "private-key",
            '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key"\nP2/56wAAA{k}\n'
            "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
            k=(_B64, 60),
        ),
        "gcp-service-account": Format(
            "private-key",
            '{"type": "service_account", "private_key_id": "' + _fake("gcp-id", _HEX, 40) + '", "private_key": '
            '"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC' + gcp_body + "\\n-----END PRIVATE "
            'KEY-----\\n", "client_email": "deploy@demo-project.iam.gserviceaccount.com"}',
            gcp_body,
        ),
        "putty": f(
            "putty-private-key",
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me@laptop\nPublic-Lines: 2\n"
            "AAAAC3NzaC1lZDI1NTE5AAAAI{pub}\nPrivate-Lines: 1\n{k}\nPrivate-MAC: " + _fake("mac", _HEX, 64),
            pub=(_B64, 40),
            k=(_B64, 44),
        ),
        # URLs: passwords, tokens as the user, chat webhooks, signatures.
        "url-password": f("url-userinfo", "git clone https://deploy:{k}@git.example.com/team/repo.git", k=(_ALNUM, 24)),
        "url-token-user": f(
            "url-token-user",
            "git remote set-url origin https://{k}@dev.azure.com/org/project/_git/repo",
            k=(_ALNUM, 40),
        ),
        "slack-webhook": f(
            "slack-webhook",
            "curl -X POST -d @msg.json https://hooks.slack.com/services/T{team}/B{hook}/{k}",
            team=(_UPPER, 8),
            hook=(_UPPER, 10),
            k=(_ALNUM, 24),
        ),
        "discord-webhook": f(
            "discord-webhook",
            "DEPLOY_HOOK=https://discord.com/api/webhooks/{id}/{k}",
            id=(_DIGITS, 18),
            k=(_URLSAFE, 68),
        ),
        "teams-webhook": Format(
            "teams-webhook",
            f"https://contoso.webhook.office.com/webhookb2/{_uuid('t1')}@{_uuid('t2')}/IncomingWebhook/"
            f"{_fake('teams', _HEX, 32)}/{_uuid('t3')}",
            _fake("teams", _HEX, 32),
        ),
        "mattermost-webhook": f("chat-hook-path", "POST https://chat.example.com/hooks/{k}", k=(_LOWER, 26)),
        "rocketchat-webhook": f(
            "chat-hook-path", "https://rocket.example.com/hooks/{id}/{k}", id=(_ALNUM, 17), k=(_ALNUM, 48)
        ),
        "zapier-webhook": f("zapier-webhook", "https://hooks.zapier.com/hooks/catch/1234567/{k}/", k=(_LOWER, 7)),
        "ifttt-webhook": f("ifttt-webhook", "https://maker.ifttt.com/trigger/deployed/with/key/{k}", k=(_URLSAFE, 22)),
        "google-chat-webhook": f(
            "google-api-key",
            "https://chat.googleapis.com/v1/spaces/AAAA{space}/messages?key=AIza{k}",
            space=(_ALNUM, 7),
            k=(_URLSAFE, 35),
        ),
        "power-automate-webhook": f(
            "query-sig",
            "https://prod-12.westeurope.logic.azure.com:443/workflows/{id}/triggers/manual/paths/invoke"
            "?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={k}",
            id=(_HEX, 32),
            k=(_URLSAFE, 43),
        ),
        "azure-sas": f(
            "query-sig",
            "https://acct.blob.core.windows.net/backups/db.tar?sv=2022-11-02&ss=b&srt=o&sp=r"
            "&se=2026-12-31T00:00:00Z&spr=https&sig={k}%3D",
            k=(_ALNUM, 43),
        ),
        "aws-presigned-signature": f(
            "secret-assignment",
            "https://bucket.s3.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261201T000000Z"
            "&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={k}",
            k=(_HEX, 64),
        ),
        "aws-presigned-credential": f(
            "secret-assignment",
            "https://bucket.s3.amazonaws.com/a.png?X-Amz-Credential={k}%2F20261201%2Fus-east-1%2Fs3%2Faws4_request",
            k=(_UPPER, 20),
        ),
        "aws-presigned-session-token": f(
            "secret-assignment", "https://bucket.s3.amazonaws.com/a.png?X-Amz-Security-Token={k}", k=(_B64, 300)
        ),
        "gcs-signed-url": f(
            "secret-assignment",
            "https://storage.googleapis.com/bucket/obj?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={k}",
            k=(_HEX, 256),
        ),
        "azure-function-key": f(
            "query-code", "https://fn-app.azurewebsites.net/api/ingest?code={k}==", k=(_URLSAFE, 54)
        ),
        "oauth-code-redirect": f(
            "query-code", "http://localhost:8080/callback?code=4/0A{k}&scope=email", k=(_URLSAFE, 70)
        ),
        # Connection strings.
        "azure-storage-connection-string": f(
            "azure-connection-key",
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={k}==;EndpointSuffix=core.windows.net",
            k=(_B64, 86),
        ),
        "azure-service-bus-connection-string": f(
            "azure-connection-key",
            "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
            "SharedAccessKey={k}=",
            k=(_B64, 43),
        ),
        # Provider tokens the cleaner always knew.
        "jwt": f("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ{p}.{k}", p=(_ALNUM, 30), k=(_URLSAFE, 43)),
        "sendgrid": f("sendgrid", "SENDGRID=SG.{a}.{k}", a=(_URLSAFE, 22), k=(_URLSAFE, 43)),
        "stripe-live": f("stripe", "stripe.api_key = sk_live_{k}", k=(_ALNUM, 24)),
        "stripe-restricted": f("stripe", "rk_live_{k}", k=(_ALNUM, 24)),
        "npm": f("npm", "//registry.npmjs.org/:_authToken=npm_{k}", k=(_ALNUM, 36)),
        "openai-project": f("openai-anthropic", "OPENAI=sk-proj-{a}T3BlbkFJ{k}", a=(_URLSAFE, 74), k=(_URLSAFE, 74)),
        "openai-service-account": f("openai-anthropic", "sk-svcacct-{k}", k=(_URLSAFE, 100)),
        "anthropic": f("openai-anthropic", "key sk-ant-api03-{k}AA", k=(_URLSAFE, 93)),
        "github-fine-grained": f("github", "github_pat_11{a}_{k}", a=(_UPPER, 20), k=(_ALNUM, 59)),
        "github-oauth": f("github", "gho_{k}", k=(_ALNUM, 36)),
        "github-app-server": f("github", "ghs_{k}", k=(_ALNUM, 36)),
        "github-app-user": f("github", "ghu_{k}", k=(_ALNUM, 36)),
        "github-refresh": f("github", "ghr_{k}", k=(_ALNUM, 36)),
        "gcp-api-key": f("google-api-key", "firebase apiKey AIza{k}", k=(_URLSAFE, 35)),
        "slack-bot": f("slack-token", "xoxb-{a}-{b}-{k}", a=(_DIGITS, 12), b=(_DIGITS, 13), k=(_ALNUM, 24)),
        "slack-user": f(
            "slack-token", "xoxp-{a}-{b}-{c}-{k}", a=(_DIGITS, 12), b=(_DIGITS, 12), c=(_DIGITS, 12), k=(_HEX, 32)
        ),
        "slack-app": f("slack-token", "xapp-1-A{a}-{b}-{k}", a=(_UPPER, 10), b=(_DIGITS, 13), k=(_HEX, 64)),
        "slack-config": f("slack-token", "xoxe.xoxp-1-{k}", k=(_UPPER, 160)),
        # Code hosts.
        "gitlab-pat": f("gitlab", "PRIVATE-TOKEN glpat-{k}", k=(_URLSAFE, 20)),
        "gitlab-deploy": f("gitlab", "gldt-{k}", k=(_URLSAFE, 20)),
        "gitlab-runner": f("gitlab", "glrt-{k}", k=(_URLSAFE, 20)),
        "gitlab-ci-job": f("gitlab", "glcbt-64_{k}", k=(_URLSAFE, 20)),
        "gitlab-trigger": f("gitlab", "glptt-{k}", k=(_HEX, 40)),
        "gitlab-runner-registration": f("gitlab-runner-registration", "GR1348941{k}", k=(_URLSAFE, 20)),
        "gitlab-session": f("gitlab-session", "Cookie _gitlab_session={k}", k=(_HEX, 32)),
        "bitbucket-app-password": f("bitbucket-app-password", "ATBB{k}", k=(_ALNUM, 32)),
        "atlassian-api-token": f("atlassian-api-token", "ATATT3xFfGF0{k}", k=(_URLSAFE, 180)),
        "azure-devops-pat": f(
            "microsoft-annotated-key", "{k}JQQJ99BAACAAAAAAAAAAAAASAZDO{c}", k=(_ALNUM, 52), c=(_ALNUM, 4)
        ),
        "azure-devops-pat-legacy": f("generic-secret-value", "AZURE_DEVOPS_EXT_PAT={k}", k=(_BASE32, 52)),
        # Model hubs and AI APIs.
        "huggingface": f("huggingface", "HF_TOKEN=hf_{k}", k=(string.ascii_letters, 34)),
        "huggingface-org": f("huggingface", "api_org_{k}", k=(string.ascii_letters, 34)),
        "replicate": f("replicate", "r8_{k}", k=(_ALNUM, 37)),
        "groq": f("groq", "gsk_{k}", k=(_ALNUM, 52)),
        "perplexity": f("perplexity", "pplx-{k}", k=(_ALNUM, 48)),
        "xai": f("xai", "xai-{k}", k=(_ALNUM, 80)),
        "langsmith": f("langsmith", "lsv2_pt_{a}_{k}", a=(_HEX, 32), k=(_HEX, 10)),
        "pinecone": f("pinecone", "pcsk_{a}_{k}", a=(_ALNUM, 6), k=(_ALNUM, 60)),
        "fireworks": f("fireworks", "fw_{k}", k=(_ALNUM, 24)),
        "tavily": f("tavily", "tvly-dev-{k}", k=(_ALNUM, 32)),
        "firecrawl": f("firecrawl", "fc-{k}", k=(_HEX, 32)),
        # Chat apps.
        "telegram-bot": f(
            "telegram-bot", "https://api.telegram.org/bot{id}:AA{k}/sendMessage", id=(_DIGITS, 10), k=(_URLSAFE, 33)
        ),
        "discord-bot": f("discord-bot", 'bot.run("M{a}.{b}.{k}")', a=(_URLSAFE, 25), b=(_URLSAFE, 6), k=(_URLSAFE, 38)),
        "twilio-api-key": f("twilio-api-key", "TWILIO_KEY SK{k}", k=(_HEX, 32)),
        "mailgun": f("mailgun", "api:key-{k}", k=(_HEX, 32)),
        "mailchimp": f("mailchimp", "{k}-us14", k=(_HEX, 32)),
        "sendinblue": f("sendinblue", "xkeysib-{a}-{k}", a=(_HEX, 64), k=(_ALNUM, 16)),
        # Cloud providers.
        "aws-access-key-id": f("aws-access-key-id", "aws_access_key_id AKIA{k}", k=(_UPPER, 16)),
        "aws-temporary-key-id": f("aws-access-key-id", "ASIA{k}", k=(_UPPER, 16)),
        "aws-mws": Format("aws-mws", "amzn.mws." + _uuid("mws"), _uuid("mws")),
        "google-oauth-client-secret": f("google-oauth-client-secret", "GOCSPX-{k}", k=(_URLSAFE, 28)),
        "google-oauth-access-token": f("google-oauth-access-token", "ya29.{k}", k=(_URLSAFE, 150)),
        "google-oauth-refresh-token": f("google-oauth-refresh-token", "refresh 1//0{k}", k=(_URLSAFE, 100)),
        "gcs-hmac": f("gcs-hmac-access-id", "GOOG1E{k}", k=(_UPPER, 55)),
        "azure-ad-client-secret": f("azure-ad-client-secret", "{a}8Q~{k}", a=(_ALNUM, 3), k=(_ALNUM, 34)),
        "digitalocean": f("digitalocean", "dop_v1_{k}", k=(_HEX, 64)),
        "stripe-webhook-secret": f("stripe-webhook-secret", "whsec_{k}", k=(_ALNUM, 32)),
        "pypi": f("pypi", "password = pypi-AgEIcHlwaS5vcmc{k}", k=(_URLSAFE, 100)),
        "shopify": f("shopify", "shpat_{k}", k=(_HEX, 32)),
        "doppler": f("doppler", "dp.pt.{k}", k=(_ALNUM, 43)),
        "databricks": f("databricks", "dapi{k}", k=(_HEX, 32)),
        "heroku": f("heroku", "HRKU-AA{k}", k=(_URLSAFE, 58)),
        "vault": f("vault", "VAULT=hvs.{k}", k=(_URLSAFE, 90)),
        "terraform-cloud": f("terraform-cloud", "{a}.atlasv1.{k}", a=(_ALNUM, 14), k=(_URLSAFE, 67)),
        "grafana-service-account": f("grafana", "glsa_{k}_{c}", k=(_ALNUM, 32), c=(_HEX, 8)),
        "grafana-cloud": f("grafana", "glc_{k}=", k=(_B64, 80)),
        "new-relic": f("new-relic", "NRAK-{k}", k=(_UPPER, 27)),
        "sentry": f("sentry", "sntryu_{k}", k=(_HEX, 64)),
        "flyio": f("flyio", "fo1_{k}", k=(_URLSAFE, 43)),
        "supabase": f("supabase", "sbp_{k}", k=(_HEX, 40)),
        "onepassword": f("onepassword", "OP_SERVICE_ACCOUNT ops_eyJ{k}", k=(_B64, 250)),
        "age": f("age", "AGE-SECRET-KEY-1{k}", k=(_UPPER, 58)),
        "jfrog": f("jfrog", "AKCp{k}", k=(_ALNUM, 69)),
        "alibaba": f("alibaba", "LTAI{k}", k=(_ALNUM, 20)),
        "square": f("square", "sq0atp-{k}", k=(_URLSAFE, 22)),
        "facebook": f("facebook", "EAAC{k}", k=(_ALNUM, 150)),
        "dropbox": f("dropbox", "sl.{k}", k=(_URLSAFE, 135)),
        "mapbox-secret": f("mapbox-secret", "sk.eyJ1Ijoi{a}.{k}", a=(_ALNUM, 30), k=(_URLSAFE, 22)),
        "postman": f("postman", "PMAK-{a}-{k}", a=(_HEX, 24), k=(_HEX, 34)),
        "planetscale": f("planetscale", "pscale_tkn_{k}", k=(_URLSAFE, 43)),
        "docker-hub": f("docker-hub", "docker login -u me -p dckr_pat_{k}", k=(_URLSAFE, 27)),
        "circleci": f("circleci", "CCIPAT_{a}_{k}", a=(_ALNUM, 22), k=(_HEX, 40)),
        "buildkite": f("buildkite", "bkua_{k}", k=(_HEX, 40)),
        "sourcegraph": f("sourcegraph", "sgp_{a}_{k}", a=(_HEX, 16), k=(_HEX, 40)),
        "octopus-deploy": f("octopus-deploy", "API-{k}", k=(_UPPER, 26)),
        "netlify": f("netlify", "nfp_{k}", k=(_ALNUM, 40)),
        "render": f("render", "rnd_{k}", k=(_ALNUM, 32)),
        "contentful": f("contentful", "CFPAT-{k}", k=(_URLSAFE, 43)),
        "figma": f("figma", "figd_{k}", k=(_URLSAFE, 40)),
        "airtable": f("airtable", "pat{a}.{k}", a=(_ALNUM, 14), k=(_HEX, 64)),
        "notion": f("notion", "ntn_{a}{k}", a=(_DIGITS, 11), k=(_ALNUM, 35)),
        "notion-legacy": f("notion", "secret_{k}", k=(_ALNUM, 43)),
        "linear": f("linear", "lin_api_{k}", k=(_ALNUM, 40)),
        "resend": f("resend", "re_{a}_{k}", a=(_ALNUM, 8), k=(_ALNUM, 24)),
        "prefect": f("other-prefixed-tokens", "pnu_{k}", k=(_ALNUM, 36)),
        "rubygems": f("other-prefixed-tokens", "rubygems_{k}", k=(_HEX, 48)),
        "dynatrace": f("other-prefixed-tokens", "dt0c01.{a}.{k}", a=(_UPPER, 24), k=(_UPPER, 64)),
        "openshift": f("other-prefixed-tokens", "oc login --token=sha256~{k}", k=(_URLSAFE, 43)),
        # Provider tokens the wave-4 probe found stored verbatim (issue 35).
        "aws-bedrock-long-lived": Format(
            "aws-bedrock-api-key",
            f"bedrock key ABSK{bedrock_id}{_fake('bedrock', _B64, 100)}",
            _fake("bedrock", _B64, 100),
        ),
        "aws-bedrock-short-lived": f(
            "aws-bedrock-api-key", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t{k}", k=(_B64, 180)
        ),
        "cloudflare-origin-ca": f("cloudflare-origin-ca-key", "origin ca v1.0-{a}-{k}", a=(_HEX, 24), k=(_HEX, 146)),
        "yandex-oauth": f("yandex", "Authorization: OAuth y0_{k}", k=(_URLSAFE, 58)),
        "yandex-iam": f("yandex", "iam t1.{a}.{k}", a=(_URLSAFE, 40), k=(_URLSAFE, 86)),
        "yandex-api-key": f("yandex", "yc api AQVN{k}", k=(_URLSAFE, 36)),
        "fcm-server-key": f("fcm-server-key", "server AAAA{a}:APA91b{k}", a=(_URLSAFE, 7), k=(_URLSAFE, 134)),
        "twitch-oauth": f("twitch-oauth", "PASS oauth:{k}", k=(_LOWER, 30)),
        "twitter-bearer": f("twitter-bearer", "TW_APP " + "A" * 22 + "{k}", k=(_ALNUM, 90)),
        "flutterwave-secret": f("flutterwave", "FLWSECK-{k}-X", k=("abcdefgh0123456789", 32)),
        "razorpay": f("razorpay", "rzp_live_{k}", k=(_ALNUM, 14)),
        "plaid-access-token": Format("plaid-access-token", "access-production-" + _uuid("plaid"), _uuid("plaid")),
        "braintree": f("braintree-access-token", "access_token$production${a}${k}", a=(_LOWER, 16), k=(_HEX, 32)),
        "gocardless-live": f("live-api-key", "gocardless live_{k}", k=(_URLSAFE, 40)),
        "twilio-auth-token-named": f("provider-keyed-secret", "twilio auth token {k}", k=(_HEX, 32)),
        "datadog-app-key": f("provider-keyed-secret", "DATADOG_APP: {k}", k=(_HEX, 40)),
        # Values secret where they stand.
        "aws-credentials-csv": f(
            "aws-secret-access-key",
            "User name,Password,Access key ID,Secret access key,Console login link\n"
            "deploy,,AKIA{id},{k},https://123456789012.signin.aws.amazon.com/console",
            id=(_UPPER, 16),
            k=(_B64, 40),
        ),
        "alibaba-credentials-csv": f(
            "alibaba-access-key-secret", "AccessKey ID,AccessKey Secret\nLTAI{id},{k}", id=(_ALNUM, 20), k=(_ALNUM, 30)
        ),
        "azure-devops-pat-bare": f("azure-devops-pat-bare", "feed token for CI {k} (expires May)", k=(_BASE32, 52)),
        "jwt-base64": Format("jwt-base64", f"data:\n  session: {wrapped_jwt}\n", wrapped_jwt),
        "openvpn-static-key": f(
            "private-key",
            "-----BEGIN OpenVPN Static key V1-----\n{a}\n{k}\n-----END OpenVPN Static key V1-----",
            a=(_HEX, 32),
            k=(_HEX, 48),
        ),
        # Config-file and command-line forms.
        "netrc": f("netrc-password", "machine api.example.com\n  login deploy\n  password {k}", k=(_ALNUM, 16)),
        "netrc-line": f("netrc-password-line", "~/.netrc holds:\n  password {k}\n", k=(_ALNUM, 16)),
        "pgpass": f("pgpass-line", "~/.pgpass:\ndb.internal:5432:prod:app:{k}\n", k=(_ALNUM, 16)),
        "docker-login-p": f(
            "registry-login-password", "docker login -u deploy -p {k} registry.example.com", k=(_ALNUM, 16)
        ),
        "mysql-p": f("mysql-password", "mysql -u root -p{k} -h db.internal prod", k=(_ALNUM, 16)),
        "sshpass": f("command-password-flag", "sshpass -p '{k}' ssh deploy@host", k=(_ALNUM, 16)),
        "redis-cli-a": f("command-password-flag", "redis-cli -h cache.internal -a {k} ping", k=(_ALNUM, 16)),
        "nuget-cleartext-password": f("xml-key-value", '<add key="ClearTextPassword" value="{k}" />', k=(_ALNUM, 16)),
        "maven-password-element": f(
            "xml-secret-element", "<server><id>repo</id><password>{k}</password></server>", k=(_ALNUM, 16)
        ),
        "laravel-app-key": f("generic-secret-value", "APP_KEY=base64:{k}=", k=(_B64, 43)),
        "api-key-header": f("api-key-header", "X-API-Key: {k}", k=(string.ascii_letters, 32)),
        "client-constructor": f("client-constructor-key", 'client = Mistral("{k}")', k=(_ALNUM, 32)),
        "prose-password": f("prose-password", "The staging password is {k}-Stg9 now.", k=(_ALNUM, 12)),
        "prose-api-key": f("prose-key", "the API key is {k} until Friday", k=(_ALNUM, 32)),
        # Headers and assignments.
        "bearer": f("bearer", "-H 'Authorization: Bearer {k}'", k=(_URLSAFE, 40)),
        "basic-auth": f("authorization", "Authorization: Basic {k}=", k=(_B64, 31)),
        "okta-ssws": f("authorization", "Authorization: SSWS 00{k}", k=(_URLSAFE, 40)),
        "cookie": f("cookie", "Cookie: theme=dark; sessionid={k}", k=(_LOWER, 32)),
        "curl-user": f("curl-user", "curl -u admin:{k} https://api.example.com/v1/items", k=(_ALNUM, 16)),
        "flag-password": f("secret-flag", "mysqldump --password '{k}' prod > dump.sql", k=(_ALNUM, 12)),
        "flag-token": f("secret-flag", "vault login --token={k}", k=(_ALNUM, 26)),
        "flag-api-key": f("secret-flag", "deploy --api-key {k} --region eu", k=(_ALNUM, 12)),
        "client-secret": f("secret-assignment", "CLIENT_SECRET={k}", k=(_ALNUM, 40)),
        "oauth-client-secret-json": f("secret-colon", '{{"client_secret": "{k}"}}', k=(_URLSAFE, 35)),
        # The generic rule: a random-looking value after a key word no rule above knows.
        "generic-json-api-key": f("generic-secret-value", 'const config = {{"apiKey": "{k}"}}', k=(_ALNUM, 32)),
        "generic-yaml-key": f("generic-secret-value", "license:\n  key: {k}", k=(_ALNUM, 40)),
        "generic-env-pass": f("generic-secret-value", "DB_PASS={k}", k=(_ALNUM, 24)),
        "generic-header": f("generic-secret-value", "X-Auth: {k}", k=(_B64, 44)),
        "generic-cli-flag": f("generic-secret-value", "tool --auth {k} run", k=(_HEX, 40)),
        "generic-rails-secret": f("generic-secret-value", "secret_key_base: {k}", k=(_HEX, 128)),
        "generic-mistral": f("generic-secret-value", 'client = Mistral(api_key="{k}")', k=(_ALNUM, 32)),
    }


FORMATS: dict[str, Format] = _formats()


def format_batches(size: int = 50) -> list[list[str]]:
    """Every format's line, in batches a remember's observation list takes (at most 100)."""
    texts = [shape.text for _, shape in sorted(FORMATS.items())]
    return [texts[at : at + size] for at in range(0, len(texts), size)]


# A private key written one line per observation (the memory tool's create, a remember list).
KEY_LINES = [
    "deploy key:",
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    *[_fake(f"key-line-{i}", _B64, 70) for i in range(4)],
    "-----END OPENSSH PRIVATE KEY-----",
    "rotate it yearly",
]
KEY_LINE_MARKERS = KEY_LINES[2:6]


def remember_body(kind: str) -> dict[str, Any]:
    """A remember request with the shape in every free-text field it has (never the name, which is refused)."""
    secret, _ = SHAPES[kind]
    name = f"leak-{kind}"
    return {
        "name": name,
        "type": f"t {secret}"[:100],
        "title": f"title {secret}"[:200],
        "observations": [f"obs {secret}"],
        "tags": [f"tag:{secret}"[:255]],
        "relations": [{"to": name, "type": f"r {secret}"[:100]}],
    }


def bundle(*, keep_metadata: bool = False) -> dict[str, Any]:
    """An export bundle carrying every shape in each entity's fields, its relations and (for the CLI, which keeps
    them) its metadata, and in the envelope."""
    secrets = " ".join(secret for secret, _ in SHAPES.values())
    entities = []
    for kind, (secret, _) in SHAPES.items():
        entity: dict[str, Any] = {
            "name": f"imported-{kind}",
            "type": f"t {secret}"[:100],
            "title": f"title {secret}",
            "observations": [f"obs {secret}"],
            "tags": [f"tag:{secret}"[:255]],
            "relations": [{"to": f"imported-{kind}", "type": f"r {secret}"[:100]}],
        }
        if keep_metadata:
            entity["metadata"] = {
                "project": secret,
                "source": {"nested": [secret], secret[:40]: "as a key"},
                "replaced_history": [
                    {"replaced_at": secret, "title": secret, "observations": [secret], "tags": [secret[:255]]}
                ],
            }
        entities.append(entity)
    # The first memory also carries every provider format, and a private key one line per observation.
    entities[0]["observations"] += [shape.text for shape in FORMATS.values()] + KEY_LINES
    return {"version": f"3.1.0 {secrets}", "exported_at": secrets, "entity_count": len(entities), "entities": entities}


def learn_body(kind: str) -> dict[str, Any]:
    secret, _ = SHAPES[kind]
    return {
        "error": f"{kind} failed near {secret}",
        "fix": f"fix {secret}",
        "root_cause": f"cause {secret}",
        "prevention": f"prevent {secret}",
    }


def task_body(kind: str) -> dict[str, Any]:
    secret, _ = SHAPES[kind]
    return {"project": f"proj-{kind}", "goal": f"goal {secret}", "next": f"next {secret}", "blocked": secret}


def _postgres_url(db: Path | str) -> str | None:
    """The PostgreSQL database the test runs on: `db` itself when it is a URL (`backend.target(path)`), else the one
    the environment names beside the SQLite path (`backend.use`, the `memesh_env` fixture); None on SQLite."""
    if isinstance(db, str):
        return db
    return os.environ.get("MEMESH_DATABASE_URL") or None


def _postgres_rows(url: str) -> list[tuple[Any, ...]]:
    """Every row of every table MeMesh keeps in that PostgreSQL database, but the keyword index's postings (its
    tokens are stems of the cleaned text) and the migration log."""
    import psycopg

    with psycopg.connect(url) as conn:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename NOT LIKE 'search\\_%' AND tablename <> 'schema_migrations'"
            )
        ]
        return [tuple(row) for table in tables for row in conn.execute(f'SELECT * FROM "{table}"')]


def database_bytes(db_path: Path | str) -> bytes:
    """The database file and its WAL and shared-memory files, as they are on disk; on PostgreSQL, every value of
    every table as text."""
    url = _postgres_url(db_path)
    if url is not None:
        return "\n".join(repr(value) for row in _postgres_rows(url) for value in row).encode()
    assert isinstance(db_path, Path)
    return b"".join(p.read_bytes() for p in sorted(db_path.parent.iterdir()) if p.name.startswith(db_path.name))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    return []


def stored_strings(db_path: Path | str) -> list[str]:
    """Every text value in every table MeMesh keeps (JSON columns decoded), read as a plain SQLite client would (or a
    plain PostgreSQL one, on that backend)."""
    url = _postgres_url(db_path)
    if url is not None:
        return _text_values(_postgres_rows(url))
    assert isinstance(db_path, Path)
    conn = sqlite3.connect(db_path)
    try:
        tables = [
            row[0]
            for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not row[0].startswith(("sqlite_", "entities_fts")) and row[0] != "schema_migrations"
        ]
        return _text_values([row for table in tables for row in conn.execute(f'SELECT * FROM "{table}"')])
    finally:
        conn.close()


def _text_values(rows: list[tuple[Any, ...]]) -> list[str]:
    found: list[str] = []
    for row in rows:
        for value in row:
            if not isinstance(value, str):
                continue
            try:
                decoded = json.loads(value) if value[:1] in "{[" else value
            except ValueError:
                decoded = value
            found += _strings(decoded)
    return found


def assert_nothing_leaked(db_path: Path | str) -> None:
    """No shape's marker anywhere in the database's bytes, and every stored string a fixed point of the cleaner."""
    raw = database_bytes(db_path)
    leaked = [kind for kind, (_, marker) in SHAPES.items() if marker.encode() in raw]
    leaked += [kind for kind, shape in FORMATS.items() if shape.secret.encode() in raw]
    leaked += [line[:12] for line in KEY_LINE_MARKERS if line.encode() in raw]
    assert leaked == [], f"unredacted in the database file: {leaked}"
    unclean = [text for text in stored_strings(db_path) if not is_clean(text)]
    assert unclean == [], unclean[:5]


# Everyday lines of code and config that name a secret without holding one (the 34, and more).
EVERYDAY_CODE = [
    "const token = getToken();",
    'password = os.environ["DB_PASSWORD"]',
    "api_key = None",
    "secret: str",
    "let apiKey = process.env.API_KEY;",
    'token = request.headers.get("Authorization")',
    "self.password = password",
    'password = "<your-password>"',
    'api_key = "xxx"',
    'password = "changeme"',
    'secret_key = ""',
    "token = ''",
    "const password = config.db.password;",
    'API_KEY = os.getenv("API_KEY")',
    "auth_token = settings.AUTH_TOKEN",
    "private_key = load_key(path)",
    'token := os.Getenv("TOKEN")',
    "let token = await fetchToken(user);",
    "password: String = args.password",
    "this.secretKey = secretKey;",
    'access_token = response.json()["access_token"]',
    "api_key: Optional[str] = None",
    "if password == confirm_password:",
    "client_secret = creds.client_secret",
    "token = None  # set later",
    "password=${DB_PASSWORD}",
    "PASSWORD=$(cat /run/secrets/db)",
    'api_key = "your-api-key-here"',
    "token = 'TODO'",
    'password = "********"',
    'secret = "${SECRET}"',
    'key = "{{ vault_key }}"',
    "credentials = get_credentials()",
    "token = jwt.encode(payload, key)",
    "export GITHUB_TOKEN=$(gh auth token)",
    "def login(username, password):",
    'return {"token": token, "user": user}',
    'headers = {"Authorization": f"Bearer {token}"}',
    "passwd = getpass.getpass()",
    "password: ${DB_PASSWORD}",
    "      token: ${{ secrets.GITHUB_TOKEN }}",
    "  apiKey: process.env.STRIPE_KEY,",
    "  password: config.get('db.password'),",
    'TOKEN_FIELD = "access_token"',
    'HEADER = "X-Api-Key"',
    "secretKey := cfg.SecretKey",
    "var password = new SecureString();",
    "token = self._token",
    "api_key = kwargs.pop('api_key', None)",
    "docker login -u deploy -p $REGISTRY_PASSWORD registry.example.com",
    "mysql -u root -p -h db.internal prod",
    'sshpass -p "$SSH_PASS" ssh deploy@host',
    'curl -H "X-API-Key: $API_KEY" https://api.example.com',
    '<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />',
    "<password>${env.MAVEN_PASSWORD}</password>",
    "The password is required for every admin route.",
    "The password was reset yesterday; the token is refreshed hourly.",
    "mysqldump --password=$MYSQL_PWD prod > dump.sql",
    "client = OpenAI(api_key=os.environ['OPENAI_API_KEY'])",
    "client = Mistral(api_key=api_key)",
    "Password Reset",
    "password required",
    "  apiKey: config.apiKeyFromEnvironment,",
    "X-Request-Id: 123e4567-e89b-12d3-a456-426614174000",
    "const client = new WebClient(process.env.SLACK_TOKEN);",
    "Twitter card: summary_large_image",
]

# Ordinary text that looks like a credential to a careless rule: digests, ids, data, prose (issue 35's "Done when").
ORDINARY_TEXT = [
    *EVERYDAY_CODE,
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "commit 3f2c9a1e7b4d5c6a8e9f0a1b2c3d4e5f6a7b8c9d fixed the flaky test",
    "md5 of the build: d41d8cd98f00b204e9800998ecf8427e",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed at 12:03",
    "logo: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAA"
    "BJRU5ErkJggg==",
    "The integrity hash is sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+"
    "SfaPg==",
    "We decided to rotate the keys every 90 days and keep the password policy as it is.",
    "Base64 of 'hello world' is aGVsbG8gd29ybGQ=, nothing secret about it.",
]


def stored_verbatim_misses(db_path: Path | str, texts: list[str]) -> list[str]:
    """The texts that are not stored, byte for byte, as a whole text value of some table (read as a plain client
    of either engine reads it)."""
    stored = set(stored_strings(db_path))
    return [text for text in texts if text not in stored]
