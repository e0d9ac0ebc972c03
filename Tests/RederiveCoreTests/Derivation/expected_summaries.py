#!/usr/bin/env python3
"""Independent reference for the room summary, v1 and v2 (Sources/RederiveCore/RederiveCore.docc/RoomSummary.md),
plain python3 + json.

Run from anywhere: python3 Tests/RederiveCoreTests/Derivation/expected_summaries.py
Its output (the rooms without floors) is pasted as constants into RoomSummaryDerivationTests.swift.
With --summaries it prints, as JSON, every field of the four rooms by their JSON keys:
RoomSummaryDerivationTests runs it and compares each field of the field table.
With --segments FILE (a JSON list of rooms, each a list of walls [[x1, z1], [x2, z2]]) it prints, as JSON,
[method, area] of each room by v2's floorless rules: WallOutlineTests runs it on every synthetic test room.
It shares no code with the Swift implementation; it re-reads the spec's rules.
wall_loop reading (same as the Swift one): start at wall 0's end centre - dir*w/2, walk
to its other end; each next wall is the unused one with an end nearest the current point
(ties: lowest wall index, then the minus end); only far ends are visited points; the
closing point is kept; shoelace over the visited points.
"""
import itertools, json, math, os, sys

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
    return wall_loop_segments(segments(walls))


def wall_loop_segments(s):
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
    return shoelace(hull(points))


def hull(points):
    pts = sorted(set(points))
    if len(pts) < 3:
        return []
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
    return lower[:-1] + upper[:-1]


# ---- v2: wall_outline (spec, "Floor area", 2b) ----
PARALLEL_SIN = math.sin(math.radians(20))
SNAP_COS = math.cos(math.radians(5))
REACH = 1.5
EXHAUSTIVE = 5
MAX_WALLS = 1000
MAX_CHAINS = 64
MAX_CROWD = 65
AREA_BAND = 0.01


def cross(a, b):
    return a[0] * b[1] - a[1] * b[0]


def main_axis(segs):
    # Mean of the directions with their angles times 4, weighted by length; angle / 4.
    c4 = s4 = 0.0
    for (x1, z1), (x2, z2) in segs:
        length = math.hypot(x2 - x1, z2 - z1)
        if length > 0:
            angle = math.atan2(z2 - z1, x2 - x1)
            c4 += length * math.cos(4 * angle)
            s4 += length * math.sin(4 * angle)
    if math.hypot(c4, s4) == 0:
        return None
    angle = math.atan2(s4, c4) / 4
    return (math.cos(angle), math.sin(angle))


def closure(p, a, q, b):
    den = cross(a, b)
    if abs(den) < PARALLEL_SIN:
        return []
    d = (q[0] - p[0], q[1] - p[1])
    s = cross(d, b) / den
    t = cross(d, a) / den
    if min(abs(s), abs(t)) <= TOL:
        return []
    x = (p[0] + s * a[0], p[1] + s * a[1])
    if 0 < s <= REACH and 0 < t <= REACH:
        return [x]
    return [(p[0] + q[0] - x[0], p[1] + q[1] - x[1])]


def angle_key(d):
    return math.atan2(d[1], d[0]) % (2 * math.pi)


