"""FastMCP server exposing the same `convert_currency` tool as toolwright's demo (same rates table,
same bounds and enums), for bench/mcp_compare.sh.

    python fastmcp_server.py PORT [RATES_JSON] [EXTRA_TOOLS] [MODE]

Serves Streamable HTTP on http://127.0.0.1:PORT/mcp. MODE `default` (the default): FastMCP's
defaults (sessions, SSE responses); MODE `stateless`: `stateless_http=True, json_response=True`
(no sessions, plain JSON answers), the counterpart of `toolwright serve --stateless
--json-response`. EXTRA_TOOLS > 0 registers that many more small tools (for the tools/list test).
"""

import json
import sys
from pathlib import Path
from typing import Annotated, Literal

from fastmcp import FastMCP
from pydantic import Field

PORT = int(sys.argv[1])
RATES_FILE = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parent.parent / "crates/toolwright-demo/data/rates.json"
EXTRA = int(sys.argv[3]) if len(sys.argv) > 3 else 0
MODE = sys.argv[4] if len(sys.argv) > 4 else "default"
if MODE not in ("default", "stateless"):
    sys.exit(f"MODE must be default or stateless, not {MODE!r}")
TABLE = json.loads(RATES_FILE.read_text())

Currency = Literal["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "CNY", "INR", "SEK", "NOK", "BRL", "MXN", "KRW", "SGD"]

mcp = FastMCP("fastmcp-bench")


@mcp.tool
def convert_currency(
    amount: Annotated[float, Field(ge=0.0, le=1.0e12, description="Amount to convert, e.g. 100 or 12.5")],
    from_currency: Annotated[Currency, Field(description="ISO 4217 code of the source currency")],
    to_currency: Annotated[Currency, Field(description="ISO 4217 code of the target currency")],
) -> dict:
    """Convert an amount between currencies using the dated rates table."""
    rates = TABLE["rates"]
    rate = rates[to_currency] / rates[from_currency]
    return {
        "amount": amount,
        "from_currency": from_currency,
        "to_currency": to_currency,
        "rate": round(rate * 1e6) / 1e6,
        "converted": round(amount * rate * 100.0) / 100.0,
        "rates_date": TABLE["date"],
        "source": TABLE["source"],
    }


def _make_extra(i: int):
    def tool(query: Annotated[str, Field(description="What to look up")], limit: Annotated[int, Field(ge=1, le=100)] = 10) -> dict:
        return {"tool": i, "query": query, "limit": limit}

    tool.__name__ = f"synthetic_tool_{i:04d}"
    tool.__doc__ = f"Synthetic tool number {i} for the tools/list benchmark. Use it to look up item group {i}."
    return tool


for i in range(EXTRA):
    mcp.tool(_make_extra(i))

if __name__ == "__main__":
    extra = {"stateless_http": True, "json_response": True} if MODE == "stateless" else {}
    mcp.run(transport="http", host="127.0.0.1", port=PORT, path="/mcp", show_banner=False, log_level="warning", **extra)
