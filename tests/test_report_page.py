"""The HTML report: sections, escaping, masking, an empty store, and a real browser render."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from contextward.compaction import capture, check_summary
from contextward.guard.evidence import run_verified
from contextward.inspect import Message
from contextward.report import Bar, bar_chart, gather, render_report, render_summary
from contextward.state import StateProject, checkpoint, record_decision
from contextward.store import Store

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
CONVERSATION = [
    Message("u1", "user", "Goal: ship OAuth login for the billing service."),
    Message("u2", "user", "Never push to main; open a PR instead."),
    Message("a1", "assistant", "Decision: store OAuth links in PostgreSQL, table oauth_accounts."),
]
# Keeps the goal, changes the constraint, drops the decision.
SUMMARY = (
    "Goal: ship OAuth login for the billing service. Pushing to main is fine; open a PR later."
)


def build_project(root: Path) -> Store:
    """A project with state, decisions, evidence, a failing streak and a checked compaction."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    store = Store.open(root)
    project = StateProject.open(root)
    checkpoint(
        {
            "focus": "OAuth <login> & sessions",
            "phase": "implementing",
            "next": "fix the callback",
            "blockers": f"token {SECRET} was pasted in chat",
        },
        project=project,
    )
    record_decision("Store OAuth links in PostgreSQL.", project=project)
    record_decision("Redis for sessions.", rejected=True, why="writes failed", project=project)
    store.journal.add("decision", "Use <script>alert(1)</script> tags", provenance="agent")
    run_verified(store, "true", cwd=root)
    for _ in range(2):
        run_verified(store, "exit 3", cwd=root)
    capture(store, CONVERSATION, session_id="s", root=root)
    check_summary(store, SUMMARY, session_id="s")
    return store


def section(page: str, anchor: str) -> str:
    start = page.index(f'<section id="{anchor}">')
    return page[start : page.index("</section>", start)]


@pytest.fixture
def project(tmp_path: Path) -> tuple[Store, Path]:
    root = tmp_path / "demo-project"
    root.mkdir()
    return build_project(root), root


def test_every_section_is_present_with_the_records(project: tuple[Store, Path]) -> None:
    store, root = project
    page = render_report(store, root)
    for anchor in ("overview", "state", "compaction", "decisions", "evidence", "loops"):
        assert f'<section id="{anchor}">' in page
    assert "<dt>phase</dt><dd>implementing</dd>" in page
    assert "Store OAuth links in PostgreSQL." in page
    assert "Redis for sessions. — writes failed" in page
    assert "agent, unverified" in page
    assert section(page, "evidence").count("<code>exit 3</code>") == 2
    assert section(page, "loops").count("<code>exit 3</code>") == 1
    assert "demo-project" in page


def test_the_compaction_check_shows_preserved_changed_lost_and_restored(
    project: tuple[Store, Path],
) -> None:
    store, root = project
    check = gather(store, root).compaction
    assert check is not None and check.checked
    statuses = {item.content: (item.status, item.restored) for item in check.items}
    assert statuses["Goal: ship OAuth login for the billing service."] == ("preserved", False)
    assert statuses["Never push to main; open a PR instead."] == ("changed", True)
    assert statuses["Decision: store OAuth links in PostgreSQL, table oauth_accounts."] == (
        "lost",
        True,
    )
    compaction = section(render_report(store, root), "compaction")
    assert "<svg" in compaction and "snapshot items by check status" in compaction
    assert ">restored</span>" in compaction


def test_text_is_escaped_and_secrets_are_masked(project: tuple[Store, Path]) -> None:
    store, root = project
    page = render_report(store, root)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "OAuth &lt;login&gt; &amp; sessions" in page
    assert SECRET not in page
    assert "[secret:github-token]" in page
    assert SECRET not in render_summary(gather(store, root))


def test_the_page_is_self_contained(project: tuple[Store, Path]) -> None:
    page = render_report(*project)
    assert re.search(r"<(script|link|img|iframe|object)\b", page) is None
    assert re.search(r"""(src|href)\s*=|url\(|@import""", page) is None
    # The SVG namespace is an identifier, not a resource: the only URL in the page.
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}


def test_an_empty_store_renders_every_section_as_nothing_yet(tmp_path: Path) -> None:
    with Store.memory() as store:
        page = render_report(store, None)
        report = gather(store, None)
    assert "No current state recorded yet" in page
    assert "No decisions recorded yet." in page
    assert "No command evidence recorded yet" in page
    assert "No open streaks" in page
    assert "No compaction recorded yet" in page
    assert render_summary(report).splitlines()[-1] == "last compaction: none recorded"


