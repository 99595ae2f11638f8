"""export and import: a backup that round-trips, and a bundle that cannot hurt the graph it lands in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memesh.context import CallContext
from memesh.errors import ErrorCode
from memesh.ops.import_bundle import import_bundle
from memesh.store.sqlite import SqliteStore, open_store
from tests.calls import call


def _seed_varied_graph(tools: Any) -> None:
    tools.ok(
        "remember",
        {
            "name": "auth",
            "type": "decision",
            "title": "Why JWT",
            "observations": ["Use JWT"],
            "tags": ["project:app", "topic:auth"],
            "namespace": "team",
        },
    )
    tools.ok(
        "remember",
        {
            "name": "auth-v2",
            "type": "decision",
            "observations": ["Sessions, not JWT"],
            "relations": [{"to": "auth", "type": "supersedes"}],
        },
    )
    tools.ok("remember", {"name": "lesson", "type": "mistake", "observations": ["Check nulls", "Check nulls"]})
    tools.ok(
        "remember",
        {
            "name": "g",
            "type": "note",
            "observations": ["global one"],
            "namespace": "global",
            "relations": [{"to": "lesson", "type": "contradicts"}, {"to": "auth-v2", "type": "caused"}],
        },
    )
    tools.ok("remember", {"name": "auth-v2", "replace": True, "observations": ["Sessions with rotation"]})
    tools.ok("remember", {"note": "中文筆記\n\n資料庫遷移要先備份"})
    tools.ok("forget", {"name": "g"})


def _comparable(bundle: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for entity in bundle["entities"]:
        meta = entity.get("metadata", {})
        rows.append(
            {
                "name": entity["name"],
                "type": entity["type"],
                "title": entity["title"],
                "namespace": entity["namespace"],
                "status": entity.get("status"),
                "created_at": entity["created_at"],
                "observations": entity["observations"],
                "tags": sorted(entity["tags"]),
                "relations": sorted((r["to"], r["type"]) for r in entity["relations"]),
                "history": meta.get("replaced_history"),
            }
        )
    return sorted(rows, key=lambda row: row["name"])


def test_a_full_export_imported_into_a_fresh_database_reproduces_every_memory(
    tools: Any, tmp_path: Path, ctx: CallContext
) -> None:
    _seed_varied_graph(tools)
    bundle = tools.ok("export", {"limit": 100000})
    assert bundle["version"] == "3.1.0" and bundle["truncated"] is False
    fresh = open_store(tmp_path / "restore.db")
    result = import_bundle(fresh, {"data": bundle, "merge_strategy": "skip"}, ctx=ctx, keep_metadata=True)
    assert result.unwrap()["imported"] == bundle["entity_count"]
    again = call("export", fresh, {"limit": 100000}, ctx).unwrap()
    assert _comparable(again) == _comparable(bundle)
    fresh.close()


def test_export_is_newest_first_and_truncated_when_the_limit_cuts(tools: Any) -> None:
    for index in range(5):
        tools.ok("remember", {"name": f"m{index}", "type": "note", "observations": [f"text {index}"]})
    bundle = tools.ok("export", {"limit": 3})
    assert [e["name"] for e in bundle["entities"]] == ["m4", "m3", "m2"]
    assert bundle["truncated"] is True and bundle["entity_count"] == 3


def test_archived_memories_are_exported_with_their_status(tools: Any) -> None:
    tools.ok("remember", {"name": "old", "type": "note", "observations": ["x"]})
    tools.ok("forget", {"name": "old"})
    (entity,) = tools.ok("export", {})["entities"]
    assert entity["status"] == "archived" and entity["title"] is None


def test_export_filters_by_tag_and_namespace(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["x"], "tags": ["project:a"]})
    tools.ok("remember", {"name": "b", "type": "note", "observations": ["y"], "namespace": "team"})
    assert [e["name"] for e in tools.ok("export", {"tag": "project:a"})["entities"]] == ["a"]
    assert [e["name"] for e in tools.ok("export", {"namespace": "team"})["entities"]] == ["b"]


def _bundle(*entities: Any) -> Any:
    return {"version": "3.1.0", "exported_at": "2026-01-01T00:00:00.000Z", "entities": list(entities)}


def test_a_bundle_naming_one_memory_twice_is_refused_whole(tools: Any) -> None:
    data = _bundle({"name": "a", "type": "t"}, {"name": "b", "type": "t"}, {"name": "a", "type": "t"})
    error = tools.fails("import", {"data": data, "merge_strategy": "skip"})
    assert error.code == ErrorCode.OPERATION_FAILED
    assert tools.ok("export", {})["entities"] == []


def test_a_bundle_naming_one_memory_twice_in_different_whitespace_is_refused_whole(tools: Any) -> None:
    data = _bundle({"name": "dup", "type": "t", "observations": ["one"]}, {"name": " dup\t", "type": "t"})
    error = tools.fails("import", {"data": data, "merge_strategy": "append"})
    assert error.code == ErrorCode.OPERATION_FAILED
    assert tools.ok("export", {})["entities"] == []


def test_skip_keeps_the_existing_memory_and_its_namespace(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["mine"]})
    result = tools.ok(
        "import",
        {
            "data": _bundle({"name": "a", "type": "t", "observations": ["theirs"]}),
            "merge_strategy": "skip",
            "namespace": "team",
        },
    )
    assert result["skipped"] == 1 and result["imported"] == 0
    (entity,) = tools.ok("export", {})["entities"]
    assert entity["observations"] == ["mine"] and entity["namespace"] == "personal"


def test_overwrite_replaces_content_and_keeps_the_old_version_in_history(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "decision", "title": "Old", "observations": ["mine"], "tags": ["x"]})
    result = tools.ok(
        "import",
        {
            "data": _bundle({"name": "a", "type": "note", "title": "New", "observations": ["theirs"], "tags": ["y"]}),
            "merge_strategy": "overwrite",
        },
    )
    assert result["imported"] == 1 and result["overwritten"] == 1
    (entity,) = tools.ok("export", {})["entities"]
    assert entity["observations"] == ["theirs"] and entity["tags"] == ["y"] and entity["title"] == "New"
    assert entity["type"] == "decision"
    (version,) = entity["metadata"]["replaced_history"]
    assert version["observations"] == ["mine"] and version["title"] == "Old" and version["tags"] == ["x"]


def test_overwrite_with_identical_content_adds_no_history_version(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["same"]})
    data = _bundle({"name": "a", "type": "note", "observations": ["same"], "tags": []})
    tools.ok("import", {"data": data, "merge_strategy": "overwrite"})
    (entity,) = tools.ok("export", {})["entities"]
    assert "replaced_history" not in entity["metadata"]


def test_append_adds_only_new_observations_and_dedupes_tags(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["one"], "tags": ["t"]})
    result = tools.ok(
        "import",
        {
            "data": _bundle({"name": "a", "type": "note", "observations": ["one", "two"], "tags": ["t", "u"]}),
            "merge_strategy": "append",
        },
    )
    assert result["appended"] == 1
    (entity,) = tools.ok("export", {})["entities"]
    assert entity["observations"] == ["one", "two"] and sorted(entity["tags"]) == ["t", "u"]


def test_append_that_adds_nothing_counts_as_skipped(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["one"]})
    result = tools.ok(
        "import", {"data": _bundle({"name": "a", "type": "note", "observations": ["one"]}), "merge_strategy": "append"}
    )
    assert result["skipped"] == 1 and result["appended"] == 0


def test_namespace_override_moves_existing_memories_except_with_skip(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["one"]})
    tools.ok(
        "import",
        {
            "data": _bundle({"name": "a", "type": "note", "observations": ["two"]}),
            "merge_strategy": "append",
            "namespace": "team",
        },
    )
    (entity,) = tools.ok("export", {})["entities"]
    assert entity["namespace"] == "team" and entity["metadata"]["previous_namespace"] == "personal"


def test_an_archived_local_memory_is_kept_archived_and_untouched(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["forgotten"]})
    tools.ok("forget", {"name": "a"})
    result = tools.ok(
        "import",
        {"data": _bundle({"name": "a", "type": "note", "observations": ["back?"]}), "merge_strategy": "append"},
    )
    assert result["kept_archived"] == 1 and result["appended"] == 0
    (entity,) = tools.ok("export", {})["entities"]
    assert entity["status"] == "archived" and entity["observations"] == ["forgotten"]


def test_restore_archived_brings_the_memory_back(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["forgotten"]})
    tools.ok("forget", {"name": "a"})
    tools.ok(
        "import",
        {
            "data": _bundle({"name": "a", "type": "note", "observations": ["back"]}),
            "merge_strategy": "append",
            "restore_archived": True,
        },
    )
    (entity,) = tools.ok("export", {})["entities"]
    assert "status" not in entity and entity["observations"] == ["forgotten", "back"]


def test_restore_archived_with_skip_is_refused_and_nothing_is_imported(tools: Any) -> None:
    error = tools.fails(
        "import", {"data": _bundle({"name": "a", "type": "t"}), "merge_strategy": "skip", "restore_archived": True}
    )
    assert error.code == ErrorCode.BAD_BODY
    assert tools.ok("export", {})["entities"] == []


def test_restore_archived_must_be_a_boolean(tools: Any) -> None:
    error = tools.fails("import", {"data": _bundle(), "merge_strategy": "append", "restore_archived": "yes"})
    assert error.code == ErrorCode.BAD_BODY and "restore_archived" in error.message


def test_relations_are_created_after_every_entity_and_unreachable_ones_are_reported(tools: Any) -> None:
    data = _bundle(
        {"name": "a", "type": "t", "relations": [{"to": "b", "type": "related-to"}, {"to": "gone", "type": "x"}]},
        {"name": "b", "type": "t"},
    )
    result = tools.ok("import", {"data": data, "merge_strategy": "skip"})
    assert result["skipped_relations"] == ["a -x-> gone"] and result["errors"] == []
    entity = next(e for e in tools.ok("export", {})["entities"] if e["name"] == "a")
    assert entity["relations"] == [{"to": "b", "type": "related-to"}]


def test_append_rebuilds_the_appended_entrys_relations_and_reports_unreachable_ones(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "observations": ["x"]})
    tools.ok("remember", {"name": "r", "type": "note", "observations": ["q"]})
    data = _bundle(
        {
            "name": "a",
            "type": "note",
            "observations": ["new obs"],
            "relations": [{"to": "r", "type": "depends_on"}, {"to": "ghost", "type": "x"}],
        }
    )
    result = tools.ok("import", {"data": data, "merge_strategy": "append"})
    assert result["appended"] == 1 and result["skipped_relations"] == ["a -x-> ghost"]
    entity = next(e for e in tools.ok("export", {})["entities"] if e["name"] == "a")
    assert entity["relations"] == [{"to": "r", "type": "depends_on"}]


def test_bad_entries_are_listed_while_valid_ones_import(tools: Any) -> None:
    data = _bundle(
        {"name": "ok", "type": "t"}, {"type": "t"}, "not an object", {"name": "bad", "type": "t", "tags": "x"}
    )
    result = tools.ok("import", {"data": data, "merge_strategy": "skip"})
    assert result["imported"] == 1 and len(result["errors"]) == 3
    assert result["errors"][0].startswith("entities[1]")


def test_created_at_is_restored_only_when_parseable_and_only_on_created_memories(tools: Any) -> None:
    tools.ok("remember", {"name": "mine", "type": "note", "observations": ["x"]})
    mine_created = tools.ok("export", {})["entities"][0]["created_at"]
    data = _bundle(
        {"name": "new", "type": "t", "created_at": "2020-02-03T04:05:06"},
        {"name": "bad-date", "type": "t", "created_at": "2026-02-30 00:00:00"},
        {"name": "mine", "type": "t", "created_at": "2019-01-01 00:00:00", "observations": ["y"]},
    )
    tools.ok("import", {"data": data, "merge_strategy": "append"})
    by_name = {e["name"]: e for e in tools.ok("export", {})["entities"]}
    assert by_name["new"]["created_at"] == "2020-02-03 04:05:06"
    assert by_name["bad-date"]["created_at"] != "2026-02-30 00:00:00"
    assert by_name["mine"]["created_at"] == mine_created


def test_a_bundle_without_titles_leaves_titles_alone_and_long_titles_are_cut(tools: Any) -> None:
    tools.ok("remember", {"name": "a", "type": "note", "title": "Kept", "observations": ["x"]})
    data = _bundle({"name": "a", "type": "note", "observations": ["y"]}, {"name": "b", "type": "t", "title": "T" * 300})
    tools.ok("import", {"data": data, "merge_strategy": "append"})
    by_name = {e["name"]: e for e in tools.ok("export", {})["entities"]}
    assert by_name["a"]["title"] == "Kept"
    assert len(by_name["b"]["title"]) == 200 and by_name["b"]["title"].endswith("…")


def test_imported_memories_are_untrusted_with_import_provenance(tools: Any) -> None:
    tools.ok(
        "import",
        {"data": _bundle({"name": "a", "type": "t", "metadata": {"trust": "trusted"}}), "merge_strategy": "skip"},
    )
    (entity,) = tools.ok("export", {})["entities"]
    assert entity["metadata"]["trust"] == "untrusted"
    assert entity["metadata"]["provenance"]["source"] == "import"


def test_transport_imports_ignore_bundle_metadata(tools: Any) -> None:
    data = _bundle({"name": "a", "type": "t", "metadata": {"pin": True, "kind": "x", "guard": {"p": 1}}})
    tools.ok("import", {"data": data, "merge_strategy": "skip"})
    (entity,) = tools.ok("export", {})["entities"]
    assert not {"pin", "kind", "guard"} & set(entity["metadata"])


def test_cli_import_keeps_only_descriptive_metadata_and_validated_fresh_keys(
    fresh_db: SqliteStore, ctx: CallContext
) -> None:
    good_hash = "a" * 64
    data = _bundle(
        {
            "name": "fresh",
            "type": "t",
            "metadata": {
                "kind": "digest",
                "guard": {"pattern": "rm"},
                "demo": True,
                "task_state": {"goal": "evil"},
                "pin": True,
                "signal_score": 0.4,
                "forgotten_observation_hashes": [good_hash, good_hash],
                "replaced_history": [{"replaced_at": "x", "title": None, "observations": ["o"], "tags": []}],
                "provenance": {"source_host": "forged"},
                "trust": "trusted",
            },
        },
        {
            "name": "bad",
            "type": "t",
            "metadata": {
                "pin": "yes",
                "signal_score": 2,
                "forgotten_observation_hashes": [good_hash, "nothex"],
                "replaced_history": [{"replaced_at": "x", "extra": 1}],
            },
        },
    )
    import_bundle(fresh_db, {"data": data, "merge_strategy": "skip"}, ctx=ctx, keep_metadata=True).unwrap()
    by_name = {e.name: e for e in fresh_db.load(fresh_db.recent(_all(), 10))}
    fresh = by_name["fresh"].metadata
    assert fresh["kind"] == "digest" and fresh["pin"] is True and fresh["signal_score"] == 0.4
    assert fresh["forgotten_observation_hashes"] == [good_hash] and len(fresh["replaced_history"]) == 1
    assert not {"guard", "demo", "task_state"} & set(fresh)
    assert fresh["trust"] == "untrusted" and "source_host" not in fresh["provenance"]
    bad = by_name["bad"].metadata
    assert not {"pin", "forgotten_observation_hashes", "replaced_history"} & set(bad)
    assert bad["signal_score"] != 2


def test_an_existing_memory_never_takes_authority_keys_from_a_bundle(fresh_db: SqliteStore, ctx: CallContext) -> None:
    call("remember", fresh_db, {"name": "a", "type": "t", "observations": ["x"]}, ctx).unwrap()
    data = _bundle({"name": "a", "type": "t", "observations": ["y"], "metadata": {"pin": True, "signal_score": 1}})
    import_bundle(fresh_db, {"data": data, "merge_strategy": "overwrite"}, ctx=ctx, keep_metadata=True).unwrap()
    entity = fresh_db.find("a")
    assert entity is not None and "pin" not in entity.metadata and entity.metadata["signal_score"] != 1


def test_trust_marks_imported_memories_trusted(fresh_db: SqliteStore, ctx: CallContext) -> None:
    import_bundle(
        fresh_db, {"data": _bundle({"name": "a", "type": "t"}), "merge_strategy": "skip"}, ctx=ctx, trust=True
    ).unwrap()
    entity = fresh_db.find("a")
    assert entity is not None and entity.metadata["trust"] == "trusted"
    assert entity.metadata["provenance"]["source"] == "trusted-import"


def test_secrets_in_a_bundle_are_redacted_on_import(tools: Any) -> None:
    data = _bundle(
        {
            "name": "a",
            "type": "t",
            "title": "key sk-ant-api03-abcdefghijklmnop",
            "observations": ["token ghp_" + "a" * 36],
        }
    )
    tools.ok("import", {"data": data, "merge_strategy": "skip"})
    dumped = json.dumps(tools.ok("export", {}))
    assert "ghp_" not in dumped and "sk-ant" not in dumped


def test_a_failing_entry_leaves_no_partial_rows(
    fresh_db: SqliteStore, ctx: CallContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = fresh_db.save

    def explode_on_b(write: Any) -> int:
        entity_id = original(write)
        if write.name == "b":
            raise RuntimeError("disk on fire")
        return entity_id

    monkeypatch.setattr(fresh_db, "save", explode_on_b)
    result = import_bundle(
        fresh_db,
        {"data": _bundle({"name": "a", "type": "t"}, {"name": "b", "type": "t"}), "merge_strategy": "skip"},
        ctx=ctx,
    ).unwrap()
    assert result["imported"] == 1 and result["errors"] == ["b: could not be stored (RuntimeError)"]
    assert fresh_db.find("b") is None and fresh_db.find("a") is not None


def _all() -> Any:
    from memesh.model import Filters

    return Filters(include_archived=True)
