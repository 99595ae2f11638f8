"""The credential shapes the cleaner (`memesh.core.clean`) redacts, as data: one rule per format, in groups
(`memesh.core.secret_rules` is the machinery).

The provider formats follow how the maintained secret scanners catalogue them (gitleaks' rule set, trufflehog's
detectors, detect-secrets' plugins); each rule here is written for MeMesh, with a test per format in
tests/core/test_secret_rules.py (the fake values are in tests/secret_shapes.py).

The groups, in the order they are applied:
- shapes that are secret on their own (private keys, URL passwords and webhook paths, provider tokens, JWTs);
- headers and assignments whose key names a secret (`Authorization: …`, `password=…`, `--token …`);
- the generic rule: a value right after a secret key word (`key`, `token`, `secret`, `auth`, …) that looks random
  (`looks_random`), which catches the formats no rule names.
"""

from __future__ import annotations

import re
from typing import Final

from memesh.core.secret_forms import (
    COMMAND_LINES,
    CONFIG_FILES,
    CONTEXT_FREE,
    PAIRED_VALUES,
    PGPASS,
    PROSE_AND_CALLS,
)
from memesh.core.secret_rules import REDACTED, Catalogue, Group, Rule, looks_random
from memesh.core.secret_values import is_secret_value

_I = re.IGNORECASE
_S = re.DOTALL

# --- private keys ---------------------------------------------------------------------------------------------------

# A PEM, OpenSSH, PGP or SSH2 private key, or an OpenVPN static or tls-crypt key (`-----BEGIN OpenVPN Static key
# V1-----`): the shared secret of a VPN tunnel.
_KEY_KIND = r"(?:PRIVATE KEY(?: BLOCK)?|OpenVPN[A-Z0-9 _-]{0,40}KEY[A-Z0-9 _-]{0,10})"
_BEGIN = rf"-{{4,5}} ?BEGIN[A-Z0-9 _-]{{0,40}}{_KEY_KIND} ?-{{4,5}}"
_END = rf"-{{4,5}} ?END[A-Z0-9 _-]{{0,40}}{_KEY_KIND} ?-{{4,5}}"
_PUTTY_BEGIN = r"Private-Lines:\s*\d+"
_PUTTY_END = r"Private-MAC:\s*[0-9a-f]+"
# Where key material begins and ends, for a key written across several texts (case-insensitive): the BEGIN and END
# lines of a PEM, OpenSSH, PGP or SSH2 private key, and a PuTTY key file's private lines and their MAC. Each with the
# lower-case literal a text must hold for it to begin there.
KEY_BLOCK_MARKERS: Final = (
    ("private key", _BEGIN, _END),
    ("openvpn", _BEGIN, _END),
    ("private-lines:", _PUTTY_BEGIN, _PUTTY_END),
)

_KEY_BLOCKS = Group(
    (
        # The key with its END line, or to the end of the text when it was cut off.
        Rule("private-key", rf"{_BEGIN}(?:.*?{_END}|.*\Z)", ("private key", "openvpn"), flags=_I | _S),
        # A PuTTY key file: its private lines and their MAC.
        Rule(
            "putty-private-key",
            rf"{_PUTTY_BEGIN}.*?(?:{_PUTTY_END}|\Z)",
            ("private-lines:",),
            flags=_I | _S,
        ),
    ),
    literals=("private", "openvpn"),
)

# --- URLs -----------------------------------------------------------------------------------------------------------

