"""The credential forms that are not a token with a known prefix: values a config file or a command line gives a
password without a `key=value` (a `.netrc` or `.pgpass` line, `docker login -p`, `mysql -p<pw>`, `sshpass -p`, a
NuGet `ClearTextPassword`, an XML `<password>` element), an API-key header, a client constructor's string argument,
a password told in prose ("the staging password is …"), and values that are secret where they stand (the secret
beside a cloud access key id, a bare 52-character Azure DevOps PAT, a JWT wrapped in base64).

Learnt from the maintained scanners: gitleaks' `curl-auth-user` and `nuget-config-password` rules and its provider
keyword rules, trufflehog's AWS detector (an id and the secret found near it), detect-secrets' keyword plugin with its
filters. Each value that could be code or a placeholder is judged by `memesh.core.secret_values` (`-p "$PASS"`,
`password <password>` are kept).
"""

from __future__ import annotations

import binascii
import re
from functools import cache
from typing import Final

from memesh.core.secret_rules import Group, Rule, entropy, has_run, looks_random
from memesh.core.secret_values import is_placeholder, is_secret_value

_I = re.IGNORECASE
# A command-line value: quoted, or a run without spaces.
_ARG = r"(?P<secret>\"[^\"\n]{3,}\"|'[^'\n]{3,}'|[^\s\"'<>|;&]{3,})"

# --- command lines --------------------------------------------------------------------------------------------------

COMMAND_LINES: Final = Group(
    (
        # `docker login -p <pw>` (and podman, buildah, helm registry login): `--password` is the flag rule's.
        Rule(
            "registry-login-password",
            rf"\b(?:docker|podman|buildah|nerdctl|helm\s+registry|oras)\s+login\b[^\n]*?[ \t]-p(?:[ \t]+|=){_ARG}",
            ("docker", "podman", "buildah", "nerdctl", "helm", "oras"),
            anchored=True,
            judge=is_secret_value,
        ),
        # `mysql -p<pw>`: the password glued to -p (with a space after it, -p prompts and the next word is the
        # database).
        Rule(
            "mysql-password",
            r"\b(?:mysql\w*|mariadb\w*)\b[^\n]*?[ \t]-p(?P<secret>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'|;&-][^\s\"'|;&]*)",
            ("mysql", "mariadb"),
            anchored=True,
            judge=is_secret_value,
        ),
        # `sshpass -p <pw>`, `redis-cli -a <pw>`, `mongosh -p <pw>`.
        Rule(
            "command-password-flag",
            r"\b(?:sshpass[^\n]*?[ \t]-p[ \t]*|redis-cli[^\n]*?[ \t]-a[ \t]+|mongo(?:sh|dump|restore|export|import)?"
            rf"\b[^\n]*?[ \t]-p[ \t]+){_ARG}",
            ("sshpass", "redis-cli", "mongo"),
            anchored=True,
            judge=is_secret_value,
        ),
    ),
    literals=(
        "docker",
        "podman",
        "buildah",
        "nerdctl",
        "helm",
        "oras",
        "mysql",
        "mariadb",
        "sshpass",
        "redis-cli",
        "mongo",
    ),
    signs=("-",),
)

# --- config files ---------------------------------------------------------------------------------------------------

_SECRET_NAME = r"[\w.:-]*(?:password|passwd|secret|token|api_?key|apikey|accesskey|credential)[\w.:-]*"


def _pgpass_host(match: re.Match[str], text: str) -> bool:
    """A `.pgpass` line's first field is a host (a name, an address, `*`), not the hour of a timestamp."""
    return match["host"] == "*" or any(char.isalpha() or char == "." for char in match["host"])


def _starts_its_line(match: re.Match[str], text: str) -> bool:
    start = text.rfind("\n", 0, match.start()) + 1
    return not text[start : match.start()].strip(" \t")


def _lone_password(value: str) -> bool:
    """`password <value>` alone on a line: a value that is not a word (`password required`)."""
    return is_secret_value(value) and not value.isalpha()


def _four_colons(text: str) -> bool:
    return text.count(":") >= 4


def _named_secret(match: re.Match[str], text: str) -> bool:
    return not is_placeholder(match["secret"]) and is_secret_value(match["secret"])


