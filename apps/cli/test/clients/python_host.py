"""A host session through the official Python MCP client (PyPI `mcp`), for test/replay.test.ts.

    python python_host.py --era legacy --url http://127.0.0.1:PORT/mcp

Lists the tools, then makes a few calls on the benchmark dataset with a pause between them (the
host's think time), and prints each call's answer as JSON lines: the test compares them with
what the replay got. --era legacy forces the `initialize` handshake; modern lets the client
probe `server/discover` (mode "auto").
"""

import argparse
import asyncio
import json
import sys
from typing import Any

from mcp import Client

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_tables", {}),
    ("describe_table", {"table": "orders"}),
    ("query", {"table": "orders", "filter": "customer_id = 3 and status != 'cancelled'", "columns": ["id", "status"], "limit": 2}),
    ("get", {"table": "customers", "key": 2}),
    ("aggregate", {"table": "orders", "aggregates": [{"fn": "count", "as": "n"}], "group_by": ["status"]}),
    ("query", {"table": "orders", "filter": "custmer_id = 1"}),
]


async def run(url: str, era: str) -> None:
    async with Client(url, mode="legacy" if era == "legacy" else "auto", read_timeout_seconds=30) as client:
        await client.list_tools()
        for name, arguments in CALLS:
            await asyncio.sleep(0.02)
            result = await client.call_tool(name, arguments)
            print(json.dumps({"tool": name, "isError": bool(result.is_error), "structured": result.structured_content}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=["legacy", "modern"], required=True)
    parser.add_argument("--url", required=True)
    args = parser.parse_args()
    asyncio.run(run(args.url, args.era))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