_URLS = Group(
    (
        # The user:password part of any URL (`https://user:pw@host`, `redis://:pw@host`, a database URL whose
        # password holds `/`); the scheme and host stay readable. The password runs to the last `@` before
        # whitespace or a quote.
        Rule(
            "url-userinfo",
            r"://(?P<secret>[^\s:@/?#\"'<>]*:[^\s\"'<>]*)(?=@[^\s@\"'<>]*(?:[\s\"'<>]|\Z))",
            ("://",),
            sign="@",
            anchored=True,
        ),
        # A token standing alone as a URL's user (`https://<token>@dev.azure.com/org`).
        Rule(
            "url-token-user",
            r"://(?P<secret>[A-Za-z0-9_~.-]{16,})@",
            ("://",),
            sign="@",
            anchored=True,
            judge=looks_random,
        ),
        # Chat webhooks: whoever holds the URL can post as the integration. The host and the route stay readable.
        Rule(
            "slack-webhook",
            r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{16,})",
            ("hooks.slack.com",),
            flags=_I,
            anchored=True,
        ),
        Rule(
            "discord-webhook",
            r"discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d+/(?P<secret>[A-Za-z0-9_-]{16,})",
            ("discord",),
            flags=_I,
            anchored=True,
        ),
        Rule(
            "teams-webhook",
            r"(?:webhook\.office\.com/webhookb2|outlook\.office\.com/webhook)/(?P<secret>[^\s\"'<>]+)",
            ("webhook.office.com", "outlook.office.com/webhook"),
            flags=_I,
            anchored=True,
        ),
        Rule(
            "chat-hook-path",  # Mattermost, Rocket.Chat and other `/hooks/<token>` integrations
            r"/hooks/(?P<secret>[A-Za-z0-9]{17,}(?:/[A-Za-z0-9]{20,})?)(?![A-Za-z0-9])",
            ("/hooks/",),
            anchored=True,
        ),
        Rule(
            "zapier-webhook",
            r"hooks\.zapier\.com/hooks/catch/\d+/(?P<secret>[A-Za-z0-9]+)",
            ("hooks.zapier.com",),
            anchored=True,
        ),
        Rule(
            "ifttt-webhook",
            r"ifttt\.com/(?:trigger/[^/\s]+/(?:json/)?with/key|use)/(?P<secret>[A-Za-z0-9_-]{16,})",
            ("ifttt.com/",),
            anchored=True,
        ),
    ),
    literals=("://", "hooks", "discord", "webhook", "ifttt.com/"),
)

# --- provider tokens ------------------------------------------------------------------------------------------------

