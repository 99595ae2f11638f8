"""The local router as a sender reaches it (the message tool, `memesh message router` checking for a running one):
one short synchronous request per call over its socket (`memesh.core.router_wire`).

The socket is trusted only when it is this user's: the MeMesh folder it sits in and the socket file belong to this
user, and the process answering on it runs as this user (its peer credentials). Anything else reads as unreachable,
with a reason; a folder of another user is also said once on stderr, with the fix.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from pathlib import Path
from typing import Any

from memesh import paths
from memesh.core import router_wire as wire
from memesh.records import dataclass
from memesh.values import NativeOutcome


def socket_problem(path: Path) -> str | None:
    """Why the router socket at `path` must not be talked to (missing, not a socket, another user's), or None."""
    if (uid := paths.foreign_owner(path.parent)) is not None:
        paths.warn_once(paths.foreign_folder(path.parent, uid))
        return f"the MeMesh folder belongs to another user (uid {uid})"
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return "no router socket"
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    if not stat.S_ISSOCK(found.st_mode):
        return f"{path.name} is not a socket"
    if found.st_uid != os.getuid():
        return f"the router socket belongs to another user (uid {found.st_uid})"
    return None


def peer_problem(sock: socket.socket) -> str | None:
    """Why the process at the other end of `sock` must not be trusted (another user runs it), or None."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None  # no peer credentials here: the socket's owner and mode are the check
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return None if uid == os.getuid() else f"the router is run by another user (uid {uid})"


@dataclass(frozen=True)
class RouterClient:
    """Talks to the router at `path`; every failure to reach it reads as unreachable, never an exception."""

    path: Path

    @classmethod
    def default(cls) -> RouterClient:
        return cls(paths.router_socket())

    def request(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any] | str:
        """The router's answer, or a short reason it could not be had."""
        if (problem := socket_problem(self.path)) is not None:
            return problem
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(timeout_s)
                sock.connect(str(self.path))
                if (problem := peer_problem(sock)) is not None:
                    return problem  # nothing was sent: another user's process never sees the request
                sock.sendall(wire.encode(message))
                buffer = b""
                while not buffer.endswith(b"\n"):
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    buffer += chunk
        except FileNotFoundError:
            return "no router socket"
        except ConnectionRefusedError:
            return "the router socket refused the connection"
        except TimeoutError:
            return "the router did not answer in time"
        except OSError as exc:
            return exc.strerror or type(exc).__name__
        answer = wire.decode(buffer)
        return answer if answer is not None else "the router's answer was not JSON"

    def discover(self, project: str, limit: int) -> list[dict[str, Any]] | None:
        answer = self.request({"op": "discover", "project": project, "limit": limit}, timeout_s=5.0)
        if isinstance(answer, str) or not answer.get("ok"):
            return None
        cards: list[dict[str, Any]] = answer.get("registrations", [])
        return cards

    def deliver(
        self, project: str, session_id: str, envelope: str, *, message_id: str = "", delivery_id: str = ""
    ) -> NativeOutcome:
        request = {"op": "deliver", "project": project, "session_id": session_id, "envelope": envelope}
        return self._native(request, message_id, delivery_id)

    def push(
        self,
        project: str,
        principal_id: str,
        intended_session: str | None,
        envelope: str,
        *,
        message_id: str,
        delivery_id: str,
    ) -> NativeOutcome:
        request = {
            "op": "push",
            "project": project,
            "principal_id": principal_id,
            "intended_session": intended_session,
            "envelope": envelope,
        }
        return self._native(request, message_id, delivery_id)

    def _native(self, request: dict[str, Any], message_id: str, delivery_id: str) -> NativeOutcome:
        if message_id and delivery_id:  # the router then records the host's answer as a fact of that delivery
            request.update(message_id=message_id, delivery_id=delivery_id)
        answer = self.request(request, timeout_s=wire.HOST_ACCEPT_TIMEOUT_S + 5.0)
        if isinstance(answer, str):
            return NativeOutcome("unreachable", reason=answer)
        receipt = answer.get("receipt") if isinstance(answer.get("receipt"), dict) else None
        session = answer.get("session_id") if isinstance(answer.get("session_id"), str) else None
        status = answer.get("status")
        if status == "none":
            return NativeOutcome("none", reason=str(answer.get("reason", "")))
        return NativeOutcome(
            "accepted" if status == "accepted" else "unavailable",
            generation=answer.get("generation"),
            reason=str(answer.get("reason", "")),
            receipt=receipt,
            session_id=session,
        )

    def ping(self) -> bool:
        answer = self.request({"op": "ping"}, timeout_s=2.0)
        return isinstance(answer, dict) and bool(answer.get("ok"))
