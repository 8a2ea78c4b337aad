#!/usr/bin/env python3
"""Summarise a scripts/cupti_trace.c trace of `crosscheck bench gpu`: the
device's work split into segments at idle gaps of more than GAP ms (the
bench poisons the host plane between runs, so each run, gulp and bandwidth
test is one segment), and per segment what bounds it: kernel, copy-in and
copy-out busy time (unions), the idle stretches of each between its first and
last activity, the fill (segment start to the first copy out) and the drain
(last kernel's end to the segment's end), time with two streams' kernels side
by side, and the copies' rates.  The segments named in SHOW (indices, comma
separated, or "piped": those whose kernels ran on two streams) are listed
event by event after the table.
Usage: gpu_gulp_summary.py TRACE [GAP_MS] [SHOW] [ROWS]"""
import sys

KINDS = {1: "HtoD", 2: "DtoH", 8: "DtoD"}
MEM = {0: "?", 1: "pageable", 2: "locked", 3: "dev"}


def load(path):
    ev = []
    for line in open(path):
        f = line.split()
        if len(f) < 4 or f[0] not in "KMS":
            continue
        a, b = int(f[1]), int(f[2])
        if f[0] == "K":
            name = " ".join(f[7:])
            kind = "pack" if "pack" in name else "scale" if "scale" in name else \
                "dd" if ("dd_" in name or "k_dd" in name) else "other"
            ev.append(dict(t="K", a=a, b=b, st=int(f[3]), kind=kind, name=name[:40], bytes=0))
        elif f[0] == "M":
            src = MEM.get(int(f[6]), "?") if len(f) > 7 else "?"
            dst = MEM.get(int(f[7]), "?") if len(f) > 7 else "?"
            ev.append(dict(t="M", a=a, b=b, st=int(f[3]), kind=KINDS.get(int(f[5]), "cp%s" % f[5]),
                           bytes=int(f[4]), name="%s->%s" % (src, dst)))
        else:
            ev.append(dict(t="S", a=a, b=b, st=int(f[3]), kind="memset", bytes=int(f[4]), name="memset"))
    ev.sort(key=lambda r: r["a"])
    return ev


def segments(ev, gap_ns):
    segs, cur, end = [], [], None
    for r in ev:
        if cur and r["a"] - end > gap_ns:
            segs.append(cur)
            cur = []
        if not cur:
            end = r["b"]
        cur.append(r)
        end = max(end, r["b"])
    if cur:
        segs.append(cur)
    return segs


def union(rs):
    """Busy time of intervals rs and their idle stretches between the first start and the last end."""
    iv = sorted((r["a"], r["b"]) for r in rs)
    busy, idle, cur = 0, 0, None
    for a, b in iv:
        if cur is None:
            cur = [a, b]
        elif a > cur[1]:
            busy += cur[1] - cur[0]
            idle += a - cur[1]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    if cur:
        busy += cur[1] - cur[0]
    return busy, idle


def side_by_side(ks):
    """Time two streams' kernels ran at once."""
    pts = []
    for r in ks:
        pts.append((r["a"], 1, r["st"]))
        pts.append((r["b"], -1, r["st"]))
    pts.sort()
    live, t0, both = {}, None, 0
    for t, d, st in pts:
        if t0 is not None and len([s for s, n in live.items() if n > 0]) >= 2:
            both += t - t0
        live[st] = live.get(st, 0) + d
        t0 = t
    return both


def ms(ns):
    return ns / 1e6


def summary(i, seg, t_origin):
    a = min(r["a"] for r in seg)
    b = max(r["b"] for r in seg)
    ks = [r for r in seg if r["t"] == "K"]
    dd = [r for r in ks if r["kind"] == "dd"]
    h2d = [r for r in seg if r["t"] == "M" and r["kind"] == "HtoD"]
    d2h = [r for r in seg if r["t"] == "M" and r["kind"] == "DtoH"]
    kb, ki = union(ks)
    hb, hi = union(h2d)
    db, di = union(d2h)
    hbytes = sum(r["bytes"] for r in h2d)
    dbytes = sum(r["bytes"] for r in d2h)
    fill = (min(r["a"] for r in d2h) - a) if d2h else 0
    drain = (b - max(r["b"] for r in dd)) if dd else 0
    pack = sum(r["b"] - r["a"] for r in ks if r["kind"] == "pack")
    kinds = sorted(set(r["name"] for r in h2d + d2h))
    streams = len(set(r["st"] for r in seg))
    print("%3d %9.1f %8.2f %4d %4d %4d %8.2f %6.2f %7.2f %8.2f %6.2f %6.1f %8.2f %6.2f %6.1f %7.2f %7.2f %6.2f %3d %s"
          % (i, ms(a - t_origin), ms(b - a), len(dd), len(h2d), len(d2h), ms(kb), ms(ki), ms(pack), ms(hb), ms(hi),
             hbytes / hb if hb else 0, ms(db), ms(di), dbytes / db if db else 0, ms(fill), ms(drain),
             ms(side_by_side(ks)), streams, ",".join(kinds)))


def listing(i, seg, rows):
    a0 = min(r["a"] for r in seg)
    print("\n== segment %d, event by event (ms from its start; %d events, the first %d)" % (i, len(seg), rows))
    for r in seg[:rows]:
        extra = ("%.1f MB %.1f GB/s %s" % (r["bytes"] / 1e6, r["bytes"] / max(r["b"] - r["a"], 1), r["name"])
                 if r["t"] == "M" else r["name"])
        print("  %9.3f %9.3f %8.3f  s%-3d %-6s %s" % (ms(r["a"] - a0), ms(r["b"] - a0), ms(r["b"] - r["a"]), r["st"],
                                                     r["kind"], extra))
    if len(seg) > rows:
        print("  ... and the last %d" % min(rows // 2, len(seg) - rows))
        for r in seg[-min(rows // 2, len(seg) - rows):]:
            print("  %9.3f %9.3f %8.3f  s%-3d %-6s %s %.1f MB" % (ms(r["a"] - a0), ms(r["b"] - a0), ms(r["b"] - r["a"]),
                                                                 r["st"], r["kind"], r["name"], r["bytes"] / 1e6))


def main():
    path = sys.argv[1]
    gap = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    arg = sys.argv[3] if len(sys.argv) > 3 else ""
    show = [int(x) for x in arg.split(",") if x.isdigit()]
    rows = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    ev = load(path)
    if not ev:
        print("no device activity in %s" % path)
        return
    segs = segments(ev, gap * 1e6)
    print("segments of device work split at idle gaps over %g ms; times in ms, rates in GB/s" % gap)
    print("%3s %9s %8s %4s %4s %4s %8s %6s %7s %8s %6s %6s %8s %6s %6s %7s %7s %6s %3s %s"
          % ("seg", "start", "length", "dd", "h2d", "d2h", "kern", "kidle", "pack", "h2d", "hidle", "GB/s", "d2h",
             "didle", "GB/s", "fill", "drain", "2strm", "st", "copies"))
    for i, s in enumerate(segs):
        summary(i, s, ev[0]["a"])
    if arg == "piped":   # every segment whose kernels ran on two streams: the pipeline's gulps
        show = [i for i, s in enumerate(segs) if len(set(r["st"] for r in s if r["t"] == "K")) >= 2]
    for i in show:
        if 0 <= i < len(segs):
            listing(i, segs[i], rows)


if __name__ == "__main__":
    main()
