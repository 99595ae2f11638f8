"""Entries of the owner settings (config.json: GET/POST /v1/config, `memesh config`) and of the hooks' install
into Claude Code's settings (`memesh setup`). Every write to config.json is `memesh.ops.settings`'."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources, the_config, themselves
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.config_list_input import ConfigListInput
    from memesh.generated.cli.config_list_output import ConfigListOutput
    from memesh.generated.cli.config_unset_input import ConfigUnsetInput
    from memesh.generated.cli.config_unset_output import ConfigUnsetOutput
    from memesh.generated.cli.setup_input import SetupInput
    from memesh.generated.cli.setup_output import SetupOutput
    from memesh.generated.http.config_input import ConfigInput
    from memesh.generated.http.config_output import ConfigOutput
    from memesh.generated.http.config_update_input import ConfigUpdate
    from memesh.generated.http.config_update_output import StoredConfig
    from memesh.ops.settings import ConfigFile


def _config() -> Operation[ConfigFile, ConfigInput, ConfigOutput]:
    from memesh.ops.settings import read_config

    return read_config


def _config_update() -> Operation[ConfigFile, ConfigUpdate, StoredConfig]:
    from memesh.ops.settings import update_config

    return update_config


def _config_list() -> Operation[ConfigFile, ConfigListInput, ConfigListOutput]:
    from memesh.ops.settings import list_config

    return list_config


def _config_unset() -> Operation[ConfigFile, ConfigUnsetInput, ConfigUnsetOutput]:
    from memesh.ops.settings import unset_config

    return unset_config


def _setup() -> Operation[Resources, SetupInput, SetupOutput]:
    from memesh.ops.setup import setup

    return setup


CONFIG = Op(
    name="config",
    input_schema="http/config.input",
    output_schema="http/config.output",
    load=_config,
    uses=the_config,
    summary="The owner-local settings",
)
# POST /v1/config and `memesh config set` (its text value parsed to the key's JSON type first): one schema, one write.
CONFIG_UPDATE = Op(
    name="config_update",
    input_schema="http/config_update.input",
    output_schema="http/config_update.output",
    load=_config_update,
    uses=the_config,
    summary="Change the owner-local settings",
    errors=(ErrorCode.OPERATION_FAILED,),
)
CONFIG_LIST = Op(
    name="config_list",
    input_schema="cli/config_list.input",
    output_schema="cli/config_list.output",
    load=_config_list,
    uses=the_config,
    summary="The stored settings and the values in effect",
)
CONFIG_UNSET = Op(
    name="config_unset",
    input_schema="cli/config_unset.input",
    output_schema="cli/config_unset.output",
    load=_config_unset,
    uses=the_config,
    summary="Remove one stored setting",
    errors=(ErrorCode.OPERATION_FAILED,),
)
SETUP = Op(
    name="setup",
    input_schema="cli/setup.input",
    output_schema="cli/setup.output",
    load=_setup,
    uses=themselves,
    summary="Install or remove MeMesh's hooks in Claude Code's settings",
    errors=(ErrorCode.OPERATION_FAILED,),
)

OPS: tuple[Op[Any, Any, Any], ...] = (CONFIG, CONFIG_UPDATE, CONFIG_LIST, CONFIG_UNSET, SETUP)