def test_decisions_of_one_day_are_listed_newest_first(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    project = StateProject.open(tmp_path)
    for text in ("first decision (oldest)", "second decision", "third decision (newest)"):
        record_decision(text, project=project)
    with Store.open(tmp_path) as store:
        store.journal.add("decision", "an agent decision", provenance="agent")
        store.journal.add("decision", "a later agent decision", provenance="agent")
        report = gather(store, tmp_path)
    # STATE.md dates to the day, the journal to the second: each source newest first.
    state = [d.text for d in report.decisions if d.source == "STATE.md"]
    journal = [d.text for d in report.decisions if d.source == "journal"]
    assert state == ["third decision (newest)", "second decision", "first decision (oldest)"]
    assert journal == ["a later agent decision", "an agent decision"]


def test_a_superseded_decision_stays_on_the_timeline_marked(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    project = StateProject.open(tmp_path)
    record_decision("Use PostgreSQL for the primary datastore", project=project)
    record_decision("Use MySQL for the primary datastore", project=project)
    with Store.open(tmp_path) as store:
        page = section(render_report(store, tmp_path), "decisions")
    items = re.findall(
        r'<li class="([^"]*)"><div class="when">[^<]*· (\w+) ·[^<]*</div>([^<]*)', page
    )
    assert [(cls, label, text) for cls, label, text in items] == [
        ("", "decision", "Use MySQL for the primary datastore"),
        ("superseded", "superseded", "Use PostgreSQL for the primary datastore"),
    ]


def test_the_loop_streak_counts_the_failures_against_the_threshold(
    project: tuple[Store, Path],
) -> None:
    store, root = project
    (streak,) = gather(store, root).loops
    assert (streak.streak_key, streak.failures, streak.threshold) == ("exit 3", 2, 3)
    assert streak.blocked
    page = render_report(store, root)
    assert ">refused</span>" in page
    # The row shows "2 / 3 · refused": the caption names the same two failures.
    assert "a command is refused after 2 identical failures" in section(page, "loops")


def test_a_streak_of_unproven_runs_is_never_called_failures(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Store.open(tmp_path) as store:
        for _ in range(2):
            run_verified(store, "true | cat", cwd=tmp_path)  # exit 0, proves nothing
        loops = section(render_report(store, tmp_path), "loops")
    assert "failure" not in loops
    assert "a command is refused after 2 identical runs that could not be proven" in loops
    row = re.findall(r"<tr><td><code>([^<]*)</code></td>((?:<td[^>]*>[^<]*</td>){2})", loops)
    assert row == [("true | cat", '<td class="num">0</td><td class="num">2</td>')]


def test_a_snapshot_without_a_check_is_shown_unchecked_and_restored(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with Store.open(tmp_path) as store:
        capture(store, CONVERSATION, session_id="s", root=tmp_path)
        check = gather(store, tmp_path).compaction
        page = render_report(store, tmp_path)
    assert check is not None and not check.checked
    assert {i.status for i in check.items} == {"unchecked"}
    assert check.restored == sum(i.critical for i in check.items) > 0
    assert "no check ran, so every critical item is restored" in page


def test_bars_scale_to_the_maximum_and_escape_labels() -> None:
    svg = bar_chart(
        [Bar("a<b", 5, "#000"), Bar("zero", 0, "#000"), Bar("tiny", 0.001, "#000")],
        title="t&t",
        maximum=10,
    )
    widths = re.findall(r'<rect x="150" y="\d+" width="([\d.]+)" height="14" fill="#000"', svg)
    assert widths == ["130.0", "0.0", "2.0"]
    assert "a&lt;b" in svg and "<title>t&amp;t</title>" in svg


# ---------------------------------------------------------------- the page in a real browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the pixel rows of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, "unsupported PNG layout"
    size = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * size
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        kind, row = line[0], bytearray(line[1:])
        for x in range(stride):
            left = row[x - size] if x >= size else 0
            up = previous[x]
            corner = previous[x - size] if x >= size else 0
            if kind == 1:
                row[x] = (row[x] + left) & 0xFF
            elif kind == 2:
                row[x] = (row[x] + up) & 0xFF
            elif kind == 3:
                row[x] = (row[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                row[x] = (row[x] + pred) & 0xFF
        rows.append(bytes(b for i in range(0, stride, size) for b in row[i : i + 3]))
        previous = row
    return width, height, rows


def test_png_reader_decodes_a_known_image() -> None:
    # 2x1 RGB: red, green; filter 1 (Sub) on the row.
    raw = b"\x01" + bytes([255, 0, 0, 1, 255, 0])
    chunk = lambda kind, body: (  # noqa: E731
        struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    )
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )
    assert png_pixels(png) == (2, 1, [bytes([255, 0, 0, 0, 255, 0])])


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_the_page_renders_in_headless_chromium(project: tuple[Store, Path], tmp_path: Path) -> None:
    assert CHROMIUM is not None
    page = tmp_path / "report.html"
    page.write_text(render_report(*project), encoding="utf-8")
    shot = tmp_path / "report.png"
    subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1100,1400",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    width, height, rows = png_pixels(shot.read_bytes())
    assert (width, height) == (1100, 1400)
    colours = {row[i : i + 3] for row in rows[::4] for i in range(0, len(row), 12)}
    # A blank or error page has a handful of colours; text, tags and bars give hundreds.
    assert len(colours) > 50
    # The header band (dark blue) and the green "preserved" bars are drawn.
    assert bytes([0x1F, 0x2A, 0x44]) in colours
    assert bytes([0x2F, 0x9E, 0x44]) in colours
