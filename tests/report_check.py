#!/usr/bin/env python3
"""report_check.py FILE.html SCREENSHOT.png: opens an HTML report of `tunetab report` in headless
Chromium (CPU only, no network) and checks what a person would see. Python 3 standard library only.

Chromium runs, two or three (each with the flags of CHROME_FLAGS, a private --user-data-dir and
HOME in a temp folder removed afterwards, a 60 s timeout, and its process group killed at the end;
--enable-logging=stderr --v=0 puts the page's console messages on stderr, and
--virtual-time-budget=5000 lets the page's timers and late script errors run before the capture):
  1. --screenshot at --window-size=1280,4000. The content's height is read off that PNG (the last
     row that differs from the bottom row, the canvas below the content); content that reaches
     the bottom is taken again at 1280x16384 (the cap: taller pages are cut there, and said so).
     The PNG is cropped to the content plus a 24 px margin and written, re-encoded (filter 0), to
     SCREENSHOT.png. Cropping a tall window gives the same pixels as a window of the page's own
     height, except for CSS that depends on the viewport height (vh units). (Chromium 156's
     --screenshot takes the window only, never the full page.)
  2. --dump-dom at the same window size: the DOM after load (and after the time budget).
The console lines of both runs count, each distinct message once. Chromium 156 prints them as
    [PID:TID:MMDD/HHMMSS.micros:INFO:CONSOLE:LINE] "TEXT", source: URL (LINE)
(TEXT may span lines); every other stderr line is Chromium's own (dbus, GPU, sandbox...) and only
counted, except a FATAL one.
Debian's /usr/bin/chromium is a shell wrapper that adds flags of its own: the real binary it
runs, /usr/lib/chromium/chromium, is used instead (CHROMIUM=... is used as given).
`report_check.py --selftest-png` checks the PNG decoder alone (all filters, colour types).

Checks, one line each ("ok   NAME: ..." or "FAIL NAME: ..."):
  chromium          a Chromium binary was found and runs (none: exit 77, nothing else checked)
  run screenshot    run 1 exited 0 within the timeout and wrote a PNG
  run dom           run 2 exited 0 within the timeout and printed a DOM
  png               SCREENSHOT.png decodes (own decoder: zlib, 8-bit gray/RGB/RGBA, no interlace,
                    filter types 0-4; chunk CRCs checked)
  not-blank         at least MIN_INK of its pixels differ from the background colour (the most
                    common colour of the image border) by more than INK_TOLERANCE
  charts            at least one <svg class="chart"> in the DOM
  chart N title     it has a <title> child with text
  chart N size      width and height > 0, or a viewBox with width and height > 0
  chart N marks     at least one data mark (circle, ellipse, rect, path, line, polygon, polyline
                    with "mark" in its class) with non-degenerate geometry
  chart N table     a <table class="data"> follows it before the next chart, with a body row (a
                    <tr> with a <td>, outside <thead>/<tfoot>)
  resources         every resource the DOM refers to (src, href of link/use/image, srcset, poster,
                    object data, url() in style attributes and <style>) is inline (data:, #id) or
                    an existing local file; a missing file or any remote URL fails. Chromium 156
                    logs no line at all for a failed resource load, so this is checked on the DOM.
  console           the page printed no console message and threw no uncaught exception in any
                    run. Chromium 156 logs every console message of a web page at INFO whatever
                    its level (console.log and console.error print the same), so every message
                    counts: a report has no reason to write to the console.
Exit 0 when every check passes, 1 otherwise, 2 on a usage error, 77 when no Chromium is found
(env CHROMIUM names the binary; else chromium, chromium-browser, google-chrome on PATH)."""
import collections, itertools, os, re, shutil, signal, struct, subprocess, sys, tempfile, time, zlib
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit, unquote
from pathlib import Path

WIDTH = 1280
PROBE_HEIGHTS = (4000, 16384)
MARGIN = 24            # rows kept under the last content row
TIMEOUT = 60           # seconds per Chromium run
TIME_BUDGET_MS = 5000  # --virtual-time-budget
MIN_INK = 0.005        # share of non-background pixels below which the page is called blank
INK_TOLERANCE = 16     # max channel difference still counted as background

