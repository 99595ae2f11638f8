"""Project identity: one id per repository, whatever spelling of its remote, never carrying a credential."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memesh.adapters.project_git import project_for
from memesh.core.identity import (
    canonical_remote_locator,
    identity_from_path,
    identity_from_remote,
    project_identity,
    project_label,
)


@pytest.mark.parametrize(
    "remote",
    [
        "https://github.com/PCIRCLE-AI/memesh.git",
        "https://github.com/PCIRCLE-AI/memesh",
        "https://user:secret@github.com/PCIRCLE-AI/memesh.git",
        "git@github.com:PCIRCLE-AI/memesh.git",
        "ssh://git@github.com/PCIRCLE-AI/memesh.git",
        "ssh://git@github.com:22/PCIRCLE-AI/memesh",
        "https://GitHub.com/PCIRCLE-AI/memesh/",
    ],
)
def test_github_https_and_ssh_spellings_converge(remote: str) -> None:
    assert canonical_remote_locator(remote) == "github.com/PCIRCLE-AI/memesh"


def test_github_path_case_is_kept() -> None:
    assert canonical_remote_locator("git@github.com:Owner/Repo.git") == "github.com/Owner/Repo"


def test_a_password_in_the_remote_never_reaches_the_locator() -> None:
    locator = canonical_remote_locator("https://alice:hunter2@gitlab.com/o/r.git")
    assert locator == "https://gitlab.com/o/r.git"
    assert "hunter2" not in (identity_from_remote("https://alice:hunter2@gitlab.com/o/r.git") or "")


def test_generic_ssh_keeps_its_login_path_semantics_and_literal_git() -> None:
    assert canonical_remote_locator("alice@host:repo.git") == "ssh-relative://alice@host/repo.git"
    assert canonical_remote_locator("alice@host:/srv/repo.git") == "ssh-absolute://alice@host/srv/repo.git"
    assert canonical_remote_locator("ssh://bob@host:2222/srv/repo.git") == "ssh-absolute://bob@host:2222/srv/repo.git"


def test_plain_http_github_does_not_converge_with_https() -> None:
    assert canonical_remote_locator("http://github.com/o/r") == "http://github.com/o/r"


@pytest.mark.parametrize("remote", ["", "/srv/git/repo.git", "C:\\repos\\x", "file:///srv/repo", "\\\\host\\share"])
def test_local_paths_are_not_remote_locators(remote: str) -> None:
    assert canonical_remote_locator(remote) is None


def test_the_id_is_the_label_then_32_hex_of_the_locator_hash() -> None:
    locator = "github.com/PCIRCLE-AI/memesh"
    expected = "memesh~" + hashlib.sha256(locator.encode()).hexdigest()[:32]
    assert identity_from_remote("git@github.com:PCIRCLE-AI/memesh.git") == expected
    assert project_label(expected) == "memesh"


def test_same_folder_name_in_two_places_gives_two_projects() -> None:
    assert identity_from_path("/a/app") != identity_from_path("/b/app")
    assert project_label(identity_from_path("/a/app")) == "app"


def test_a_long_label_is_cut_to_167_characters() -> None:
    assert project_identity("x" * 300, "loc").split("~")[0] == "x" * 167


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)


def test_a_repository_with_a_remote_is_named_after_the_remote(tmp_path: Path) -> None:
    repo = tmp_path / "checkout-folder"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    assert project_for(str(repo)) == identity_from_remote("https://github.com/acme/widgets")


def test_a_folder_outside_git_is_named_after_its_real_path(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    assert project_for(str(folder)) == identity_from_path(str(folder.resolve()))


@given(st.binary(max_size=200))
def test_the_project_hash_is_hashlibs_sha256(data: bytes) -> None:
    """identity hashes with the interpreter's own SHA-256 (no OpenSSL load): the same digest."""
    from memesh.core.identity import _sha256_hex

    assert _sha256_hex(data) == hashlib.sha256(data).hexdigest()
