"""The layout of the pages in a real browser, as a stranger reported it broken: on a desktop
screen a table's headings stand over their own columns; on a phone nothing runs past the edge
of the screen or of its card. Saves var/screenshots/layout-*.png."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from renamerd.service.accounts import Accounts
from renamerd.service.credits import Credits
from renamerd.storage.models import ApiToken, Job, utcnow
from web.conftest import Live, sign_in_page
from web.test_browser import shot

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]
LONG_NAME = "2024-04-01_Deutsche_Telekom_Geschaeftskunden_GmbH_invoice_RE2024040100077.pdf"

#: for each table.stack of the page: per column, the heading's x-range and its cells' x-ranges
COLUMNS_JS = """() => [...document.querySelectorAll('table.stack')].map(table => {
  const heads = [...table.querySelectorAll('thead th')];
  const rows = [...table.querySelectorAll('tbody tr')];
  const range = el => { const r = el.getBoundingClientRect(); return [r.left, r.right]; };
  return {
    caption: (table.closest('section')?.querySelector('h2')?.textContent || '').trim(),
    columns: heads.map((th, i) => ({
      heading: th.textContent.trim() || `(column ${i + 1})`, head: range(th),
      cells: rows.map(tr => tr.children[i]).filter(Boolean).map(range)})),
  };
})"""


def _misplaced(page: Any) -> list[str]:
    """Each heading whose x-range does not overlap (most of) its column's cells, in words."""
    wrong = []
    for table in page.evaluate(COLUMNS_JS):
        for col in table["columns"]:
            left, right = col["head"]
            for cell_left, cell_right in col["cells"]:
                overlap = min(right, cell_right) - max(left, cell_left)
                if overlap < 0.5 * min(right - left, cell_right - cell_left):
                    wrong.append(f"{table['caption']}: {col['heading']} at {left:.0f}-{right:.0f}"
                                 f" over a cell at {cell_left:.0f}-{cell_right:.0f}")
                    break
    return wrong


@pytest.fixture
def live_with_rows(make_live: Callable[..., Live]) -> Live:
    """A live app whose tables all have rows: ada (admin) with tokens (one expired), credit
    charges, lots, her inbox connection; bob for the users' table."""
    live = make_live(daemon=False)
    ada = live.user("ada@example.org", admin=True)
    live.user("bob@example.org")
    accounts = Accounts(live.db, live.settings)
    accounts.create_token("ada@example.org", "scanner script")
    old, _ = accounts.create_token("ada@example.org", "old laptop", timedelta(days=1))
    with live.db.write_session() as s:
        row = s.get(ApiToken, old.id)
        assert row is not None
        row.expires_at = utcnow() - timedelta(days=2)
    with live.db.write_session() as s:  # documents renamed under a long name, one moved back
        for file_id, state in (("f1", "undone"), ("f2", "done")):
            s.add(Job(connection="inbox", owner_id=ada.id, file_id=file_id, revision="1",
                      source_path=f"/inbox/scan_{file_id}.pdf", name=f"scan_{file_id}.pdf",
                      state=state, planned_folder="/library/2024", planned_name=LONG_NAME,
                      dest_path=f"/library/2024/{LONG_NAME}"))
    credits = Credits(live.db)
    for ref in ("req:bd2c0a1d6be547acb8d2f1e0c3a4b5d6", "job:12"):
        credits.reserve(ada.id, ref)
        credits.commit(ada.id, ref)
    return live


def test_table_headings_stand_over_their_columns_on_a_desktop(
        live_with_rows: Live, new_page: Callable[[], Any]) -> None:
    live = live_with_rows
    page = sign_in_page(new_page(), live.url, "ada@example.org")
    page.set_viewport_size({"width": 1280, "height": 800})
    for path, tables in (("/", 3), ("/tokens", 1), ("/connections", 1), ("/admin", 2)):
        page.goto(live.url + path)
        found = page.evaluate(COLUMNS_JS)
        assert len(found) == tables and all(t["columns"] and t["columns"][0]["cells"]
                                            for t in found), (path, found)
        assert _misplaced(page) == [], path
        shot(page, f"layout{path.replace('/', '-').rstrip('-') or '-overview'}")