CHROME_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--metrics-recording-only", "--no-default-browser-check",
    "--disable-features=Translate,OptimizationHints,MediaRouter",
    # Chromium 156 still asks accounts.google.com, update.googleapis.com and clients2.google.com
    # with all the flags above; no name resolves, so nothing leaves the machine.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--disable-dev-shm-usage", "--force-device-scale-factor=1",
    "--enable-logging=stderr", "--v=0",
    "--virtual-time-budget=%d" % TIME_BUDGET_MS,
]

results = []
BYTE = 255
HIGH_BITS = {}


def check(name, ok, detail):
    results.append((name, ok))
    print("%s %s: %s" % ("ok  " if ok else "FAIL", name, detail), flush=True)
    return ok


# ---------------------------------------------------------------- Chromium

def find_chromium():
    env = os.environ.get("CHROMIUM")
    names = [env] if env else ["chromium", "chromium-browser", "google-chrome"]
    for n in names:
        p = shutil.which(n)
        if not p:
            continue
        if env:
            return p  # taken as it is
        # Debian's /usr/bin/chromium is a shell wrapper that adds flags of its own (extensions,
        # --enable-gpu-rasterization) and prints a shell error on some /dev/shm mounts: run the
        # real binary it execs.
        try:
            with open(p, "rb") as f:
                script = f.read(2) == b"#!"
        except OSError:
            script = False
        real = "/usr/lib/chromium/chromium"
        if script and os.path.basename(p) == "chromium" and os.access(real, os.X_OK):
            return real
        return p
    return None


def run_chromium(binary, args, url):
    """Runs binary with CHROME_FLAGS + args + url in a private profile; returns
    (rc or None on timeout, stdout bytes, stderr text, seconds, argv)."""
    tmp = tempfile.mkdtemp(prefix="report-check-")
    argv = [binary] + CHROME_FLAGS + ["--user-data-dir=" + os.path.join(tmp, "profile")] + args + [url]
    env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
               XDG_CACHE_HOME=os.path.join(tmp, "cache"))
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, cwd=tmp, start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        rc = None
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
    finally:
        try:  # helpers of this run (zygote, GPU, renderer) that outlived the browser
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        shutil.rmtree(tmp, ignore_errors=True)
    return rc, out, err.decode("utf-8", "replace"), time.monotonic() - t0, argv


CONSOLE_START = re.compile(r'^\[\d+:\d+:\d{4}/\d{6}\.\d+:([A-Z0-9]+):CONSOLE:(-?\d+)\] "(.*)$')
CONSOLE_END = re.compile(r'^(.*)", source: (.*) \((-?\d+)\)$', re.S)
LOG_LINE = re.compile(r'^\[\d+:\d+:\d{4}/\d{6}\.\d+:([A-Z0-9]+):')


def console_messages(stderr):
    """Chromium 156 prints a page's console message as
      [PID:TID:MMDD/HHMMSS.micros:INFO:CONSOLE:LINE] "TEXT", source: URL (LINE)
    (TEXT may span several lines). Returns ([(text, source, line)], other log lines, fatal lines)."""
    msgs, other, fatal = [], 0, []
    lines = stderr.split("\n")
    i = 0
    while i < len(lines):
        m = CONSOLE_START.match(lines[i])
        if not m:
            if lines[i].strip():
                other += 1
                lm = LOG_LINE.match(lines[i])
                if lm and lm.group(1) == "FATAL":
                    fatal.append(lines[i])
            i += 1
            continue
        buf = m.group(3)
        j = i
        while not CONSOLE_END.match(buf) and j + 1 < len(lines) and not LOG_LINE.match(lines[j + 1]):
            j += 1
            buf += "\n" + lines[j]
        e = CONSOLE_END.match(buf)
        if e:
            text, source, line = e.group(1), e.group(2), e.group(3)
        else:
            text, source, line = buf, "?", m.group(2)
        if not source.startswith(("chrome-extension:", "chrome:", "devtools:")):
            msgs.append((text, source, line))
        i = j + 1
    return msgs, other, fatal


# ---------------------------------------------------------------- PNG

