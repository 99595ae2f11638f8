"""Code that names a variable like a secret is stored byte for byte; a secret given to such a name never is."""

from __future__ import annotations

import base64
import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memesh.core.clean import REDACTED, clean_text
from memesh.core.secret_values import is_secret_value
from tests.secret_shapes import EVERYDAY_CODE, FORMATS


@pytest.mark.parametrize("line", EVERYDAY_CODE)
def test_an_everyday_line_naming_a_secret_is_stored_byte_for_byte(line: str) -> None:
    assert clean_text(line) == line


@pytest.mark.parametrize(
    "value",
    [
        "getToken();",
        "os.environ[",
        "None",
        "process.env.API_KEY;",
        "password",
        '"<your-key>"',
        '"xxx"',
        "${X}",
        "$(cat",
    ],
)
def test_code_and_placeholders_are_not_secret_values(value: str) -> None:
    assert not is_secret_value(value)


@pytest.mark.parametrize("value", ["hunter2", '"hunter2"', "Passw0rd", "Pa55.word", "s3cr3t!", "'letmein'"])
def test_passwords_are_secret_values(value: str) -> None:
    assert is_secret_value(value)


# --- both directions, property-tested -------------------------------------------------------------------------------

_NAMES = st.sampled_from(
    ["password", "token", "api_key", "apiKey", "secret", "client_secret", "DB_PASSWORD", "authToken", "private_key"]
)
_IDENT = st.sampled_from(["user", "config", "settings", "env", "request", "creds", "self", "opts", "vault", "payload"])
_FIELD = st.sampled_from(["password", "token", "apiKey", "value", "secret", "get_token", "AUTH_TOKEN", "db"])
_CODE_VALUES = st.one_of(
    st.builds(lambda f, a: f"{f}({a})", _FIELD, st.sampled_from(["", "user", "path", '"X"', "key, 2"])),
    st.builds(lambda o, f: f"{o}.{f}", _IDENT, _FIELD),
    st.builds(lambda o, f: f'{o}["{f}"]', _IDENT, _FIELD),
    st.builds(lambda o, f, g: f"await {o}.{f}({g})", _IDENT, _FIELD, _IDENT),
    st.sampled_from(["None", "null", "nil", "undefined", "true", "false", "''", '""', "password", "self.password"]),
    st.sampled_from(['"<your-api-key>"', '"xxx"', '"changeme"', '"TODO"', '"********"', "'your-token-here'"]),
    st.sampled_from(["${DB_PASSWORD}", "$TOKEN", "$(cat /run/secrets/db)", '"{{ secret }}"', "%API_KEY%"]),
)
_DECLARE = st.sampled_from(["", "const ", "let ", "var ", "self.", "this.", "export ", "    "])
_ASSIGN = st.sampled_from([" = ", "=", ": ", " := ", " ?= "])
_END = st.sampled_from(["", ";", ",", "  # set in main()", " // from env"])


@settings(max_examples=400, deadline=None)
@given(_DECLARE, _NAMES, _ASSIGN, _CODE_VALUES, _END)
def test_an_assignment_whose_value_is_code_or_a_placeholder_is_stored_byte_for_byte(
    declare: str, name: str, assign: str, value: str, end: str
) -> None:
    line = f"{declare}{name}{assign}{value}{end}"
    assert clean_text(line) == line


def _random_secret(seed: int, length: int) -> str:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits
    body = "".join(rng.choice(alphabet) for _ in range(length - 2))
    return body + rng.choice(string.digits) + rng.choice("!#%+-")


_SECRETS = st.builds(_random_secret, st.integers(0, 10**6), st.integers(8, 48))
_QUOTED = st.builds(
    lambda quote, secret: (f"{quote}{secret}{quote}", secret), st.sampled_from(['"', "'", ""]), _SECRETS
)


@settings(max_examples=300, deadline=None)
@given(_DECLARE, _NAMES, st.sampled_from([" = ", "=", ": "]), _QUOTED, _END)
def test_a_secret_given_to_a_secret_name_never_survives(
    declare: str, name: str, assign: str, value: tuple[str, str], end: str
) -> None:
    written, secret = value
    cleaned = clean_text(f"{declare}{name}{assign}{written}{end}")
    assert secret not in cleaned and REDACTED in cleaned


_WORDS = st.sampled_from(["deploy", "the", "recall", "index", "fix", "parser", "router", "memory", "done", "and"])
_PROSE = st.lists(_WORDS, min_size=0, max_size=8).map(" ".join)
_CODE_LINE = st.builds(lambda d, n, v, e: f"{d}{n} = {v}{e}", _DECLARE, _NAMES, _CODE_VALUES, _END)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(FORMATS)),
    st.lists(st.one_of(_PROSE, _CODE_LINE), max_size=4),
    st.lists(st.one_of(_PROSE, _CODE_LINE), max_size=4),
    st.sampled_from(["\n", " ", "; ", "\n\n"]),
)
def test_a_secret_embedded_anywhere_in_prose_or_code_is_gone(
    kind: str, before: list[str], after: list[str], joiner: str
) -> None:
    shape = FORMATS[kind]
    text = joiner.join([*before, shape.text, *after])
    cleaned = clean_text(text)
    assert shape.secret not in cleaned
    # the code around it is kept
    for line in [*before, *after]:
        if line and line not in shape.text:
            assert line in cleaned


_HEX = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
_SHA256 = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
_UUID = st.text(alphabet="0123456789abcdef", min_size=32, max_size=32).map(
    lambda h: f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
)
_IMAGE = st.binary(min_size=16, max_size=300).map(
    lambda b: "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b).decode()
)
_DATA_URI = st.sampled_from(["text/plain", "application/json", "image/svg+xml"]).flatmap(
    lambda mime: st.binary(min_size=1, max_size=200).map(lambda b: f"data:{mime};base64,{base64.b64encode(b).decode()}")
)
_ORDINARY_VALUE = st.one_of(
    _HEX.map(lambda h: f"commit {h}"),
    _HEX.map(lambda h: f"git checkout {h[:7]} && git show {h}"),
    _SHA256.map(lambda h: f"sha256: {h}"),
    _SHA256.map(lambda h: f"sha256:{h}"),
    _UUID.map(lambda u: f"request_id={u}"),
    _UUID,
    _IMAGE.map(lambda uri: f'<img src="{uri}">'),
    _DATA_URI,
    _CODE_LINE,
    st.from_regex(r"[a-z]+(?:_[a-z]+){0,3}", fullmatch=True),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_ORDINARY_VALUE, _PROSE), min_size=1, max_size=6), st.sampled_from(["\n", " ", ", "]))
def test_hashes_uuids_data_uris_images_git_shas_identifiers_and_code_are_untouched(
    parts: list[str], joiner: str
) -> None:
    text = joiner.join(parts)
    assert clean_text(text) == text
