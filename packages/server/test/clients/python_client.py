"""Drive mcp-db-server with the official Python MCP client (PyPI `mcp`) and print what it saw.

    python python_client.py --era modern --url http://127.0.0.1:PORT/mcp
    python python_client.py --era legacy -- node dist/bin.js --url sqlite:shop.db

--era legacy forces the 2025-11-25 `initialize` handshake; --era modern lets the client
probe `server/discover` (mode "auto"). Auto silently falls back to `initialize` when the
probe fails, so the output records which handshake actually happened and the caller
checks it. Prints one JSON object on stdout; the assertions live in python-client.test.ts.
"""

import argparse
import asyncio
import importlib.metadata
import json
import sys
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

# A handful of calls covering every tool, plus one the server must refuse as a tool error.
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("list_tables", "list_tables", {}),
    ("describe_orders", "describe_table", {"table": "orders"}),
    (
        "query_page",
        "query",
        {"table": "orders", "filter": "customer_id = 3", "columns": ["id", "total", "big", "placed_at"], "limit": 2},
    ),
    ("get_customer", "get", {"table": "customers", "key": 2}),
    ("get_item", "get", {"table": "order_items", "key": {"order_id": 5, "line_no": 2}}),
    (
        "aggregate_by_status",
        "aggregate",
        {"table": "orders", "aggregates": [{"fn": "count", "as": "n"}, {"fn": "sum", "column": "total"}], "group_by": ["status"]},
    ),
    ("bad_column", "query", {"table": "orders", "filter": "custmer_id = 1"}),
]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=["legacy", "modern"], required=True)
    parser.add_argument("--url", help="Streamable HTTP endpoint; without it, the command after -- is spawned over stdio")
    parser.add_argument(
        "--call",
        nargs=2,
        action="append",
        metavar=("TOOL", "ARGUMENTS_JSON"),
        help="call this tool instead of the default calls (labelled by the tool's name); repeatable",
    )
    parser.add_argument("command", nargs="*", help="server command line for stdio")
    args = parser.parse_args()
    if bool(args.url) == bool(args.command):
        parser.error("give exactly one of --url or a server command after --")
    return args


def text_of(result: Any) -> str | None:
    return next((block.text for block in result.content if block.type == "text"), None)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.url:
        server: Any = args.url
    else:
        server = StdioServerParameters(command=args.command[0], args=args.command[1:])
    mode = "legacy" if args.era == "legacy" else "auto"
    async with Client(server, mode=mode, read_timeout_seconds=30) as client:
        session = client.session
        out: dict[str, Any] = {
            "clientVersion": importlib.metadata.version("mcp"),
            "protocolVersion": client.protocol_version,
            "handshake": "discover" if session.discover_result is not None else "initialize",
            "serverName": client.server_info.name if client.server_info else None,
            "toolsCapability": client.server_capabilities.tools is not None,
        }
        listing = await client.list_tools()
        out["tools"] = [
            {
                "name": tool.name,
                "inputProperties": sorted(tool.input_schema.get("properties", {})),
                "hasOutputSchema": tool.output_schema is not None,
                "readOnlyHint": tool.annotations.read_only_hint if tool.annotations else None,
            }
            for tool in listing.tools
        ]
        calls: dict[str, Any] = {}
        wanted = [(name, name, json.loads(arguments)) for name, arguments in args.call] if args.call else CALLS
        for label, name, arguments in wanted:
            # call_tool validates structuredContent against the listed outputSchema before returning.
            result = await client.call_tool(name, arguments)
            text = text_of(result)
            calls[label] = {
                "tool": name,
                "arguments": arguments,
                "isError": bool(result.is_error),
                "structuredContent": result.structured_content,
                "text": json.loads(text) if text is not None else None,
            }
        out["calls"] = calls
        return out


def main() -> None:
    out = asyncio.run(run(parse_args()))
    json.dump(out, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
