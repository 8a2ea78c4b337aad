#!/usr/bin/env python3
"""Summarise a scripts/cupti_trace.c trace of `crosscheck bench singlepulse -fused`:
per fused execute, the dedispersion half's device work (packing, kernels,
copies, idle gaps) and the search's kernels; the last execute's timeline in
full.  Usage: gpu_trace_summary.py TRACE [timeline rows]"""
import re
import sys

DD = ("k_pack", "k_dd_", "k_scale", "k_bounds")


def kind_of(name):
    for d in DD:
        if d in name:
            return d.strip("_")
    m = re.search(r"(\d+)(k_sp_\w+)", name)
    if m:
        return m.group(2)[:int(m.group(1))]
    return "k_sp_other" if "k_sp_" in name else "other"


def load(path):
    gpu, api = [], []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        t, a, b = f[0], int(f[1]), int(f[2])
        if t == "K":
            gpu.append(dict(t="K", a=a, b=b, st=int(f[3]), grid=int(f[4]), blk=int(f[5]), name=kind_of(" ".join(f[7:]))))
        elif t == "M":
            k = {1: "HtoD", 2: "DtoH", 8: "DtoD"}.get(int(f[5]), "cp%s" % f[5])
            gpu.append(dict(t="M", a=a, b=b, st=int(f[3]), bytes=int(f[4]), name="memcpy " + k))
        elif t == "S":
            gpu.append(dict(t="S", a=a, b=b, st=int(f[3]), bytes=int(f[4]), name="memset"))
        elif t == "R":
            api.append(dict(a=a, b=b, name=f[4]))
    gpu.sort(key=lambda r: r["a"])
    api.sort(key=lambda r: r["a"])
    return gpu, api


def executes(gpu):
    """Kernel-delimited executes: a dd kernel after sp kernels starts one."""
    ex, cur, phase = [], None, None
    for r in gpu:
        if r["t"] != "K" or r["name"] == "other":
            continue
        isdd = not r["name"].startswith("k_sp_")
        if isdd and phase != "dd":
            cur = dict(dd=[], sp=[])
            ex.append(cur)
        if cur is None:
            continue
        phase = "dd" if isdd else "sp"
        cur[phase].append(r)
    return [e for e in ex if e["dd"] and e["sp"]]


def union(rs, lo, hi):
    iv = sorted((max(r["a"], lo), min(r["b"], hi)) for r in rs if r["b"] > lo and r["a"] < hi)
    tot, gaps, end = 0, [], lo
    for a, b in iv:
        if a > end:
            gaps.append((end, a))
        if b > end:
            tot += b - max(a, end)
            end = b
    if hi > end:
        gaps.append((end, hi))
    return tot, gaps


def ms(x):
    return "%.3f" % (x / 1e6)


def summary(gpu, api, rows):
    ex = executes(gpu)
    print("executes found: %d (bench: serial first, serial timed, pipelined first, pipelined timed)" % len(ex))
    prev_end = 0
    for i, e in enumerate(ex):
        d0 = min(r["a"] for r in e["dd"])
        d1 = max(r["b"] for r in e["dd"])
        s0 = min(r["a"] for r in e["sp"])
        s1 = max(r["b"] for r in e["sp"])
        ddst = {r["st"] for r in e["dd"]}
        # the dd half's device work: its kernels, and the copies between the
        # last execute's search and this one's first sp kernel
        ddw = [r for r in gpu if prev_end < r["a"] < s0 and (r["t"] == "K" and r in e["dd"] or r["t"] != "K")]
        w0 = min(r["a"] for r in ddw)
        api_e = [r for r in api if prev_end < r["a"] < s1]
        host0 = api_e[0]["a"] if api_e else w0
        sums = {}
        for r in ddw:
            k = r["name"]
            c = sums.setdefault(k, [0, 0, 0])
            c[0] += 1
            c[1] += r["b"] - r["a"]
            c[2] += r.get("bytes", 0)
        busy, gaps = union(ddw, w0, d1)
        print("\n== execute %d: first API call -> first dd device work %s ms; dd device window %s ms (busy %s, idle %s);"
              " dd end -> first sp kernel %s ms; search kernels window %s ms; dd streams %s"
              % (i, ms(w0 - host0), ms(d1 - w0), ms(busy), ms(d1 - w0 - busy), ms(s0 - d1), ms(s1 - s0), sorted(ddst)))
        for k, (n, t, by) in sorted(sums.items(), key=lambda kv: -kv[1][1]):
            print("   %-16s n=%4d  sum %9s ms%s" % (k, n, ms(t), "  %.1f MB" % (by / 1e6) if by else ""))
        big = sorted(gaps, key=lambda g: g[0] - g[1])[:6]
        for a, b in sorted(big):
            bef = max((r for r in ddw if r["b"] <= a + 1000), key=lambda r: r["b"], default=None)
            aft = min((r for r in ddw if r["a"] >= b - 1000), key=lambda r: r["a"], default=None)
            print("   idle %s ms at +%s (after %s, before %s)" % (ms(b - a), ms(a - w0), bef and bef["name"], aft and aft["name"]))
        sps = {}
        for r in e["sp"]:
            c = sps.setdefault(r["name"], [0, 0])
            c[0] += 1
            c[1] += r["b"] - r["a"]
        print("   search: " + ", ".join("%s %s ms (%d)" % (k, ms(v[1]), v[0]) for k, v in sorted(sps.items())))
        last = (e, w0, host0, d1, s1, prev_end, ddw)
        prev_end = s1
    if not ex:
        return
    e, w0, host0, d1, s1, pe, ddw = last
    print("\n== last execute, device timeline of the dd half (ms from its first API call; stream; what)")
    shown = 0
    for r in ddw:
        if shown >= rows:
            print("   ...")
            break
        extra = " %.2f MB" % (r["bytes"] / 1e6) if "bytes" in r else " grid %d" % r.get("grid", 0)
        print("   %8s %8s  st%-3d %s%s" % (ms(r["a"] - host0), ms(r["b"] - r["a"]), r["st"], r["name"], extra))
        shown += 1
    print("\n== last execute, host API calls (collapsed runs; gap = host time before the run)")
    runs, prev_b = [], host0
    for r in [r for r in api if pe < r["a"] < d1 + 1]:
        gap = r["a"] - prev_b
        if runs and runs[-1]["name"] == r["name"] and gap < 20000:
            runs[-1]["n"] += 1
            runs[-1]["dur"] += r["b"] - r["a"]
            runs[-1]["gap"] += gap
        else:
            runs.append(dict(name=r["name"], a=r["a"], n=1, dur=r["b"] - r["a"], gap=gap))
        prev_b = r["b"]
    shown = 0
    for u in runs:
        if u["dur"] < 50000 and u["gap"] < 50000:
            continue
        if shown >= rows:
            print("   ...")
            break
        print("   %8s  %-28s x%-4d in calls %8s ms, host between %8s ms" % (ms(u["a"] - host0), u["name"], u["n"], ms(u["dur"]), ms(u["gap"])))
        shown += 1


if __name__ == "__main__":
    g, a = load(sys.argv[1])
    summary(g, a, int(sys.argv[2]) if len(sys.argv) > 2 else 80)