def wall_outline(segs):
    """The v2 outline: (points, closing flags) or None."""
    if not 3 <= len(segs) <= MAX_WALLS:
        return None
    ends = [e for seg in segs for e in seg]
    xs = sorted(e[0] for e in ends)
    if any(not xs[k + MAX_CROWD] - xs[k] > TOL for k in range(len(xs) - MAX_CROWD)):
        return None  # more than MAX_CROWD ends within the tolerance's width of x
    # Corners: connected groups of ends within TOL of each other, numbered by their lowest end, at their mean.
    corner_of = [None] * len(ends)
    corners = []
    for i in range(len(ends)):
        if corner_of[i] is not None:
            continue
        corner_of[i] = len(corners)
        group, todo = [i], [i]
        while todo:
            k = todo.pop()
            for j in range(len(ends)):
                if corner_of[j] is None and math.dist(ends[k], ends[j]) <= TOL:
                    corner_of[j] = len(corners)
                    group.append(j)
                    todo.append(j)
        corners.append((sum(ends[g][0] for g in group) / len(group), sum(ends[g][1] for g in group) / len(group)))
    sides = [(corner_of[2 * w], corner_of[2 * w + 1], False) for w in range(len(segs))
             if corner_of[2 * w] != corner_of[2 * w + 1]]
    wall_of_side = [w for w in range(len(segs)) if corner_of[2 * w] != corner_of[2 * w + 1]]

    def touching(c):
        return [i for i, (u, v, _) in enumerate(sides) if c in (u, v)]

    # Connected groups, their free corners (one wall).
    group = {}
    for c in range(len(corners)):
        if c in group:
            continue
        group[c] = c
        todo = [c]
        while todo:
            k = todo.pop()
            for i in touching(k):
                u, v, _ = sides[i]
                for o in (u, v):
                    if o not in group:
                        group[o] = c
                        todo.append(o)
    free = {}
    for c in range(len(corners)):
        if len(touching(c)) == 1:
            free.setdefault(group[c], []).append(c)
    chains = []
    for f in free.values():
        if len(f) > 2:
            return None
        if len(f) == 2:
            chains.append(tuple(sorted(f)))
    chains.sort()
    if len(chains) > MAX_CHAINS:
        return None
    axis = main_axis(segs)

    def outward(c):
        side = touching(c)[0]
        w = wall_of_side[side]
        (x1, z1), (x2, z2) = segs[w]
        d = (x1 - x2, z1 - z2) if corner_of[2 * w] == c else (x2 - x1, z2 - z1)
        n = math.hypot(*d)
        d = (d[0] / n, d[1] / n)
        if axis:
            for ax in (axis, (-axis[1], axis[0]), (-axis[0], -axis[1]), (axis[1], -axis[0])):
                if d[0] * ax[0] + d[1] * ax[1] >= SNAP_COS:
                    return ax
        return d

    if chains:
        direction = {c: outward(c) for ch in chains for c in ch}

        def close(p, q):
            return closure(corners[p], direction[p], corners[q], direction[q])

        def length(p, q):
            path = [corners[p]] + close(p, q) + [corners[q]]
            return sum(math.dist(path[i], path[i + 1]) for i in range(len(path) - 1))

        k = len(chains)
        if k <= EXHAUSTIVE:
            best = None
            for order in itertools.permutations(range(1, k)):
                for flips in itertools.product((False, True), repeat=k - 1):
                    seq = [chains[0]] + [chains[c][::-1] if f else chains[c] for c, f in zip(order, flips)]
                    links = [(seq[i][1], seq[(i + 1) % k][0]) for i in range(k)]
                    total = sum(length(p, q) for p, q in links)
                    if best is None or total < best[0]:
                        best = (total, links)
            links = best[1]
        else:
            done = {0}
            cur = chains[0][1]
            links = []
            while len(done) < k:
                options = [(math.dist(corners[cur], corners[near]), near, far, i)
                           for i, ch in enumerate(chains) if i not in done
                           for near, far in ((ch[0], ch[1]), (ch[1], ch[0]))]
                d, near, far, i = min(options)
                done.add(i)
                links.append((cur, near))
                cur = far
            links.append((cur, chains[0][0]))
        for p, q in links:
            path = close(p, q)
            frm = p
            for point in path:
                corners.append(point)
                sides.append((frm, len(corners) - 1, True))
                frm = len(corners) - 1
            sides.append((frm, q, True))
    # Outer boundary: from the lowest-x (then z) corner, turning as far right as possible.
    used = [c for c in range(len(corners)) if touching(c)]
    if not used:
        return None
    start = min(used, key=lambda c: (corners[c][0], corners[c][1], c))
    points, closing, visited = [], [], []
    at, back, first = start, (0.0, -1.0), None
    for _ in range(2 * len(sides) + 2):
        best = None
        for i in touching(at):
            u, v, _ = sides[i]
            other = v if u == at else u
            d = (corners[other][0] - corners[at][0], corners[other][1] - corners[at][1])
            turn = (angle_key(d) - angle_key(back)) % (2 * math.pi)
            if turn <= 1e-12:
                turn = 2 * math.pi
            if best is None or turn < best[0] - 1e-12:
                best = (turn, i)
        i = best[1]
        if at == start and i == first:
            break
        if first is None:
            first = i
        points.append(corners[at])
        closing.append(sides[i][2])
        visited.append(at)
        u, v, _ = sides[i]
        nxt = v if u == at else u
        back = (corners[at][0] - corners[nxt][0], corners[at][1] - corners[nxt][1])
        at = nxt
    else:
        return None
    if not shoelace(points) > 0:
        return None
    for c in used:
        if c in visited:
            continue
        p = corners[c]
        inside = near = False
        for k in range(len(points)):
            a, b = points[k], points[(k + 1) % len(points)]
            if (a[1] > p[1]) != (b[1] > p[1]) and p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]:
                inside = not inside
            ab = (b[0] - a[0], b[1] - a[1])
            l2 = ab[0] ** 2 + ab[1] ** 2
            t = min(max(((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1]) / l2, 0), 1) if l2 > 0 else 0
            if math.dist(p, (a[0] + t * ab[0], a[1] + t * ab[1])) <= TOL:
                near = True
        if not inside and not near:
            return None
    return points, closing


