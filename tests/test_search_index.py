"""The search index's invariants on the bundled data: shards within their cap and in word order,
every word in the shard a query loads, heads holding each word's best documents and rarity, typo
files holding every long word under each key of its deletion neighbourhood; and the Python replay of kb-search.js finding the entries a
player looks for (misspelt, with common words, from a game's page, one per concept), within the
download budget."""

from __future__ import annotations

import functools

import pytest
from conftest import REPO

from generator.render.calculators import calculator_anchor
from generator.render.search import (
    HALF_STEP,
    HEAD_POSTINGS,
    MAX_SHARD_BYTES,
    RARITY_STEPS,
    RESULTS,
    SNIPPET_CHARS,
    STEP,
    TYPO_FILE_BYTES,
    TYPO_MIN_LETTERS,
    WEIGHT_DEFINES,
    WEIGHT_GLOSSARY,
    WEIGHT_KEYWORD,
    WEIGHT_TEXT,
    WEIGHT_TITLE,
    concept,
    corrected,
    decode_head,
    decode_numbers,
    encode_numbers,
    index_files,
    payload_of,
    quality,
    replay,
    shards_for,
    title_weight,
    tokens,
    typo_file,
    typo_keys,
    utf16,
    word_weights,
)

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def bundled(bundled_search):
    """(SearchIndex, {lang: {file name: content}}) of the bundled data (conftest's, built once per session)."""
    return bundled_search


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
        loaded = functools.cache(functools.partial(shards_for, firsts))  # words share their shortened queries: each looked up once
        shard_of = {word: n for n, shard in enumerate(shards_of(files)) for word in shard}
        for word, n in shard_of.items():
            assert n in loaded(word), (lang, word)
            # shortened and misspelt queries that still match the word: its shard is loaded too
            for query in {word[:k] for k in range(3, len(word))} | {word[:-1] + "x", word[:4] + "zzz"}:
                if quality(query, word):
                    assert n in loaded(query), (lang, query, word)


def test_heads_hold_each_words_best_documents_in_weight_order(bundled):
    index, built = bundled
    truncated = 0
    for lang, files in built.items():
        postings: dict[str, list[tuple[int, int]]] = {}
        for number, doc in enumerate(index.documents(index.r.reading(lang))):
            for word, weight in word_weights(doc["fields"], index.folding).items():
                postings.setdefault(word, []).append((-weight, number))
        heads = {word: head for shard in shards_of(files) for word, head in shard.items()}
        assert heads.keys() == postings.keys()
        for word, head in heads.items():
            best = sorted(postings[word])[:HEAD_POSTINGS]
            assert [(-weight, doc) for doc, weight in decode_head(head)[1]] == best, (lang, word)
            truncated += len(postings[word]) > HEAD_POSTINGS
    assert truncated  # the bundled data has words in more documents than a head keeps


def test_a_head_keeps_the_highest_weights_before_lower_ones():
    docs = [
        {
            "url": f"u{i}",
            "title": f"t{i}",
            "context": "",
            "kind": "rule",
            "id": f"g/e{i}",
            "fields": [(WEIGHT_TITLE, "common" if i % 7 == 0 else ""), (WEIGHT_TEXT, "common " * (i % 3 + 1))],
        }
        for i in range(250)
    ]
    head = decode_head(payload_of(index_files(docs, {})["s-0.js"])["common"])[1]
    weight_of = {i: WEIGHT_TITLE if i % 7 == 0 else WEIGHT_TEXT * (i % 3 + 1) for i in range(250)}
    best = sorted(weight_of, key=lambda i: (-weight_of[i], i))[:HEAD_POSTINGS]
    assert head == [(i, weight_of[i]) for i in best]
    assert [i for i in weight_of if i % 7 == 0] == best[:36]  # every title before any text


def test_numbers_survive_their_encoding():
    numbers = [0, 1, 31, 32, 33, 1023, 1024, 86_100, 2**31, 2**40 + 5]
    assert decode_numbers(encode_numbers(numbers)) == numbers