def png_decode(data):
    """Returns (width, height, channels, [row bytes], filter counts). Raises ValueError."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG signature")
    pos, idat, ihdr, seen_end = 8, [], None, False
    while pos + 12 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            raise ValueError("truncated %s chunk" % ctype.decode("latin-1"))
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(ctype + body) & 0xffffffff != crc:
            raise ValueError("bad CRC in %s chunk" % ctype.decode("latin-1"))
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            seen_end = True
            break
        pos += 12 + length
    if ihdr is None or not idat or not seen_end:
        raise ValueError("missing IHDR, IDAT or IEND")
    w, h, depth, color, comp, filt, interlace = ihdr
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(color)
    if depth != 8 or channels is None:
        raise ValueError("unsupported bit depth %d / colour type %d" % (depth, color))
    if interlace != 0 or comp != 0 or filt != 0:
        raise ValueError("interlaced or unknown compression/filter method")
    if w == 0 or h == 0:
        raise ValueError("empty image %dx%d" % (w, h))
    raw = zlib.decompress(b"".join(idat))
    bpp, stride = channels, w * channels
    if len(raw) < h * (stride + 1):
        raise ValueError("image data too short: %d < %d" % (len(raw), h * (stride + 1)))
    rows, prev, counts = [], bytes(stride), [0] * 5
    for y in range(h):
        ft = raw[y * (stride + 1)]
        cur = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if ft > 4:
            raise ValueError("row %d: filter type %d" % (y, ft))
        counts[ft] += 1
        if ft == 0:
            row = bytes(cur)
        elif ft == 1:    # Sub: a running sum of each channel, modulo 256
            r = bytearray(stride)
            for c in range(bpp):
                r[c::bpp] = bytes(map(BYTE.__and__, itertools.accumulate(cur[c::bpp])))
            row = bytes(r)
        elif ft == 2:    # Up: bytewise addition modulo 256 of two whole rows as big integers
            x, y = int.from_bytes(cur, "big"), int.from_bytes(prev, "big")
            hi = HIGH_BITS[stride] if stride in HIGH_BITS else HIGH_BITS.setdefault(
                stride, int.from_bytes(b"\x80" * stride, "big"))
            low = ~hi & ((1 << (8 * stride)) - 1)
            row = (((x & low) + (y & low)) ^ ((x ^ y) & hi)).to_bytes(stride, "big")
        elif ft == 3:    # Average
            r = bytearray(cur)
            for i in range(stride):
                left = r[i - bpp] if i >= bpp else 0
                r[i] = (r[i] + ((left + prev[i]) >> 1)) & 255
            row = bytes(r)
        else:            # Paeth
            r = bytearray(cur)
            for i in range(stride):
                if i >= bpp:
                    a, c = r[i - bpp], prev[i - bpp]
                else:
                    a = c = 0
                b = prev[i]
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                r[i] = (r[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            row = bytes(r)
        rows.append(row)
        prev = row
    return w, h, channels, rows, counts


def png_encode(w, channels, rows):
    color = {1: 0, 2: 4, 3: 2, 4: 6}[channels]

    def chunk(t, b):
        return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b) & 0xffffffff)
    raw = b"".join(b"\x00" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, len(rows), 8, color, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def pixels(row, channels):
    """(r, g, b) of each pixel of a row; alpha is composed over white."""
    if channels == 3:
        return zip(row[0::3], row[1::3], row[2::3])
    if channels == 1:
        return ((v, v, v) for v in row)
    if channels == 2:
        return (((v * a + 255 * (255 - a)) // 255,) * 3 for v, a in zip(row[0::2], row[1::2]))
    return (((r * a + 255 * (255 - a)) // 255, (g * a + 255 * (255 - a)) // 255,
             (b * a + 255 * (255 - a)) // 255)
            for r, g, b, a in zip(row[0::4], row[1::4], row[2::4], row[3::4]))


def background(w, h, channels, rows):
    border = collections.Counter()
    border.update(pixels(rows[0], channels))
    border.update(pixels(rows[-1], channels))
    for r in rows:
        border.update(pixels(r[:channels], channels))
        border.update(pixels(r[-channels:], channels))
    return border.most_common(1)[0][0]


def png_row_of(rgb, channels):
    """The bytes of one opaque pixel of colour rgb."""
    return {1: rgb[:1], 2: (rgb[0], 255), 3: rgb, 4: tuple(rgb) + (255,)}[channels]


def ink_count(rows, w, channels, bg):
    """(pixels, rows) that differ from bg by more than INK_TOLERANCE in some channel; pixels
    with alpha count by their colour (a report's screenshot is opaque)."""
    tables = [bytes(1 if abs(v - bg[min(c, 2)]) > INK_TOLERANCE else 0 for v in range(256))
              for c in range(3)]
    bgrow = bytes(png_row_of(bg, channels)) * w
    colour = 1 if channels < 3 else 3
    ink = inkrows = 0
    for r in rows:
        if r == bgrow:
            continue
        flags = 0
        for c in range(colour):
            flags |= int.from_bytes(r[c::channels].translate(tables[c]), "big")
        n = bin(flags).count("1")
        ink += n
        inkrows += n > 0
    return ink, inkrows


def content_bottom(rows):
    """Index of the last row that differs from the bottom row (the canvas below the content)."""
    last = rows[-1]
    for y in range(len(rows) - 1, -1, -1):
        if rows[y] != last:
            return y
    return -1


# ---------------------------------------------------------------- DOM

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr", "param"}


class Node:
    __slots__ = ("tag", "attrs", "children", "parent", "text", "order")

    def __init__(self, tag, attrs, parent, order):
        self.tag, self.attrs, self.parent, self.order = tag, dict(attrs), parent, order
        self.children, self.text = [], []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def all_text(self):
        return "".join(t for n in self.walk() for t in n.text)

    def ancestors(self):
        n = self.parent
        while n is not None:
            yield n
            n = n.parent


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None, 0)
        self.cur, self.count = self.root, 0

    def handle_starttag(self, tag, attrs):
        self.count += 1
        n = Node(tag, [(k, v if v is not None else "") for k, v in attrs], self.cur, self.count)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.count += 1
        n = Node(tag, [(k, v if v is not None else "") for k, v in attrs], self.cur, self.count)
        self.cur.children.append(n)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text.append(data)


NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def number(s):
    m = re.fullmatch(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(px|%)?\s*", s or "")
    return float(m.group(1)) if m else None


def mark_geometry(n):
    """(non-degenerate?, description) of one data mark."""
    a, t = n.attrs, n.tag
    if t == "circle":
        r = number(a.get("r"))
        return (r or 0) > 0, "r=%s" % a.get("r")
    if t == "ellipse":
        rx, ry = number(a.get("rx")), number(a.get("ry"))
        return (rx or 0) > 0 and (ry or 0) > 0, "rx=%s ry=%s" % (a.get("rx"), a.get("ry"))
    if t == "rect":
        w, h = number(a.get("width")), number(a.get("height"))
        return (w or 0) > 0 and (h or 0) > 0, "width=%s height=%s" % (a.get("width"), a.get("height"))
    if t == "line":
        p = [number(a.get(k, "0")) for k in ("x1", "y1", "x2", "y2")]
        return None not in p and (p[0], p[1]) != (p[2], p[3]), "line %s" % p
    if t in ("polygon", "polyline"):
        v = [float(x) for x in NUM.findall(a.get("points", ""))]
        pts = set(zip(v[0::2], v[1::2]))
        need = 3 if t == "polygon" else 2
        return len(pts) >= need, "%d distinct points" % len(pts)
    if t == "path":
        d = a.get("d", "")
        # a move and at least one drawing command, or a move with implicit line-tos
        ok = bool(re.match(r"\s*[Mm]", d)) and (bool(re.search(r"[LlHhVvCcSsQqTtAa]", d))
                                                 or len(NUM.findall(d)) >= 4)
        return ok, "d=%r" % (d[:40])
    return False, t


MARK_TAGS = {"circle", "ellipse", "rect", "path", "line", "polygon", "polyline"}


def check_dom(root, page_uri):
    nodes = list(root.walk())
    charts = [n for n in nodes if n.tag == "svg" and "chart" in n.classes()]
    check("charts", len(charts) > 0, "%d svg.chart in a DOM of %d elements" % (len(charts), len(nodes) - 1))
    tables = [n for n in nodes if n.tag == "table" and "data" in n.classes()]
    for i, c in enumerate(charts, 1):
        titles = [k for k in c.children if k.tag == "title"]
        text = titles[0].all_text().strip() if titles else ""
        check("chart %d title" % i, bool(text),
              "<title> %r" % text[:60] if text else ("empty <title>" if titles else "no <title> child"))
        w, h = number(c.attrs.get("width")), number(c.attrs.get("height"))
        vb = [float(x) for x in NUM.findall(c.attrs.get("viewbox", ""))]
        ok_wh = (w or 0) > 0 and (h or 0) > 0
        ok_vb = len(vb) == 4 and vb[2] > 0 and vb[3] > 0
        check("chart %d size" % i, ok_wh or ok_vb, "width=%s height=%s viewBox=%s" % (
            c.attrs.get("width"), c.attrs.get("height"), c.attrs.get("viewbox")))
        marks = [n for n in c.walk() if n.tag in MARK_TAGS and "mark" in (n.attrs.get("class") or "")]
        good = collections.Counter()
        bad = []
        for m in marks:
            ok, why = mark_geometry(m)
            if ok:
                good[m.tag] += 1
            else:
                bad.append("%s %s" % (m.tag, why))
        detail = "%d marks, %d non-degenerate (%s)" % (
            len(marks), sum(good.values()), ", ".join("%s %d" % kv for kv in sorted(good.items())) or "none")
        if bad:
            detail += "; degenerate: " + "; ".join(bad[:3]) + (" ..." if len(bad) > 3 else "")
        check("chart %d marks" % i, sum(good.values()) > 0, detail)
        nxt = charts[i].order if i < len(charts) else float("inf")
        end = max(n.order for n in c.walk())
        after = [t for t in tables if end < t.order < nxt]
        if not after:
            check("chart %d table" % i, False, "no <table class=\"data\"> between this chart and the %s" %
                  ("next" if i < len(charts) else "end of the page"))
            continue
        t = after[0]
        body = [r for r in t.walk() if r.tag == "tr" and any(k.tag == "td" for k in r.children)
                and not any(a.tag in ("thead", "tfoot") for a in r.ancestors())]
        cols = max((sum(1 for k in r.children if k.tag in ("td", "th")) for r in body), default=0)
        check("chart %d table" % i, len(body) > 0, "table.data with %d body rows, %d columns" % (len(body), cols))
    check_resources(nodes, page_uri)


URL_IN_CSS = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3""", re.I)


def check_resources(nodes, page_uri):
    refs = []
    for n in nodes:
        a = n.attrs
        for k in ("src", "poster"):
            if a.get(k):
                refs.append((n.tag, k, a[k]))
        if a.get("srcset"):
            for part in a["srcset"].split(","):
                if part.strip():
                    refs.append((n.tag, "srcset", part.split()[0]))
        if n.tag == "object" and a.get("data"):
            refs.append((n.tag, "data", a["data"]))
        if n.tag not in ("a", "area", "base") and a.get("href") and n.tag in (
                "link", "use", "image", "feimage", "script", "textpath", "pattern", "lineargradient",
                "radialgradient", "filter"):
            if n.tag != "link" or set(a.get("rel", "").lower().split()) & {
                    "stylesheet", "icon", "preload", "prefetch", "modulepreload", "manifest"}:
                refs.append((n.tag, "href", a["href"]))
        if a.get("xlink:href") and n.tag != "a":
            refs.append((n.tag, "xlink:href", a["xlink:href"]))
        css = a.get("style", "") + ("".join(n.text) if n.tag == "style" else "")
        for m in URL_IN_CSS.finditer(css):
            refs.append((n.tag, "css", m.group(2) if m.group(2) is not None else m.group(4)))
    inline, local, problems = 0, 0, []
    for tag, attr, url in refs:
        u = url.strip()
        if not u or u.startswith("#") or u.lower().startswith(("data:", "blob:", "about:")):
            inline += 1
            continue
        full = urljoin(page_uri, u)
        parts = urlsplit(full)
        if parts.scheme == "file":
            if os.path.exists(unquote(parts.path)):
                local += 1
            else:
                problems.append("missing file %s (<%s %s>)" % (u, tag, attr))
        else:
            problems.append("remote %s (<%s %s>; the check has no network, a report must be "
                            "self-contained)" % (u, tag, attr))
    detail = "%d references: %d inline (data:, #id), %d existing local files" % (len(refs), inline, local)
    if problems:
        detail += "; " + "; ".join(problems[:5]) + (" ..." if len(problems) > 5 else "")
    check("resources", not problems, detail)


# ---------------------------------------------------------------- main

def selftest_png():
    """Round trip of the decoder through an independent encoder that uses each of the five row
    filters, for every supported colour type; prints one line, returns 0 or 1."""
    import random
    rnd = random.Random(7)

    def paeth(a, b, c):
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        return a if pa <= pb and pa <= pc else b if pb <= pc else c

    def enc(w, ch, rows):
        out, prev = [], bytes(w * ch)
        for y, r in enumerate(rows):
            ft = y % 5
            f = bytearray()
            for i in range(len(r)):
                a = r[i - ch] if i >= ch else 0
                b, c = prev[i], (prev[i - ch] if i >= ch else 0)
                pred = (0, a, b, (a + b) >> 1, paeth(a, b, c))[ft]
                f.append((r[i] - pred) & 255)
            out.append(bytes([ft]) + bytes(f))
            prev = r
        color = {1: 0, 2: 4, 3: 2, 4: 6}[ch]
        def chunk(t, b):
            return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b) & 0xffffffff)
        z = zlib.compress(b"".join(out))
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, len(rows), 8, color, 0, 0, 0))
                + chunk(b"IDAT", z[:len(z) // 2]) + chunk(b"IDAT", z[len(z) // 2:]) + chunk(b"IEND", b""))

    bad = 0
    for ch, small in ((1, 0), (2, 0), (3, 0), (4, 0), (3, 1), (4, 1)):
        w, h = 37, 23
        # small values make the ties of Paeth's predictor (and of the rounding of Average) common
        pick = (lambda: rnd.randrange(4)) if small else (
            lambda: rnd.choice((0, 1, 127, 128, 254, 255, rnd.randrange(256))))
        rows = [bytes(pick() for _ in range(w * ch)) for _ in range(h)]
        for data, want in ((enc(w, ch, rows), [5, 5, 5, 4, 4]), (png_encode(w, ch, rows), [h, 0, 0, 0, 0])):
            dw, dh, dch, drows, counts = png_decode(data)
            if (dw, dh, dch, drows) != (w, h, ch, rows) or counts != want:
                bad += 1
    rejected = 0
    good = enc(4, 3, [bytes(12)] * 5)
    for broken in (good[:-20], good.replace(b"IHDR", b"IHDX"), good[:8] + good[8:30] + b"\0" + good[31:],
                   b"GIF89a" + good[6:]):
        try:
            png_decode(broken)
        except (ValueError, zlib.error, struct.error):
            rejected += 1
    ok = bad == 0 and rejected == 4
    print("%s png decoder: filters none/sub/up/average/paeth x gray/gray+alpha/RGB/RGBA round-trip (6 images)%s, "
          "%d of 4 broken files rejected" % ("ok  " if ok else "FAIL", "" if bad == 0 else " (%d mismatches)" % bad,
                                             rejected))
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--selftest-png"]:
        return selftest_png()
    if len(sys.argv) != 3:
        print("usage: report_check.py FILE.html SCREENSHOT.png", file=sys.stderr)
        return 2
    html, shot = sys.argv[1], sys.argv[2]
    if not os.path.isfile(html):
        print("report_check: no such file: %s" % html, file=sys.stderr)
        return 2
    binary = find_chromium()
    if binary is None:
        print("report_check: no Chromium found (looked for %s); install Debian's package "
              "(apt-get install -y chromium) or set CHROMIUM=/path/to/chrome" %
              (os.environ.get("CHROMIUM") or "chromium, chromium-browser, google-chrome on PATH"),
              file=sys.stderr)
        return 77
    try:
        ver = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=TIMEOUT).stdout.decode(errors="replace").strip()
    except (OSError, subprocess.SubprocessError) as e:
        ver = "does not run: %s" % e
    check("chromium", bool(re.search(r"\d+\.\d+", ver)), "%s (%s)" % (ver or "no version", binary))
    page_uri = Path(html).resolve().as_uri()
    all_msgs, noise, fatal, nruns = collections.OrderedDict(), 0, [], 0

    def collect(stderr):
        nonlocal noise, nruns
        nruns += 1
        msgs, other, fat = console_messages(stderr)
        noise += other
        fatal.extend(fat)
        for m in msgs:
            all_msgs[m] = all_msgs.get(m, 0) + 1

    # run 1: screenshot at growing probe heights until the content ends above the bottom
    tmp = tempfile.mkdtemp(prefix="report-check-png-")
    img, height = None, PROBE_HEIGHTS[0]
    try:
        for height in PROBE_HEIGHTS:
            img = None
            probe = os.path.join(tmp, "probe.png")
            rc, out, err, secs, argv = run_chromium(binary, ["--window-size=%d,%d" % (WIDTH, height),
                                                             "--screenshot=" + probe], page_uri)
            collect(err)
            if rc != 0 or not os.path.isfile(probe):
                check("run screenshot", False, "exit %s after %.1f s, %s; stderr tail: %s" % (
                    "timeout" if rc is None else rc, secs, "PNG written" if os.path.isfile(probe) else "no PNG",
                    err.strip().splitlines()[-1:] or "-"))
                break
            with open(probe, "rb") as f:
                data = f.read()
            try:
                img = png_decode(data)
            except (ValueError, zlib.error, struct.error) as e:
                img = None
                check("run screenshot", True, "1280x%d window, exit 0, %.1f s" % (height, secs))
                check("png", False, "Chromium's PNG does not decode: %s" % e)
                break
            bottom = content_bottom(img[3])
            if bottom < img[1] - 1 - MARGIN or height == PROBE_HEIGHTS[-1]:
                cut = " (content reaches the bottom: cut at %d rows)" % height if bottom >= img[1] - 1 - MARGIN else ""
                check("run screenshot", True, "1280x%d window, exit 0, %.1f s, %s%s" % (
                    height, secs, "content ends at row %d" % bottom if bottom >= 0 else "no content at all", cut))
                break
        if img is not None:
            w, h, ch, rows, counts = img
            keep = max(1, min(h, content_bottom(rows) + 1 + MARGIN))
            with open(shot, "wb") as f:
                f.write(png_encode(w, ch, rows[:keep]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if img is not None:
        try:
            with open(shot, "rb") as f:
                w, h, ch, rows, counts = png_decode(f.read())
            names = ("none", "sub", "up", "average", "paeth")
            check("png", True, "%s %dx%d, %d channels, decodes (Chromium's own PNG used row filters: %s)" % (
                shot, w, h, ch, ", ".join("%s %d" % (names[i], c) for i, c in enumerate(img[4]) if c)))
            bg = background(w, h, ch, rows)
            ink, inkrows = ink_count(rows, w, ch, bg)
            share = ink / float(w * h)
            check("not-blank", share >= MIN_INK, "%.2f%% non-background pixels (%d of %d; background "
                  "#%02x%02x%02x; %d of %d rows have some; minimum %.1f%%)" % (
                      100 * share, ink, w * h, bg[0], bg[1], bg[2], inkrows, h, 100 * MIN_INK))
        except (OSError, ValueError, zlib.error, struct.error) as e:
            check("png", False, "%s does not decode: %s" % (shot, e))
    elif not any(n == "png" for n, _ in results):
        check("png", False, "no screenshot taken")

    # run 2: the DOM after load
    rc, out, err, secs, argv = run_chromium(binary, ["--window-size=%d,%d" % (WIDTH, height), "--dump-dom"],
                                            page_uri)
    collect(err)
    dom = out.decode("utf-8", "replace")
    if check("run dom", rc == 0 and "<html" in dom.lower(), "exit %s after %.1f s, %d bytes of DOM" % (
            "timeout" if rc is None else rc, secs, len(out))):
        tb = TreeBuilder()
        tb.feed(dom)
        tb.close()
        check_dom(tb.root, page_uri)

    detail = "%d message(s) from the page in %d runs (%d lines of Chromium's own log ignored)" % (
        len(all_msgs), nruns, noise)
    for (text, source, line), seen in list(all_msgs.items())[:10]:
        kind = "uncaught exception" if text.startswith("Uncaught") else "console message"
        detail += "\n       %s: %s [%s:%s, %d run(s)]" % (kind, text.replace("\n", "\\n")[:200], source, line, seen)
    check("console", not all_msgs, detail)
    if fatal:
        check("chromium log", False, "FATAL: " + fatal[0])
    failed = [n for n, ok in results if not ok]
    print("%d checks, %d failed%s" % (len(results), len(failed), (": " + ", ".join(failed)) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
