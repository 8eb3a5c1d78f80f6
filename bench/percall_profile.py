#!/usr/bin/env python3
"""Per-call costs of one `percall` path that the instruction count alone does not show.

Reads two callgrind files of the same binary (`--dump-instr=yes --dump-line=no`), one run of N1
calls and one of N2, and prints per call ((N2 run - N1 run) / (N2 - N1)):
- instructions;
- lock-prefixed instructions (atomic read-modify-writes: `lock ...` and `xchg` with memory),
  each of which costs tens of cycles on the machines we measure on, far more than its one
  instruction: found by disassembling the binary (objdump) and summing the execution counts of
  those addresses, so only the binary's own code is counted (not libc's);
- calls to memcpy from the binary and the bytes they copy (the size is the constant the call
  site loads into %edx; calls whose size is not a constant are counted, not sized);
- heap allocations (calls to `__rust_alloc`);
- the instructions of the runtime's call clock (`quanta`), which are left out of the count
  above: its one-time calibration loop is bound by time, so its count differs from run to run,
  and what a clock read costs is out of callgrind's sight anyway (criterion measures it);
- the functions the atomics, the sized copies and the allocations sit in.

Usage: percall_profile.py BINARY N1_FILE N2_FILE N1 N2
"""

import bisect
import collections
import re
import subprocess
import sys


def parse(path, binary_name):
    """Execution counts per instruction address of the binary, and call counts per call site
    for memcpy and __rust_alloc."""
    names = {}
    objects = {}
    counts = collections.Counter()
    calls = {"memcpy": collections.Counter(), "alloc": collections.Counter()}
    clock = 0
    cur_ob = None
    cur_fn = ""
    cfn = None
    pos = 0
    pending = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            m = re.match(r"(c?fn|c?ob)=\((\d+)\)(?: (.*))?$", line)
            if m:
                kind, ident, name = m.groups()
                table = names if kind.endswith("fn") else objects
                if name:
                    table[ident] = name
                if kind == "ob":
                    cur_ob = objects.get(ident)
                elif kind == "fn":
                    cur_fn = names.get(ident) or ""
                elif kind == "cfn":
                    cfn = names.get(ident)
                continue
            if line.startswith("calls="):
                pending = int(line.split()[0][len("calls="):])
                continue
            if line[0] not in "0123456789+-*":
                continue
            parts = line.split()
            a = parts[0]
            if a.startswith("0x"):
                pos = int(a, 16)
            elif a.startswith("+"):
                pos += int(a[1:])
            elif a.startswith("-"):
                pos -= int(a[1:])
            ours = cur_ob is not None and cur_ob.endswith(binary_name)
            if pending is not None:
                if cfn and cfn.startswith("quanta::") and not cur_fn.startswith("quanta::"):
                    clock += int(parts[1]) if len(parts) > 1 else 0
                if ours and cfn:
                    if "memcpy" in cfn or "memmove" in cfn:
                        calls["memcpy"][pos] += pending
                    elif cfn.startswith("__rustc::__rust_alloc") or cfn.startswith("__rust_alloc"):
                        calls["alloc"][pos] += pending
                pending = None
                continue
            if ours and len(parts) > 1:
                counts[pos] += int(parts[1])
    return counts, calls, clock


def summary_of(path):
    with open(path) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit(f"{path}: no summary line")


def main():
    binary, f1, f2, n1, n2 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    per = float(n2 - n1)
    name = binary.rsplit("/", 1)[-1]
    dis = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True, check=True
    ).stdout
    locked = set()
    insn_line = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)(.*)$")
    for line in dis.splitlines():
        m = insn_line.match(line)
        if m and (m.group(2) == "lock" or (m.group(2).startswith("xchg") and "(" in m.group(3))):
            locked.add(int(m.group(1), 16))
    c1, k1, clock1 = parse(f1, name)
    c2, k2, clock2 = parse(f2, name)
    # Callgrind's addresses are objdump's when the binary is not relocated; a PIE that valgrind
    # loads at 0x108000 is shifted: take the base under which more locked addresses ran.
    base = max((0, 0x108000), key=lambda b: sum(1 for a in locked if (a + b) in c2))
    sites = collections.Counter()
    for a in locked:
        d = c2.get(a + base, 0) - c1.get(a + base, 0)
        if d:
            sites[a] = d
    syms = []
    nm = subprocess.run(["nm", "-C", "--defined-only", binary], capture_output=True, text=True).stdout
    for line in nm.splitlines():
        p = line.split(" ", 2)
        if len(p) == 3 and p[1] in "tTwW":
            syms.append((int(p[0], 16), p[2]))
    syms.sort()
    starts = [s[0] for s in syms]
    by_fn = collections.Counter()
    for a, d in sites.items():
        i = bisect.bisect_right(starts, a) - 1
        by_fn[syms[i][1] if i >= 0 else "?"] += d

    def sized(site):
        out = subprocess.run(
            ["objdump", "-d", "--no-show-raw-insn", f"--start-address={site - 60}",
             f"--stop-address={site + 6}", binary],
            capture_output=True, text=True,
        ).stdout
        sizes = re.findall(r"mov\s+\$0x([0-9a-f]+),%edx", out)
        return int(sizes[-1], 16) if sizes else None

    def owner(addr):
        i = bisect.bisect_right(starts, addr) - 1
        return syms[i][1] if i >= 0 else "?"

    memcpy_calls = 0.0
    memcpy_bytes = 0.0
    copies_by_fn = collections.Counter()
    allocs_by_fn = collections.Counter()
    for site, n in k2["memcpy"].items():
        d = (n - k1["memcpy"].get(site, 0)) / per
        if d <= 0:
            continue
        memcpy_calls += d
        size = sized(site - base)
        if size:
            memcpy_bytes += d * size
            copies_by_fn[owner(site - base)] += d * size
    for site, n in k2["alloc"].items():
        d = (n - k1["alloc"].get(site, 0)) / per
        if d > 0:
            allocs_by_fn[owner(site - base)] += d
    allocs = sum(n - k1["alloc"].get(s, 0) for s, n in k2["alloc"].items()) / per
    total = (summary_of(f2) - clock2 - (summary_of(f1) - clock1)) / per
    print(f"instructions per call:            {total:,.0f}")
    print(f"  (call clock left out:           {(clock2 - clock1) / per:,.0f})")
    print(f"lock-prefixed instructions:       {sum(sites.values()) / per:.1f}")
    print(f"memcpy calls / bytes (sized):     {memcpy_calls:.1f} / {memcpy_bytes:,.0f}")
    print(f"heap allocations:                 {allocs:.1f}")
    if by_fn:
        print("atomics by function:")
        for fn, d in by_fn.most_common(25):
            print(f"  {d / per:5.1f}  {fn[:150]}")
    if copies_by_fn:
        print("memcpy bytes by function:")
        for fn, b in copies_by_fn.most_common(25):
            print(f"  {b:7,.0f}  {fn[:150]}")
    if allocs_by_fn:
        print("allocations by function:")
        for fn, d in allocs_by_fn.most_common(25):
            print(f"  {d:5.1f}  {fn[:150]}")


if __name__ == "__main__":
    main()
