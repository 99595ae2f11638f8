"""OAuth and the dashboard's sign-in when PostgreSQL drops MeMesh's connection in the middle of them (issue 32,
hardening): a real remote `memesh serve` on PostgreSQL, a statement of the token exchange or of the cookie check
held on a table lock, and the connection ended under it (`pg_terminate_backend`, as an admin, a failover or a
managed service's idle timeout ends it). Each answer is clean — a success or a retryable refusal in the route's own
format, never a 500 nor a trace, no path, host, password or token — and the database holds the whole grant or none
of it: a retry succeeds."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from tests import backends
from tests.backends import Backend
from tests.pg_faults import wait_for
from tests.pooler import Pooled
from tests.transports.http.oauth_flow import (
    OWNER,
    Team,
    approved,
    exchange,
)
from tests.transports.mcp.conftest import Launcher

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


class Direct(Backend):
    """PostgreSQL, where "the database" is one URL made elsewhere (the pooled test's, reached around the pooler)."""

    def __init__(self, url: str) -> None:
        super().__init__("postgres")
        self.url = url

    def target(self, path: Path) -> Path | str:
        return self.url

    def close(self) -> None:  # the pgbouncer fixture drops it
        return None


def _team(tmp_path: Path, backend: Backend, env: dict[str, str] | None = None) -> Team:
    launcher = Launcher(tmp_path, backend)
    launcher.env.update(MEMESH_AUTHOR=OWNER, **(env or {}))
    return Team(launcher, launcher("--host", "0.0.0.0", "--allow-remote"), backend)


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    """A remote listener on a PostgreSQL database of the test's own (PostgreSQL only: the fault is its)."""
    if "postgres" not in backends.engines():
        pytest.skip("PostgreSQL is not among MEMESH_TEST_BACKENDS")
    backend = Backend("postgres")
    made = _team(tmp_path, backend)
    yield made
    made.launcher.close()
    backend.close()


@pytest.fixture
def pooled_team(tmp_path: Path, pgbouncer: Callable[..., Pooled]) -> Iterator[Team]:
    """The same listener through a PgBouncer in transaction mode (the dropped connection is the pooler's)."""
    pooled = pgbouncer(mode="transaction", pool_size=2)
    made = _team(
        tmp_path, Direct(pooled.direct), {"MEMESH_DATABASE_URL": pooled.url, "MEMESH_DATABASE_POOLER": "transaction"}
    )
    yield made
    made.launcher.close()


def _url(team: Team) -> str:
    return str(team.backend.target(team.launcher.db))


def _waiting(team: Team) -> bool:
    """Whether one of the server's connections to this database waits for a lock."""
    with psycopg.connect(_url(team), autocommit=True, application_name="pytest-watch") as watch:
        row = watch.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'memesh' AND datname = current_database() "
            "AND wait_event_type = 'Lock'"
        ).fetchone()
    return bool(row and row[0])


def _terminate(team: Team) -> int:
    """Every connection of the server to this database ended by PostgreSQL; how many there were."""
    database = conninfo_to_dict(_url(team))["dbname"]
    with psycopg.connect(backends.cluster().url(), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'memesh' AND datname = %s",
            (database,),
        ).fetchall()
    return len(rows)


# What the held lock stops: every statement on the table (the reads a call begins with), or only its writes (so
# the call's transaction has begun and run its reads when the connection ends under it).
READS = "ACCESS EXCLUSIVE"
WRITES = "SHARE"


def dropped_during(team: Team, table: str, call: Callable[[], httpx.Response], mode: str = WRITES) -> httpx.Response:
    """`call`'s answer when the server's connection is ended while one of its statements waits on `table` (held
    in `mode`)."""
    answers: list[httpx.Response] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            answers.append(call())
        except BaseException as exc:
            failures.append(exc)

    with psycopg.connect(_url(team), application_name="pytest-lock") as holder:
        holder.execute(f"LOCK TABLE {table} IN {mode} MODE")
        caller = threading.Thread(target=run, daemon=True)
        caller.start()
        wait_for(lambda: _waiting(team), within=20, step=0.05)
        assert _terminate(team) >= 1
        holder.rollback()
    caller.join(60)
    assert not failures, failures
    [answer] = answers
    return answer


