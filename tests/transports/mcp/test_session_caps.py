"""Which `/mcp` session gives way to a new one (issue 35): one client may not hold every session, and an idle one is
reclaimed before anyone is refused."""

from __future__ import annotations

from memesh.transports.mcp.streamable import MAX_SESSIONS, SESSIONS_PER_CLIENT, reclaim


def _held(client: str, count: int, start: int = 0) -> dict[str, str]:
    return {f"{client}-{i}": client for i in range(start, start + count)}


def test_under_both_caps_a_client_opens_a_session_and_nothing_is_closed() -> None:
    owners = _held("a", SESSIONS_PER_CLIENT - 1)
    assert reclaim(owners, {}, set(), "a", len(owners)) == (True, None)


def test_at_its_cap_a_client_gives_up_its_own_session_idle_longest() -> None:
    owners = _held("a", SESSIONS_PER_CLIENT) | _held("b", 1)
    used = {sid: float(i) for i, sid in enumerate(owners)} | {"b-0": -1.0, "a-0": 50.0}
    assert reclaim(owners, used, {"a-1"}, "a", len(owners)) == (True, "a-2")


def test_at_its_cap_with_every_session_busy_a_client_is_refused_and_others_still_open() -> None:
    owners = _held("a", SESSIONS_PER_CLIENT)
    assert reclaim(owners, {}, set(owners), "a", len(owners)) == (False, None)
    assert reclaim(owners, {}, set(owners), "b", len(owners)) == (True, None)


def test_at_the_total_cap_anyones_idle_longest_session_gives_way_to_a_new_client() -> None:
    clients = [f"c{n}" for n in range(MAX_SESSIONS // (SESSIONS_PER_CLIENT - 1) + 1)]
    owners: dict[str, str] = {}
    for client in clients:
        owners |= _held(client, SESSIONS_PER_CLIENT - 1)
    used = dict.fromkeys(owners, 10.0) | {"c3-7": 1.0}
    assert reclaim(owners, used, set(), "newcomer", MAX_SESSIONS) == (True, "c3-7")


def test_openings_still_being_answered_count_against_the_cap_so_a_burst_cannot_pass_it() -> None:
    owners = _held("a", 10)
    assert reclaim(owners, {}, set(owners), "a", len(owners), pending=SESSIONS_PER_CLIENT - 10) == (False, None)
    assert reclaim(owners, {}, set(owners), "a", len(owners), pending=SESSIONS_PER_CLIENT - 11) == (True, None)