CONFIG_FILES: Final = Group(
    (
        # .netrc: `machine <host> login <user> password <pw>`, on one line or several.
        Rule(
            "netrc-password",
            r"\bmachine[ \t]+\S+(?:\s+(?:login|account|port)[ \t]+\S+)*\s+password[ \t]+(?P<secret>\S+)",
            ("machine",),
            anchored=True,
            judge=is_secret_value,
        ),
        # A .netrc's password line on its own (the memory tool stores a file one line per observation).
        Rule(
            "netrc-password-line",
            r"password[ \t]+(?P<secret>\S+)[ \t]*(?=\n|\Z)",
            ("password",),
            anchored=True,
            judge=_lone_password,
            context=_starts_its_line,
        ),
        # NuGet.Config and .NET appSettings: `<add key="ClearTextPassword" value="…"/>`.
        Rule(
            "xml-key-value",
            rf"<add\s+key\s*=\s*\"{_SECRET_NAME}\"\s+value\s*=\s*\"(?P<secret>[^\"]+)\"",
            ("<add",),
            flags=_I,
            anchored=True,
            context=_named_secret,
        ),
        # An XML element naming a secret: `<password>…</password>` (Maven settings.xml), `<ApiKey>…</ApiKey>`.
        Rule(
            "xml-secret-element",
            rf"<(?P<tag>{_SECRET_NAME})>(?P<secret>[^<\s]{{3,}})</(?P=tag)>",
            ("</",),
            flags=_I,
            context=_named_secret,
        ),
    ),
    literals=("machine", "password", "<add", "</"),
)

PGPASS: Final = Group(
    (
        # .pgpass: `host:port:database:user:password`, a line of its own.
        Rule(
            "pgpass-line",
            r"(?m)^(?P<host>[A-Za-z0-9_.*\[\]-]+):(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:(?P<secret>\S{3,})$",
            (":",),
            context=_pgpass_host,
            precheck=_four_colons,
        ),
    ),
    literals=(":",),
)

# --- headers, constructors, prose -----------------------------------------------------------------------------------


def _header_value(value: str) -> bool:
    """An API key in a header: not a placeholder, and not a few words (`X-Api-Key: required-for-writes`)."""
    if is_placeholder(value) or entropy(value) < 3.0 or not is_secret_value(value):
        return False
    words = re.split(r"[-_.]", value)
    return len(words) == 1 or not all(word.isalpha() and len(word) <= 12 for word in words)


@cache
def _client_class() -> re.Pattern[str]:
    return re.compile(_CLIENT_CLASS)


# Client classes whose first string argument is their key (`OpenAI("…")` is caught by its prefix; these are not).
_CLIENT_CLASS = (
    r"[A-Z]\w*(?:Client|Api|API|Sdk|SDK|Auth|Credentials?)|Mistral|Groq|Cohere|Together|Replicate|Anthropic|OpenAI"
    r"|Stripe|Twilio|Pinecone|Airtable|Octokit|Github|GitHub|Gitlab|GitLab|Telegraf|TelegramBot|Bot|Discord|Slack"
    r"|SendGrid|Mailgun|Algolia|Resend|Sentry|Bugsnag|Rollbar|Honeybadger|Segment|Analytics|Mixpanel|Amplitude"
)


def _after_client_class(match: re.Match[str], text: str) -> bool:
    """The call is to a client class's constructor (the name right before the bracket)."""
    name = re.search(r"[\w.]*\Z", text[max(0, match.start() - 60) : match.start()])
    return name is not None and _client_class().fullmatch(name.group().rsplit(".", 1)[-1]) is not None


@cache
def _verb() -> re.Pattern[str]:
    return re.compile(r"[ \t](?:is|was|remains|bec[oa]mes?|set|changed)[ \t]", re.IGNORECASE)


def _tells(text: str) -> bool:
    """Prose telling a value: a verb the prose rules read (`is`, `was`, `set to`)."""
    return _verb().search(text) is not None


def _prose_password(match: re.Match[str], text: str) -> bool:
    """A password told in prose: quoted, or a run with a digit or a symbol in it (`is required` is not one)."""
    value = match["secret"]
    if is_placeholder(value):
        return False
    return bool(match["quote"]) or re.search(r"[0-9!@#$%^&*+=?~_.-]", value.rstrip(".,;:!?)")) is not None