def floorless_v2(segs):
    if len(segs) < 3:
        return 0.0, "none"
    a = wall_loop_segments(segs)
    if a is not None:
        return a, "wall_loop"
    o = wall_outline(segs)
    h = hull([e for seg in segs for e in seg])
    if o is not None and not same_polygon(o[0], h) and not same_area(o[0], h):
        return shoelace(o[0]), "wall_outline"
    return shoelace(h), "wall_hull"


def same_area(a, b):
    """The hull's area is the outline's up to what a strip AREA_BAND wide along the outline holds."""
    perimeter = sum(math.dist(a[k], a[(k + 1) % len(a)]) for k in range(len(a)))
    return abs(shoelace(b) - shoelace(a)) <= AREA_BAND * perimeter


def same_polygon(a, b):
    """The outline agrees with the hull: each one's corners within TOL of the other's sides."""
    def near(p, ring):
        for k in range(len(ring)):
            (x1, z1), (x2, z2) = ring[k], ring[(k + 1) % len(ring)]
            dx, dz = x2 - x1, z2 - z1
            l2 = dx * dx + dz * dz
            t = 0 if l2 == 0 else min(1, max(0, ((p[0] - x1) * dx + (p[1] - z1) * dz) / l2))
            if math.hypot(p[0] - (x1 + t * dx), p[1] - (z1 + t * dz)) <= TOL:
                return True
        return False
    return bool(a) and bool(b) and all(near(p, b) for p in a) and all(near(p, a) for p in b)


def floor_area(room, version=2):
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
    if version >= 2:
        return floorless_v2(segments(walls))
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
    return {
        "wall_count": len(walls), "door_count": len(room.get("doors") or []),
        "window_count": len(room.get("windows") or []), "opening_count": len(room.get("openings") or []),
        "object_count": len(room.get("objects") or []), "ceiling_height_m": ceiling,
        "estimated_floor_area_sqm": area, "floor_area_method": method, "volume_m3": area * ceiling,
        "total_wall_area_sqm": sum(w["dimensions"][0] * w["dimensions"][1] for w in walls),
        "perimeter_m": sum(widths), "longest_wall_m": max(widths, default=0.0),
        "shortest_wall_m": min(widths, default=0.0), "room_shape": shape(len(walls)),
        "object_categories": cats,
        "section_labels": [s.get("label", "") for s in room.get("sections") or []],
        "floor_polygon_2d_m": [{"x": x, "y": y} for x, y in poly],
    }


if len(sys.argv) == 3 and sys.argv[1] == "--segments":
    rooms = json.load(open(sys.argv[2]))
    out = []
    for walls in rooms:
        area, method = floorless_v2([(tuple(a), tuple(b)) for a, b in walls])
        out.append([method, area])
    print(json.dumps(out))
    sys.exit(0)

if sys.argv[1:] == ["--summaries"]:
    out = {}
    for name in ROOMS:
        out[name] = summary(json.load(open(os.path.join(FIX, name + ".capturedRoom.json"))))
    print(json.dumps(out))
    sys.exit(0)

for name in ROOMS:
    room = json.load(open(os.path.join(FIX, name + ".capturedRoom.json")))
    room["floors"] = []
    a1, m1 = floor_area(room, version=1)
    a, m = floor_area(room)
    h = hull_area([e for seg in segments(room["walls"]) for e in seg])
    print('"%s": NoFloors(area: %r, method: "%s", hull: %r, v1Area: %r, v1Method: "%s"),' % (name, a, m, h, a1, m1))
