"""People in the team memory (issue 32), from outside: `memesh member` as a typed command, `memesh serve --host
0.0.0.0 --allow-remote` as a real process reached on 127.0.0.1, /v1 over a socket and /mcp through the mcp SDK's
streamable HTTP client, on both engines."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.backends import Backend
from tests.transports.cli.conftest import MEMESH_BIN
from tests.transports.mcp.conftest import ERAS, WAIT_SECONDS, Launcher, Serving
from tests.transports.mcp.test_http import connect

OWNER = "al@example.com"
ALPHA = "alpha~" + "a" * 32
BETA = "beta~" + "b" * 32


@dataclass
class Team:
    """A remote listener, the CLI of the machine it runs on, and its database."""

    launcher: Launcher
    server: Serving
    backend: Backend

    def memesh(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(MEMESH_BIN), *argv],
            cwd=self.launcher.folder,
            env=self.launcher.env,
            capture_output=True,
            text=True,
            check=False,
        )

    def add(self, name: str, role: str, *projects: str) -> str:
        """A member added with the CLI; its token, as printed once."""
        scope = [flag for project in projects for flag in ("--project", project)]
        done = self.memesh("member", "add", name, "--role", role, *scope, "--json")
        assert done.returncode == 0, done.stderr
        added = json.loads(done.stdout)
        assert (added["name"], added["role"]) == (name, role)
        token: str = added["token"]
        return token

    def http(self, token: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=f"http://127.0.0.1:{self.server.port}", headers=headers, timeout=WAIT_SECONDS)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        store = self.backend.open(self.launcher.db)
        try:
            return [tuple(row) for row in store.conn.execute(sql).fetchall()]
        finally:
            store.close()


@pytest.fixture
def team(tmp_path: Path, backend: Backend) -> Iterator[Team]:
    launcher = Launcher(tmp_path, backend)
    launcher.env["MEMESH_AUTHOR"] = OWNER
    server = launcher("--host", "0.0.0.0", "--allow-remote")
    yield Team(launcher, server, backend)
    launcher.close()


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["success"] is True
    return body["data"]


def refused(response: httpx.Response, status: int, code: str) -> None:
    assert (response.status_code, response.json()["errorCode"]) == (status, code), response.text


def remember(client: httpx.Client, name: str, *tags: str, namespace: str = "team") -> httpx.Response:
    body = {"name": name, "type": "decision", "observations": [f"{name} was decided"], "tags": list(tags)}
    return client.post("/v1/remember", json={**body, "namespace": namespace})


def recalled(client: httpx.Client, **query: Any) -> list[str]:
    return sorted(entity["name"] for entity in ok(client.post("/v1/recall", json=query))["entities"])


def test_members_added_with_the_cli_get_their_own_tokens_stored_only_as_hashes(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "reader")
    assert bea != carl
    rows = team.rows("SELECT name, role, token_hash FROM members ORDER BY name")
    assert rows == [
        ("bea", "writer", hashlib.sha256(bea.encode()).hexdigest()),
        ("carl", "reader", hashlib.sha256(carl.encode()).hexdigest()),
    ]
    every_value = json.dumps(team.rows("SELECT * FROM members"))
    assert bea not in every_value and carl not in every_value
    listed = team.memesh("member", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert bea not in listed.stdout and hashlib.sha256(bea.encode()).hexdigest() not in listed.stdout
    assert [(m["name"], m["last_used_at"]) for m in json.loads(listed.stdout)["members"]] == [
        ("bea", None),
        ("carl", None),
    ]


def test_bea_writes_over_http_carry_her_name_as_author_and_are_not_stamped_local(team: Team) -> None:
    bea = team.add("bea", "writer")
    with team.http(bea) as client:
        ok(remember(client, "use-postgres"))
        entity = ok(client.get("/v1/entities/use-postgres"))
    provenance = entity["metadata"]["provenance"]
    assert (provenance["author"], provenance["source"], provenance["source_host"]) == ("bea", "remote", "http")
    assert team.rows("SELECT author FROM entities WHERE name = 'use-postgres'") == [("bea",)]
    assert team.rows("SELECT o.author FROM observations o JOIN entities e ON e.id = o.entity_id") == [("bea",)]
    [member] = json.loads(team.memesh("member", "list", "--json").stdout)["members"]
    assert member["last_used_at"] is not None


def test_a_readers_write_is_403_auth_forbidden_while_its_recall_works(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "reader")
    with team.http(bea) as writer:
        ok(remember(writer, "cache-policy"))
    with team.http(carl) as reader:
        refused(remember(reader, "carls-note"), 403, "auth.forbidden")
        refused(reader.post("/v1/forget", json={"name": "cache-policy"}), 403, "auth.forbidden")
        assert recalled(reader, query="cache") == ["cache-policy"]
    assert team.rows("SELECT name FROM entities WHERE name = 'carls-note'") == []


def test_a_member_scoped_to_one_project_neither_writes_to_nor_recalls_another_projects_memories(team: Team) -> None:
    owner_token = team.server.token()
    dana = team.add("dana", "writer", ALPHA)
    with team.http(owner_token) as owner:
        ok(remember(owner, "alpha-choice", f"project:{ALPHA}"))
        ok(remember(owner, "beta-choice", f"project:{BETA}"))
    with team.http(dana) as scoped:
        assert recalled(scoped, query="choice") == ["alpha-choice"]
        assert recalled(scoped) == ["alpha-choice"]
        assert recalled(scoped, query="choice", cross_project=True) == ["alpha-choice"]
        exported = ok(scoped.post("/v1/export", json={}))
        assert [entity["name"] for entity in exported["entities"]] == ["alpha-choice"]
        assert [entity["name"] for entity in ok(scoped.get("/v1/entities"))] == ["alpha-choice"]
        refused(scoped.get("/v1/entities/beta-choice"), 404, "resource.not-found")
        refused(remember(scoped, "beta-choice", f"project:{ALPHA}"), 403, "auth.forbidden")
        refused(remember(scoped, "new-beta", f"project:{BETA}"), 403, "auth.forbidden")
        refused(remember(scoped, "untagged"), 403, "auth.forbidden")
        ok(remember(scoped, "alpha-more", f"project:{ALPHA}"))
        refused(scoped.get("/v1/graph"), 403, "auth.forbidden")  # not scoped yet: refused rather than leaked
    assert team.rows("SELECT count(*) FROM observations o JOIN entities e ON e.id = o.entity_id "
                     "WHERE e.name = 'beta-choice'") == [(1,)]  # fmt: skip


def test_personal_memories_on_a_shared_store_are_their_authors_alone(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    with team.http(bea) as client:
        ok(remember(client, "bea-private", namespace="personal"))
        assert recalled(client, query="private") == ["bea-private"]
    with team.http(carl) as client:
        assert recalled(client, query="private") == []
        refused(client.get("/v1/entities/bea-private"), 404, "resource.not-found")
        refused(remember(client, "bea-private"), 403, "auth.forbidden")
    with team.http(team.server.token()) as owner:
        assert recalled(owner, query="private") == []


def test_a_revoked_member_is_401_on_the_next_request(team: Team) -> None:
    bea = team.add("bea", "writer")
    with team.http(bea) as client:
        ok(client.get("/v1/health"))
        done = team.memesh("member", "revoke", "bea")
        assert done.returncode == 0, done.stderr
        refused(client.get("/v1/health"), 401, "auth.invalid-token")
        refused(client.post("/mcp", json={}), 401, "auth.invalid-token")
    assert team.memesh("member", "revoke", "bea").returncode == 1


def test_the_owners_remote_token_still_works_as_admin_and_writes_as_the_local_author(team: Team) -> None:
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "owner-note"))
        assert ok(owner.get("/v1/entities/owner-note"))["metadata"]["provenance"]["author"] == OWNER
        ok(owner.get("/v1/audit"))
    with team.http(None) as nobody:
        refused(nobody.get("/v1/health"), 401, "auth.missing-bearer")


def test_the_audit_records_who_wrote_and_forgot_what_and_only_admins_read_it(team: Team) -> None:
    bea, eve = team.add("bea", "writer"), team.add("eve", "admin")
    with team.http(bea) as client:
        ok(remember(client, "audited"))
        ok(client.post("/v1/forget", json={"name": "audited"}))
        refused(client.get("/v1/audit"), 403, "auth.forbidden")
    with team.http(eve) as admin:
        entries = ok(admin.get("/v1/audit", params={"actor": "bea"}))["entries"]
    assert [(e["actor"], e["action"], e["target"]) for e in entries] == [
        ("bea", "forget", "audited"),
        ("bea", "remember", "audited"),
    ]
    printed = team.memesh("member", "audit", "--json")
    assert printed.returncode == 0, printed.stderr
    assert [(e["actor"], e["action"], e["target"]) for e in json.loads(printed.stdout)["entries"]] == [
        ("bea", "forget", "audited"),
        ("bea", "remember", "audited"),
        (OWNER, "member_add", "eve"),
        (OWNER, "member_add", "bea"),
    ]
    with pytest.raises(Exception):  # noqa: B017 - either engine's refusal: the audit is append-only
        team.rows("DELETE FROM audit_log")


def test_recall_and_the_entity_listing_filter_by_author(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    with team.http(bea) as client:
        ok(remember(client, "from-bea"))
    with team.http(carl) as client:
        ok(remember(client, "from-carl"))
        assert recalled(client, query="decided", author="bea") == ["from-bea"]
        assert [entity["name"] for entity in ok(client.get("/v1/entities", params={"author": "carl"}))] == ["from-carl"]


@pytest.mark.anyio
async def test_the_same_rules_hold_over_mcp(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "reader")
    dana = team.add("dana", "writer", ALPHA)
    with team.http(team.server.token()) as owner:
        ok(remember(owner, "beta-plan", f"project:{BETA}"))
    for era in ERAS:
        async with connect(team.server.url, era, headers={"Authorization": f"Bearer {bea}"}) as client:
            mine = {"name": f"mcp-{era}", "type": "note", "observations": ["plan"], "namespace": "team"}
            await client.ok("remember", mine)
        async with connect(team.server.url, era, headers={"Authorization": f"Bearer {carl}"}) as client:
            await client.fails("remember", {"name": f"carl-{era}", "type": "note", "observations": ["x"]})
            found = await client.ok("recall", {"query": "plan"})
            assert f"mcp-{era}" in [entity["name"] for entity in found["entities"]]
        async with connect(team.server.url, era, headers={"Authorization": f"Bearer {dana}"}) as client:
            assert (await client.ok("recall", {"query": "plan"}))["entities"] == []
            await client.fails("remember", {"name": f"dana-{era}", "type": "note", "observations": ["x"]})
    written = {name: (author, json.loads(metadata)["provenance"]) for name, author, metadata in team.rows(
        "SELECT name, author, metadata FROM entities WHERE name LIKE 'mcp-%' OR name LIKE 'carl-%' "
        "OR name LIKE 'dana-%'"
    )}  # fmt: skip
    assert sorted(written) == sorted(f"mcp-{era}" for era in ERAS)
    for author, provenance in written.values():
        assert (author, provenance["author"], provenance["source"]) == ("bea", "bea", "remote")


@pytest.mark.anyio
async def test_the_briefing_names_the_teammate_who_decided_but_not_the_readers_own_memories(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    with team.http(bea) as client:
        ok(remember(client, "use-postgres", f"project:{ALPHA}"))
    with team.http(carl) as client:
        ok(remember(client, "use-granian", f"project:{ALPHA}"))
    async with connect(team.server.url, ERAS[0], headers={"Authorization": f"Bearer {carl}"}) as mcp:
        result = await mcp.call("briefing", {"project": ALPHA})
    assert not result.is_error and result.structured_content is not None
    text = result.structured_content["text"]
    [bea_line] = [line for line in text.splitlines() if "use-postgres" in line]
    [carl_line] = [line for line in text.splitlines() if "use-granian" in line]
    assert "(decided by bea)" in bea_line
    assert " by " not in carl_line


def test_a_local_write_records_the_local_author_setting_and_stays_source_local(team: Team) -> None:
    done = team.memesh("remember", "--name", "local-note", "--type", "note", "--obs", "kept here", "--json")
    assert done.returncode == 0, done.stderr
    found = team.memesh("recall", "local-note", "--json")
    assert found.returncode == 0, found.stderr
    [entity] = json.loads(found.stdout)["entities"]
    provenance = entity["metadata"]["provenance"]
    assert (provenance["author"], provenance["source"], provenance["source_host"]) == (OWNER, "local", "cli")
    assert team.memesh("member", "list", "--json").stdout.strip() == '{"members":[]}'


def test_a_member_cannot_forget_another_members_personal_memory(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    with team.http(bea) as client:
        ok(remember(client, "bea-diary", namespace="personal"))
    with team.http(carl) as client:
        refused(client.post("/v1/forget", json={"name": "bea-diary"}), 404, "resource.not-found")
    assert team.rows("SELECT status FROM entities WHERE name = 'bea-diary'") == [("active",)]


@pytest.mark.anyio
async def test_a_members_briefing_leaves_out_another_members_personal_memories(team: Team) -> None:
    bea, carl = team.add("bea", "writer"), team.add("carl", "writer")
    with team.http(bea) as client:
        ok(remember(client, "bea-secret-plan", f"project:{ALPHA}", namespace="personal"))
        ok(remember(client, "team-plan", f"project:{ALPHA}"))
    async with connect(team.server.url, ERAS[0], headers={"Authorization": f"Bearer {carl}"}) as mcp:
        result = await mcp.call("briefing", {"project": ALPHA})
    assert result.structured_content is not None
    text = result.structured_content["text"]
    assert "team-plan" in text
    assert "bea-secret-plan" not in text