@pytest.mark.parametrize(
    "lang, query, want",
    [
        ("en", "retreating", "battlelore/retreat"),
        ("en", "ruined regions", "citow/ruined-region-rules"),
        ("pl", "kości walki", "citow/battle-dice"),
        ("ru", "отступил", "battlelore/retreat"),
        ("ru", "retreat", "battlelore/retreat"),
    ],
)
def test_the_replayed_query_finds_the_entry_within_the_budget(bundled, lang, query, want):
    files, fetched = bundled[1][lang], []
    results = replay(query, fetcher(files, fetched), bundled[0].folding)
    assert want in [r["id"] for r in results[:3]]
    assert len(results) <= RESULTS
    # meta first, then the query words' shards, then the document chunks of the results shown
    kinds = "".join(name[0] for name in fetched)
    assert kinds.count("m") == 1 and kinds[0] == "m" and kinds[1:] == "".join(sorted(kinds[1:], reverse=True)) and set(kinds) == {"m", "s", "d"}
    assert sum(len(files[name].encode("utf-8")) for name in fetched) <= 150 * 1024


def test_a_query_of_no_word_loads_nothing(bundled):
    fetched = []
    assert replay("a - !", fetcher(bundled[1]["en"], fetched), bundled[0].folding) == []
    assert fetched == []


def test_shards_for_an_empty_index_and_short_queries():
    assert shards_for([], "retreat") == []
    firsts = ["a", "re", "ret", "retr", "s"]
    assert shards_for(firsts, "re") == [1]  # two letters: only the word itself
    assert shards_for(firsts, "ret") == [2, 3]  # three: every word beginning with them
    assert shards_for(firsts, "retreating") == [3]  # ten letters: words beginning with the first seven


def run(bundled, lang: str, query: str, game: str | None = None) -> tuple[list[dict], int]:
    """The replayed results of a query and the bytes it downloaded."""
    files, fetched = bundled[1][lang], []
    results = replay(query, fetcher(files, fetched), bundled[0].folding, game)
    return results, sum(len(files[name].encode("utf-8")) for name in fetched)


