#!/usr/bin/env python3
"""The Python peers of toolwright's benchmarks, on the very same workloads.

Usage: peers.py DATA_DIR OUT.json

DATA_DIR is written by `cargo run --release -p toolwright-bench --bin bench-data DATA_DIR`: the
arguments strings (args_{small,medium,large}.json), the schemas toolwright advertises for the
same tools (schema_*.json), the routing corpora (corpus_{100,1000,10000}.json) and the queries.

Every "full path" case does the same work as toolwright's: take the arguments as a JSON string
(what a model writes), parse, validate, call a no-op function, serialize a result envelope as JSON.
Each peer uses its own idiomatic (and fastest documented) entry point for that:
- pydantic TypeAdapter: validate_json(string) on a model with the same fields and constraints;
- pydantic validate_call: json.loads + the decorated function called with the arguments;
- langchain-core: StructuredTool.invoke(json.loads(string)) (its args_schema is the same model);
- pydantic-ai: ToolManager.handle_call(ToolCallPart(args=string)) — the function-tool path the
  agent graph runs for a model's tool call, driven without an LLM (a TestModel in the RunContext);
- jsonschema: json.loads + Draft202012Validator(schema toolwright advertises).validate.
Validation alone: TypeAdapter.validate_python(dict) (pydantic-core) and jsonschema's validate on
an already parsed value, like ArgValidator::validate on a serde_json::Value.
Routing: rank_bm25's BM25Okapi over the same tool documents; build = tokenize + index, query =
tokenize + score every document + top 5.

Timing: calls run in batches of at least 50 ms; the figure is the median over 15 batches of the
time per call (criterion on the Rust side reports the median too).
"""


import asyncio
import json
import re
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, Literal

MIN_BATCH_S = 0.05
BATCHES = 15


def bench(fn) -> float:
    """Median seconds per call of a zero-argument callable."""
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t
        if dt >= MIN_BATCH_S or n >= 1 << 22:
            break
        n *= 2
    samples = []
    for _ in range(BATCHES):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t) / n)
    return statistics.median(samples)


def bench_async(make_coro) -> float:
    """Median seconds per call of an async callable, all calls inside one event loop."""
    loop = asyncio.new_event_loop()

    async def run(n: int) -> float:
        t = time.perf_counter()
        for _ in range(n):
            await make_coro()
        return time.perf_counter() - t

    try:
        n = 1
        while True:
            dt = loop.run_until_complete(run(n))
            if dt >= MIN_BATCH_S or n >= 1 << 22:
                break
            n *= 2
        samples = [loop.run_until_complete(run(n)) / n for _ in range(BATCHES)]
        return statistics.median(samples)
    finally:
        loop.close()


