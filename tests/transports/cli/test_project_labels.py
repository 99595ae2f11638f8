"""`memesh task --project <label>` and `memesh briefing --project <label>`: the label names its one stored
project; one several projects share is refused with their ids (issue 34)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.transports.cli.conftest import Cli

SHOP_A = "shop~" + "a" * 32
SHOP_B = "shop~" + "b" * 32


def test_task_with_a_label_writes_to_its_one_stored_project(cli: Cli) -> None:
    cli.ok("task", "--project", SHOP_A, "--goal", "Ship carts")
    shown = cli.ok("task", "--project", "shop", "--next", "Refunds", "--json").json()
    assert shown["project"] == SHOP_A and shown["state"]["goal"] == "Ship carts" and shown["changed"] == ["next"]


def test_task_and_briefing_refuse_a_shared_label_naming_the_ids(cli: Cli) -> None:
    cli.ok("task", "--project", SHOP_A, "--goal", "Ship carts")
    cli.ok("task", "--project", SHOP_B, "--goal", "Ship refunds")
    for argv in (("task", "--project", "shop", "--json"), ("briefing", "--project", "shop", "--json")):
        refused = cli(*argv)
        assert refused.code == 1, refused
        body = refused.json()
        assert body["errorCode"] == "validation.bad-body"
        assert body["error"].startswith('project: "shop" is the label of 2 projects')
        assert SHOP_A in body["error"] and SHOP_B in body["error"]
    assert cli.ok("task", "--project", SHOP_B, "--json").json()["state"]["goal"] == "Ship refunds"
