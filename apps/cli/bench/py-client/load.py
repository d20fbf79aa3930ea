"""py-load: the Go load generator (../go-client) rebuilt on the official Python MCP client.

It drives an MCP server over Streamable HTTP the way a 2025-era Python host built on the
`mcp` package (PyPI, 2.x) does: `mcp.Client` in `mode="legacy"` (the `initialize` handshake,
then calls on the session), over `streamable_http_client`. The SDK does everything on the
wire; this script only picks keys, times calls and counts errors, so the figures say what the
official Python client costs next to the Go, lean and TypeScript SDK clients (../clients.mjs).

    .tools/py/bin/python apps/cli/bench/py-client/load.py \\
        --url http://127.0.0.1:7400/mcp --workload get --agents 10 --duration 5s

Flags are the Go client's, spelled `--url` or `-url` alike: --url (required), --agents 1,
--duration 5s, --warmup 1s, --workload get|query-point|query-fk|top50|session|sql-get|sql-fk, --orders 6000,
--customers 2000, --seed 1, --token, --sql-tool execute_sql, --sql-arg sql. Durations are Go-style (500ms, 5s, 1m30s).
--protocol-version is accepted for compatibility but ignored: the SDK always offers its
newest handshake revision (2025-11-25 in mcp 2.3.0) and there is no option to change that;
the version the server negotiated is reported.

How it differs from the Go client, all of it the SDK's own behaviour:
- each agent has its own `httpx2.AsyncClient` (its own keep-alive pool, shared by the
  sessions of the `session` workload, as the Go agent shares its connection). But the SDK
  closes an SSE answer as soon as it holds the response, before the stream's end is read,
  so httpx cannot reuse that connection: every request answered with SSE (initialize,
  tools/list, tools/call on our server) costs a new TCP connection, which the Go client,
  reading every body to the end, does not pay;
- after `notifications/initialized` the SDK opens a GET for server-to-client messages,
  which our server refuses with 405 (the SDK retries once after 1 s, then gives up);
- before its first `tools/call` of a session the SDK lists the tools (to validate results
  against their output schemas), so steady agents list tools once when they connect, as a
  host does, rather than inside the first measured call; every result is then validated;
- HTTP failures reach us as the JSON-RPC errors the SDK makes of them (the JSON-RPC error
  in the body if there is one, else -32600 for 404 in a session, -32603 for any other
  status), so error kinds are `jsonrpc_<code>`, `tool_error`, `timeout`, `network`,
  `bad_response` (a result the SDK rejects) or the exception's class name.

Agents are asyncio tasks on one event loop, each with its own session, opened before the
warm-up; they run closed-loop and only operations started after the warm-up are recorded.
Stdout gets one JSON object with the Go client's fields (`client` is "python-mcp", with
`mcpVersion` and `pythonVersion` in place of `goVersion`). Client CPU is `time.process_time()`
over the measured window: this whole process, which is only the client. Exit status 1 if the
first connect fails (naming the URL) or no call succeeded, 2 on bad flags.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
import logging
import math
import platform
import random
import re
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import REQUEST_TIMEOUT, CallToolResult, Implementation
from pydantic import ValidationError

# Bounds one request (the session's read timeout), so a stuck server ends the run instead of hanging it.
REQUEST_TIMEOUT_SEC = 30.0
CLIENT_INFO = Implementation(name="py-load", version="0.1.0")
WORKLOADS = ("get", "query-point", "query-fk", "top50", "session", "sql-get", "sql-fk")
# What a host does on a database server it does not know yet, after listing the tools.
DISCOVERY: tuple[tuple[str, dict[str, Any]], ...] = (
    ("list_tables", {}),
    ("describe_table", {"table": "orders"}),
    ("describe_table", {"table": "customers"}),
)


# ---------------------------------------------------------------- flags


@dataclass(frozen=True)
class Config:
    url: str
    agents: int
    duration: float
    warmup: float
    workload: str
    orders: int
    customers: int
    seed: int
    token: str
    sql_tool: str
    sql_arg: str


_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration(text: str) -> float:
    """A Go-style duration ("500ms", "5s", "1m30s") in seconds; a bare number is seconds."""
    try:
        return float(text)
    except ValueError:
        pass
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise argparse.ArgumentTypeError(f"invalid duration {text!r} (want e.g. 500ms, 5s, 1m30s)")
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)


def parse_args() -> Config:
    parser = argparse.ArgumentParser(
        prog="load.py",
        description="MCP load generator on the official Python client; single-dash (-url) or double-dash (--url) flags.",
        allow_abbrev=False,  # so -url never matches some other flag by prefix
    )

    def flag(name: str, **kwargs: Any) -> None:
        # Both spellings, so the Go client's command lines work unchanged.
        parser.add_argument(f"-{name}", f"--{name}", dest=name.replace("-", "_"), **kwargs)

    flag("url", help="MCP endpoint, e.g. http://127.0.0.1:7400/mcp (required)")
    flag("agents", type=int, default=1, help="concurrent agents, each with its own session and connection pool")
    flag("duration", type=duration, default=5.0, help="measured window (default 5s)")
    flag("warmup", type=duration, default=1.0, help="unrecorded warm-up before the window (default 1s)")
    flag("workload", default="get", choices=WORKLOADS)
    flag("protocol-version", help="ignored: the SDK always offers its newest handshake revision")
    flag("orders", type=int, default=6000, help="orders ids 1..N exist (keys for get and query-point)")
    flag("customers", type=int, default=2000, help="customer ids 1..N exist (keys for query-fk)")
    flag("seed", type=int, default=1, help="seed of the key choice (each agent derives its own stream)")
    flag("token", default="", help="bearer token, if the server wants one")
    flag("sql-tool", default="execute_sql", help="the raw-SQL tool the sql-* workloads call (DBHub's execute_sql, our sql)")
    flag("sql-arg", default="sql", help="the SQL argument of -sql-tool")
    a = parser.parse_args()

    if not a.url:
        parser.error("-url is required")
    if a.agents < 1:
        parser.error("-agents must be at least 1")
    if a.duration <= 0:
        parser.error("-duration must be positive")
    if a.warmup < 0:
        parser.error("-warmup cannot be negative")
    if a.orders < 1 or a.customers < 1:
        parser.error("-orders and -customers must be at least 1")
    if a.protocol_version is not None:
        log(f"-protocol-version {a.protocol_version} ignored: mcp.Client offers its newest handshake revision")
    return Config(a.url, a.agents, a.duration, a.warmup, a.workload, a.orders, a.customers, a.seed, a.token, a.sql_tool, a.sql_arg)


# ---------------------------------------------------------------- errors


class ToolError(Exception):
    """A tools/call result flagged isError: a failure like any other."""


def leaf(exc: BaseException) -> BaseException:
    """The exception that says why: anyio task groups wrap transport failures in groups."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        exc = (inner or list(exc.exceptions))[0]
    return exc


