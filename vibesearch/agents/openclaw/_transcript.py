"""OpenClaw's record of a session, read back as vibesearch events.

OpenClaw 2026.9 keeps each session's transcript in SQLite (``agents/main/agent/openclaw-agent.sqlite``,
table ``transcript_events``: one JSON event per row, numbered by ``seq``; a large one
zstd-compressed in ``event_zstd``). An assistant message holds ``text``, ``thinking`` and
``toolCall`` blocks; a tool's answer is a ``toolResult`` message. The database is opened read-only
while the gateway writes it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from ...run.events import CompactionEvent, EventData, MessageEvent, NoteEvent, ToolCallEvent, ToolResultEvent
from ._config import MCP_SERVER

NO_REPLY = "NO_REPLY"  # what OpenClaw's model answers when it means to say nothing: no reply
TRANSCRIPT_DB = Path("agents") / "main" / "agent" / "openclaw-agent.sqlite"


def read_rows(state_dir: Path, session_id: str, after_seq: int) -> list[tuple[int, dict[str, Any]]]:
    """The session's transcript events after ``after_seq`` (none yet: an empty list)."""
    path = state_dir / TRANSCRIPT_DB
    if not path.is_file():
        return []
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    except sqlite3.Error:
        return []
    try:
        rows = con.execute(
            "SELECT seq, event_json, event_zstd FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq",
            (session_id, after_seq),
        ).fetchall()
    except sqlite3.Error:
        return []
    finally:
        con.close()
    out: list[tuple[int, dict[str, Any]]] = []
    for seq, text, packed in rows:
        if text is None and packed is not None:
            text = _unpack(packed)
        try:
            value = json.loads(text) if text else None
        except ValueError:
            value = None
        out.append((int(seq), value if isinstance(value, dict) else {"type": "unreadable"}))
    return out


def _unpack(packed: bytes) -> str | None:
    try:
        import zstandard
    except ImportError:  # pragma: no cover - a dependency of vibesearch
        return None
    try:
        return zstandard.ZstdDecompressor().decompress(packed, max_output_size=8 * 1024 * 1024).decode("utf-8", "replace")
    except zstandard.ZstdError:
        return None


def our_tool_name(name: str) -> str:
    """The bridge's tools under their own names (``vibesearch__search`` is ``search``)."""
    prefix = f"{MCP_SERVER}__"
    return name[len(prefix):] if name.startswith(prefix) else name


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _text(content: Any) -> str:
    return "\n".join(str(b.get("text", "")).strip() for b in _blocks(content) if b.get("type") == "text" and str(b.get("text", "")).strip())


class TurnReader:
    """Reads a session's new transcript events as our events, a turn at a time.

    ``poll`` hands back what is new since the last look; an assistant text with no tool call is
    held back until something follows it or the turn ends (``finish``), so that the reply is the
    one step marked final."""

    def __init__(self, state_dir: Path, session_id: str):
        self.state_dir = state_dir
        self.session_id = session_id
        self.last_seq = -1
        self.reply: str | None = None  # the turn's reply so far
        self.session_reply: str | None = None  # the last reply in the whole session
        self._held: MessageEvent | None = None

    def start_turn(self) -> None:
        self.reply = None

    def poll(self) -> list[EventData]:
        rows = read_rows(self.state_dir, self.session_id, self.last_seq)
        out: list[EventData] = []
        for seq, entry in rows:
            self.last_seq = max(self.last_seq, seq)
            for event in _events_of(seq, entry):
                if self._held is not None:
                    out.append(self._held)
                    self._held = None
                if (
                    isinstance(event, MessageEvent) and event.role == "assistant" and not event.n_tool_calls
                    and event.content and event.content.strip() != NO_REPLY
                ):
                    self._held = event
                    self.reply = self.session_reply = event.content
                else:
                    out.append(event)
        return out

    def finish(self) -> list[EventData]:
        """The rest of the turn, the held reply marked final."""
        out = self.poll()
        if self._held is not None:
            out.append(self._held.model_copy(update={"final": True}))
            self._held = None
        return out


def _events_of(seq: int, entry: dict[str, Any]) -> list[EventData]:
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message") or {}
        role = message.get("role")
        if role == "assistant":
            blocks = _blocks(message.get("content"))
            calls = [b for b in blocks if b.get("type") == "toolCall"]
            thinking = "\n".join(str(b.get("thinking", "")).strip() for b in blocks if b.get("type") == "thinking").strip()
            out: list[EventData] = [MessageEvent(
                role="assistant", content=_text(message.get("content")), thinking=thinking or None, n_tool_calls=len(calls),
            )]
            for call in calls:
                args = call.get("arguments")
                out.append(ToolCallEvent(
                    call_id=str(call.get("id", "")), tool=our_tool_name(str(call.get("name", ""))),
                    arguments=args if isinstance(args, dict) else {},
                    raw_arguments=None if isinstance(args, dict) else json.dumps(args, ensure_ascii=False),
                ))
            return out
        if role == "toolResult":
            return [ToolResultEvent(
                call_id=str(message.get("toolCallId", "")), tool=our_tool_name(str(message.get("toolName", ""))),
                content=_text(message.get("content")), error=bool(message.get("isError")),
            )]
        return []  # the user's messages are recorded by the session itself
    if kind == "compaction":
        return [CompactionEvent(
            tokens_before=int(entry.get("tokensBefore") or 0), tokens_after=int(entry.get("tokensAfter") or 0),
            threshold=0, summary=str(entry.get("summary") or ""),
        )]
    if kind == "unreadable":
        return [NoteEvent(text="an OpenClaw transcript event could not be read", data={"seq": seq})]
    return []
