"""Whether the value a secret-named key is given is a secret, or code that only names one.

`password=hunter2` holds a password; `password = os.environ["DB_PASSWORD"]`, `const token = getToken();`,
`api_key = None`, `secret = "<your-key>"` and `token: ${{ secrets.TOKEN }}` do not, and a memory of code must keep
such lines byte for byte (a changed line is a memory that lies, and the memory tool's `str_replace` on it fails).

What is not a secret, after the maintained scanners' allowlists (gitleaks' global allowlist and curl-auth-user
allowlist, detect-secrets' `is_indirect_reference` and `is_templated_secret` filters):
- a call, a subscript or an attribute access (`getToken()`, `os.environ["X"]`, `config.db.password`);
- a language literal or keyword (`None`, `null`, `undefined`, `true`, `await`, `new`);
- a reference to a variable or a template (`$DB_PASSWORD`, `${SECRET}`, `$(cat file)`, `%TOKEN%`, `{{ token }}`,
  `<your-key>`, `@TOKEN@`);
- a placeholder (`xxx`, `***`, `changeme`, `your-api-key-here`, `TODO`, an `…EXAMPLE` key);
- an identifier that names a variable rather than spells a password: one that holds a secret key word itself
  (`password`, `self._token`, `secretKey`) or is made of several words and no digits (`user_input`, `newValue`).
Everything else is a secret: a single word with a digit or a symbol (`hunter2`, `s3cr3t!`), any quoted string that is
not a placeholder or a name, a number.

Patterns are compiled on first use: importing the cleaner does not pay for them.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Final

# Values a language gives meaning to, lower-cased.
_LITERALS: Final = frozenset(
    {
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "nan",
        "await",
        "new",
        "yield",
        "async",
        "function",
        "lambda",
        "typeof",
        "require",
        "self",
        "this",
        "not",
        "str",
        "string",
        "bytes",
        "optional",
        "secretstr",
        "field",
    }
)
# Whole values that stand for a secret rather than being one, lower-cased with separators taken out.
_PLACEHOLDERS: Final = frozenset(
    {
        "changeme",
        "changeit",
        "replaceme",
        "placeholder",
        "secret",
        "password",
        "passwd",
        "token",
        "apikey",
        "key",
        "value",
        "todo",
        "tbd",
        "fixme",
        "example",
        "sample",
        "dummy",
        "fake",
        "test",
        "redacted",
        "hidden",
        "masked",
        "notset",
        "unset",
        "empty",
        "default",
    }
)
# Words that, inside a value, mark it as a placeholder (`your-api-key-here`, `INSERT_TOKEN`, `AKIA…EXAMPLE`).
_PLACEHOLDER_WORD = (
    r"(?<![A-Za-z])(?i:your|here|insert|enter|change_?me|replace_?me|placeholder|example|sample|dummy|redacted)"
    r"(?![a-z])|(?i:xxxx)"
)
# Secret key words: an identifier holding one names a variable (`password`, `db_password`, `apiKey`).
_KEY_WORD = r"pass|pwd|secret|token|key|cred|auth|sig"


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    return {
        # A template or a reference to a variable, whole or at the start: $X ${X} $(…) %X% {{ … }} <…> @X@ [X].
        "reference": re.compile(r"\$[A-Za-z_{(]|%[A-Za-z_]\w*%|\{\{|\{%|<[^<>]*>?$|@[A-Za-z_]\w*@|\[[A-Za-z_ -]+\]$"),
        # A run of one mask character (xxx, ***, ..., ---, 0000, ____).
        "mask": re.compile(r"(.)\1*", re.IGNORECASE),
        "placeholder_word": re.compile(_PLACEHOLDER_WORD),
        # An identifier chain followed by a call or a subscript (`os.environ[`, `getToken(`, `await fetch(`).
        "call": re.compile(r"[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*\s*[(\[]"),
        # An attribute access: two or more identifiers joined by dots, maybe ending a statement.
        "attribute": re.compile(r"[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+[;,)\]}]*"),
        # A single identifier, maybe ending a statement or an argument list.
        "identifier": re.compile(r"[A-Za-z_$][\w$]*[;,)\]}]*"),
        "key_word": re.compile(_KEY_WORD, re.IGNORECASE),
        "separators": re.compile(r"[\s_.-]"),
        # Several words: snake_case, kebab-case or camelCase.
        "words": re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)+|[a-z]+(?:[A-Z][a-z]+)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+"),
    }


def unquote(value: str) -> tuple[str, bool]:
    """`value` without the quotes around it (as a match may hold it: `"abc"`, `'abc`, `\\"abc`), and whether it was
    quoted."""
    stripped = value.lstrip("\\")
    if stripped[:1] in {'"', "'", "`"}:
        return stripped[1:].rstrip("\\").rstrip(stripped[0]), True
    return value, False


def is_placeholder(value: str) -> bool:
    """Whether `value` stands for a secret rather than being one: empty, a mask (`xxx`, `***`), a template or
    reference (`${X}`, `<your-key>`, `{{ x }}`), a word such as `changeme`, or text naming itself a placeholder
    (`your-api-key-here`, `…EXAMPLE`)."""
    patterns = _patterns()
    bare = value.strip()
    if not bare or patterns["mask"].fullmatch(bare) or patterns["reference"].match(bare):
        return True
    if patterns["separators"].sub("", bare).lower() in _PLACEHOLDERS:
        return True
    return patterns["placeholder_word"].search(bare) is not None


def names_a_value(value: str) -> bool:
    """Whether an unquoted value after a secret-named key is code that names a value (a call, a subscript, an
    attribute, a literal, a reference, a placeholder, a variable's name) rather than the secret itself."""
    patterns = _patterns()
    bare = value.strip()
    name = bare.rstrip(";,)]}")
    if name.lower() in _LITERALS:
        return True
    if (call := patterns["call"].match(bare)) is not None:
        # A callee is named by words (`getToken(`, `os.environ[`); `s3cr3tPassw0rd[` is a password before a bracket.
        callee = call.group().rstrip("([ \t")
        return not any(char.isdigit() for char in callee) or "." in callee or "_" in callee
    if patterns["attribute"].fullmatch(bare):
        # `Pa55.word` is a password; an object a program reads (`config.db`, `os.environ`) is named by a word.
        return not any(char.isdigit() for char in bare.split(".", 1)[0])
    # A digit makes a word a password (`hunter2`, `Passw0rd`), unless the name is made of parts (`token_v2`).
    if (
        patterns["identifier"].fullmatch(bare)
        and ("_" in name or not any(char.isdigit() for char in name))
        and (patterns["key_word"].search(name) is not None or patterns["words"].fullmatch(name) is not None)
    ):
        return True
    return is_placeholder(bare)


def names_a_string(value: str) -> bool:
    """Whether a quoted value after a secret-named key is a placeholder or the name of a field or header
    (`"access_token"`, `"X-Api-Key"`, `"password"`) rather than a secret."""
    if is_placeholder(value):
        return True
    patterns = _patterns()
    return patterns["key_word"].search(value) is not None and patterns["words"].fullmatch(value) is not None


def is_secret_value(value: str) -> bool:
    """Whether the value a secret-named key is given (quoted or not) is a secret."""
    inner, quoted = unquote(value)
    return not (names_a_string(inner) if quoted else names_a_value(inner))