def test_no_band_behind_the_account_cards(signed_in_page: tuple[Live, Any]) -> None:
    """The cards' wrapper of the Account page is no header: no background, no border (it once
    shared the header's class `top` and drew a white band with a line under it)."""
    live, page = signed_in_page
    page.goto(live.url + "/account")
    wrapper = page.locator("main .grid").first
    style = wrapper.evaluate("e => { const s = getComputedStyle(e); return "
                             "[s.backgroundColor, s.borderBottomWidth]; }")
    assert style == ["rgba(0, 0, 0, 0)", "0px"], style
    shot(page, "layout-account")


def _overflowing(page: Any) -> list[str]:
    """Elements of the page's cards whose right edge is past their card's (or the screen's)."""
    return page.evaluate("""() => {
      const out = [];
      for (const card of document.querySelectorAll('main .card, main .secret')) {
        const edge = Math.min(card.getBoundingClientRect().right, window.innerWidth);
        for (const el of card.querySelectorAll('td, code, a, span')) {
          if (el.closest('thead, .visually-hidden')) continue;  // clipped: not seen
          const r = el.getBoundingClientRect();
          if (r.width && r.right > edge + 1)
            out.push(`${el.tagName} ${el.textContent.trim().slice(0, 40)}: ` +
                     `${r.right.toFixed(0)} > ${edge.toFixed(0)}`);
        }
      }
      return out;
    }""")


def test_nothing_runs_past_a_phone_screen(live_with_rows: Live,
                                          new_page: Callable[[], Any]) -> None:
    """At 390 px: a new token wraps inside its box; the Overview's credit changes say what
    they were for in words ("API rename", a link to the job) instead of the raw key, and no
    value runs past its card; the page never scrolls sideways."""
    live = live_with_rows
    page = sign_in_page(new_page(), live.url, "ada@example.org")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live.url + "/tokens")
    page.get_by_label("Label").fill("phone")
    page.get_by_role("button", name="Create token").click()
    token = page.locator("#new-token")
    assert token.inner_text().startswith("rt_")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert _overflowing(page) == []
    shot(page, "layout-mobile-tokens")

    page.goto(live.url + "/")
    changes = page.locator("section", has=page.get_by_role("heading",
                                                           name="Latest credit changes"))
    assert "req:" not in changes.inner_text() and "job:" not in changes.inner_text()
    assert changes.get_by_text("API rename").count() == 1
    job = changes.get_by_role("link", name="job 12")
    assert job.get_attribute("href") == "/jobs/12"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert _overflowing(page) == []
    shot(page, "layout-mobile-overview")

    # a job's page is titled by the file's name now (moved back: the original), which wraps
    for job, title in ((1, "scan_f1.pdf"), (2, LONG_NAME)):
        page.goto(f"{live.url}/jobs/{job}")
        assert page.locator("h1").inner_text() == title
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert _overflowing(page) == []
        shot(page, f"layout-mobile-job-{job}")


def test_the_connection_form_checkboxes_sit_beside_their_labels(
        make_live: Callable[..., Live], new_page: Callable[[], Any]) -> None:
    """Dry run and Paused: each checkbox on its label's line, before it (not on a line of its
    own above it); at 1280 and 390 px. The notes under Instructions after a save."""
    from cryptography.fernet import Fernet

    from renamerd.service.connections import Connections, Fields

    live = make_live(daemon=False, connections=[],
                     providers={"gdrive": {"client_id": "c", "client_secret": "s"}},
                     secrets={"key": Fernet.generate_key().decode()})
    ada = live.user("ada@example.org")
    row = Connections(live.db, live.settings).create(ada.id, "gdrive", Fields.check(
        {"watch": "/Scans", "target": "/Documents"}))
    page = sign_in_page(new_page(), live.url, "ada@example.org")
    page.goto(f"{live.url}/connections/{row.name}")
    page.get_by_label("Instructions").fill("Use format YYYY-MM-DD - Company. "
                                           "frobnicate everything")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"{live.url}/connections/{row.name}")
    assert "frobnicate" in page.locator("#instr-notes").inner_text()
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for name in ("dry_run", "paused"):
            box = page.locator(f"#{name}").bounding_box()
            label = page.locator(f"label[for={name}]").bounding_box()
            assert box and label
            assert abs((box["y"] + box["height"] / 2) - (label["y"] + label["height"] / 2)) < 8
            assert box["x"] + box["width"] <= label["x"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"layout-connection-{width}")