def error_kind(exc: BaseException) -> str:
    exc = leaf(exc)
    if isinstance(exc, ToolError):
        return "tool_error"
    if isinstance(exc, MCPError):
        return "timeout" if exc.code == REQUEST_TIMEOUT else f"jsonrpc_{exc.code}"
    if isinstance(exc, (httpx2.TransportError, OSError)):
        return "network"
    if isinstance(exc, TimeoutError):
        return "timeout"
    # The SDK raises these for a result it cannot parse or that breaks the tool's output schema.
    if isinstance(exc, (ValidationError, RuntimeError)):
        return "bad_response"
    return type(exc).__name__


def describe(exc: BaseException) -> str:
    exc = leaf(exc)
    text = str(exc).split("\n", 1)[0] or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "…"


_seen_kinds: set[str] = set()


def note_error(kind: str, exc: BaseException) -> None:
    """Logs the first error of each kind, so a failing run says why without flooding stderr."""
    if kind not in _seen_kinds:
        _seen_kinds.add(kind)
        log(f"first {kind} error: {describe(exc)}")


def checked(result: CallToolResult) -> None:
    if result.is_error:
        text = next((block.text for block in result.content if block.type == "text"), "")
        raise ToolError(text[:300])


# ---------------------------------------------------------------- agents


@dataclass
class Clock:
    """The run's phases, shared by the agents: go once every agent is open, release after the window."""

    go: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    aborted: bool = False
    warm_end: int = 0  # perf_counter_ns
    end: int = 0


