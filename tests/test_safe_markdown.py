"""The one path from data Markdown to HTML: what it allows, what it refuses, and that validate hears of it (the command's
run: tests/test_validate.py, in the integration lane)."""

from __future__ import annotations

import re

import pytest
from hostile import PAYLOADS

from generator.base.safe_markdown import Linker, paragraph_letter, refusal, refused_destinations, render

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "destination",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:x",
        "java\tscript:x",
        "\x01javascript:x",
        "data:text/html,<b>",
        "file:///etc/passwd",
        "http://127.0.0.1/x",
        "vbscript:x",
        "//evil.example/x",
        "\\\\evil/x",
        "mailto:a@b.c",
    ],
)
def test_refused_destinations(destination):
    assert refusal(destination) is not None


@pytest.mark.parametrize(
    "destination", ["https://example.org/x", "../other/page.html#anchor", "page.html", "#anchor", "glossary.html#term-x", "HTTPS://example.org"]
)
def test_allowed_destinations(destination):
    assert refusal(destination) is None


@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_payload_leaves_a_tag_or_a_dangerous_url(payload):
    html = render(payload)
    for needle in (
        "<script",
        "<img",
        "<svg",
        "<iframe",
        "<details",
        "<object",
        "<meta",
        "<math",
        '<a href="javascript',
        'onerror="',
        'onfocus="',
        "<style",
        'href="data:',
        'src="javascript',
    ):
        assert needle not in html.lower(), (payload, html)


def test_plain_text_is_kept_and_escaped():
    assert render("<b>bold</b> & **strong**") == "<p>&lt;b&gt;bold&lt;/b&gt; &amp; <strong>strong</strong></p>\n"


def test_references_and_terms_become_links_with_computed_hrefs():
    linker = Linker(
        reference_href=lambda ref: f"{ref.split('/')[1]}.html",
        reference_label=lambda ref: "Title <x>",
        find_terms=lambda text: [(m, m + 7, "retreat") for m in [text.find("retreat")] if m >= 0],
        term_href=lambda term: f"glossary.html#term-{term}",
    )
    html = render("See [[g/setup]] and [[g/battle|the battle]]; a retreat, another retreat.", linker)
    assert '<a href="setup.html">Title &lt;x&gt;</a>' in html
    assert '<a href="battle.html">the battle</a>' in html
    assert html.count('class="kb-term"') == 1  # the first mention only
    assert linker.linked_terms == {"retreat"}


def test_each_paragraph_and_top_level_bullet_gets_an_id_and_a_number_linking_to_it():
    linker = Linker(reference_href=lambda ref: None, reference_label=lambda ref: ref, paragraphs=("retreat", "20.3"))
    html = render("First <b>paragraph</b>.\n\n- one\n- two\n  - nested, not numbered\n\nLast.", linker)
    ids = re.findall(r'<(p|li) id="([^"]+)"', html)
    assert ids == [("p", "retreat-a"), ("li", "retreat-b"), ("li", "retreat-c"), ("p", "retreat-d")]
    for letter in "abcd":
        assert f'<a class="kb-para" href="#retreat-{letter}">20.3{letter}</a>' in html
    assert html.count('class="kb-para"') == 4 and "&lt;b&gt;" in html  # the data's text still escaped
    assert 'id="' not in render("First paragraph.", Linker(reference_href=lambda ref: None, reference_label=lambda ref: ref))
    assert [paragraph_letter(n) for n in (0, 25, 26, 27)] == ["a", "z", "aa", "ab"]


def test_a_reference_resolving_to_a_refused_url_is_text():
    linker = Linker(reference_href=lambda ref: "javascript:x", reference_label=lambda ref: "label")
    assert render("[[g/x]]", linker) == "<p>label</p>\n"
    assert linker.refused and "javascript" in linker.refused[0]


def test_refused_destinations_are_listed_with_their_reason():
    text = "[a](javascript:x) [b][r] ![c](file:///etc/passwd) [ok](https://example.org)\n\n[r]: data:text/html,x"
    refused = refused_destinations(text)
    assert len(refused) == 3 and all("not allowed" in r for r in refused)


def test_english_quoted_in_another_language_is_marked_for_screen_readers():
    linker = Linker(reference_href=lambda ref: None, reference_label=lambda ref: ref, language="pl")
    html = render("Po angielsku piszemy „the upgrade card of Slaanesh's Daemonettes”, a nie „Kości”.", linker)
    assert '„<span lang="en">the upgrade card of Slaanesh\'s Daemonettes</span>”' in html
    assert "Kości" in html and html.count("<span") == 1  # a Polish word in quotes stays Polish
    english = Linker(reference_href=lambda ref: None, reference_label=lambda ref: ref, language="en")
    assert "<span" not in render("We write “the card of the god” here.", english)
