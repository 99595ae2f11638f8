"""Which live registration a request reaches (docs/adr/0004): pure rules over what the router holds."""

from __future__ import annotations

from dataclasses import dataclass

from memesh.core.routing import discovered, push_target


@dataclass
class Held:
    session_id: str
    principal_id: str = "reviewer"
    project: str = "p"
    activated: bool = True
    order: int = 0
    alive: bool = True

    def live(self) -> bool:
        return self.alive


def test_a_principal_message_goes_to_the_newest_eligible_session_only() -> None:
    held = [Held("a", order=1), Held("b", order=3), Held("c", order=2)]
    assert push_target(held, "p", "reviewer", None) is held[1]


def test_a_session_not_yet_activated_lapsed_elsewhere_or_of_another_principal_is_not_eligible() -> None:
    held = [
        Held("new-but-inactive", order=9, activated=False),
        Held("lapsed", order=8, alive=False),
        Held("elsewhere", order=7, project="q"),
        Held("someone-else", order=6, principal_id="lead"),
        Held("eligible", order=1),
    ]
    assert push_target(held, "p", "reviewer", None) is held[4]
    assert push_target(held[:4], "p", "reviewer", None) is None


def test_an_intended_session_is_the_only_one_tried_and_nothing_else_of_the_principal() -> None:
    held = [Held("a", order=1), Held("b", order=2)]
    assert push_target(held, "p", "reviewer", "a") is held[0]
    assert push_target(held, "p", "reviewer", "gone") is None


def test_discover_lists_the_live_sessions_of_the_project_by_principal_then_session() -> None:
    held = [
        Held("s2", "reviewer"),
        Held("s1", "reviewer"),
        Held("s9", "lead"),
        Held("x", project="q"),
        Held("z", alive=False),
    ]
    assert [each.session_id for each in discovered(held, "p", None)] == ["s9", "s1", "s2"]


def test_discover_keeps_between_one_and_a_hundred_and_fifty_when_no_limit_is_asked() -> None:
    held = [Held(f"s{n:03}") for n in range(120)]
    assert len(discovered(held, "p", None)) == 50
    assert len(discovered(held, "p", 0)) == 1
    assert len(discovered(held, "p", 500)) == 100
    assert len(discovered(held, "p", "7")) == 50
