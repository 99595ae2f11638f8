"""The settings of one process, read once: where MeMesh keeps its files, which database it uses and what config.json
holds, as one immutable value the composition root (`memesh.app.resources.Resources`) is handed.

A process builds one (`Settings.load`) from its environment and config.json, read here and nowhere else
(`read_config`: the settings commands' read of the file goes through it too). `--database` on the command line is
part of the value (`Settings.load(environment, database=…)`), not a variable written into the environment.
"""

from __future__ import annotations

from pathlib import Path

from memesh import paths

TYPE_CHECKING = False  # not typing's: a hook builds one of these, and typing costs it start-up
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

FILENAME = "config.json"


class ConfigUnreadable(ValueError):
    """config.json exists but is not a settings object; `problem` says how (`<file> <problem>` reads as a sentence)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def read_config(folder: Path) -> dict[str, Any]:
    """Everything config.json in `folder` holds (unknown keys included); {} when there is no file; ConfigUnreadable
    when it cannot be read, is not JSON, or holds no settings object."""
    try:
        text = (folder / FILENAME).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigUnreadable(f"exists but could not be read ({exc.strerror})") from exc
    from memesh import jsontext

    try:
        value = jsontext.loads(text)  # a hand-edited 1e400 is kept as written, not turned into Infinity
    except ValueError as exc:
        raise ConfigUnreadable("exists but is not valid JSON") from exc
    if not isinstance(value, dict):
        raise ConfigUnreadable("exists but does not hold a settings object")
    return value


class Settings:
    """What one process was started with: its environment variables, config.json as it read it ({} when missing or
    unreadable: the settings commands report why), and the database given on its command line (None: the
    configured one). Immutable once made.

    A plain class, not a dataclass: every command and hook makes one, and making the first instance of a frozen
    dataclass compiles its methods (~4 million instructions, memesh.records), more than the rest of this module."""

    __slots__ = ("database", "environment", "stored")

    environment: Mapping[str, str]
    stored: Mapping[str, Any]
    database: str | None

    def __init__(self, environment: Mapping[str, str], stored: Mapping[str, Any], database: str | None = None) -> None:
        object.__setattr__(self, "environment", environment)
        object.__setattr__(self, "stored", stored)
        object.__setattr__(self, "database", database)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Settings are immutable: {name} cannot be set")

    def __repr__(self) -> str:  # never the environment or config.json's values: either may hold a secret
        return f"Settings(folder={self.folder!s}, database_given={self.database is not None})"

    @classmethod
    def load(cls, environment: Mapping[str, str], database: str | None = None) -> Settings:
        """The settings of `environment` and the config.json of its MeMesh folder, read now; `database`: the
        `--database` a person typed (a SQLite file's path or a postgresql:// URL)."""
        try:
            stored = read_config(_folder(environment))
        except ConfigUnreadable:
            stored = {}
        # A copy: what the process was started with, whatever later writes os.environ.
        return cls(dict(environment), stored, database.strip() if database is not None else None)

    @property
    def folder(self) -> Path:
        """The owner-private folder for config, tokens and (by default) the database: MEMESH_DIR, else ~/.memesh."""
        return _folder(self.environment)

    def _given_url(self) -> bool:
        return self.database is not None and self.database.startswith(paths.URL_SCHEMES)

    @property
    def database_file(self) -> Path:
        """The SQLite file: `--database` when it names a file, else MEMESH_DB_PATH, else knowledge-graph.db in the
        folder. Its folder keeps the files that are local by nature (hook outcomes, backups) on either engine."""
        if self.database is not None and not self._given_url():
            return Path(self.database).expanduser().absolute()
        configured = self.environment.get("MEMESH_DB_PATH", "").strip()
        return Path(configured).expanduser() if configured else self.folder / paths.DB_FILENAME

    def database_url(self) -> str | None:
        """The PostgreSQL database that holds the data, if one is chosen: `--database` (a URL; a file's path chooses
        the file), else MEMESH_DATABASE_URL, else `database` in config.json; None for the SQLite file.
        DatabaseSettingError when the setting is not a postgresql:// URL (its text is not repeated)."""
        if self.database is not None:
            return self.database if self._given_url() else None
        configured = self.environment.get(paths.DATABASE_URL_ENV, "").strip()
        if configured:
            if not configured.startswith(paths.URL_SCHEMES):
                raise paths.DatabaseSettingError(f"{paths.DATABASE_URL_ENV} must be a postgresql:// URL")
            return configured
        stored = self.stored.get("database")
        if stored is None or stored == "":
            return None
        if not isinstance(stored, str) or not stored.strip().startswith(paths.URL_SCHEMES):
            raise paths.DatabaseSettingError("config.json's database must be a postgresql:// URL")
        return stored.strip()

    def file_problem(self) -> str | None:
        """Why the SQLite file named by MEMESH_DB_PATH (or `--database`) cannot be used, or None when it is usable
        or not named: a mistyped path must not quietly start a new, empty database, so its folder must exist unless
        it is the MeMesh folder (created on first use)."""
        named = self.database is not None or self.environment.get("MEMESH_DB_PATH", "").strip()
        if not named:
            return None
        folder = self.database_file.parent
        if folder.is_dir() or folder.absolute() == self.folder.absolute():
            return None
        return paths.MISSING_DB_FOLDER


def _folder(environment: Mapping[str, str]) -> Path:
    configured = environment.get("MEMESH_DIR", "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".memesh"
