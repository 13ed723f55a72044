"""blm augment --apply under faults: a patch that accepts one word twice, a correction into a word the slot
has, malformed entries, a word the checker refuses, CRLF and symlinked lexicons, no Hunspell."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from blm_augment.errors import AugmentError
from blm_augment.patch import apply
from blm_cli.main import main
from builders.cosplus import lexicon as cosplus_lexicon
from builders.lexicon import load_yaml

FIXTURE = Path(__file__).parent / "fixtures" / "augment" / "cosplus" / "en.yaml"
MELT = "verbs.melt.patients"


@pytest.fixture(scope="module")
def made_patch(tmp_path_factory) -> Path:
    """A patch proposing brie, snow, sorbet for melt (unreviewed), made by blm augment --method list."""
    folder = tmp_path_factory.mktemp("made") / "lexicons"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / "en.yaml")
    words = folder.parent / "words.txt"
    words.write_text("brie\nsnow\nsorbet\n", encoding="utf-8")
    out = folder.parent / "p.yaml"
    assert main(["augment", str(folder / "en.yaml"), "--slot", MELT, "--method", "list", "--candidates", str(words),
                 "--phenomenon", "cosplus", "--zipf-margin", "-1", "--out", str(out)]) == 0
    return out


def _lexicon(tmp_path: Path, newline: str = "\n") -> Path:
    (tmp_path / "lexicons").mkdir()
    path = tmp_path / "lexicons" / "en.yaml"
    path.write_bytes(FIXTURE.read_text(encoding="utf-8").replace("\n", newline).encode("utf-8"))
    return path


def _reviewed(made: Path, tmp_path: Path, edit) -> Path:
    data = yaml.safe_load(made.read_text(encoding="utf-8"))
    for proposal in data["proposals"]:
        proposal["accept"] = True
    edit(data["proposals"])
    out = tmp_path / "reviewed.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return out


def _checker_accepts(path: Path):
    return cosplus_lexicon.parse(load_yaml.__wrapped__(path), path)


def test_a_word_accepted_twice_is_merged_once_and_the_checker_accepts_the_file(made_patch, tmp_path):
    lexicon = _lexicon(tmp_path)
    patch = _reviewed(made_patch, tmp_path, lambda ps: ps.append({**ps[0], "word": "Brie"}))
    assert apply(patch, lexicon, force=True)["added"] == 3
    melt = _checker_accepts(lexicon).verbs["melt"].patients
    assert melt.count("brie") == 1 and "sorbet" in melt


def test_the_same_word_with_two_different_entries_is_refused_and_nothing_is_written(made_patch, tmp_path):
    lexicon = _lexicon(tmp_path)
    before = lexicon.read_bytes()
    patch = _reviewed(made_patch, tmp_path, lambda ps: ps.append({**ps[0], "entry": {"sg": "brie", "pl": "bries"}}))
    with pytest.raises(AugmentError, match=r"reviewed.yaml:\d+: proposal 'brie' adds 'brie' again with another entry"):
        apply(patch, lexicon, force=True)
    assert lexicon.read_bytes() == before


def test_a_correction_into_a_word_the_slot_has_adds_nothing(made_patch, tmp_path):
    lexicon = _lexicon(tmp_path)
    before = yaml.safe_load(lexicon.read_text(encoding="utf-8"))
    present = next(v for v in before["verbs"] if v["lemma"] == "melt")["patients"][0]

    def correct(ps):
        ps[0]["entry"] = present
        del ps[1:]
    report = apply(_reviewed(made_patch, tmp_path, correct), lexicon, force=True)
    assert report["added"] == 0 and report["already_present"] == 1
    assert _checker_accepts(lexicon).verbs["melt"].patients.count(present) == 1


@pytest.mark.parametrize("entry", [None, ["sorbet", "ice"], {"gender": "m"}, 3])
def test_a_malformed_entry_is_one_line_naming_the_patch_line(made_patch, tmp_path, capsys, entry):
    lexicon = _lexicon(tmp_path)
    before = lexicon.read_bytes()
    patch = _reviewed(made_patch, tmp_path, lambda ps: ps[1].update(entry=entry))
    assert main(["augment", "--apply", str(patch), str(lexicon), "--force"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "reviewed.yaml:" in err and "proposal 'snow' has entry" in err
    assert lexicon.read_bytes() == before


def test_a_merge_the_checker_refuses_writes_nothing(made_patch, tmp_path, monkeypatch):
    from blm_augment.adapters.cosplus import CosPlusAdapter

    lexicon = _lexicon(tmp_path)
    before = lexicon.read_bytes()
    checked = []

    def refuse(self, text):
        checked.append(text)
        raise AugmentError(f"{self.path}:4: patients: 'brie' is listed twice")
    monkeypatch.setattr(CosPlusAdapter, "check", refuse)
    with pytest.raises(AugmentError, match=r"the merged lexicon would be refused .*listed twice.*is unchanged"):
        apply(_reviewed(made_patch, tmp_path, lambda ps: None), lexicon, force=True)
    assert checked and "sorbet" in checked[0]  # the checker saw the merged text
    assert lexicon.read_bytes() == before


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_line_ends_are_kept(made_patch, tmp_path, newline):
    lexicon = _lexicon(tmp_path, newline)
    apply(_reviewed(made_patch, tmp_path, lambda ps: None), lexicon, force=True)
    raw = lexicon.read_bytes()
    others = raw.replace(newline.encode(), b"")
    assert b"\n" not in others and b"\r" not in others  # no other line end crept in
    assert b"sorbet" in raw and "sorbet" in _checker_accepts(lexicon).verbs["melt"].patients


def test_a_symlinked_lexicon_is_written_through_and_the_link_stays(made_patch, tmp_path):
    real = _lexicon(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "en.yaml"
    link.symlink_to(real)
    apply(_reviewed(made_patch, tmp_path, lambda ps: None), link, force=True)
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert "sorbet" in _checker_accepts(real).verbs["melt"].patients


@pytest.mark.parametrize("missing", ["program", "dictionary"])
def test_no_hunspell_is_one_line(tmp_path, capsys, monkeypatch, missing):
    import builders.spellcheck as spellcheck

    lexicon = _lexicon(tmp_path)
    if missing == "program":
        monkeypatch.setattr(spellcheck.shutil, "which", lambda name: None)
    else:
        monkeypatch.setattr(spellcheck.shutil, "which", lambda name: "/usr/bin/hunspell")
        monkeypatch.setattr(spellcheck, "DICT_DIR", tmp_path / "no-dictionaries")
    words = tmp_path / "w.txt"
    words.write_text("sorbet\n", encoding="utf-8")
    code = main(["augment", str(lexicon), "--slot", MELT, "--method", "list", "--candidates", str(words),
                 "--phenomenon", "cosplus", "--out", str(tmp_path / "p.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "hunspell" in err.lower()
    assert not (tmp_path / "p.yaml").exists()