def envelope(tool: str, data: Any) -> str:
    """The same envelope shape toolwright serializes for a success."""
    return json.dumps(
        {
            "status": "success",
            "message": f"{tool} succeeded.",
            "data": data,
            "meta": {"tool": tool, "call_id": "c1", "duration_ms": 0, "attempt": 1, "replayed": False},
        }
    )


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    data_dir, out_path = Path(sys.argv[1]), Path(sys.argv[2])

    from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, validate_call

    class Strict(BaseModel):
        model_config = ConfigDict(extra="forbid")

    # small: 5 scalars (same constraints as toolwright-bench's noop_small)
    Name = Annotated[str, Field(max_length=100)]
    Count = Annotated[int, Field(ge=0, le=1000)]
    Ratio = Annotated[float, Field(ge=0.0, le=1.0)]
    Mode = Literal["fast", "slow"]

    class SmallArgs(Strict):
        name: Name
        count: Count
        ratio: Ratio
        enabled: bool
        mode: Mode

    # medium: nested object, 20 leaf fields
    class Customer(Strict):
        id: int
        name: str
        email: str
        phone: str
        vip: bool

    class Address(Strict):
        street: str
        city: str
        postal_code: str
        country: str
        region: str

    class Payment(Strict):
        method: Literal["card", "transfer", "voucher"]
        last4: str
        amount: float
        captured: bool

    class MediumArgs(Strict):
        order_id: str
        status: Literal["pending", "paid", "shipped"]
        total: float
        currency: str
        express: bool
        items_count: int
        customer: Customer
        shipping: Address
        payment: Payment

    # large: array of 1,000 items
    class Item(Strict):
        sku: str
        quantity: int
        price: float

    class LargeArgs(Strict):
        items: list[Item]

    def noop_small(name: Name, count: Count, ratio: Ratio, enabled: bool, mode: Mode) -> int:
        """A no-op tool with five scalar arguments."""
        return 1

    def noop_medium(
        order_id: str,
        status: Literal["pending", "paid", "shipped"],
        total: float,
        currency: str,
        express: bool,
        items_count: int,
        customer: Customer,
        shipping: Address,
        payment: Payment,
    ) -> int:
        """A no-op tool taking one nested order."""
        return 1

    def noop_large(items: list[Item]) -> int:
        """A no-op tool taking an array of line items."""
        return 1

    async def anoop_small(name: Name, count: Count, ratio: Ratio, enabled: bool, mode: Mode) -> int:
        """A no-op tool with five scalar arguments."""
        return 1

    async def anoop_medium(
        order_id: str,
        status: Literal["pending", "paid", "shipped"],
        total: float,
        currency: str,
        express: bool,
        items_count: int,
        customer: Customer,
        shipping: Address,
        payment: Payment,
    ) -> int:
        """A no-op tool taking one nested order."""
        return 1

    async def anoop_large(items: list[Item]) -> int:
        """A no-op tool taking an array of line items."""
        return 1

    sizes = {
        "small": ("noop_small", SmallArgs, noop_small, anoop_small),
        "medium": ("noop_medium", MediumArgs, noop_medium, anoop_medium),
        "large": ("noop_large", LargeArgs, noop_large, anoop_large),
    }
    results: dict[str, Any] = {"overhead": {}, "validate": {}, "routing": {}, "versions": {}}
    for pkg in ["pydantic", "pydantic-core", "langchain-core", "pydantic-ai-slim", "jsonschema", "rank-bm25", "numpy"]:
        try:
            results["versions"][pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            results["versions"][pkg] = None
    results["versions"]["python"] = sys.version.split()[0]

    import jsonschema
    from langchain_core.tools import StructuredTool
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.tool_manager import ToolManager
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    for size, (tool, Model, fn, afn) in sizes.items():
        args = (data_dir / f"args_{size}.json").read_text()
        schema = json.loads((data_dir / f"schema_{size}.json").read_text())
        row: dict[str, float] = {}

        ta = TypeAdapter(Model)
        field_names = list(Model.model_fields)

        def via_typeadapter() -> str:
            m = ta.validate_json(args)
            r = fn(**{k: getattr(m, k) for k in field_names})
            return envelope(tool, r)

        vfn = validate_call(fn)

        def via_validate_call() -> str:
            r = vfn(**json.loads(args))
            return envelope(tool, r)

        lc_tool = StructuredTool.from_function(func=fn, name=tool, description=fn.__doc__, args_schema=Model)

        def via_langchain() -> str:
            r = lc_tool.invoke(json.loads(args))
            return envelope(tool, r)

        validator = jsonschema.Draft202012Validator(schema)

        def via_jsonschema() -> str:
            obj = json.loads(args)
            validator.validate(obj)
            r = fn(**obj)
            return envelope(tool, r)

        # Sanity: every path accepts the workload and calls the function.
        for f in (via_typeadapter, via_validate_call, via_langchain, via_jsonschema):
            assert json.loads(f())["data"] == 1, f.__name__

        row["pydantic_typeadapter"] = bench(via_typeadapter)
        row["pydantic_validate_call"] = bench(via_validate_call)
        row["langchain_core_invoke"] = bench(via_langchain)
        row["jsonschema"] = bench(via_jsonschema)

        async def pai_setup():
            ts = FunctionToolset([Tool(afn, name=tool)])
            ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
            return await ToolManager(toolset=ts).for_run_step(ctx)

        tm = asyncio.run(pai_setup())
        call_part = ToolCallPart(tool_name=tool, args=args, tool_call_id="c1")

        async def via_pydantic_ai() -> str:
            r = await tm.handle_call(call_part)
            return envelope(tool, r)

        check = asyncio.run(via_pydantic_ai())
        assert json.loads(check)["data"] == 1, "pydantic-ai"
        row["pydantic_ai_tool_manager"] = bench_async(via_pydantic_ai)
        results["overhead"][size] = row

        obj = json.loads(args)
        results["validate"][size] = {
            "pydantic_core_validate_python": bench(lambda: ta.validate_python(obj)),
            "jsonschema": bench(lambda: validator.validate(obj)),
        }
        print(f"peers: {size} done", file=sys.stderr, flush=True)

    import numpy as np
    from rank_bm25 import BM25Okapi

    token_re = re.compile(r"[a-z0-9]+")

    def tokenize(text: str) -> list[str]:
        return token_re.findall(text.lower())

    queries = json.loads((data_dir / "queries.json").read_text())
    for n in (100, 1000, 10000):
        docs = json.loads((data_dir / f"corpus_{n}.json").read_text())

        def build():
            return BM25Okapi([tokenize(d) for d in docs])

        t = time.perf_counter()
        reps = 0
        build_samples = []
        while reps < 5 or (time.perf_counter() - t < 1.0 and reps < 50):
            s = time.perf_counter()
            index = build()
            build_samples.append(time.perf_counter() - s)
            reps += 1
        qi = [0]

        def query():
            qi[0] = (qi[0] + 1) % len(queries)
            scores = index.get_scores(tokenize(queries[qi[0]]))
            top = np.argpartition(scores, -5)[-5:]
            return top[np.argsort(scores[top])[::-1]]

        results["routing"][str(n)] = {
            "rank_bm25_build": statistics.median(build_samples),
            "rank_bm25_query_top5": bench(query),
        }
        print(f"peers: routing {n} done", file=sys.stderr, flush=True)

    out_path.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
