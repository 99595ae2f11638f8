"""Entries of what brings memory to an agent or a person on its own: the briefing index, doctor and its repair,
and why (a file's commits and what is remembered of them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memesh.app.registry import Op, Operation
from memesh.app.resources import Resources, Store, the_store, themselves
from memesh.errors import ErrorCode

if TYPE_CHECKING:
    from memesh.generated.cli.why_input import WhyHereInput
    from memesh.generated.http.briefing_index_input import BriefingIndexInput
    from memesh.generated.http.briefing_index_output import BriefingIndexOutput
    from memesh.generated.http.doctor_fix_input import DoctorFixInput
    from memesh.generated.http.doctor_fix_output import DoctorFixOutput
    from memesh.generated.http.doctor_input import DoctorInput
    from memesh.generated.http.doctor_output import DoctorOutput
    from memesh.generated.http.why_input import WhyInput
    from memesh.generated.http.why_output import WhyOutput


def _briefing_index() -> Operation[Store, BriefingIndexInput, BriefingIndexOutput]:
    from memesh.ops.briefing import briefing_index_of

    return briefing_index_of


def _doctor() -> Operation[Resources, DoctorInput, DoctorOutput]:
    from memesh.ops.doctor import doctor

    return doctor


def _doctor_fix() -> Operation[Resources, DoctorFixInput, DoctorFixOutput]:
    from memesh.ops.doctor import doctor_fix

    return doctor_fix


def _why() -> Operation[Store, WhyInput, WhyOutput]:
    from memesh.ops.why import why

    return why


def _why_here() -> Operation[Resources, WhyHereInput, WhyOutput]:
    from memesh.ops.why import why_here

    return why_here


BRIEFING_INDEX = Op(
    name="briefing_index",
    input_schema="http/briefing_index.input",
    output_schema="http/briefing_index.output",
    load=_briefing_index,
    uses=the_store,
    summary="The durable-memory index of one project",
)
# Doctor opens its own connection for its database check (through the resources), so it also reports a database
# the listener cannot open; it reads no path it is not handed.
DOCTOR = Op(
    name="doctor",
    input_schema="http/doctor.input",
    output_schema="http/doctor.output",
    load=_doctor,
    uses=themselves,
    summary="Install, database, hook wiring and capture liveness, redacted",
)
DOCTOR_FIX = Op(
    name="doctor_fix",
    input_schema="http/doctor_fix.input",
    output_schema="http/doctor_fix.output",
    load=_doctor_fix,
    uses=themselves,
    summary="Apply one current doctor check's repair and read it back",
    errors=(ErrorCode.OPERATION_FAILED, ErrorCode.PERMISSION_DENIED),
)
# The graph half: the caller resolved the commits (the HTTP route never runs git).
WHY = Op(
    name="why",
    input_schema="http/why.input",
    output_schema="http/why.output",
    load=_why,
    uses=the_store,
    summary="What is remembered about a file's commits, and its file-tag memories",
)
# `memesh why`: the working folder's git history (handed in by the resources) names the commits first.
WHY_HERE = Op(
    name="why_here",
    input_schema="cli/why.input",
    output_schema="http/why.output",
    load=_why_here,
    uses=themselves,
    summary="Which commits touched a file here, and what is remembered of them",
)

OPS: tuple[Op[Any, Any, Any], ...] = (BRIEFING_INDEX, DOCTOR, DOCTOR_FIX, WHY, WHY_HERE)