# The shapes the cleaner always knew, as they were: case-insensitive, at any length their rule allows.
_KNOWN_TOKEN_RULES = (
    Rule("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", ("eyj",), flags=_I, anchored=True),
    Rule("sendgrid", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", ("sg.",), flags=_I, anchored=True),
    Rule(
        "stripe",
        r"[srp]k_(?:live|test|prod)_[A-Za-z0-9]{16,}",
        ("k_live_", "k_test_", "k_prod_"),
        flags=_I,
    ),
    Rule("npm", r"npm_[A-Za-z0-9]{36}", ("npm_",), flags=_I, anchored=True),
    # sk-proj-, sk-svcacct-, sk-admin-, sk-ant-…, and other sk- keys: 16 characters or more, all of a token's (a
    # repository called sk-learn-demo, whose project id is sk-learn-demo~<hex>, is not a key).
    Rule(
        "openai-anthropic",
        r"(?<![A-Za-z0-9_])sk[-_][A-Za-z0-9_-]{15,}[A-Za-z0-9]",
        ("sk-", "sk_"),
        flags=_I,
        anchored=True,
    ),
    Rule(
        "github",
        r"(?:ghp|gho|gh[sur])_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,}",
        ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"),
        flags=_I,
        anchored=True,
    ),
    Rule("google-api-key", r"AIza[A-Za-z0-9_-]{30,}", ("aiza",), flags=_I, anchored=True),
    Rule(
        "slack-token",
        r"xox[abeoprs]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[A-Za-z0-9-]{20,}|xapp-\d-[A-Za-z0-9-]{20,}",
        ("xox", "xapp-"),
        flags=_I,
        anchored=True,
    ),
)
_KNOWN_TOKENS = Group(
    _KNOWN_TOKEN_RULES,
    literals=tuple({literal for rule in _KNOWN_TOKEN_RULES for literal in rule.literals}),
)

# A token that starts where a word starts.
_B = r"(?<![A-Za-z0-9_])"
_E = r"(?![A-Za-z0-9_])"


def _token(name: str, literals: tuple[str, ...], body: str, *, flags: int = 0, sign: str | None = None) -> Rule:
    """A provider token whose every form begins with one of `literals`."""
    return Rule(name, f"{_B}(?:{body})", literals, sign=sign, flags=flags, anchored=True)


_GITLAB_KINDS = ("pat", "dt", "ft", "soat", "rt", "cbt", "ptt", "imt", "agent", "oas", "ffct")
# Provider tokens by the prefix the provider gives them, tried only in text with a run of 20 token characters (every
# one of them has that). Case-sensitive: a token typed in another case does not work, and exact case keeps short
# prefixes (`hf_`, `r8_`, `pat`) from matching words.
# Providers whose keys have no prefix: a key right after the provider's name (`TWILIO_AUTH=…`, `twilio auth token
# <hex>`), as gitleaks' keyword rules find them. Value lengths are the providers'; 40 and 64 hex digits (a git SHA,
# a SHA-256) count only after an assignment sign.
_PROVIDER_NAMES = (
    "adafruit",
    "algolia",
    "asana",
    "bittrex",
    "cloudflare",
    "codecov",
    "cohere",
    "coinbase",
    "confluent",
    "datadog",
    "droneci",
    "etsy",
    "fastly",
    "finicity",
    "finnhub",
    "flickr",
    "freshbooks",
    "gitter",
    "hubspot",
    "intercom",
    "kraken",
    "kucoin",
    "launchdarkly",
    "mailgun",
    "mattermost",
    "messagebird",
    "meraki",
    "nytimes",
    "okta",
    "pagerduty",
    "plaid",
    "rapidapi",
    "sendbird",
    "snyk",
    "squarespace",
    "sumologic",
    "travis",
    "trello",
    "twilio",
    "twitch",
    "twitter",
    "typeform",
    "zendesk",
)


def _provider_value(match: re.Match[str], text: str) -> bool:
    value = match["secret"]
    if len(value) in (40, 64) and re.fullmatch(r"[0-9a-f]+", value) and not match["sep"].strip():
        return False
    return looks_random(value)


_PROVIDER_KEYED = Rule(
    "provider-keyed-secret",
    rf"(?:{'|'.join(_PROVIDER_NAMES)})[A-Za-z0-9_ .-]{{0,20}}?"
    r"(?P<sep>[\s\"'`]{0,3}(?:=|:|=>|,)[\s\"'`=]{0,5}|[ \t]+)(?P<secret>[A-Za-z0-9_-]{20,80})(?![A-Za-z0-9_-])",
    _PROVIDER_NAMES,
    flags=_I,
    anchored=True,
    context=_provider_value,
)

_PREFIXED_TOKENS = Group(
    (
        _PROVIDER_KEYED,
        # Code hosts.
        _token(
            "gitlab",
            tuple(f"gl{kind}-" for kind in _GITLAB_KINDS),
            rf"gl(?:{'|'.join(_GITLAB_KINDS)})-[A-Za-z0-9_.-]{{20,}}",
        ),
        _token("gitlab-runner-registration", ("gr1348941",), r"GR1348941[A-Za-z0-9_-]{20,}"),
        Rule(
            "gitlab-session",
            r"_gitlab_session=(?P<secret>[0-9a-z]{32})",
            ("_gitlab_session=",),
            anchored=True,
        ),
        _token("bitbucket-app-password", ("atbb",), r"ATBB[A-Za-z0-9_=.-]{28,}"),
        _token("atlassian-api-token", ("atatt3", "atctt3", "atstt3"), r"AT(?:ATT|CTT|STT)3[A-Za-z0-9_=-]{40,}"),
        # Microsoft's 84-character keys; an Azure DevOps PAT ends its signature with AZDO.
        Rule("microsoft-annotated-key", rf"{_B}[A-Za-z0-9]{{52}}JQQJ[A-Za-z0-9]{{28}}{_E}", ("jqqj",)),
        # Model hubs and AI APIs.
        _token("huggingface", ("hf_", "api_org_"), r"hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,}"),
        _token("replicate", ("r8_",), r"r8_[A-Za-z0-9]{30,}"),
        _token("groq", ("gsk_",), r"gsk_[A-Za-z0-9]{40,}"),
        _token("perplexity", ("pplx-",), r"pplx-[A-Za-z0-9]{40,}"),
        _token("xai", ("xai-",), r"xai-[A-Za-z0-9]{60,}"),
        _token("langsmith", ("lsv2_",), r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
        _token("pinecone", ("pcsk_",), r"pcsk_[A-Za-z0-9_]{40,}"),
        _token("fireworks", ("fw_",), r"fw_[A-Za-z0-9]{24,}"),
        _token("tavily", ("tvly-",), r"tvly-[A-Za-z0-9_-]{20,}"),
        _token("firecrawl", ("fc-",), rf"fc-[a-f0-9]{{32}}{_E}"),
        # Twitch's chat OAuth token and X's app-only bearer token (a long run of `A`s, then the token).
        _token("twitch-oauth", ("oauth:",), rf"oauth:[a-z0-9]{{30}}{_E}"),
        Rule(
            "twitter-bearer",
            r"(?<![A-Za-z0-9+/%])A{22}[A-Za-z0-9%]{60,120}(?![A-Za-z0-9%+/=])",
            ("a" * 22,),
            anchored=True,
        ),
        # Chat apps.
        Rule("telegram-bot", r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])", (":aa",), sign=":AA"),
        Rule(
            "discord-bot",
            r"(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])",
            ("discord", "bot"),
        ),
        _token("twilio-api-key", ("sk",), rf"SK[0-9a-fA-F]{{32}}{_E}", sign="SK"),
        _token("mailgun", ("key-",), rf"key-[0-9a-f]{{32}}{_E}"),
        Rule("mailchimp", rf"{_B}[0-9a-f]{{32}}-us[0-9]{{1,2}}{_E}", ("-us",)),
        _token("sendinblue", ("xkeysib-",), r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
        # Cloud providers.
        _token(
            "aws-access-key-id",
            ("a3t", "akia", "asia", "abia", "acca"),
            rf"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{{16}}{_E}",
        ),
        _token("aws-mws", ("amzn.mws.",), r"amzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
        _token("google-oauth-client-secret", ("gocspx-",), r"GOCSPX-[A-Za-z0-9_-]{20,}"),
        _token("google-oauth-access-token", ("ya29.",), r"ya29\.[A-Za-z0-9_-]{30,}"),
        Rule("google-oauth-refresh-token", r"(?<![A-Za-z0-9/])1//0[A-Za-z0-9_-]{40,}", ("1//0",), anchored=True),
        _token("gcs-hmac-access-id", ("goog1",), r"GOOG1[A-Z0-9]{50,}"),
        # Amazon Bedrock's long-lived API key (base64 of its own id) and its short-lived presigned form.
        _token(
            "aws-bedrock-api-key",
            ("absk", "bedrock-api-key-"),
            r"ABSK[A-Za-z0-9+/]{100,300}={0,2}|bedrock-api-key-[A-Za-z0-9+/=_-]{40,}",
        ),
        # Cloudflare's Origin CA key.
        _token("cloudflare-origin-ca-key", ("v1.0-",), r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
        # Yandex: OAuth tokens (`y0_…`), IAM tokens (`t1.…`), API keys (`AQVN…`).
        _token(
            "yandex",
            ("y0_", "y1_", "y2_", "y3_", "t1.", "aqvn"),
            r"y[0-3]_[A-Za-z0-9_-]{55,199}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}|AQVN[A-Za-z0-9_-]{35,38}",
        ),
        # Firebase Cloud Messaging's legacy server key.
        Rule("fcm-server-key", r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}", (":apa91b",)),
        _token("digitalocean", ("doo_v1_", "dop_v1_", "dor_v1_"), r"do[opr]_v1_[a-f0-9]{64}"),
        _token("stripe-webhook-secret", ("whsec_",), r"whsec_[A-Za-z0-9]{24,}"),
        _token("pypi", ("pypi-age",), r"pypi-AgE[A-Za-z0-9_-]{50,}"),
        _token("shopify", ("shpat_", "shpca_", "shppa_", "shpss_"), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
        _token(
            "doppler",
            tuple(f"dp.{kind}." for kind in ("pt", "st", "sa", "ct", "scim", "audit")),
            r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}",
        ),
        _token("databricks", ("dapi",), rf"dapi[a-f0-9]{{32}}(?:-\d)?{_E}"),
        _token("heroku", ("hrku-",), r"HRKU-[A-Za-z0-9_-]{40,}"),
        _token("vault", ("hvs.", "hvb.", "hvr."), r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
        Rule("terraform-cloud", rf"{_B}[A-Za-z0-9]{{14}}\.atlasv1\.[A-Za-z0-9_=-]{{60,}}", ("atlasv1",)),
        _token(
            "grafana",
            ("glc_", "glsa_", "eyjrijoi"),
            r"glc_[A-Za-z0-9+/]{32,}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{40,}={0,3}",
        ),
        _token("new-relic", ("nrak-", "nrii-", "nrjs-", "nraa-"), r"NR(?:AK|II|JS|AA)-[A-Za-z0-9]{19,32}"),
        _token("sentry", ("sntrys_", "sntryu_"), r"sntry[su]_[A-Za-z0-9+/=_]{40,}"),
        _token("flyio", ("fo1_", "fm1", "fm2_"), r"fo1_[A-Za-z0-9_-]{40,}|fm(?:1[ar]|2)_[A-Za-z0-9+/]{60,}={0,3}"),
        _token("supabase", ("sbp_", "sb_secret_"), r"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,}"),
        _token(
            "onepassword",
            ("ops_ey", "a3-"),
            r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"
            r"|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
        ),
        _token("age", ("age-secret-key-1",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
        _token("jfrog", ("akcp", "cmvmd"), r"AKCp[A-Za-z0-9]{60,}|cmVmd[A-Za-z0-9]{50,}"),
        _token("alibaba", ("ltai",), rf"LTAI[A-Za-z0-9]{{20}}{_E}"),
        # Payment and banking providers' keys.
        _token(
            "flutterwave",
            ("flwseck", "flwpubk"),
            r"FLW(?:SEC|PUB)K(?:_TEST)?-[a-h0-9]{32}-X|FLWSECK_TEST[a-h0-9]{12}",
        ),
        _token("razorpay", ("rzp_live_", "rzp_test_"), rf"rzp_(?:live|test)_[A-Za-z0-9]{{14,}}{_E}"),
        _token(
            "plaid-access-token",
            ("access-sandbox-", "access-development-", "access-production-"),
            r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        ),
        _token(
            "braintree-access-token",
            ("access_token$production$", "access_token$sandbox$"),
            r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        ),
        # GoCardless (`live_…`) and Mollie (`live_…`, `test_…`) keys: judged, since `live_` starts identifiers too.
        Rule(
            "live-api-key",
            rf"{_B}(?:live|test)_(?P<secret>[A-Za-z0-9_=-]{{30,}}){_E}",
            ("live_", "test_"),
            anchored=True,
            judge=looks_random,
        ),
        _token("square", ("sq0atp-", "sq0csp-", "eaaa"), r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{60,}"),
        _token("facebook", ("eaac", "eaam"), r"EAA[CM][A-Za-z0-9]{100,}"),
        _token("dropbox", ("sl.",), r"sl\.[A-Za-z0-9_-]{130,}"),
        _token("mapbox-secret", ("sk.eyj",), r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
        _token("postman", ("pmak-",), r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
        _token("planetscale", ("pscale_",), r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,}"),
        _token("docker-hub", ("dckr_pat_", "dckr_oat_"), r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"),
        _token("circleci", ("ccipat_",), r"CCIPAT_[A-Za-z0-9]{20,}_[a-f0-9]{40}"),
        _token("buildkite", ("bkua_",), r"bkua_[a-f0-9]{40}"),
        _token("sourcegraph", ("sgp_",), r"sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}"),
        _token("octopus-deploy", ("api-",), rf"API-[A-Z0-9]{{26}}{_E}"),
        _token("netlify", ("nfp_",), r"nfp_[A-Za-z0-9]{36,}"),
        _token("render", ("rnd_",), r"rnd_[A-Za-z0-9]{32,}"),
        _token("contentful", ("cfpat-",), r"CFPAT-[A-Za-z0-9_-]{43}"),
        _token("figma", ("figd_",), r"figd_[A-Za-z0-9_-]{40,}"),
        _token("airtable", ("pat",), r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
        _token("notion", ("ntn_", "secret_"), rf"ntn_[0-9]{{11}}[A-Za-z0-9]{{35}}|secret_[A-Za-z0-9]{{43}}{_E}"),
        _token("linear", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}"),
        _token("resend", ("re_",), rf"re_[A-Za-z0-9]{{8}}_[A-Za-z0-9]{{24}}{_E}"),
        _token(
            "other-prefixed-tokens",
            (
                "pnu_",
                "rdme_",
                "rubygems_",
                "pul-",
                "dt0c01.",
                "ezak",
                "eztk",
                "shippo_",
                "duffel_",
                "tfp_",
                "fio-u-",
                "ico-",
                "tk-us-",
                "sha256~",
                "clojars_",
                "p8e-",
                "sm_pat_",
                "sm_aat_",
                "sm_sat_",
            ),
            r"pnu_[A-Za-z0-9]{36}|rdme_[a-z0-9]{70}|rubygems_[a-f0-9]{48}|pul-[a-f0-9]{40}"
            r"|dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}|EZ[AT]K[A-Za-z0-9]{54}|shippo_(?:live|test)_[a-fA-F0-9]{40}"
            r"|duffel_(?:test|live)_[A-Za-z0-9_=-]{43}|tfp_[A-Za-z0-9_.=-]{59}|fio-u-[A-Za-z0-9_=-]{64}"
            r"|ico-[A-Za-z0-9]{32}|tk-us-[A-Za-z0-9_-]{48}|sha256~[A-Za-z0-9_-]{43}|CLOJARS_[a-z0-9]{60}"
            r"|p8e-[a-z0-9]{32}|sm_(?:pat|aat|sat)_[A-Za-z0-9]{16}",
            flags=_I,
        ),
    ),
    long_run=True,
    dispatch=True,
)

# Tokens whose runs are short (`~` and `.` inside): each needs its own literal to be looked for.
_SHORT_RUN_TOKENS = Group(
    (
        Rule(
            "azure-ad-client-secret",
            r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
            ("q~",),
            sign="Q~",
        ),
    ),
    literals=("q~",),
)

# --- headers and assignments whose key names a secret --------------------------------------------------------------

_SECRET_KEY = (
    r"(?:api[-_]?key|secret[-_]?access[-_]?key|access[-_]?key|secret[-_]?key|client[-_]?secret|access[-_]?token"
    r"|auth[-_]?token|refresh[-_]?token|session[-_]?token|private[-_]?key|credentials?|token|secret|password|passwd"
    r"|pwd|signature)"
)
# Where a match of _SECRET_KEY can begin.
_SECRET_KEY_STARTS = (
    "api",
    "secret",
    "access",
    "client",
    "auth",
    "refresh",
    "session",
    "private",
    "credential",
    "token",
    "pass",
    "pwd",
    "signature",
)
_SECRET_KEY_COLON = _SECRET_KEY.replace("|pwd", "")  # `pwd: /home/me` is a working directory, not a password
# An opening quote as JSON text holds it, and as JSON inside a JSON string holds it (`\"password\":\"…\"`).
_Q = r"(?:\\*[\"'])"
# A value already redacted (`--token ***REDACTED***`) is left as it is. (An assignment whose value was redacted is
# redacted whole, key and all, as it always was: `token=ghp_…` is stored as ***REDACTED***.)
_NOT_REDACTED = r"(?!\*\*\*REDACTED)"
# key=value assignments, also as environment names (DB_PASSWORD=, PGPASSWORD=, AWS_SECRET_ACCESS_KEY=), with a value
# of any useful length: `password=hunter2` is as secret as a long one.
_ASSIGNED = (
    rf"{_SECRET_KEY}{_Q}?\s*=\s*"
    r"(?P<value>\\*\"[^\"\n\\]{3,}|'[^'\n]{3,}'|[^&\s\"'<>\\]{3,})"
)
# key: value (YAML, JSON, headers), where prose uses colons too: only a value with a digit or a symbol in it, which a
# word such as "required" has not.
_COLON = rf"{_SECRET_KEY_COLON}{_Q}?\s*:\s*(?P<value>{_Q}?(?=[^\s\"'\\]*[0-9_+/=!@#$%^&*.-])[^\s\"'<>,\\]{{6,}})"
# A command-line flag naming a secret, then its value (`--password hunter2`, `--api-key=…`, `--token "…"`).
_FLAG = (
    r"(?<![A-Za-z0-9-])--(?:[A-Za-z0-9]+-)*(?:password|passwd|secret|token|api-?key|access-token|auth-token"
    r"|client-secret|private-key|credentials?)(?:=|[ \t]+)"
    + _NOT_REDACTED
    + r"(?P<secret>\"[^\"\n]{3,}\"|'[^'\n]{3,}'|(?!-)[^\s\"'<>]{3,})"
)

_HEADERS = Group(
    (
        Rule("bearer", r"Bearer(?:\s|\\[nrt])+[A-Za-z0-9_.\-]{16,}", ("bearer",), flags=_I, anchored=True),
        # Authorization headers of other schemes (Bearer is above). A word alone ("Authorization: required") is not a
        # credential.
        Rule(
            "authorization",
            rf"Authorization{_Q}?\s*:\s*{_Q}?(?:[A-Za-z][A-Za-z0-9-]*\s+)?{_NOT_REDACTED}"
            r"(?=[^\s\"']*[0-9+/=._~-])[A-Za-z0-9+/=._~:,-]{6,}",
            ("authorization",),
            flags=_I,
            anchored=True,
        ),
        Rule(
            "cookie",
            r"(?:set-)?cookie\s*:\s*(?P<secret>[^\s=;\"'<>]+=[^\s;\"'<>]*(?:;[ \t]*[^\s=;\"'<>]+=[^\s;\"'<>]*)*)",
            ("set-cookie", "cookie"),
            flags=_I,
            anchored=True,
        ),
        Rule(
            "curl-user",
            r"curl\b[^\n]*?\s(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']+:(?P<secret>[^\s\"']{3,})",
            ("curl",),
            anchored=True,
        ),
    ),
    literals=("bearer", "auth", "cookie", "curl"),
)

# --- assignments, and the generic rule: a random-looking value right after a secret key word -------------------------

# Glued key words count inside an identifier (`apiKey`, `MY_TOKEN`, `secret_key_base`); the short ones only as a word
# of their own (`DB_PASS`, `X-Auth`, `GITHUB_PAT`, `&sig`), not inside `bypass`, `author` or `pattern`.
_GENERIC_KEY = (
    r"(?:key|token|secret|passw(?:or)?d|credentials?|creds"
    r"|(?<![A-Za-z])(?:pass|pwd|auth|api|pat|sig)(?-i:(?![a-z])))"
)
_GENERIC = (
    rf"{_GENERIC_KEY}[A-Za-z0-9_.-]{{0,20}}?(?P<sep>{_Q}?[ \t]*(?:=>|:=|==|=|:)[ \t]*{_Q}?|[ \t]+)"
    # A framework's encoded key keeps its `base64:` (Laravel's `APP_KEY=base64:…`).
    r"(?:base64:)?(?P<secret>[A-Za-z0-9+/_.~=-]*[A-Za-z0-9+/=])"
)
_GENERIC_WORDS = ("key", "token", "secret", "passw", "pwd", "cred", "pass", "auth", "api", "pat", "sig")


def _secret_assigned(match: re.Match[str], text: str) -> bool:
    """The value given a secret-named key is a secret, not code naming one (`token = getToken()`, `api_key = None`,
    `password = "<your-password>"`: `memesh.core.secret_values`). One whose value an earlier rule redacted is
    redacted whole, as it always was (`token=ghp_…` is stored as ***REDACTED***)."""
    value = match["value"]
    if value.lstrip("\\\"'").startswith(REDACTED) or is_secret_value(value):
        return True
    # An unquoted value runs on through a bracket (`…Signature=<hex>(https://the.example.com/…`): the text glued after
    # it must not make the secret before it read as a placeholder or code, so the part before the bracket is judged too.
    head = value.split("(", 1)[0]
    return head != value and len(head) >= 8 and is_secret_value(head)


def _assigned_or_flag(match: re.Match[str], text: str) -> bool:
    """A value after whitespace alone counts only for a command-line flag (`--api-key Qz7…`), not in prose."""
    if match["sep"].strip():
        return True
    start = match.start()
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_-"):
        start -= 1
    return text.startswith("--", start)


_ASSIGNMENTS = Group(
    (
        Rule(
            "secret-assignment",
            _ASSIGNED,
            _SECRET_KEY_STARTS,
            sign="=",
            flags=_I,
            anchored=True,
            extend=True,
            context=_secret_assigned,
        ),
        Rule(
            "secret-colon",
            _COLON,
            _SECRET_KEY_STARTS,
            sign=":",
            flags=_I,
            anchored=True,
            extend=True,
            context=_secret_assigned,
        ),
        Rule("secret-flag", _FLAG, ("--",), flags=_I, anchored=True, judge=is_secret_value),
        # Signatures and codes in URLs and connection strings: Azure SAS `sig=` (AWS and GCS `X-Amz-Signature` and
        # `X-Goog-Signature` are `signature=` assignments), `?code=` of a redirect or a function URL, and Azure
        # storage, Service Bus, Event Hubs and IoT Hub keys (`AccountKey=`, `SharedAccessKey=`).
        Rule("query-sig", r"(?<=[?&;])sig=(?P<secret>[^&#\s\"'<>]{8,})", ("sig=",), flags=_I, anchored=True),
        Rule(
            "query-code",
            r"(?<=[?&])code=(?P<secret>[^&#\s\"'<>]{16,})",
            ("code=",),
            anchored=True,
            judge=looks_random,
        ),
        Rule(
            "azure-connection-key",
            r"(?:AccountKey|SharedAccessKey|SharedSecretValue)\s*=\s*(?P<secret>[A-Za-z0-9+/=]{16,})",
            ("accountkey", "sharedaccesskey", "sharedsecretvalue"),
            flags=_I,
            anchored=True,
        ),
        Rule(
            "generic-secret-value",
            _GENERIC,
            _GENERIC_WORDS,
            flags=_I,
            anchored=True,
            judge=looks_random,
            context=_assigned_or_flag,
        ),
    ),
    literals=("key", "token", "secret", "pass", "pwd", "cred", "auth", "api", "pat", "sig", "code="),
    signs=("=", ":", "--"),
)

CATALOGUE: Final = Catalogue(
    (
        _KEY_BLOCKS,
        _URLS,
        _KNOWN_TOKENS,
        PAIRED_VALUES,
        _PREFIXED_TOKENS,
        CONTEXT_FREE,
        _SHORT_RUN_TOKENS,
        _HEADERS,
        COMMAND_LINES,
        CONFIG_FILES,
        PGPASS,
        PROSE_AND_CALLS,
        _ASSIGNMENTS,
    )
)
