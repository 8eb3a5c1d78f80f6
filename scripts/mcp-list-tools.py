#!/usr/bin/env python3
"""Start an MCP server over stdio, list its tools and write them as JSON.

    mcp-list-tools.py OUT.json -- COMMAND [ARG...]

Speaks newline-delimited JSON-RPC 2.0: `initialize`, `notifications/initialized`,
then `tools/list` (following `nextCursor` until it is absent) and writes
`{"tools": [...]}` to OUT.json exactly as the server returned each tool.
Standard library only; the server's stderr is passed through.
"""
import json
import subprocess
import sys
import threading

TIMEOUT = 60.0


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    out, cmd = sys.argv[1], sys.argv[3:]
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    next_id = [0]

    def send(msg):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()

    def request(method, params):
        next_id[0] += 1
        rid = next_id[0]
        send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        result = {}

        def read():
            for line in proc.stdout:
                line = line.strip()
                if not line:
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue  # a server that logs to stdout
                if msg.get("id") == rid and ("result" in msg or "error" in msg):
                    result["msg"] = msg
                    return
                if "method" in msg and "id" in msg:
                    # A request from the server (e.g. roots/list): answer empty.
                    send({"jsonrpc": "2.0", "id": msg["id"],
                          "result": {"roots": []} if msg["method"] == "roots/list" else {}})

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(TIMEOUT)
        if "msg" not in result:
            raise SystemExit(f"mcp-list-tools: no answer to {method} from {cmd[0]}")
        msg = result["msg"]
        if "error" in msg:
            raise SystemExit(f"mcp-list-tools: {method} failed: {msg['error']}")
        return msg["result"]

    try:
        init = request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "toolwright-devset", "version": "0.1"},
        })
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, cursor = [], None
        while True:
            page = request("tools/list", {"cursor": cursor} if cursor else {})
            tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if not cursor:
                break
    finally:
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    with open(out, "w", encoding="utf-8") as f:
        json.dump({"tools": tools}, f, indent=2, ensure_ascii=False)
        f.write("\n")
    info = init.get("serverInfo", {})
    print(f"{out}: {len(tools)} tools from {info.get('name')} {info.get('version')}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