PROSE_AND_CALLS: Final = Group(
    (
        # An API key header other than Authorization (`X-API-Key:`, `Ocp-Apim-Subscription-Key:`, `apikey:`).
        Rule(
            "api-key-header",
            r"(?<![A-Za-z0-9_])(?:X-[A-Za-z0-9-]*?)?(?:api-?key|api-?token|auth-?token|access-?token|app-?key"
            r"|subscription-key|secret-?key)[\"']?[ \t]*:[ \t]*[\"']?(?P<secret>[A-Za-z0-9_+/=.~-]{16,})",
            ("api", "auth", "access", "app", "subscription-key", "secret", "x-"),
            sign=":",
            flags=_I,
            anchored=True,
            judge=_header_value,
        ),
        # A client constructor given its key as a string (`Mistral("…")`, `new WebClient('…')`, `Groq(api_key="…")`).
        Rule(
            "client-constructor-key",
            r"\([\"'`](?P<secret>[A-Za-z0-9_+/.=:-]{16,})[\"'`]",
            ('("', "('", "(`"),
            sign="(",
            anchored=True,
            judge=looks_random,
            context=_after_client_class,
        ),
        # "the staging password is …", "passphrase was `…`", "the password for prod: …" in prose.
        Rule(
            "prose-password",
            r"\b(?:password|passphrase|passcode|passwd|pin)s?(?:[ \t]+(?:for|of|on|to)[ \t]+[\w.-]+)?[ \t]+"
            r"(?:is|was|remains|became|becomes|is[ \t]+now|is[ \t]+still|set[ \t]+to|changed[ \t]+to)[ \t]+"
            r"(?P<quote>[`\"'])?(?P<secret>[^\s`\"']{4,})",
            ("password", "passphrase", "passcode", "passwd", "pin"),
            flags=_I,
            anchored=True,
            context=_prose_password,
            precheck=_tells,
        ),
        # "the API key is …", "token was …": only a value that looks generated.
        Rule(
            "prose-key",
            r"\b(?:api[ \t]+key|access[ \t]+key|secret(?:[ \t]+key)?|token)[ \t]+(?:is|was|is[ \t]+now|set[ \t]+to)"
            r"[ \t]+[`\"']?(?P<secret>[A-Za-z0-9+/_.~=-]{16,})",
            ("api", "access", "secret", "token"),
            flags=_I,
            anchored=True,
            judge=looks_random,
            precheck=_tells,
        ),
    ),
    literals=(
        "api",
        "auth",
        "access",
        "app",
        "secret",
        "subscription-key",
        "x-",
        "(",
        "pass",
        "pin",
        "token",
    ),
)

# --- values secret where they stand ---------------------------------------------------------------------------------


def _cloud_secret(value: str) -> bool:
    """A cloud secret key beside its id: base64 of mixed case with digits (a hex digest is not one), random."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
        and looks_random(value)
    )


PAIRED_VALUES: Final = Group(
    (
        # An AWS secret access key near its key id or its name, as the console's credentials CSV holds it
        # (`AKIA…,wJalr…`) or a shell profile does. Tried before the key id's own rule takes the id out.
        Rule(
            "aws-secret-access-key",
            r"(?<![A-Za-z0-9+/])(?P<secret>[A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=])",
            ("akia", "asia", "aws", "secret access key", "secret_access_key"),
            judge=_cloud_secret,
        ),
        # An Alibaba Cloud AccessKey secret beside its LTAI id.
        Rule(
            "alibaba-access-key-secret",
            r"(?<![A-Za-z0-9])(?P<secret>[A-Za-z0-9]{30})(?![A-Za-z0-9])",
            ("ltai", "accesskey secret"),
            judge=_cloud_secret,
        ),
    ),
    literals=("akia", "asia", "aws", "secret access key", "secret_access_key", "ltai", "accesskey secret"),
)


def _base32_run(text: str) -> bool:
    return has_run(text, "abcdefghijklmnopqrstuvwxyz234567", 52)


def _base32_pat(value: str) -> bool:
    """A legacy Azure DevOps PAT: 52 characters of lower-case base32 with digits among them (no word is that long)."""
    return sum(char.isdigit() for char in value) >= 2 and looks_random(value)


_URLSAFE: Final = str.maketrans("-_", "+/")


def _wrapped_jwt(value: str) -> bool:
    """Base64 whose text is a JWT (`ZXlK` is `eyJ` encoded): a Kubernetes Secret's data, an env file's value."""
    import base64

    padded = value.translate(_URLSAFE) + "=" * (-len(value) % 4)
    try:
        decoded = base64.b64decode(padded)
    except (binascii.Error, ValueError):
        return False
    return decoded.startswith(b"eyJ") and decoded.count(b".") >= 2


CONTEXT_FREE: Final = Group(
    (
        Rule(
            "azure-devops-pat-bare",
            r"(?<![A-Za-z0-9_])(?P<secret>[a-z2-7]{52})(?![A-Za-z0-9_])",
            ("",),
            judge=_base32_pat,
            precheck=_base32_run,
        ),
        Rule(
            "jwt-base64",
            r"(?<![A-Za-z0-9+/_-])(?P<secret>ZXlK[A-Za-z0-9+/_-]{60,}={0,2})",
            ("zxlk",),
            anchored=True,
            judge=_wrapped_jwt,
        ),
    ),
    long_run=True,
)