def test_common_words_are_rare_in_no_head_and_the_listed_ones_weigh_least(bundled):
    index, built = bundled
    for lang, files in built.items():
        docs = payload_of(files["meta.js"])["docs"]
        rarity = {word: decode_head(head)[0] for shard in shards_of(files) for word, head in shard.items()}
        assert all(1 <= r <= RARITY_STEPS for r in rarity.values())
        assert {rarity[w] for w in index.common_words() if w in rarity} == {1}, lang
        counts: dict[str, int] = {}
        for doc in index.documents(index.r.reading(lang)):
            for word in word_weights(doc["fields"], index.folding):
                counts[word] = counts.get(word, 0) + 1
        usual = max(0.05 * docs, 10)
        listed = index.common_words()
        by_count = sorted((counts[w], -r) for w, r in rarity.items() if w not in listed)
        assert [-r for _, r in by_count] == sorted((-r for _, r in by_count), reverse=True)  # more documents, never rarer
        assert all(-r == RARITY_STEPS for n, r in by_count if n <= usual)
        assert all(-r <= RARITY_STEPS // 2 for n, r in by_count if n > 4 * usual)
        assert any(n > 4 * usual for n, _ in by_count), lang  # the data has such words: the test can fail


@pytest.mark.parametrize(
    "lang, query, want",
    [
        ("en", "what is a retreat", "battlelore/retreat"),
        ("en", "the retreat", "battlelore/retreat"),
        ("ru", "что такое отступление", "battlelore/retreat"),
        ("pl", "czy to jest przyzywanie", "citow/summoning-followers"),
    ],
)
def test_common_words_do_not_outrank_the_term(bundled, lang, query, want):
    results, _ = run(bundled, lang, query)
    assert results[0]["id"] == want, [r["id"] for r in results[:3]]


def test_a_word_one_edit_away_matches_also_as_an_inflected_form():
    assert all(
        corrected(a, b) == 1
        for a, b in [
            ("отсупление", "отступление"),
            ("retreet", "retreat"),
            ("retraet", "retreat"),
            ("rtreat", "retreat"),
            ("etreat", "retreat"),
            ("xetreat", "retreat"),
            ("ertreat", "retreat"),
        ]
    )
    # a slip in the stem of a form the index does not hold meets the forms it does, like an inflected ending
    assert 0 < corrected("spustsozonych", "spustoszonym") < 1
    # two edits, or no edit at all, are not typos
    assert not any(corrected(a, b) for a, b in [("tretaer", "retreat"), ("retreat", "retreat"), ("abcd", "badc")])


@pytest.mark.parametrize(
    "lang, query",
    [
        ("ru", "отсупление"),  # a letter dropped
        ("ru", "отступленне"),  # changed
        ("en", "retraet"),  # two swapped
        ("en", "rertreat"),  # one added
        ("en", "reteat"),  # dropped, early enough that the shared start is too short
        ("en", "etreat"),  # the first letter dropped
        ("ru", "атступление"),  # the first letter changed
        ("en", "ertreat"),  # the first two swapped
    ],
)
def test_a_long_word_one_edit_away_finds_the_entry(bundled, lang, query):
    results, downloaded = run(bundled, lang, query)
    assert results and results[0]["id"] == "battlelore/retreat", [r["id"] for r in results]
    assert downloaded <= 150 * 1024


def test_typos_rank_below_exact_matches_and_short_words_get_none(bundled):
    # "forest" typed right and "forset" misspelt: the same entry, scored lower when misspelt
    right, _ = run(bundled, "en", "forest")
    slip, _ = run(bundled, "en", "forset")
    assert right[0]["id"] == slip[0]["id"] == "battlelore/forest" and slip[0]["score"] < right[0]["score"]
    # a word shorter than TYPO_MIN_LETTERS gets no typos: "stnu" (for "stun") finds no stun
    assert len("stnu") < TYPO_MIN_LETTERS and corrected("stnu", "stun") == 1
    assert not any(r["id"] == "battlelore/stun" for r in run(bundled, "en", "stnu")[0])


@pytest.mark.parametrize(
    "lang, query, want",
    [
        ("pl", "spustsozonych", "citow/ruined-region-rules"),  # two letters swapped in a form the index does not hold
        ("pl", "ominacji", "citow/dominance-value"),  # the first letter of an inflected form dropped
        ("ru", "одкрепление", "wizards-quest/reinforcement"),
    ],
)
def test_a_slip_in_an_inflected_form_or_its_first_letter_finds_the_entry(bundled, lang, query, want):
    results, downloaded = run(bundled, lang, query)
    assert want in [r["id"] for r in results[:3]], [r["id"] for r in results[:3]]
    assert downloaded <= 60 * 1024


def test_typo_files_hold_every_long_word_under_each_of_its_keys_and_stay_small(bundled):
    for files in bundled[1].values():
        count = payload_of(files["meta.js"])["typos"]
        parts = [payload_of(files[f"t-{n}.js"]) for n in range(count)]
        assert f"t-{count}.js" not in files
        words = {word for shard in shards_of(files) for word in shard if len(word) >= TYPO_MIN_LETTERS}
        listed = {w for part in parts for bucket in part.values() for w in bucket.split()}
        assert listed == words
        for word in sorted(words)[::50]:
            assert all(word in parts[typo_file(key, count)][key].split() for key in typo_keys(word))
        sizes = [len(files[f"t-{n}.js"].encode("utf-8")) for n in range(count)]
        assert sum(sizes) / count <= 1.5 * TYPO_FILE_BYTES and max(sizes) <= 4 * TYPO_FILE_BYTES
    # a head of six letters: each letter deleted once, and its first five; repeated keys once
    assert typo_keys("retreats") == ["etrea", "rtrea", "rerea", "retea", "retra", "retre"]
    assert typo_keys("aaaaa") == ["aaaa", "aaaaa"]


def test_a_games_page_leads_with_that_games_results(bundled):
    everywhere, _ = run(bundled, "en", "scoring")
    here, _ = run(bundled, "en", "scoring", game="marauders")
    assert not any(r["id"].startswith("marauders/") for r in everywhere[:3])
    games = [r["id"].split("/")[0] for r in here]
    assert games[0] == "marauders" and games == sorted(games, key=lambda g: g != "marauders")
    assert "marauders/victory-point-table" in [r["id"] for r in here]
    assert {r["id"] for r in here} != {r["id"] for r in everywhere}


def test_one_result_per_concept(bundled):
    results, _ = run(bundled, "ru", "брод")
    titles = [r["title"] for r in results]
    fords = [t for t in titles if concept(t, bundled[0].folding) == "брод"]
    assert len(fords) == 1, titles
    index = bundled[0]
    same = [d["title"] for d in index.documents(index.r.reading("ru")) if d["game"] == "battlelore" and concept(d["title"], index.folding) == "брод"]
    assert len(same) >= 2, same  # the bundled data has the concept several times: the test can fail
    keys = [(r["id"].split("/")[0], concept(r["title"], index.folding)) for r in results]
    assert len(keys) == len(set(keys))


def test_results_carry_the_start_of_their_text(bundled):
    results, _ = run(bundled, "en", "retreat")
    assert "retreat" in results[0]["snippet"].lower() and len(results[0]["snippet"]) <= SNIPPET_CHARS + 2
    term = next(d for d in bundled[0].documents(bundled[0].r.reading("en")) if d["id"] == "battlelore/term/retreat")
    assert term["snippet"] == "odwrót · отступление"  # a glossary term's snippet: its names in the other languages


@pytest.mark.parametrize(
    "lang, query, want",
    [
        ("ru", "раны", "citow/def-hit"),  # data/languages/ru/synonyms.yaml: citow/term/hit
        ("en", "start player", "battlelore/first-player"),
        ("pl", "pole widzenia", "battlelore/line-of-sight"),
    ],
)
def test_the_words_players_use_find_what_their_term_finds(bundled, lang, query, want):
    said = {word for language in bundled[0].r.languages for words in language.synonyms.get("terms", {}).values() for word in words}
    assert query in said  # a player's word, not the glossary's
    results, _ = run(bundled, lang, query)
    assert want in [r["id"] for r in results[:3]], [r["id"] for r in results[:3]]


def test_a_titles_word_is_found_by_the_players_word_for_it(bundled):
    # "odds" (synonyms.yaml `words`: chance) finds what "chance" finds, in a title that never says "odds"
    index = bundled[0]
    doc = next(d for d in index.documents(index.r.reading("en")) if "chance" in d["title"].lower().split())
    assert "odds" in word_weights(doc["fields"], index.folding) and "odds" not in doc["title"].lower()


ODDS = {  # a question about odds, as typed, in each language -> the game whose answer table or calculator answers it
    ("en", "chance of 3 hits with 4 dice"): "citow",
    ("ru", "вероятность 2 ранений с 3 кубиками"): "citow",
    ("pl", "szansa na 3 obrażenia z 4 kości"): "citow",
    ("ru", "шанс выпадения грани кубика"): "battlelore",
}


def test_a_question_about_odds_opens_the_answer_table_or_its_calculator(bundled):
    for (lang, query), game in ODDS.items():
        results, downloaded = run(bundled, lang, query)
        first, check = results[0], results[0]["id"].rsplit("/", 1)[1]
        assert first["kind"] in ("answer-table", "calculator") and first["id"].startswith(f"{game}/"), [r["id"] for r in results[:3]]
        assert first["url"] in (f"{lang}/{game}/calculators.html#{game}-{check}", f"{lang}/{game}/calculators.html#{calculator_anchor(check)}")
        assert downloaded <= 60 * 1024, query


@pytest.mark.parametrize("lang, query", [("en", "calculator"), ("ru", "калькулятор"), ("pl", "kalkulator")])
def test_calculator_finds_the_calculators_pages(bundled, lang, query):
    results, _ = run(bundled, lang, query)
    assert results[0]["kind"] == "calculators" and results[0]["url"].endswith("/calculators.html")


def test_the_readers_language_comes_before_a_fallback_on_the_same_concept(bundled):
    """Two documents on one concept, the earlier shown in English in the Russian section (its Russian text
    missing): the Russian one ranks first, and the English one, when shown, says which language it is in."""
    folding = bundled[0].folding
    fields = [(WEIGHT_GLOSSARY, "культист cultist kultysta")]
    docs = [
        {
            "url": "ru/citow/glossary.html#term-cultist",
            "title": "cultist",
            "context": "",
            "kind": "glossary",
            "id": "citow/term/cultist",
            "fields": fields,
            "shown": "en",
            "game": "citow",
        },
        {
            "url": "ru/citow/96.html#def-cultist",
            "title": "культист",
            "context": "",
            "kind": "term",
            "id": "citow/def-cultist",
            "fields": fields,
            "game": "citow",
        },
    ]
    files = index_files(docs, folding)
    results = replay("культист", lambda name: payload_of(files[name]), folding)
    assert [(r["id"], r["shown"]) for r in results] == [("citow/def-cultist", ""), ("citow/term/cultist", "en")]
    docs[0]["shown"] = ""  # in the reader's language both, the earlier document first: the order above is the fallback's doing
    files = index_files(docs, folding)
    assert replay("культист", lambda name: payload_of(files[name]), folding)[0]["id"] == "citow/term/cultist"


def test_every_field_counts_a_question_title_beside_its_keywords_and_a_long_title_a_step_less(bundled):
    index = bundled[0]
    docs = list(index.documents(index.r.reading("en")))
    # a clarification's title weighs like keywords, and is kept beside its (keywords) field of the same weight
    for doc in (d for d in docs if d["kind"] == "clarification"):
        weights = word_weights(doc["fields"], index.folding)
        assert all(weights[word] >= title_weight("clarification") == WEIGHT_KEYWORD for word in tokens(doc["title"], index.folding))
    # "Death ranges" weighs as a title; "Attacker's death range and defender's losses" a step less
    short, long = (next(d for d in docs if d["id"] == entry_id) for entry_id in ("wizards-quest/death-range", "wizards-quest/attack-battle-table"))
    assert word_weights(short["fields"], index.folding)["ranges"] == WEIGHT_TITLE
    assert word_weights(long["fields"], index.folding)["death"] == WEIGHT_TITLE - STEP
    # (its "death" weighs half a step more: the entry is the definition of "death range", see the test below)
    assert word_weights(short["fields"], index.folding)["death"] == WEIGHT_TITLE + HALF_STEP
    assert run(bundled, "en", "death range")[0][0]["id"] == "wizards-quest/death-range"


def test_a_titles_words_weigh_in_every_inflection_the_glossary_lists(bundled):
    """«Размещение Знамён и Музыкантов» holds «Музыкантов»; the glossary lists «Музыканта» as a form of the
    same term, so the entry is found by it half a step below its title: above «Размещение карт», the
    Musician's definition, which holds it only as a defined term's form (issue 29: it came second before)."""
    index = bundled[0]
    inflections = index.inflections
    assert {"музыкант", "музыканта", "музыканты"} <= inflections["музыкантов"] and "музыкантов" not in inflections["музыкантов"]
    assert {"wskaznika", "wskaznik"} <= inflections["wskaznikow"]  # a word of a term of two words, at its place
    assert "kraina" not in inflections["region"]  # a variant is another word, not a form
    docs = {doc["id"]: doc for doc in index.documents(index.r.reading("ru"))}
    weights = {entry_id: word_weights(docs[entry_id]["fields"], index.folding) for entry_id in docs}
    assert weights["marauders/standards-and-musicians"]["музыкантов"] == WEIGHT_TITLE
    assert weights["marauders/standards-and-musicians"]["музыканта"] == WEIGHT_TITLE - HALF_STEP
    assert weights["marauders/card-placement"]["музыканта"] == WEIGHT_DEFINES < WEIGHT_TITLE - HALF_STEP
    assert run(bundled, "ru", "музыканта")[0][0]["id"] == "marauders/standards-and-musicians"
    # «Muzykanci» shares «muzyka» (a form of «Muzyk»; the title holds «Muzyków») leaving three letters unmatched
    assert run(bundled, "pl", "Muzykanci")[0][0]["id"] == "marauders/standards-and-musicians"


def test_a_terms_own_entry_leads_a_query_naming_the_whole_term(bundled):
    """The words of a term's name in the title of the rule the glossary gives as its definition weigh
    above any title, by a step shared among the name's words: a query naming the whole term (of one or two
    words) leads with that entry, before one whose title merely holds the same words (issue 29: «Кубики
    атаки» of the component overview and «Five Regions Ruined», a victory condition, came first before)."""
    index = bundled[0]
    docs = {doc["id"]: doc for doc in index.documents(index.r.reading("en"))}

    def weight(entry_id: str, word: str) -> int:
        return word_weights(docs[entry_id]["fields"], index.folding)[word]

    assert weight("battlelore/retreat", "retreat") == WEIGHT_TITLE + STEP  # "Retreat": one word, a step
    assert weight("citow/ruined-region-rules", "ruined") == WEIGHT_TITLE + HALF_STEP  # "ruined region": half a step each
    assert weight("citow/battle-dice", "атаки") == WEIGHT_TITLE + HALF_STEP  # though its long title weighs a step less
    assert weight("citow/battle-dice", "кубики") == WEIGHT_TITLE + HALF_STEP  # «кубиков» stands there: an inflection
    assert weight("citow/dice", "атаки") == WEIGHT_TITLE  # titled like the term, not its definition
    assert weight("citow/victory-five-ruined-regions", "ruined") == WEIGHT_TITLE  # "Five Regions Ruined": three words, nothing
    # a component's description is no home: «kością Spustoszenia» leads with the rule that rolls the Cube;
    # nor is the rulebook's own glossary entry: «przyzywanie» leads with the rule, as before
    assert weight("marauders/doom-die", "spustoszenia") == WEIGHT_TITLE
    assert weight("citow/def-summoning", "przyzywanie") == WEIGHT_TITLE
    assert run(bundled, "pl", "kością Spustoszenia")[0][0]["id"] == "marauders/attack-roll"
    for lang, query, want in [
        ("ru", "кубики атаки", "citow/battle-dice"),
        ("pl", "kości walki", "citow/battle-dice"),
        ("en", "ruined regions", "citow/ruined-region-rules"),
        ("pl", "ruined region", "citow/ruined-region-rules"),
    ]:
        results = run(bundled, lang, query)[0]
        assert results[0]["id"] == want, (lang, query, [r["id"] for r in results[:3]])


def test_the_search_script_ships_within_15_kb_without_its_comments():
    from generator.render.renderer import asset_files, shipped_script

    source = (REPO / "generator" / "templates" / "assets" / "kb-search.js").read_text(encoding="utf-8")
    shipped = dict(asset_files())["assets/kb-search.js"].decode("utf-8")
    assert len(shipped.encode("utf-8")) <= 15_000 < len(source.encode("utf-8"))
    code = [line.strip() for line in source.splitlines() if line.strip() and not line.strip().startswith(("/*", "*", "//"))]
    assert shipped.splitlines() == code  # every line of code, whole and in order; only comments and indentation go
    # a comment's markers inside a line of code (a string, a URL, a comment after code) are left alone
    assert shipped_script('  /* a\n   * b */\n  var u = "http://x/*y"; // why\n  // gone\n') == 'var u = "http://x/*y"; // why\n'
