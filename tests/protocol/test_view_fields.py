"""The view's one table of fields (`VIEW_FIELDS`, arena/protocol/view.py) against protocol.md
section 6's table of them: the same fields in the same order. The fields are read from the
document, so the document and the codec cannot drift apart unseen (as tests/test_architecture.py
does with docs/architecture.md's layers)."""

from __future__ import annotations

import re
from pathlib import Path

from arena.game.view import SeatView
from arena.protocol.view import VIEW_FIELDS

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "protocol.md"


def documented_view_fields(text: str) -> list[str]:
    """The first cell of each row of section 6's table (`| `name` | value | meaning |`), in order."""
    section = text.split("\n## 6. ", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)


def test_protocol_md_section_6_lists_exactly_the_view_fields_in_wire_order() -> None:
    documented = documented_view_fields(PROTOCOL_MD.read_text(encoding="utf-8"))
    assert len(documented) >= 20, "protocol.md section 6's table of the view was not found or lost its rows"
    assert documented == [field.name for field in VIEW_FIELDS]


def test_every_seat_view_attribute_travels_in_exactly_one_field() -> None:
    # to_act is not sent: a request goes to the seat to act, so it is `seat`.
    carried = [field.attribute for field in VIEW_FIELDS]
    assert sorted(carried) == sorted(name for name in SeatView._fields if name != "to_act")
    assert len({field.name for field in VIEW_FIELDS}) == len(VIEW_FIELDS)


def test_a_missing_or_moved_row_is_caught() -> None:
    # Deliberately changed documents: the reading must see the change, not only pass on the real one.
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    names = documented_view_fields(text)
    row = re.search(r"^\| `tricksize` \|.*\n", text, flags=re.MULTILINE)
    assert row is not None
    without = text.replace(row.group(0), "")
    assert documented_view_fields(without) == [name for name in names if name != "tricksize"]
    moved = without.replace("\n| `phase` |", "\n" + row.group(0) + "| `phase` |", 1)
    assert documented_view_fields(moved) == ["tricksize"] + [name for name in names if name != "tricksize"]