class Agent:
    """One agent: its own HTTP client and pool, one MCP session at a time."""

    def __init__(self, cfg: Config, index: int, clock: Clock) -> None:
        self.cfg = cfg
        self.clock = clock
        # Agents draw different keys from one seed, so a run can be repeated exactly.
        self.rng = random.Random(f"{cfg.seed}/{index}")
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()  # resolved once its first session is up (or failed)
        self.looped: asyncio.Future[None] = loop.create_future()  # resolved when its last operation returned
        self.http: httpx2.AsyncClient | None = None
        self.protocol_version = ""
        self.session_issued = False
        self.samples: list[int] = []  # latencies of successful operations, in microseconds
        self.errors: dict[str, int] = {}
        self._op_start = 0

    async def run(self) -> None:
        try:
            # The SDK's default timeouts; headers reach every request the transport makes.
            headers = {"Authorization": f"Bearer {self.cfg.token}"} if self.cfg.token else None
            timeout = httpx2.Timeout(REQUEST_TIMEOUT_SEC, read=300.0)
            async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
                self.http = http
                if self.cfg.workload == "session":
                    await self._run_sessions()
                else:
                    await self._run_steady()
        except Exception as exc:
            if not self.opened.done():
                self.opened.set_exception(exc)
            else:  # only a bug in this script gets here
                log(f"agent failed: {describe(exc)}")
        finally:
            # Whatever happened, the main task must not wait on this agent forever.
            if not self.opened.done():
                self.opened.set_exception(RuntimeError("agent ended before connecting"))
            if not self.looped.done():
                self.looped.set_result(None)

    def _client(self) -> Client:
        # A fresh transport per session (a transport is single-use), on the agent's own HTTP client.
        # cache=None: no response caching, every listing goes to the server (caching is 2026-era anyway).
        return Client(
            streamable_http_client(self.cfg.url, http_client=self.http),
            mode="legacy",
            cache=None,
            read_timeout_seconds=REQUEST_TIMEOUT_SEC,
            client_info=CLIENT_INFO,
        )

    def _watch_session_id(self) -> None:
        """Watches the answers while the first session opens: the transport keeps the session id to itself."""
        assert self.http is not None

        async def see_session_id(response: httpx2.Response) -> None:
            if "mcp-session-id" in response.headers:
                self.session_issued = True

        self.http.event_hooks = {"response": [see_session_id]}

    def _connected(self, client: Client) -> None:
        """Notes what the server negotiated in the first session, and stops watching."""
        assert self.http is not None
        self.http.event_hooks = {}
        self.protocol_version = client.protocol_version

    async def _run_steady(self) -> None:
        """get / query-*: one session for the whole run, reopened only if its transport dies."""
        self._watch_session_id()
        while True:
            self._op_start = time.perf_counter_ns()
            try:
                # Inside `async with`, a dying transport cancels what we await and surfaces on leaving.
                async with self._client() as client:
                    if not self.opened.done():
                        self._connected(client)
                    # A host lists the tools when it connects; the SDK would otherwise do it inside the first call.
                    await client.list_tools()
                    if not self.opened.done():
                        self.opened.set_result(None)
                    await self.clock.go.wait()
                    if self.clock.aborted:
                        return
                    await self._loop(lambda: self._tool_operation(client))
                    self.looped.set_result(None)
                    # The session stays open until the window is measured; leaving sends DELETE.
                    await self.clock.release.wait()
                return
            except Exception as exc:
                if not self.opened.done() or self.looped.done():
                    raise
                # The transport died mid-run (e.g. the server went away): count it, pause, reconnect.
                self._failed(exc, self._op_start)
                await asyncio.sleep(0.01)
                if self.clock.go.is_set() and time.perf_counter_ns() >= self.clock.end:
                    return

    async def _run_sessions(self) -> None:
        """session: the first session only proves the endpoint answers; every operation opens its own."""
        self._watch_session_id()
        async with self._client() as client:
            self._connected(client)
        self.opened.set_result(None)
        await self.clock.go.wait()
        if not self.clock.aborted:
            await self._loop(self._session_operation)

    async def _loop(self, operation: Callable[[], Awaitable[None]]) -> None:
        """Closed loop until the deadline; operations started in the warm-up are not recorded."""
        while True:
            start = time.perf_counter_ns()
            if start >= self.clock.end:
                return
            self._op_start = start
            try:
                await operation()
            except Exception as exc:
                if self._failed(exc, start) == "network":
                    # A refused connection fails at once: pause rather than spin on a machine the server shares.
                    await asyncio.sleep(0.01)
                continue
            took = time.perf_counter_ns() - start
            if start >= self.clock.warm_end:
                self.samples.append(took // 1000)

    def _failed(self, exc: BaseException, start: int) -> str:
        kind = error_kind(exc)
        note_error(kind, exc)
        if start >= self.clock.warm_end:
            self.errors[kind] = self.errors.get(kind, 0) + 1
        return kind

    async def _tool_operation(self, client: Client) -> None:
        cfg, rng = self.cfg, self.rng
        if cfg.workload == "get":
            checked(await client.call_tool("get", {"table": "orders", "key": rng.randint(1, cfg.orders)}))
        elif cfg.workload == "query-point":
            key = rng.randint(1, cfg.orders)
            checked(await client.call_tool("query", {"table": "orders", "filter": f"id = {key}", "limit": 1}))
        elif cfg.workload == "top50":
            checked(await client.call_tool("query", {"table": "orders", "order_by": ["placed_at desc"], "limit": 50}))
        # The same two reads through a server's one raw-SQL tool, for servers without ours.
        elif cfg.workload == "sql-get":
            sql = f"SELECT * FROM orders WHERE id = {rng.randint(1, cfg.orders)}"
            checked(await client.call_tool(cfg.sql_tool, {cfg.sql_arg: sql}))
        elif cfg.workload == "sql-fk":
            sql = f"SELECT * FROM orders WHERE customer_id = {rng.randint(1, cfg.customers)} ORDER BY id LIMIT 20"
            checked(await client.call_tool(cfg.sql_tool, {cfg.sql_arg: sql}))
        else:
            customer = rng.randint(1, cfg.customers)
            checked(
                await client.call_tool("query", {"table": "orders", "filter": f"customer_id = {customer}", "limit": 20})
            )

    async def _session_operation(self) -> None:
        # Connect and initialize, list tools, three discovery calls; leaving the block sends DELETE.
        async with self._client() as client:
            await client.list_tools()
            for name, arguments in DISCOVERY:
                checked(await client.call_tool(name, arguments))


# ---------------------------------------------------------------- the run


async def run(cfg: Config) -> dict[str, Any]:
    clock = Clock()
    agents = [Agent(cfg, i, clock) for i in range(cfg.agents)]
    tasks = [asyncio.create_task(agent.run()) for agent in agents]

    # Every agent opens its session before the clock starts, as a host does before it works.
    outcomes = await asyncio.gather(*(agent.opened for agent in agents), return_exceptions=True)
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    if failures:
        clock.aborted = True
        clock.go.set()
        clock.release.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        fatal(f"initialize failed against {cfg.url}: {error_kind(failures[0])}: {describe(failures[0])}")

    first = agents[0]
    log(
        f"{cfg.agents} agent(s) connected to {cfg.url} (protocol {first.protocol_version}, session id issued: "
        f"{str(first.session_issued).lower()}); workload {cfg.workload}, warm-up {cfg.warmup:g}s, measuring {cfg.duration:g}s"
    )
    start = time.perf_counter_ns()
    clock.warm_end = start + round(cfg.warmup * 1e9)
    clock.end = clock.warm_end + round(cfg.duration * 1e9)
    clock.go.set()

    # The measured window runs from the end of the warm-up until the last recorded call returns.
    await asyncio.sleep(max(0.0, (clock.warm_end - time.perf_counter_ns()) / 1e9))
    cpu0 = time.process_time()
    t0 = time.perf_counter_ns()
    await asyncio.gather(*(agent.looped for agent in agents))
    elapsed = (time.perf_counter_ns() - t0) / 1e9
    cpu = time.process_time() - cpu0

    # Sessions still open are ended (DELETE), as a host does on exit; not measured.
    clock.release.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return summarize(cfg, agents, elapsed, cpu)


def summarize(cfg: Config, agents: list[Agent], elapsed: float, cpu: float) -> dict[str, Any]:
    # Exact percentiles: every sample, sorted.
    samples = sorted(s for agent in agents for s in agent.samples)
    errors: dict[str, int] = {}
    for agent in agents:
        for kind, n in agent.errors.items():
            errors[kind] = errors.get(kind, 0) + n

    def percentile_ms(p: float) -> float:
        # Nearest rank, as the Go client computes it.
        rank = max(1, math.ceil(p * len(samples)))
        return samples[rank - 1] / 1000 if samples else 0.0

    calls = len(samples)
    return {
        "client": "python-mcp",
        "mcpVersion": importlib.metadata.version("mcp"),
        "pythonVersion": platform.python_version(),
        "workload": cfg.workload,
        "agents": cfg.agents,
        "protocolVersion": agents[0].protocol_version,
        "sessionIssued": agents[0].session_issued,
        "durationSec": round(elapsed, 3),
        "calls": calls,
        "callsPerSec": round(calls / elapsed, 1) if elapsed > 0 else 0.0,
        "p50Ms": percentile_ms(0.50),
        "p90Ms": percentile_ms(0.90),
        "p99Ms": percentile_ms(0.99),
        "maxMs": samples[-1] / 1000 if samples else 0.0,
        "errors": errors,
        "clientCpuSec": round(cpu, 3),
        "clientCpuUsPerCall": round(cpu * 1e6 / calls, 1) if calls else 0.0,
    }


def log(message: str) -> None:
    print(f"py-load: {message}", file=sys.stderr, flush=True)


def fatal(message: str) -> None:
    log(message)
    sys.exit(1)


def main() -> None:
    cfg = parse_args()
    # The first error of each kind is reported above; the SDK would log every failed request, with a traceback.
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    report = asyncio.run(run(cfg))
    sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    if report["calls"] == 0:
        fatal(f"no call succeeded in the measured window (errors: {report['errors']})")


if __name__ == "__main__":
    main()
