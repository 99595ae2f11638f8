"""Each host's recorded hook payloads (tests/fixtures/hosts/<host>/*.json: the payload, the memesh-hook event its
hooks file runs for it, the variables the host sets, where the shape comes from) replayed through the real
`memesh-hook` executable, answered in that host's own format, every outcome filed under that host."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memesh import hosts

from .conftest import HookEnv
from .helpers import remember

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "hosts"
CASES = sorted(FIXTURES.glob("*/*.json"))
HOOK = Path(sys.executable).parent / "memesh-hook"
HOST_OF = {stem: host_id for host_id, stem in hosts.MODULES.items()}
# The variables of the suite's hook environment that name a host: each fixture brings its host's own instead.
HOST_MARKS = {name for _, names, _ in hosts.DETECTION for name in names}
LESSON = "Force-pushing main lost a day of work"


def _filled(value: Any, places: dict[str, str]) -> Any:
    if isinstance(value, str):
        for name, text in places.items():
            value = value.replace("{" + name + "}", text)
        return value
    if isinstance(value, list):
        return [_filled(item, places) for item in value]
    if isinstance(value, dict):
        return {key: _filled(item, places) for key, item in value.items()}
    return value


def _memories(env: HookEnv) -> None:
    """A decision about auth.py (for the briefing and a read's file memories) and a lesson guarding a force push."""
    subprocess.run(["git", "init", "-q", str(env.project_dir)], check=True)
    remember(env, "auth-pkce", tags=[f"project:{env.project}", "file:auth.py"])
    remember(env, "lesson-force-push", kind="lesson_learned")
    store = env.store()
    try:
        entity = store.find("lesson-force-push")
        assert entity is not None
        guard = {"pattern": r"git\s+push\s+.*--force", "message": LESSON}
        with store.transaction():
            store.update_metadata(entity.id, {**entity.metadata, "guard": guard})
    finally:
        store.close()


@pytest.mark.parametrize("case", CASES, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_a_hosts_recorded_payload_is_answered_in_that_hosts_own_format(hook_env: HookEnv, case: Path) -> None:
    recorded = json.loads(case.read_text())
    host_id = HOST_OF[case.parent.name]
    places = {"cwd": str(hook_env.project_dir), "home": str(hook_env.home)}
    _memories(hook_env)
    env = {name: value for name, value in hook_env.env.items() if name not in HOST_MARKS}
    env.update(_filled(recorded["env"], places))
    done = subprocess.run(
        [str(HOOK), recorded["event"]],
        input=json.dumps(_filled(recorded["payload"], places)).encode(),
        capture_output=True,
        env=env,
        cwd=hook_env.project_dir,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    expect = recorded["expect"]
    if expect["stdout"] is None:
        assert done.stdout == b""
    else:
        answer = json.loads(done.stdout)
        assert sorted(answer) == sorted(expect["stdout"])
        if expect.get("deny"):
            assert LESSON in done.stdout.decode() and "[mem:" in done.stdout.decode()
        else:
            assert "auth-pkce" in done.stdout.decode() or "about auth-pkce" in done.stdout.decode()
        if "context" in expect:
            assert answer["hookSpecificOutput"]["hookEventName"] == expect["context"]
    outcomes = hook_env.outcomes()
    hook, outcome = expect["outcome"]
    assert [o["outcome"] for o in outcomes if o["hook"] == hook][:1] == [outcome]
    assert {o.get("host") for o in outcomes} == {host_id}


def test_every_host_has_recorded_payloads() -> None:
    assert {path.parent.name for path in CASES} == set(hosts.MODULES.values())