def clean(answer: httpx.Response, status: int, *secrets: str) -> None:
    """`status`: a success, or a refusal a client can retry (503 with Retry-After) — in the route's own format,
    never a 500, no trace, no path, no secret."""
    assert answer.status_code == status, answer.text
    if status == 503:
        assert answer.headers.get("retry-after") == "1"
    text = answer.text
    for leaked in ("Traceback", "postgresql://", "psycopg", "/tmp/", str(Path.home()), *secrets):
        assert leaked not in text, text
    if answer.status_code != 200 or answer.headers["content-type"].startswith("application/json"):
        answer.json()  # /mcp may answer a success as an event stream


def grant_rows(team: Team, client_id: str) -> tuple[int, int]:
    """(used codes, tokens) of this client."""
    [(used,)] = team.rows(
        f"SELECT count(*) FROM oauth_requests WHERE client_id = '{client_id}' AND used_at IS NOT NULL"
    )
    [(tokens,)] = team.rows(f"SELECT count(*) FROM oauth_tokens WHERE client_id = '{client_id}'")
    return int(used), int(tokens)


def mcp_accepts(team: Team, access_token: str) -> bool:
    with team.http(access_token) as client:
        return client.post("/mcp", json=INIT, headers=MCP_HEADERS).status_code == 200


def test_a_connection_dropped_mid_token_exchange_leaves_no_half_grant_and_the_retry_succeeds(team: Team) -> None:
    exchange_with_a_drop(team)


def test_behind_pgbouncer_a_dropped_server_connection_mid_exchange_leaves_no_half_grant(pooled_team: Team) -> None:
    exchange_with_a_drop(pooled_team)


def exchange_with_a_drop(team: Team) -> None:
    bea = team.add("bea", "writer")
    app, code, verifier = approved(team, bea)
    with team.http() as client:
        # Held at its first token's INSERT, after the code was marked used in the same transaction.
        answer = dropped_during(team, "oauth_tokens", lambda: exchange(client, app, code, verifier))
        clean(answer, 503, bea, code, verifier)
        assert answer.json()["error"] == "temporarily_unavailable"
        assert grant_rows(team, app.client_id) == (0, 0)  # none of it: the code is still good
        retried = exchange(client, app, code, verifier)
    assert retried.status_code == 200, retried.text
    assert grant_rows(team, app.client_id) == (1, 2)
    assert mcp_accepts(team, retried.json()["access_token"])


