#!/usr/bin/env python3
"""Assembles bench/compare.sh's table from criterion's estimates, peers.py's JSON and the
start-up / memory / MCP / model measurements compare.sh made. Prints Markdown to stdout and
writes the same figures as JSON next to the inputs.

Usage: table.py CRITERION_DIRS PEERS_JSON EXTRAS_JSON OUT_JSON

CRITERION_DIRS is one criterion directory or several joined with ':' (compare.sh runs the
per-call bench once per round, each round in its own directory, interleaved with the peers): a
benchmark's figure is the median of its medians over the directories that hold it.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def crit(cdirs: list[Path], group: str, bench: str, param: str) -> float | None:
    """Median seconds of one criterion benchmark (the median over the rounds that ran it), or
    None when it did not run."""
    found = []
    for cdir in cdirs:
        p = cdir / group / bench / param / "new" / "estimates.json"
        if p.is_file():
            found.append(json.loads(p.read_text())["median"]["point_estimate"] / 1e9)
    return statistics.median(found) if found else None


def fmt_t(s: float | None) -> str:
    if s is None:
        return "pending"
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    cdir = [Path(d) for d in sys.argv[1].split(":") if d]
    peers_p, extras_p, out_p = (Path(a) for a in sys.argv[2:])
    peers = json.loads(peers_p.read_text()) if peers_p.is_file() else {}
    extras = json.loads(extras_p.read_text()) if extras_p.is_file() else {}
    rows: list[dict] = []

    def row(section, what, tw, peer_name=None, peer=None, target=None, check=None, note=""):
        r = {"section": section, "what": what, "toolwright_s": tw, "peer": peer_name, "peer_s": peer,
             "target": target, "note": note}
        if tw and peer:
            r["tw_over_peer"] = tw / peer
            r["peer_over_tw"] = peer / tw
        if check is not None:
            r["met"] = check(r)
        rows.append(r)

    faster = lambda k: (lambda r: r.get("peer_over_tw") is not None and r["peer_over_tw"] >= k)
    po = peers.get("overhead", {})
    for size in ("small", "medium", "large"):
        reg = crit(cdir, "overhead", "runtime-minimal", size)
        rt = crit(cdir, "overhead", "runtime", size)
        bare = crit(cdir, "overhead", "bare", size)
        bare_str = crit(cdir, "overhead", "bare-str", size)
        rt_value = crit(cdir, "overhead", "runtime-value", size)
        p = po.get(size, {})
        sec = f"per-call, {size}"
        row(sec, "toolwright Runtime::invoke_json, policies off (parse→validate→no-op→envelope JSON)", reg)
        row(sec, "bare serde_json::from_value + call (no validation, no envelope)", bare,
            note=(f"framework cost ×{reg / bare:.1f} of bare" if reg and bare else ""))
        row(sec, "bare serde_json::from_str into the struct + call (no Value, no validation, no envelope)",
            bare_str)
        row(sec, "toolwright Runtime::invoke on the text parsed into a Value (policies)", rt_value,
            "bare serde_json::from_value + call", bare)
        near = size in ("small", "medium")
        row(sec, "toolwright Runtime::invoke_json (policies) vs the bare serde path", rt,
            "bare serde_json::from_value + call", bare, "≤ 2× bare" if near else None,
            (lambda r: r.get("tw_over_peer") is not None and r["tw_over_peer"] <= 2) if near else None)
        row(sec, "toolwright Runtime::invoke_json (policies) vs pydantic-ai tool manager", rt,
            "pydantic-ai ToolManager.handle_call", p.get("pydantic_ai_tool_manager"),
            "≥ 20× faster" if size == "small" else None, faster(20) if size == "small" else None)
        row(sec, "toolwright Runtime::invoke_json vs langchain-core StructuredTool.invoke", rt,
            "langchain-core invoke", p.get("langchain_core_invoke"),
            "≥ 60× faster" if size == "small" else None, faster(60) if size == "small" else None)
        row(sec, "toolwright Runtime::invoke_json vs pydantic TypeAdapter.validate_json + call", rt,
            "pydantic TypeAdapter", p.get("pydantic_typeadapter"),
            "≥ 4× faster" if size == "small" else None, faster(4) if size == "small" else None)
        row(sec, "toolwright Runtime::invoke_json vs pydantic validate_call", rt,
            "pydantic validate_call", p.get("pydantic_validate_call"))
        row(sec, "toolwright Runtime::invoke_json vs python jsonschema + call", rt,
            "jsonschema Draft202012", p.get("jsonschema"))
    pv = peers.get("validate", {})
    for size in ("small", "medium", "large"):
        v = crit(cdir, "validate", "validate", size)
        p = pv.get(size, {})
        sec = f"validation only, {size}"
        row(sec, "ArgValidator::validate vs pydantic-core validate_python", v,
            "pydantic-core", p.get("pydantic_core_validate_python"),
            "on par (≤ 1×)" if size == "small" else None,
            (lambda r: r.get("tw_over_peer") is not None and r["tw_over_peer"] <= 1.0) if size == "small" else None)
        row(sec, "ArgValidator::validate vs python jsonschema", v, "jsonschema", p.get("jsonschema"))
    pr = peers.get("routing", {})
    for n in ("100", "1000", "10000"):
        b = crit(cdir, "routing", "build", n)
        q = crit(cdir, "routing", "query_top5", n)
        p = pr.get(n, {})
        row(f"routing, {n} tools", "index build (tokenize + index)", b, "rank_bm25 BM25Okapi", p.get("rank_bm25_build"))
        row(f"routing, {n} tools", "top-5 query", q, "rank_bm25 get_scores + top 5", p.get("rank_bm25_query_top5"),
            "≤ 0.5 ms" if n == "10000" else None,
            (lambda r: r["toolwright_s"] is not None and r["toolwright_s"] <= 0.5e-3) if n == "10000" else None)

    st = extras.get("startup", {})
    for key, label in (("tools_list", "`toolwright tools list` wall time"),
                       ("serve_stdio", "`toolwright serve --stdio` spawn → initialize answered")):
        tw = st.get(key, {})
        py = st.get("python_langchain", {})
        row("start-up", label, tw.get("wall_s"), "python: import langchain-core + 1 tool + invoke", py.get("wall_s"),
            "≤ 20 ms", lambda r: r["toolwright_s"] is not None and r["toolwright_s"] <= 0.020)
        py2 = st.get("python_pydantic_ai", {})
        row("start-up", label, tw.get("wall_s"), "python: import pydantic-ai + 1 tool", py2.get("wall_s"))
    mem = extras.get("memory", {})
    rows.append({"section": "memory", "what": "`toolwright tools list` peak RSS",
                 "value": mem.get("tools_list_rss_kb"), "peer": "python langchain-core one tool",
                 "peer_value": mem.get("python_langchain_rss_kb"), "unit": "KiB"})
    rows.append({"section": "memory", "what": "`toolwright serve` RSS with 1,000 tools",
                 "value": mem.get("serve_1000_rss_kb"), "unit": "KiB", "target": "≤ 20 MB",
                 "note": mem.get("serve_note", "")})
    model = extras.get("model", {})
    tw_m, ll_m = model.get("toolwright") or {}, model.get("llama_cpp") or {}
    for key, label in (("prompt_tps", "prompt tokens/s"), ("gen_tps", "generation tokens/s")):
        tw_v, ll_v = tw_m.get(key), ll_m.get(key)
        rows.append({"section": "embedded model", "what": f"{label} (threads {model.get('threads', '?')})",
                     "value": f"{tw_v:.1f}" if tw_v else None, "peer": "llama.cpp own counters",
                     "peer_value": f"{ll_v:.1f}" if ll_v else None,
                     "ratio": (tw_v / ll_v) if tw_v and ll_v else None,
                     "note": "" if tw_v else model.get("note", "pending")})

    # Markdown
    out = ["| section | benchmark | toolwright | peer | peer time | tw/peer | peer/tw | target | met |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "toolwright_s" in r:
            tp = r.get("tw_over_peer")
            pt = r.get("peer_over_tw")
            met = r.get("met")
            out.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                r["section"], r["what"] + (f" ({r['note']})" if r.get("note") else ""), fmt_t(r["toolwright_s"]),
                r.get("peer") or "", fmt_t(r.get("peer_s")) if r.get("peer") else "",
                f"{tp:.3f}" if tp else "", f"{pt:.1f}×" if pt else "", r.get("target") or "",
                "" if met is None else ("yes" if met else "**no**")))
        else:
            v, pv_ = r.get("value"), r.get("peer_value")
            unit = r.get("unit", "")
            def show(x):
                if x is None:
                    return "pending"
                if unit == "KiB":
                    return f"{x / 1024:.1f} MiB"
                return str(x)
            ratio = r.get("ratio")
            out.append("| {} | {} | {} | {} | {} | {} |  | {} |  |".format(
                r["section"], r["what"] + (f" ({r['note']})" if r.get("note") else ""), show(v),
                r.get("peer") or "", show(pv_) if r.get("peer") else "",
                f"{ratio:.2f}" if ratio else "", r.get("target") or ""))
    print("\n".join(out))
    mcp = extras.get("mcp_output")
    if mcp:
        print("\nMCP (bench/mcp_compare.sh):\n")
        print(mcp)
    else:
        print("\nMCP: bench/mcp_compare.sh not present or produced no output (pending).")
    vers = peers.get("versions")
    if vers:
        print("\nPeers: " + ", ".join(f"{k} {v}" for k, v in vers.items() if v))
    out_p.write_text(json.dumps({"rows": rows, "extras": extras, "peers": peers}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
