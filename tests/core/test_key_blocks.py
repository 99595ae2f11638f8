"""A private key written across the texts of one write (one line per observation) is redacted whole."""

from __future__ import annotations

import pytest

from memesh.core.clean import REDACTED, clean_all, clean_text

BODY = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
]


def test_every_observation_from_the_begin_line_to_the_end_line_is_redacted() -> None:
    texts = ["deploy key:", "-----BEGIN RSA PRIVATE KEY-----", *BODY, "-----END RSA PRIVATE KEY-----", "rotate it"]
    assert clean_all(texts) == ["deploy key:", REDACTED, REDACTED, REDACTED, REDACTED, "rotate it"]


def test_text_before_the_begin_line_and_after_the_end_line_is_kept() -> None:
    texts = ["the key: -----BEGIN OPENSSH PRIVATE KEY-----", BODY[0], "-----END OPENSSH PRIVATE KEY----- (old one)"]
    assert clean_all(texts) == [f"the key: {REDACTED}", REDACTED, f"{REDACTED} (old one)"]


def test_a_begin_line_with_no_end_line_in_the_write_redacts_everything_after_it() -> None:
    texts = ["notes", "-----BEGIN EC PRIVATE KEY-----", *BODY, "and then some prose"]
    assert clean_all(texts) == ["notes", REDACTED, REDACTED, REDACTED, REDACTED]


def test_a_key_closed_in_its_own_text_does_not_reach_the_next_one() -> None:
    key = "-----BEGIN PRIVATE KEY-----\n" + BODY[0] + "\n-----END PRIVATE KEY-----"
    assert clean_all([key, BODY[1]]) == [REDACTED, BODY[1]]


def test_a_second_key_after_the_first_end_line_is_redacted_too() -> None:
    texts = [
        "-----BEGIN PGP PRIVATE KEY BLOCK-----",
        BODY[0],
        "-----END PGP PRIVATE KEY BLOCK----- next:",
        "-----BEGIN DSA PRIVATE KEY-----",
        BODY[1],
        "-----END DSA PRIVATE KEY-----",
        "done",
    ]
    assert clean_all(texts) == [REDACTED, REDACTED, f"{REDACTED} next:", REDACTED, REDACTED, REDACTED, "done"]


@pytest.mark.parametrize(
    "begin",
    [
        "-----BEGIN\u200b RSA PRIVATE KEY-----",
        "\ufeff-----BEGIN RSA PRIVATE KEY-----",
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----",
    ],
)
def test_an_invisible_character_or_the_ssh2_form_does_not_hide_the_begin_line(begin: str) -> None:
    assert clean_all([begin, BODY[0], BODY[1]])[1:] == [REDACTED, REDACTED]


def test_a_putty_key_files_private_lines_are_redacted_up_to_their_mac() -> None:
    texts = [
        "PuTTY-User-Key-File-3: ssh-ed25519",
        "Public-Lines: 1",
        "AAAAC3NzaC1lZDI1NTE5",
        "Private-Lines: 1",
        BODY[0],
        "Private-MAC: 9f2c",
        "Comment: laptop",
    ]
    assert clean_all(texts) == [*texts[:3], REDACTED, REDACTED, REDACTED, "Comment: laptop"]


def test_a_public_key_or_certificate_is_left_alone() -> None:
    texts = ["-----BEGIN PUBLIC KEY-----", BODY[0], "-----END PUBLIC KEY-----", "-----BEGIN CERTIFICATE-----", BODY[1]]
    assert clean_all(texts) == texts


def test_a_write_cleaned_twice_and_its_texts_cleaned_alone_are_unchanged() -> None:
    texts = ["a", "-----BEGIN RSA PRIVATE KEY-----", *BODY, "-----END RSA PRIVATE KEY----- b", "c"]
    once = clean_all(texts)
    assert clean_all(once) == once
    assert [clean_text(text) for text in once] == once


def test_a_work_package_result_with_a_key_across_its_observations_is_stored_without_it() -> None:
    from memesh.core.work_package import cleaned_result

    texts = ["-----BEGIN RSA PRIVATE KEY-----", *BODY, "-----END RSA PRIVATE KEY-----"]
    result = cleaned_result({"name": "digest", "type": "weekly_digest", "observations": texts, "tags": []})
    assert result["observations"] == [REDACTED] * 4
