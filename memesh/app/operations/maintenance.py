"""Entries of the owner's upkeep and backup commands (CLI only): pin, reindex, restoring a bundle file, note
folders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources, Store, the_store, themselves
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.import_file_input import ImportFileInput
    from memesh.generated.cli.import_notes_input import ImportNotesInput
    from memesh.generated.cli.import_notes_output import ImportNotesOutput
    from memesh.generated.cli.pin_input import PinInput
    from memesh.generated.cli.pin_output import PinOutput
    from memesh.generated.cli.reindex_input import ReindexInput
    from memesh.generated.cli.reindex_output import ReindexOutput
    from memesh.generated.tools.import_output import ImportOutput


def _pin() -> Operation[Store, PinInput, PinOutput]:
    from memesh.ops.pin import pin

    return pin


def _reindex() -> Operation[Resources, ReindexInput, ReindexOutput]:
    from memesh.ops.reindex import reindex

    return reindex


def _import_file() -> Operation[Resources, ImportFileInput, ImportOutput]:
    from memesh.ops.import_bundle import import_file

    return import_file


def _import_notes() -> Operation[Resources, ImportNotesInput, ImportNotesOutput]:
    from memesh.ops.note_import import import_note_folder

    return import_note_folder


PIN = Op(
    name="pin",
    input_schema="cli/pin.input",
    output_schema="cli/pin.output",
    load=_pin,
    uses=the_store,
    summary="Pin a memory (digest work packages leave it alone), or unpin it",
    errors=(ErrorCode.NOT_FOUND,),
)
REINDEX = Op(
    name="reindex",
    input_schema="cli/reindex.input",
    output_schema="cli/reindex.output",
    load=_reindex,
    uses=themselves,
    summary="Rebuild the keyword index from the stored memories, or store hybrid recall's missing vectors, or both",
    errors=(ErrorCode.OPERATION_FAILED,),
)

# The import tool's merge, for the owner's own file: its answer is the tool's.
IMPORT_FILE = Op(
    name="import_file",
    input_schema="cli/import_file.input",
    output_schema="tools/import.output",
    load=_import_file,
    uses=themselves,
    summary="Import a bundle file written by memesh export (its descriptive metadata kept; trusted on request)",
    errors=(ErrorCode.OPERATION_FAILED,),
)
IMPORT_NOTES = Op(
    name="import_notes",
    input_schema="cli/import_notes.input",
    output_schema="cli/import_notes.output",
    load=_import_notes,
    uses=themselves,
    summary="Import a folder of note files, one memory per file, kept in step with the files",
    errors=(ErrorCode.OPERATION_FAILED,),
)

OPS: tuple[Op[Any, Any, Any], ...] = (PIN, REINDEX, IMPORT_FILE, IMPORT_NOTES)
