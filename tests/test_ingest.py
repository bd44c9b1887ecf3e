"""ingest: raw text in, draft entries and labelled noise out, each with its line range."""

from __future__ import annotations

from conftest import REPO, run_generator
from ruamel.yaml import YAML

from generator.base.linerange import range_lines


def drafts(name: str):
    result = run_generator("ingest", str(REPO / "data" / "sources" / name))
    assert result.returncode == 0, result.stderr
    chapter, noise = list(YAML(typ="safe").load_all(result.stdout))
    return chapter, noise["noise"]


def noise_lines(noise, cls):
    return {n for item in noise if item["class"] == cls for n in range_lines(item["lines"])}


def test_web_page_cruft_and_the_duplicated_block_are_labelled():
    chapter, noise = drafts("004_ae0a2c01eb1be76e.txt")
    duplicates = noise_lines(noise, "duplicate")
    source = (REPO / "data/sources/004_ae0a2c01eb1be76e.txt").read_text(encoding="utf-8").split("\n")
    block = {n for n in range(221, 311) if source[n - 1].strip()}
    assert len(block & duplicates) >= 0.9 * len(block)  # the repeat of 13-102
    assert not duplicates & set(range(23, 103))  # the original stays content
    cruft = noise_lines(noise, "web") | noise_lines(noise, "legal")
    assert {1, 3, 5, 11, 315, 327, 330} <= cruft
    assert all(e["origin"]["ru"]["source"] == "wizards-quest-ru" for e in chapter["entries"])


def test_captions_inside_a_sentence_are_cut_out_and_the_paragraph_joined():
    chapter, noise = drafts("001_3ee29d774e4cebac.txt")
    captions = noise_lines(noise, "caption")
    assert {191, 195, 199} <= captions
    joined = [e for e in chapter["entries"] if 189 in range_lines(e["origin"]["ru"]["lines"])]
    assert joined and 201 in range_lines(joined[0]["origin"]["ru"]["lines"])
    assert "а прочие карты может забрать" in " ".join(joined[0]["text"]["ru"].split())


def test_every_non_blank_line_lands_somewhere():
    for name in ("000_34b1f9930e61c4d6.txt", "003_fdafb84476611fdf.txt"):
        chapter, noise = drafts(name)
        source = (REPO / "data/sources" / name).read_text(encoding="utf-8").split("\n")
        non_blank = {n for n, line in enumerate(source, 1) if line.strip()}
        placed = {n for e in chapter["entries"] for o in e["origin"].values() for n in range_lines(o["lines"])}
        placed |= {n for item in noise for n in range_lines(item["lines"])}
        headings_only = non_blank - placed
        # a heading with no paragraph after it (e.g. directly followed by another heading) is the only thing not placed
        assert len(headings_only) <= 0.05 * len(non_blank), sorted(headings_only)[:20]


def test_bad_input_is_an_error_not_a_traceback(tmp_path):
    latin1 = tmp_path / "rulebook.txt"
    latin1.write_bytes("Zasady gry: odwr\xf3t".encode("latin-1"))
    result = run_generator("ingest", str(latin1), "--language", "pl")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {latin1}:1:1: I002 not UTF-8")
    result = run_generator("ingest", str(tmp_path / "missing.txt"))
    assert result.returncode == 1 and result.stderr.startswith(f"error: {tmp_path / 'missing.txt'}:1:1: I001 no such source file")
    result = run_generator("ingest", str(REPO / "data" / "sources" / "001_3ee29d774e4cebac.txt"), "--language", "xx")
    assert result.returncode == 1 and "I003 unknown language 'xx'" in result.stderr and "en, pl, ru" in result.stderr
