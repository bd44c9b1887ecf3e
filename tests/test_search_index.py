"""The search index's invariants on the bundled data: shards within their cap and in word order,
every word in the shard a query loads, heads holding each word's best documents; and the Python
replay of kb-search.js finding the entries a player looks for, within the download budget."""
from __future__ import annotations

import pytest
from conftest import REPO

from generator.resolve import resolve
from generator.search import (
    HEAD_POSTINGS,
    MAX_SHARD_BYTES,
    RESULTS,
    SearchIndex,
    decode_head,
    decode_numbers,
    encode_numbers,
    index_files,
    payload_of,
    quality,
    replay,
    shards_for,
    utf16,
    word_weights,
)
from generator.validate import load_valid

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def bundled():
    """(SearchIndex, {lang: {file name: content}}) of the bundled data."""
    index = SearchIndex(resolve(load_valid(REPO / "data")))
    return index, {lang: index.build(lang) for lang in index.r.languages.codes}


def shards_of(files: dict[str, str]) -> list[dict[str, str]]:
    meta = payload_of(files["meta.js"])
    return [payload_of(files[f"s-{n}.js"]) for n in range(len(meta["shards"]))]


def fetcher(files: dict[str, str], fetched: list[str]):
    def fetch(name: str):
        fetched.append(name)
        return payload_of(files[name])
    return fetch


def test_shards_are_within_the_cap_and_cover_sorted_word_ranges(bundled):
    for lang, files in bundled[1].items():
        firsts = payload_of(files["meta.js"])["shards"]
        assert len(firsts) > 1, lang  # the data is big enough to need several shards
        assert sorted(n for n in files if n.startswith("s-")) == sorted(f"s-{n}.js" for n in range(len(firsts)))
        for n, shard in enumerate(shards_of(files)):
            assert len(files[f"s-{n}.js"].encode("utf-8")) <= MAX_SHARD_BYTES
            words = list(shard)
            assert words[0] == firsts[n]
            assert [utf16(w) for w in words] == sorted(utf16(w) for w in words)
            if n + 1 < len(firsts):
                assert utf16(words[-1]) < utf16(firsts[n + 1])


def test_a_query_loads_every_shard_holding_a_word_it_matches(bundled):
    for lang, files in bundled[1].items():
        firsts = payload_of(files["meta.js"])["shards"]
        shard_of = {word: n for n, shard in enumerate(shards_of(files)) for word in shard}
        for word, n in shard_of.items():
            assert n in shards_for(firsts, word), (lang, word)
            # shortened and misspelt queries that still match the word: its shard is loaded too
            for query in {word[:k] for k in range(3, len(word))} | {word[:-1] + "x", word[:4] + "zzz"}:
                if quality(query, word):
                    assert n in shards_for(firsts, query), (lang, query, word)


def test_heads_hold_each_words_best_documents_in_weight_order(bundled):
    index, built = bundled
    truncated = 0
    for lang, files in built.items():
        postings: dict[str, list[tuple[int, int]]] = {}
        for number, doc in enumerate(index.documents(lang)):
            for word, weight in word_weights(doc["fields"], index.folding).items():
                postings.setdefault(word, []).append((-weight, number))
        heads = {word: head for shard in shards_of(files) for word, head in shard.items()}
        assert heads.keys() == postings.keys()
        for word, head in heads.items():
            best = sorted(postings[word])[:HEAD_POSTINGS]
            assert [(-weight, doc) for doc, weight in decode_head(head)] == best, (lang, word)
            truncated += len(postings[word]) > HEAD_POSTINGS
    assert truncated  # the bundled data has words in more documents than a head keeps


def test_a_head_keeps_the_highest_weights_before_lower_ones():
    docs = [{"url": f"u{i}", "title": f"t{i}", "context": "", "kind": "rule", "id": f"g/e{i}",
             "fields": {8: "common" if i % 7 == 0 else "", 1: "common " * (i % 3 + 1)}} for i in range(250)]
    head = decode_head(payload_of(index_files(docs, {})["s-0.js"])["common"])
    weight_of = {i: 8 if i % 7 == 0 else i % 3 + 1 for i in range(250)}
    best = sorted(weight_of, key=lambda i: (-weight_of[i], i))[:HEAD_POSTINGS]
    assert head == [(i, weight_of[i]) for i in best]
    assert [i for i in weight_of if i % 7 == 0] == best[:36]  # every title before any text


def test_numbers_survive_their_encoding():
    numbers = [0, 1, 31, 32, 33, 1023, 1024, 86_100, 2**31, 2**40 + 5]
    assert decode_numbers(encode_numbers(numbers)) == numbers


@pytest.mark.parametrize("lang, query, want", [
    ("en", "retreating", "battlelore/retreat"),
    ("en", "ruined regions", "citow/ruined-region-rules"),
    ("pl", "kości walki", "citow/battle-dice"),
    ("ru", "отступил", "battlelore/retreat"),
    ("ru", "retreat", "battlelore/retreat"),
])
def test_the_replayed_query_finds_the_entry_within_the_budget(bundled, lang, query, want):
    files, fetched = bundled[1][lang], []
    results = replay(query, fetcher(files, fetched), bundled[0].folding)
    assert want in [r["id"] for r in results[:3]]
    assert len(results) <= RESULTS
    # meta first, then the query words' shards, then the document chunks of the results shown
    kinds = "".join(name[0] for name in fetched)
    assert kinds.count("m") == 1 and kinds[0] == "m" and kinds[1:] == "".join(sorted(kinds[1:], reverse=True)) and {"s", "d"} <= set(kinds)
    assert sum(len(files[name].encode("utf-8")) for name in fetched) <= 150 * 1024


def test_a_query_of_no_word_loads_nothing(bundled):
    fetched = []
    assert replay("a - !", fetcher(bundled[1]["en"], fetched), bundled[0].folding) == []
    assert fetched == []


def test_shards_for_an_empty_index_and_short_queries():
    assert shards_for([], "retreat") == []
    firsts = ["a", "re", "ret", "retr", "s"]
    assert shards_for(firsts, "re") == [1]          # two letters: only the word itself
    assert shards_for(firsts, "ret") == [2, 3]      # three: every word beginning with them
    assert shards_for(firsts, "retreating") == [3]  # ten letters: words beginning with the first seven
