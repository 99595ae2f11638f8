"""A process's settings (memesh.settings): config.json read once into one value, the database chosen from it, the
environment and the command line's --database, handed to the composition root."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memesh import paths
from memesh.app.resources import Resources
from memesh.settings import ConfigUnreadable, Settings, read_config


def _folder(tmp_path: Path, config: object | None = None) -> dict[str, str]:
    folder = tmp_path / "memesh"
    folder.mkdir(parents=True)
    if config is not None:
        (folder / "config.json").write_text(config if isinstance(config, str) else json.dumps(config))
    return {"MEMESH_DIR": str(folder)}


def test_config_json_is_read_once_when_the_settings_are_loaded_and_not_again(tmp_path: Path) -> None:
    env = _folder(tmp_path, {"briefing": "full", "author": "ana"})
    settings = Settings.load(env)
    (tmp_path / "memesh" / "config.json").write_text("{}")
    assert settings.stored == {"briefing": "full", "author": "ana"}


def test_a_missing_or_broken_config_reads_as_every_default_and_the_reader_says_why(tmp_path: Path) -> None:
    assert Settings.load(_folder(tmp_path)).stored == {}
    (tmp_path / "memesh" / "config.json").write_text("[1]")
    assert Settings.load({"MEMESH_DIR": str(tmp_path / "memesh")}).stored == {}
    with pytest.raises(ConfigUnreadable, match="does not hold a settings object"):
        read_config(tmp_path / "memesh")


def test_the_database_is_the_environments_url_else_config_jsons_else_the_file(tmp_path: Path) -> None:
    env = _folder(tmp_path, {"database": "postgresql://u@config/db"})
    assert Settings.load(env).database_url() == "postgresql://u@config/db"
    assert Settings.load({**env, "MEMESH_DATABASE_URL": "postgresql://u@env/db"}).database_url() == (
        "postgresql://u@env/db"
    )
    plain = Settings.load(_folder(tmp_path / "other"))
    assert plain.database_url() is None
    assert plain.database_file == tmp_path / "other" / "memesh" / paths.DB_FILENAME


def test_a_database_setting_that_is_not_a_url_is_refused_without_repeating_it(tmp_path: Path) -> None:
    env = _folder(tmp_path, {"database": "mysql://secret@h/db"})
    with pytest.raises(paths.DatabaseSettingError) as refused:
        Settings.load(env).database_url()
    assert "secret" not in str(refused.value)


def test_a_database_file_on_the_command_line_wins_over_every_configured_database(tmp_path: Path) -> None:
    env = _folder(tmp_path, {"database": "postgresql://u@config/db"})
    given = Settings.load({**env, "MEMESH_DATABASE_URL": "postgresql://u@env/db"}, database=str(tmp_path / "x.db"))
    assert given.database_url() is None and given.database_file == tmp_path / "x.db"


def test_a_database_url_on_the_command_line_keeps_the_local_files_where_they_were(tmp_path: Path) -> None:
    env = {**_folder(tmp_path), "MEMESH_DB_PATH": str(tmp_path / "local" / "k.db")}
    given = Settings.load(env, database=" postgresql://u@given/db ")
    assert given.database_url() == "postgresql://u@given/db"
    assert given.database_file == tmp_path / "local" / "k.db"


def test_a_named_file_in_a_folder_that_does_not_exist_is_a_problem_the_memesh_folder_is_not(tmp_path: Path) -> None:
    env = _folder(tmp_path)
    assert Settings.load({**env, "MEMESH_DB_PATH": str(tmp_path / "nowhere" / "k.db")}).file_problem() == (
        paths.MISSING_DB_FOLDER
    )
    assert Settings.load(env, database=str(tmp_path / "nowhere" / "k.db")).file_problem() == paths.MISSING_DB_FOLDER
    assert Settings.load({**env, "MEMESH_DB_PATH": str(tmp_path / "memesh" / "k.db")}).file_problem() is None
    assert Settings.load(env).file_problem() is None


@pytest.mark.sqlite_only  # the file the settings name is opened
def test_resources_open_the_database_their_settings_name_and_leave_the_environment_alone(
    memesh_env: Path, tmp_path: Path
) -> None:
    before = dict(os.environ)
    other = tmp_path / "other.db"
    resources = Resources.for_the_owner(settings=Settings.load(os.environ, database=str(other)))
    try:
        resources.store.count()
        assert resources.database_shown() == "…/other.db"
    finally:
        resources.close()
    assert other.exists() and not memesh_env.exists()
    assert dict(os.environ) == before


def test_the_settings_keep_the_environment_they_were_loaded_with(tmp_path: Path) -> None:
    env = {**_folder(tmp_path), "MEMESH_DB_PATH": str(tmp_path / "memesh" / "a.db")}
    settings = Settings.load(env)
    env["MEMESH_DB_PATH"] = str(tmp_path / "memesh" / "b.db")
    assert settings.database_file == tmp_path / "memesh" / "a.db"
    with pytest.raises(AttributeError):
        settings.database = "x.db"
