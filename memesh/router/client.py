"""The router as the message tool reaches it: one short synchronous request per call."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memesh.core.messages_model import NativeOutcome
from memesh.router import wire


@dataclass(frozen=True)
class RouterClient:
    """Talks to the router at `path`; every failure to reach it reads as unreachable, never an exception."""

    path: Path

    @classmethod
    def default(cls) -> RouterClient:
        return cls(wire.socket_path())

    def request(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any] | str:
        """The router's answer, or a short reason it could not be had."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(timeout_s)
                sock.connect(str(self.path))
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

    def deliver(self, project: str, session_id: str, envelope: str) -> NativeOutcome:
        answer = self.request(
            {"op": "deliver", "project": project, "session_id": session_id, "envelope": envelope},
            timeout_s=wire.HOST_ACCEPT_TIMEOUT_S + 5.0,
        )
        if isinstance(answer, str):
            return NativeOutcome("unreachable", reason=answer)
        if answer.get("status") == "accepted":
            return NativeOutcome("accepted", generation=answer.get("generation"))
        return NativeOutcome("unavailable", generation=answer.get("generation"), reason=str(answer.get("reason", "")))

    def ping(self) -> bool:
        answer = self.request({"op": "ping"}, timeout_s=2.0)
        return isinstance(answer, dict) and bool(answer.get("ok"))
