"""Laying out the cards, quickly and the same. Balancing composes the deck thousands of times with the caps of a few
cards changed; `composed` takes what does not change from the plan (`like`). These decks are made up, so that splits,
sections, cards that start a run and items that run on all come up; each composition taken in part must equal the deck
composed whole. An item laid out again is given to WeasyPrint without the others (`only_these`)."""

from __future__ import annotations

import itertools
import random

import pytest

from generator.render.aids import aid_compose
from generator.render.aids.aid_compose import BALANCE_CARDS, BALANCE_HEIGHTS, Break, ItemPieces, Piece, card_faces, composed, face_share
from generator.render.aids.cards import FULL_FACE

pytestmark = pytest.mark.unit
ROOM = 400.0


def piece(height: float) -> Piece:
    return Piece("items", 0, 0.0, 200.0, height, 4.0, 6.0)


def made_up_deck(seed: int) -> list[ItemPieces]:
    """A deck of 6 to 24 items in up to three sections: short and long ones, some that may split, some that run on
    over two cards or begin a card."""
    rng = random.Random(seed)
    items = []
    for number in range(rng.randint(6, 24)):
        height = rng.choice([rng.uniform(20, 120), rng.uniform(120, 380)])
        item = ItemPieces(section=min(2, number // 8), title=f"item {number}", colour="#000", pages=[piece(height)])
        if rng.random() < 0.4:  # it may split: at a few places, its title again above the rest
            item.title_more = piece(14.0)
            item.breaks = [Break(piece(height * share), piece(height * (1 - share) + 10), "", within=rng.random() < 0.5) for share in (0.3, 0.5, 0.7)]
        elif rng.random() < 0.1:
            item.pages = [piece(ROOM - 10), piece(rng.uniform(30, 200))]  # it runs on
        item.starts_card = rng.random() < 0.08
        items.append(item)
    return items


def same_faces(one: list[list[tuple[int, Piece]]], other: list[list[tuple[int, Piece]]]) -> bool:
    return len(one) == len(other) and all(aid_compose.same_card((0, a), (0, b)) for a, b in zip(one, other, strict=True))


@pytest.mark.parametrize("seed", range(40))
def test_a_deck_composed_in_part_is_the_deck_composed_whole(seed: int):
    items, bands = made_up_deck(seed), [piece(18.0) for _ in range(3)]
    plan = composed(items, ROOM, bands)
    assert same_faces(plan.faces, card_faces(items, ROOM, bands))
    rng, compared = random.Random(seed), 0
    for card in range(1, len(plan.faces)):
        for changed in range(1, min(BALANCE_CARDS, card) + 1):
            for _ in range(6):
                tried = {card - 1 - k: ROOM * rng.choice(BALANCE_HEIGHTS) for k in range(changed)}
                in_part = composed(items, ROOM, bands, (), tried, like=plan, changed=(card - changed, card - 1))
                assert same_faces(in_part.faces, card_faces(items, ROOM, bands, (), tried)), (card, tried)
                compared += 1
    assert compared > 0 or len(plan.faces) == 1


def balanced_whole(items: list[ItemPieces], bands: list[Piece]) -> list[list[tuple[int, Piece]]]:
    """`balanced_faces` as it was written first: every arrangement composes the whole deck."""
    caps: dict[int, float] = {}
    faces = card_faces(items, ROOM, bands)
    for card in range(1, len(faces)):
        best, chosen = face_share(faces[card], ROOM), caps
        full = [number for number, face in enumerate(faces) if face_share(face, ROOM) >= FULL_FACE]
        for changed in range(1, min(BALANCE_CARDS, card) + 1):
            for heights in itertools.product(BALANCE_HEIGHTS, repeat=changed) if best < FULL_FACE else ():
                tried = {**caps, **{card - 1 - k: ROOM * height for k, height in enumerate(heights)}}
                again = card_faces(items, ROOM, bands, (), tried)
                shares = [face_share(face, ROOM) for face in again]
                if len(again) == len(faces) and all(shares[n] >= FULL_FACE for n in full) and min(shares[card - changed : card + 1]) > best:
                    best, chosen = min(shares[card - changed : card + 1]), tried
        if chosen is not caps:
            caps = chosen
            faces = card_faces(items, ROOM, bands, (), caps)
    return faces


@pytest.mark.parametrize("seed", [4, 11, 19, 20])  # decks whose balanced cards differ from the greedy ones, balanced in a second
def test_balancing_chooses_what_composing_every_arrangement_whole_chooses(seed: int):
    items, bands = made_up_deck(seed), [piece(18.0) for _ in range(3)]
    assert not same_faces(aid_compose.balanced_faces(items, ROOM, bands), card_faces(items, ROOM, bands))
    assert same_faces(aid_compose.balanced_faces(items, ROOM, bands), balanced_whole(items, bands))


CARDS_HTML = """<html><head><style>
.item[id="x"] { color: red; }  /* <div class="item" id="not-an-item"> in a style is text */
</style></head><body>
<section style="--colour: #000">
<div class="item" id="first"><h3>First</h3><p>a line\u2028separator, a next\x85line</p>
<div class="table-wrap"><table><tr><td>1</td></tr></table></div></div>
<div class="item faction" id="a&amp;b"><h3>A &amp; B</h3><p>&lt;/div&gt; as text</p><div><div>deep</div></div></div>
</section>
<section style="--colour: #111">
<div class="item" id="last"><h3>Last</h3></div>
</section>
</body></html>"""


def test_an_item_laid_out_again_is_given_without_the_others_and_first_on_its_page():
    """aid_layout.only_these: the items not asked for are left out of the HTML (WeasyPrint then styles only the others),
    each whole with the elements it holds, and the first item asked for begins the first page. Lines are counted as the
    HTML parser counts them (a line separator in an item's text is no new line to it)."""
    from generator.render.aids.aid_layout import ItemSpans, only_these

    spans = ItemSpans(CARDS_HTML).spans
    assert list(spans) == ["first", "a&b", "last"]  # ids as the browser reads them
    assert all(CARDS_HTML[start:end].startswith('<div class="item') and CARDS_HTML[start:end].endswith("</div>") for start, end in spans.values())
    assert CARDS_HTML[slice(*spans["a&b"])].endswith("<div><div>deep</div></div></div>")
    html = only_these(CARDS_HTML, ["a&b", "last"], style=".extra { }\n")
    assert 'id="first"' not in html and "table-wrap" not in html
    assert 'id="a&amp;b"' in html and "deep" in html and 'id="last"' in html and html.count("</section>") == 2
    assert '.extra { }\n.item[id="a\\000026 b"] { break-before: auto; }\n</style>' in html
    assert 'id="not-an-item"' in html  # the style's text is not an item


def test_a_footer_naming_a_page_is_laid_out_once_for_the_page_and_every_card_from_it_uses_it():
    """cards.footer_refs marks the items whose page an item before them is on; their cards' footers that name the page
    (`card-foot-page-N`, `card-foot-more-N`) are the first such item's (aid_compose.card_footer)."""
    from generator.render.aids.aid_compose import card_footer
    from generator.render.aids.cards import footer_refs

    refs = ["en/g/10-a.html#x", "en/g/20-b.html#y", "en/g/10-a.html#z", "en/g/10-a.html#w", "en/g/10-a.html#v · en/g/20-b.html#u"]
    assert [shared for _, _, shared in footer_refs(refs)] == [False, False, True, True, False]
    items = [ItemPieces(0, ref, "#000", [piece(50.0)], site_page=page) for ref, page, _ in footer_refs(refs)]
    assert card_footer(items, [(2, items[2].pages[0]), (3, items[3].pages[0])]) == "card-foot-page-0"  # both on 10-a, laid out with item 0
    assert card_footer(items, [(3, items[3].pages[0]), (1, items[1].pages[0])]) == "card-foot-more-0"
    assert card_footer(items, [(4, items[4].pages[0]), (1, items[1].pages[0])]) == "card-foot-more-4"  # several places: its own
    assert card_footer(items, [(2, items[2].pages[0])]) == "card-foot-2"
