#!/usr/bin/env python3
"""Combines the servers' `tools/list` results of an MCP toolset folder into one.

    scripts/mcp-combine-tools.py DIR LABEL

Reads DIR/servers/*.json (one server's raw `tools/list` result each, `{"tools": [...]}`) and
writes DIR/tools.json: every server's tools in file-name order, as one `tools/list` result. A
name that two servers share becomes `<server>__<name>` on both; everything else is unchanged.
Used by scripts/mcp-devset.sh, mcp-testset.sh and mcp-testset2.sh (LABEL names the caller in
the summary line on stderr).
"""
import collections
import glob
import json
import os
import sys

out, label = sys.argv[1], sys.argv[2]
servers = {os.path.basename(f)[:-5]: json.load(open(f, encoding="utf-8"))["tools"]
           for f in sorted(glob.glob(os.path.join(out, "servers", "*.json")))}
count = collections.Counter(t["name"] for tools in servers.values() for t in tools)
combined = []
for short, tools in servers.items():
    for t in tools:
        t = dict(t)
        if count[t["name"]] > 1:
            t["name"] = f"{short}__{t['name']}"
        combined.append(t)
with open(os.path.join(out, "tools.json"), "w", encoding="utf-8") as f:
    json.dump({"tools": combined}, f, indent=2, ensure_ascii=False)
    f.write("\n")
print(f"{label}: {len(combined)} tools from {len(servers)} servers", file=sys.stderr)