def test_a_connection_dropped_mid_refresh_rotates_all_or_nothing(team: Team) -> None:
    bea = team.add("bea", "writer")
    app, code, verifier = approved(team, bea)
    with team.http() as client:
        first = exchange(client, app, code, verifier)
        assert first.status_code == 200, first.text
        refresh = first.json()["refresh_token"]
        form = {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": app.client_id}
        # Held at the rotation's first UPDATE, after the refresh token was read in the same transaction.
        answer = dropped_during(team, "oauth_tokens", lambda: client.post("/token", data=form))
        clean(answer, 503, bea, refresh)
        assert answer.json()["error"] == "temporarily_unavailable"
        # Nothing rotated: the first access token still works, and the refresh token is still good once.
        assert mcp_accepts(team, first.json()["access_token"])
        answer = client.post("/token", data=form)
        assert answer.status_code == 200, answer.text
    assert mcp_accepts(team, answer.json()["access_token"])
    assert not mcp_accepts(team, first.json()["access_token"])  # rotated: the grant's old access token ended


# A read outside a transaction is run once more on a new connection (it changed nothing): a success. The
# last-used write, in its own transaction, is never run again: the store's retryable refusal.
@pytest.mark.parametrize(("mode", "status"), [(READS, 200), (WRITES, 503)])
def test_a_connection_dropped_mid_access_token_check_on_mcp_is_a_clean_answer(
    team: Team, mode: str, status: int
) -> None:
    bea = team.add("bea", "writer")
    app, code, verifier = approved(team, bea)
    with team.http() as client:
        issued = exchange(client, app, code, verifier).json()
    token = issued["access_token"]
    team.execute("UPDATE members SET last_used_at = NULL")  # so the check writes it (at most once a minute)
    with team.http(token) as client:
        answer = dropped_during(team, "members", lambda: client.post("/mcp", json=INIT, headers=MCP_HEADERS), mode)
    clean(answer, status, token, bea)
    if status == 503:
        assert answer.json()["errorCode"] == "store.unavailable"
    assert mcp_accepts(team, token)


def signed_in(team: Team, token: str) -> tuple[httpx.Client, str]:
    """A browser signed in to the dashboard with `token`: its client (keeping the cookie) and its CSRF token."""
    browser = httpx.Client(base_url=team.base, timeout=30)
    answer = browser.post("/dashboard/sign-in", json={"token": token})
    assert answer.status_code == 200, answer.text
    return browser, answer.json()["data"]["csrf"]


@pytest.mark.parametrize(("mode", "status"), [(READS, 200), (WRITES, 503)])
def test_a_connection_dropped_mid_cookie_check_is_a_clean_answer_and_the_session_lives_on(
    team: Team, mode: str, status: int
) -> None:
    cookie_check_with_a_drop(team, mode, status)


def test_behind_pgbouncer_a_dropped_server_connection_mid_cookie_check_is_a_clean_answer(pooled_team: Team) -> None:
    cookie_check_with_a_drop(pooled_team, WRITES, 503)


def cookie_check_with_a_drop(team: Team, mode: str, status: int) -> None:
    bea = team.add("bea", "writer")
    browser, csrf = signed_in(team, bea)
    with contextlib.closing(browser):
        cookie = browser.cookies.get("memesh_session") or ""
        team.execute("UPDATE members SET last_used_at = NULL")  # so the check writes it (at most once a minute)
        answer = dropped_during(team, "members", lambda: browser.get("/v1/health"), mode)
        clean(answer, status, bea, cookie, csrf)
        if status == 503:
            assert answer.json()["errorCode"] == "store.unavailable"
            assert "memesh_session" not in answer.headers.get("set-cookie", "")  # not signed out by the fault
        assert browser.get("/v1/health").status_code == 200  # still signed in: nothing was written of the session
        wrote = browser.post(
            "/v1/remember",
            json={"name": "after-the-drop", "type": "note", "observations": ["x"], "namespace": "team"},
            headers={"X-MeMesh-CSRF": csrf},
        )
        assert wrote.status_code == 200, wrote.text


@pytest.mark.parametrize(("mode", "status"), [(READS, 200), (WRITES, 503)])
def test_a_connection_dropped_mid_sign_in_is_a_clean_answer_and_signing_in_again_works(
    team: Team, mode: str, status: int
) -> None:
    bea = team.add("bea", "writer")
    with httpx.Client(base_url=team.base, timeout=30) as browser:
        team.execute("UPDATE members SET last_used_at = NULL")  # so signing in writes it
        answer = dropped_during(team, "members", lambda: browser.post("/dashboard/sign-in", json={"token": bea}), mode)
        clean(answer, status, bea)
        if status == 503:
            assert answer.json()["errorCode"] == "store.unavailable"
            assert "memesh_session" not in answer.headers.get("set-cookie", "")  # signed in only when it answered
            answer = browser.post("/dashboard/sign-in", json={"token": bea})
        assert answer.status_code == 200, answer.text
        assert browser.get("/v1/health").status_code == 200


def test_a_connection_dropped_mid_registration_is_oauths_503_and_registers_nothing(team: Team) -> None:
    body = {
        "redirect_uris": ["http://127.0.0.1:9/callback"],
        "client_name": "dropped",
        "token_endpoint_auth_method": "none",
    }
    with team.http() as client:
        answer = dropped_during(team, "oauth_clients", lambda: client.post("/register", json=body))
        clean(answer, 503)
        assert answer.json()["error"] == "temporarily_unavailable"
        assert team.rows("SELECT count(*) FROM oauth_clients") == [(0,)]
        assert client.post("/register", json=body).status_code == 201
