"""Each exported config carries the licence of what it was made from: the toolkit's for generated data, the
corpus's for data derived from a treebank (builders/licences.yaml); the card says which configs and why."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from blm_cli.main import main
from blm_datasets.export import export
from builders import registry
from builders.generate import Options
from builders.licences import config_licence

SAMPLE = Path(registry.generator_class("caush").directory()) / "data" / "sample.conllu"
NATURAL = "caush_he_natural_typeIII"


def card_header(folder: Path) -> dict:
    return yaml.safe_load((folder / "README.md").read_text(encoding="utf-8").split("---")[1])


def test_generated_configs_default_sources_and_known_corpora():
    natural = registry.get_spec(NATURAL)
    assert config_licence(registry.get_spec("agr_en_typeI"), None, "apache-2.0", None).ids == ("apache-2.0",)
    assert config_licence(registry.get_spec("agr_en_typeI"), None, "apache-2.0", "cc-by-4.0").ids == ("cc-by-4.0",)
    # the paper's default sources: HTB and IAHLTwiki, each part keeps its own licence
    assert config_licence(natural, None, "apache-2.0", None).ids == ("cc-by-nc-sa-4.0", "cc-by-sa-4.0")
    wiki = config_licence(natural, ["/data/he_iahltwiki-ud-test.conllu"], "apache-2.0", "mit")
    assert wiki.ids == ("cc-by-sa-4.0",) and wiki.reason.startswith("derived from UD_Hebrew-IAHLTwiki (cc-by-sa-4.0")
    assert config_licence(natural, [str(SAMPLE)], "apache-2.0", None).ids == ("apache-2.0",)


def test_sources_of_no_known_corpus_need_license(tmp_path, capsys):
    mine = tmp_path / "my_treebank.conllu"
    shutil.copy(SAMPLE, mine)
    with pytest.raises(ValueError, match=r"cannot tell the licence of its source files \(my_treebank.conllu\)"):
        export([NATURAL], tmp_path / "out", Options(size=40, test_size=0.25, sources=(str(mine),)), report=None,
               progress=False)
    assert not (tmp_path / "out").exists()  # refused before anything was generated or written
    out = tmp_path / "out2"
    assert main(["export", NATURAL, "--size", "40", "--test-size", "0.25", "--sources", str(mine), "--license",
                 "cc-by-4.0", "--out", str(out), "--quiet", "--no-audit"]) == 0
    assert card_header(out)["license"] == "cc-by-4.0"
    assert "my_treebank.conllu (cc-by-4.0, as --license says)" in (out / "README.md").read_text(encoding="utf-8")


def test_an_export_mixing_generated_and_treebank_data_lists_both_licences(tmp_path):
    wiki = tmp_path / "he_iahltwiki-ud-dev.conllu"
    shutil.copy(SAMPLE, wiki)
    out = tmp_path / "out"
    export(["agr_en_typeI", NATURAL], out, Options(size=40, test_size=0.25, sources=(str(wiki),)), audit=False,
           report=None, progress=False)
    assert card_header(out)["license"] == ["apache-2.0", "cc-by-sa-4.0"]
    text = (out / "README.md").read_text(encoding="utf-8")
    section = text.split("## Licences", 1)[1].split("<!-- blm:end licences -->")[0]
    assert "| apache-2.0 | agr_en_typeI | generated from the toolkit's templates and lexicons |" in section
    assert f"| cc-by-sa-4.0 | {NATURAL} | derived from UD_Hebrew-IAHLTwiki" in section


def test_an_export_of_generated_configs_only_has_one_licence_and_no_licence_section(tmp_path):
    out = tmp_path / "out"
    export(["agr_en_typeI"], out, Options(size=40), audit=False, report=None, progress=False)
    assert card_header(out)["license"] == "apache-2.0"
    assert "## Licences" not in (out / "README.md").read_text(encoding="utf-8")


def test_the_code_has_a_licence_file():
    text = (Path(__file__).resolve().parent.parent / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0" in text


def test_dataset_cards_give_an_install_line_that_works(tmp_path):
    out = tmp_path / "out"
    export(["agr_en_typeI"], out, Options(size=40), audit=False, report=None, progress=False)
    text = (out / "README.md").read_text(encoding="utf-8")
    assert "pip install blm-toolkit" not in text and "pip install .   # in a checkout of the BLM toolkit" in text
