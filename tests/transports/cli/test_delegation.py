"""`memesh delegation record | verify` as the orchestrator types them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.transports.cli.conftest import Cli


def files(tmp_path: Path, envelope: object = None, raw: bytes | None = None) -> tuple[str, str]:
    env = tmp_path / "envelope.json"
    env.write_bytes(raw if raw is not None else json.dumps(envelope or {"ok": True, "model": "m1"}).encode())
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("refactor the parser")
    return str(env), str(prompt)


def test_record_with_every_option_then_again_writes_nothing(cli: Cli, tmp_path: Path) -> None:
    env, prompt = files(tmp_path, {"ok": True, "model": "m1", "task_id": "t", "allowed_tools": ["bash"]})
    argv = (
        "delegation",
        "record",
        "--envelope",
        env,
        "--prompt-file",
        prompt,
        "--source",
        "deepseek-worker",
        "--allow-tool",
        "read_file",
        "--allow-tool",
        "bash",
        "--verdict",
        "accepted",
        "--follow-up",
        "merge it",
        "--json",
    )
    first = cli.ok(*argv).json()
    assert first["stored"] is True and first["verdict"] == "accepted" and first["trust"] == "verified"
    assert first["name"].startswith("delegation-" + hashlib.sha256(b"refactor the parser").hexdigest()[:12] + "-")
    again = cli.ok(*argv).json()
    assert again["stored"] is False and again["name"] == first["name"]
    shown = cli.ok("recall", "--tag", "source:deepseek-worker", "--json").json()["entities"][0]
    assert shown["metadata"]["provenance"]["allowed_tools"] == ["read_file", "bash"]
    assert "refactor the parser" not in json.dumps(shown)


def test_record_prints_a_sentence_without_json(cli: Cli, tmp_path: Path) -> None:
    env, prompt = files(tmp_path)
    out = cli.ok("delegation", "record", "--envelope", env, "--prompt-file", prompt, "--source", "w").out
    assert out.startswith("Recorded delegation-") and "untrusted-until-verified" in out


def test_verify_accepts_then_refuses_what_is_not_a_record(cli: Cli, tmp_path: Path) -> None:
    env, prompt = files(tmp_path)
    name = cli.ok("delegation", "record", "--envelope", env, "--prompt-file", prompt, "--source", "w", "--json").json()[
        "name"
    ]
    verified = cli.ok("delegation", "verify", name, "--verdict", "rejected", "--note", "wrong answer", "--json")
    assert verified.json()["trust"] == "rejected"
    cli.ok("remember", "--name", "plain", "--type", "note", "--obs", "x")
    refused = cli("delegation", "verify", "plain", "--verdict", "accepted", "--json")
    assert refused.code == 1 and refused.json()["errorCode"] == "operation.failed"
    missing = cli("delegation", "verify", "nope", "--verdict", "accepted")
    assert missing.code == 1 and "nope" in missing.err


def test_refusals_exit_nonzero_and_store_nothing(cli: Cli, tmp_path: Path) -> None:
    env, prompt = files(tmp_path, raw=b'{"model": "no ok field"}')
    cases = [
        (("--envelope", env, "--prompt-file", prompt, "--source", "w"), 1),
        (("--envelope", str(tmp_path / "missing.json"), "--prompt-file", prompt, "--source", "w"), 1),
        (("--envelope", env, "--prompt-file", prompt, "--source", "two words"), 1),
        (("--envelope", env, "--prompt-file", prompt), 2),
        (("--envelope", env, "--prompt-file", prompt, "--source", "w", "--verdict", "maybe"), 2),
    ]
    for argv, code in cases:
        assert cli("delegation", "record", *argv).code == code, argv
    big = tmp_path / "big.json"
    big.write_bytes(b'{"ok": true, "x": "' + b"a" * (4 * 1024 * 1024) + b'"}')
    too_big = cli("delegation", "record", "--envelope", str(big), "--prompt-file", prompt, "--source", "w", "--json")
    assert too_big.code == 1 and too_big.json()["errorCode"] == "payload.too-large"
    assert cli.ok("recall", "--json").json()["entities"] == []
    assert cli("delegation", "verify", "x", "--verdict", "unreviewed").code == 2
