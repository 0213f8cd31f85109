"""Calling the app the way an attacker would: raw HTTP against Gradio's queue, logged in as one
user, with any event handler (the page's private ones too) reached by its ``fn_index``.

``RawSession.call(fn_index, data)`` posts to ``gradio_api/queue/join`` and reads the event's
result from ``gradio_api/queue/data`` (server-sent events); ``call_many`` joins several events at
once and reads all their results. ``gr.State`` inputs are sent as
``null`` (the server keeps them per session hash); everything else is whatever the caller wants.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class Result:
    ok: bool
    data: list[Any] | None
    error: str | None


class RawSession:
    def __init__(self, url: str, user: str | None = None, password: str | None = None, timeout: float = 60.0):
        self.url = url if url.endswith("/") else url + "/"
        self.http = httpx.Client(timeout=timeout, follow_redirects=False)
        self.session_hash = secrets.token_hex(6)
        if user is not None:
            r = self.http.post(self.url + "login", data={"username": user, "password": password or ""})
            assert r.status_code == 200, (r.status_code, r.text[:300])
        self.config = self.http.get(self.url + "config").json()
        for comp in self.config.get("components", []):  # labels the browser translates, read as their key
            props = comp.get("props", {})
            for key in ("label", "value", "info", "placeholder"):
                if key in props:
                    props[key] = untranslated(props[key])
            if isinstance(props.get("choices"), list):
                props["choices"] = [[untranslated(c[0]), *c[1:]] if isinstance(c, (list, tuple)) and c else c for c in props["choices"]]

    # ------------------------------------------------------------------ finding handlers
    def component(self, **props: Any) -> dict:
        """The first component whose props match (e.g. ``label="Task"`` or ``elem_id="vs-start"``)."""
        for comp in self.config["components"]:
            p = comp.get("props", {})
            if all(p.get(k) == v for k, v in props.items()):
                return comp
        raise KeyError(f"no component with {props}")

    def dependency(self, target_id: int, event: str) -> tuple[int, dict]:
        for i, dep in enumerate(self.config["dependencies"]):
            if [target_id, event] in [list(t) for t in dep.get("targets", [])]:
                return dep.get("id", i), dep
        raise KeyError(f"no handler for {event} on component {target_id}")

    def inputs_by_label(self, dep: dict) -> list[tuple[int, dict]]:
        by_id = {c["id"]: c for c in self.config["components"]}
        return [(cid, by_id[cid]) for cid in dep["inputs"]]

    # ------------------------------------------------------------------ calling
    def call(self, fn_index: int, data: list[Any], timeout: float = 60.0) -> Result:
        return self.call_many([(fn_index, data)], timeout)[0]

    def call_many(self, calls: list[tuple[int, list[Any]]], timeout: float = 60.0) -> list[Result]:
        """Join every call at once, in the order given (none waits for another's answer), and
        return their results in that order."""
        ids: list[str | None] = []
        results: dict[str, Result] = {}
        for n, (fn_index, data) in enumerate(calls):
            body = {"data": data, "fn_index": fn_index, "session_hash": self.session_hash, "event_data": None, "trigger_id": None}
            r = self.http.post(self.url + "gradio_api/queue/join", json=body)
            if r.status_code != 200:
                ids.append(f"refused-{n}")
                results[f"refused-{n}"] = Result(False, None, f"HTTP {r.status_code}: {r.text[:500]}")
            else:
                ids.append(r.json()["event_id"])
        deadline = time.time() + timeout
        if len(results) < len(ids):
            with self.http.stream("GET", self.url + "gradio_api/queue/data", params={"session_hash": self.session_hash}, timeout=timeout) as stream:
                for line in stream.iter_lines():
                    if time.time() > deadline:
                        break
                    if not line.startswith("data:"):
                        continue
                    msg = json.loads(line[5:])
                    if msg.get("event_id") in ids and msg.get("msg") == "process_completed":
                        out = msg.get("output") or {}
                        ok = bool(msg.get("success")) and "error" not in out
                        results[msg["event_id"]] = Result(ok, out.get("data") if ok else None, None if ok else str(out.get("error") or out))
                        if len(results) == len(ids):
                            break
        return [results.get(i or "", Result(False, None, f"no answer within {timeout}s")) for i in ids]

    def close(self) -> None:
        self.http.close()


def untranslated(value: Any) -> Any:
    """A label Gradio's i18n sends for the browser to translate (``__i18n__{…}`` or its dict), as
    its key — the English text; anything else as it is."""
    if isinstance(value, dict) and value.get("__type__") == "translation_metadata":
        return value.get("key")
    if isinstance(value, str) and value.startswith("__i18n__"):
        try:
            return json.loads(value[len("__i18n__"):]).get("key", value)
        except ValueError:
            return value
    return value
