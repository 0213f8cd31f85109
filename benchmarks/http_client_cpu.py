"""CPU per model call of the direct path's HTTP client: the aiohttp session it uses now against
the httpx clients it used before (pools of 16 connections, as ``llm._direct`` had them), both
against the fake OpenAI-compatible server (``benchmarks/_fake_openai_server.py``, its own process,
every call answered after ``--latency`` seconds) with ``--concurrency`` calls in flight.

Each round sends ``--calls`` chat completions through ``llm._direct.acompletion`` (the same JSON
encoding and decoding on both sides; only the transport differs) and measures this process's CPU
time per call; the two clients alternate for ``--rounds`` rounds and the medians are printed with
their ratio::

    python benchmarks/http_client_cpu.py [--calls 3000] [--concurrency 200] [--latency 0.3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vibesearch.llm import _direct  # noqa: E402

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Where is the Eiffel tower? " * 40}]


async def _httpx_post(pools: _direct._Pools, url: str, content: bytes, headers: dict[str, str], wait_s: float | None, model: str) -> tuple[int, bytes]:
    with pools.take() as client:
        answer = await client.post(url, content=content, headers=headers, timeout=wait_s)
    return answer.status_code, answer.content


async def _round(kind: str, base: str, calls: int, concurrency: int) -> float:
    """CPU milliseconds per call of one round (after a warm-up that opens the connections)."""
    import httpx

    real_post = _direct._post
    if kind == "httpx":  # the client of the previous release: httpx clients in pools of 16 connections
        pools = _direct._Pools(lambda: httpx.AsyncClient(limits=httpx.Limits(max_connections=16, max_keepalive_connections=16)), 16, 32)
        _direct._post = lambda *a: _httpx_post(pools, *a)  # type: ignore[assignment]  # this benchmark's process only
    gate = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with gate:
            await _direct.acompletion({"model": "openai/bench", "messages": MESSAGES, "timeout": 60}, base)

    try:
        await asyncio.gather(*[one() for _ in range(concurrency)])  # warm: every connection opened
        cpu = time.process_time()
        await asyncio.gather(*[one() for _ in range(calls)])
        return 1000 * (time.process_time() - cpu) / calls
    finally:
        _direct._post = real_post


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=3000)
    p.add_argument("--concurrency", type=int, default=200)
    p.add_argument("--latency", type=float, default=0.3)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    server = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "_fake_openai_server.py"), "--port", "0",
                               "--latency", str(args.latency), "--tool-steps", "0"], stdout=subprocess.PIPE)
    try:
        line = server.stdout.readline().decode() if server.stdout else ""
        if not line.startswith("PORT "):
            raise SystemExit(f"error: the fake server did not start: {line!r}")
        base = f"http://127.0.0.1:{int(line.split()[1])}/v1"
        seen: dict[str, list[float]] = {"aiohttp": [], "httpx": []}
        for _ in range(args.rounds):
            for kind in ("aiohttp", "httpx"):  # alternating: the machine's load falls on both alike
                seen[kind].append(asyncio.run(_round(kind, base, args.calls, args.concurrency)))
        a, h = statistics.median(seen["aiohttp"]), statistics.median(seen["httpx"])
        print(f"CPU per call, {args.calls} calls, {args.concurrency} in flight, {args.latency} s latency, medians of {args.rounds}:")
        print(f"  aiohttp session (now):         {a:.2f} ms   rounds {', '.join(f'{x:.2f}' for x in seen['aiohttp'])}")
        print(f"  httpx, pools of 16 (before):   {h:.2f} ms   rounds {', '.join(f'{x:.2f}' for x in seen['httpx'])}")
        print(f"  httpx / aiohttp: {h / a:.1f}x")
        return 0
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
