#!/usr/bin/env python3
"""Independent reference for the v1 room summary (Sources/RederiveCore/RederiveCore.docc/RoomSummary.md), plain python3 + json.

Run from anywhere: python3 Tests/RederiveCoreTests/Derivation/expected_summaries.py
Its output is pasted as constants into RoomSummaryDerivationTests.swift.
It shares no code with the Swift implementation; it re-reads the spec's rules.
wall_loop reading (same as the Swift one): start at wall 0's end centre - dir*w/2, walk
to its other end; each next wall is the unused one with an end nearest the current point
(ties: lowest wall index, then the minus end); only far ends are visited points; the
closing point is kept; shoelace over the visited points.
"""
import json, math, os

ROOMS = ["Bathroom2", "Bedroom3", "Hallway2", "Kitchen"]
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "..", "..", "Fixtures", "rooms")
TOL = 0.30


def shoelace(pts):
    s = 0.0
    n = len(pts)
    for i in range(n):
        x1, y1 = pts[i]
        x2, y2 = pts[(i + 1) % n]
        s += x1 * y2 - x2 * y1
    return abs(s) / 2


def segments(walls):
    out = []
    for w in walls:
        t = w["transform"]
        cx, cz = t[12], t[14]
        dx, dz = t[0], t[2]
        n = math.hypot(dx, dz)
        dx, dz = dx / n, dz / n
        h = w["dimensions"][0] / 2
        out.append(((cx - dx * h, cz - dz * h), (cx + dx * h, cz + dz * h)))
    return out


def wall_loop(walls):
    s = segments(walls)
    start, cur = s[0]
    pts = [start, cur]
    used = {0}
    while len(used) < len(s):
        best = None
        for i, (p, q) in enumerate(s):
            if i in used:
                continue
            for near, far in ((p, q), (q, p)):
                d = math.dist(cur, near)
                if best is None or d < best[0]:
                    best = (d, i, far)
        if best[0] > TOL:
            return None
        used.add(best[1])
        cur = best[2]
        pts.append(cur)
    if math.dist(cur, start) > TOL:
        return None
    return shoelace(pts)


def hull_area(points):
    pts = sorted(set(points))
    if len(pts) < 3:
        return 0.0
    cross = lambda o, a, b: (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return shoelace(lower[:-1] + upper[:-1])


def floor_area(room):
    floors = room.get("floors") or []
    walls = room.get("walls") or []
    if floors:
        total = 0.0
        for f in floors:
            c = f["polygonCorners"]
            if len(c) < 3:
                total += f["dimensions"][0] * f["dimensions"][1]
            else:
                total += shoelace([(p[0], p[1]) for p in c])
        return total, "floor_polygon"
    if len(walls) < 3:
        return 0.0, "none"
    a = wall_loop(walls)
    if a is not None:
        return a, "wall_loop"
    return hull_area([e for seg in segments(walls) for e in seg]), "wall_hull"


def shape(n):
    return {3: "triangular", 4: "rectangular", 5: "pentagonal", 6: "L-shaped or hexagonal"}.get(
        n, "partial" if n <= 2 else "irregular (%d walls)" % n)


def summary(room):
    walls = room.get("walls") or []
    widths = [w["dimensions"][0] for w in walls]
    ceiling = max((w["dimensions"][1] for w in walls), default=0.0)
    area, method = floor_area(room)
    cats = {}
    for o in room.get("objects") or []:
        k = next(iter(o["category"]))
        cats[k] = cats.get(k, 0) + 1
    poly = []
    floors = room.get("floors") or []
    if floors:
        t = floors[0]["transform"]
        for c in floors[0]["polygonCorners"]:
            x, y = c[0], c[1]
            poly.append((t[0] * x + t[4] * y + t[12], t[2] * x + t[6] * y + t[14]))
    return dict(
        wallCount=len(walls), doorCount=len(room.get("doors") or []),
        windowCount=len(room.get("windows") or []), openingCount=len(room.get("openings") or []),
        objectCount=len(room.get("objects") or []), ceilingHeightM=ceiling,
        estimatedFloorAreaSqm=area, floorAreaMethod=method, volumeM3=area * ceiling,
        totalWallAreaSqm=sum(w["dimensions"][0] * w["dimensions"][1] for w in walls),
        perimeterM=sum(widths), longestWallM=max(widths, default=0.0),
        shortestWallM=min(widths, default=0.0), roomShape=shape(len(walls)),
        objectCategories=cats,
        sectionLabels=[s.get("label", "") for s in room.get("sections") or []],
        floorPolygon2D=poly)


def swift(v):
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dict):
        return "[:]" if not v else "[" + ", ".join('%s: %s' % (json.dumps(k), swift(x)) for k, x in sorted(v.items())) + "]"
    if isinstance(v, list):
        return "[" + ", ".join(swift(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "SIMD2(%r, %r)" % v
    return str(v)


for name in ROOMS:
    room = json.load(open(os.path.join(FIX, name + ".capturedRoom.json")))
    s = summary(room)
    fields = ", ".join("%s: %s" % (k, swift(v)) for k, v in s.items())
    print('"%s": Expected(%s),' % (name, fields))
for name in ROOMS:
    room = json.load(open(os.path.join(FIX, name + ".capturedRoom.json")))
    room["floors"] = []
    a, m = floor_area(room)
    h = hull_area([e for seg in segments(room["walls"]) for e in seg])
    print('"%s": NoFloors(area: %r, method: "%s", hull: %r),' % (name, a, m, h))
