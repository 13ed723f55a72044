"""Lexicon schema checks fail with file, line and reason; every word form is a real word."""

import os
import shutil

import pytest
import yaml

from builders import morphology, registry, spellcheck
from builders.agr import lexicon as agr_lexicon
from builders.lexicon import LexiconError, load_yaml
from builders.spellcheck import SpellcheckUnavailable, allowlist, check_all, rejected, word_forms

AGR_LANGUAGES = registry.generator_class("agr").languages()  # the lexicon files present


def _write(tmp_path, data_or_text):
    path = tmp_path / "en.yaml"
    path.write_text(data_or_text if isinstance(data_or_text, str) else yaml.safe_dump(data_or_text,
                                                                                      allow_unicode=True))
    load_yaml.cache_clear()
    return path


@pytest.fixture()
def english():
    return yaml.safe_load((agr_lexicon.HERE / "lexicons" / "en.yaml").read_text())


def test_shipped_lexicons_pass_the_schema():
    assert {"en", "es", "fr", "it", "ro"} <= set(AGR_LANGUAGES)
    for language in AGR_LANGUAGES:
        assert len(agr_lexicon.load(language)["seeds"]) >= agr_lexicon.MIN_SEEDS == 40


def test_missing_field_names_file_line_and_entry(tmp_path, english):
    del english["seeds"][3]["attractor2"]
    path = _write(tmp_path, english)
    with pytest.raises(LexiconError) as err:
        agr_lexicon.check(load_yaml(path), path)
    assert str(err.value) == f"{path}:{load_yaml(path)['seeds'][3].line}: seeds.3.attractor2: missing key"
    assert err.value.line > 1


def test_unknown_noun_and_invisible_agreement_are_rejected(tmp_path, english):
    english["seeds"][0]["alternatives"]["subject"][0] = "flibbertigibbet"
    path = _write(tmp_path, english)
    with pytest.raises(LexiconError, match="has no entry under 'nouns'"):
        agr_lexicon.check(load_yaml(path), path)
    english = yaml.safe_load((agr_lexicon.HERE / "lexicons" / "en.yaml").read_text())
    english["seeds"][1]["predicate"] = {"sg": "broke", "pl": "broke"}
    path = _write(tmp_path, english)
    with pytest.raises(LexiconError, match="agreement would be invisible"):
        agr_lexicon.check(load_yaml(path), path)


def test_yaml_syntax_error_has_a_line(tmp_path):
    path = _write(tmp_path, "language: en\nnames: [John, Mary\nseeds: []\n")
    with pytest.raises(LexiconError, match=r"en.yaml:\d+: file: invalid YAML"):
        load_yaml(path)


def test_word_forms_skip_ids_and_slots():
    words = list(word_forms({"id": "xyzzy", "relatives": ["dont {name} parlait"], "gender": "m"}))
    assert words == ["dont", "parlait"]


needs_hunspell = pytest.mark.skipif(shutil.which("hunspell") is None and not os.environ.get("CI"),
                                    reason="hunspell not installed (CI installs it)")


@needs_hunspell
def test_every_lexicon_word_is_in_the_hunspell_dictionary():
    assert check_all() == {}


@needs_hunspell
@pytest.mark.parametrize("language", AGR_LANGUAGES)
def test_every_agreement_word_form_is_in_the_hunspell_dictionary(language):
    """Every noun form, predicate, name, verb and relative of the agreement lexicon; the seeds'
    `relations` are identifiers of the closed vocabulary lexicon.check validates, not words."""
    data = yaml.safe_load((agr_lexicon.HERE / "lexicons" / f"{language}.yaml").read_text(encoding="utf-8"))
    for seed in data["seeds"]:
        del seed["relations"]
    words = list(word_forms(data))
    assert len(words) > 1000
    try:
        assert rejected(words, language) - allowlist().get(language, set()) == set()
    except SpellcheckUnavailable as err:  # pragma: no cover - CI installs the dictionaries
        pytest.fail(str(err))


@needs_hunspell
def test_spellcheck_rejects_a_misspelling():
    try:
        assert rejected(["ordinateur", "ordinatuer"], "fr") == {"ordinatuer"}
    except SpellcheckUnavailable as err:  # pragma: no cover - CI installs the dictionaries
        pytest.fail(str(err))


def test_the_libyaml_loader_gives_the_pure_python_loader_s_data_and_lines():
    from builders.lexicon import line_loader

    path = agr_lexicon.HERE / "lexicons" / "fr.yaml"
    parsed = []
    for base in (yaml.SafeLoader, yaml.CSafeLoader):
        loader = line_loader(base)(path.read_text(encoding="utf-8"))
        parsed.append(loader.get_single_data())
        loader.dispose()
    python, libyaml = parsed
    assert python == libyaml
    seeds = [(seed.line, seed.key_lines) for seed in python["seeds"]], [(s.line, s.key_lines) for s in libyaml["seeds"]]
    assert seeds[0] == seeds[1] and seeds[0][0][0] > 1


def test_a_duplicate_key_is_located_by_the_libyaml_loader(tmp_path):
    path = _write(tmp_path, "seeds:\n  - id: a\n    id: b\n")
    with pytest.raises(LexiconError, match=r"en.yaml:3: key 'id': duplicate key \(first at line 2\)"):
        load_yaml(path)


# --- a language is its files: morphology module (naming its dictionary), function words, lexicon ---

def test_every_lexicon_language_has_its_pieces_and_setup_installs_its_dictionary():
    """No lexicon is skipped by the spell-check: each language resolves a morphology module that
    names its Hunspell dictionary, a function-word list, and scripts/setup.sh installs the package."""
    setup = (spellcheck.ALLOWLIST.parents[1] / "scripts" / "setup.sh").read_text(encoding="utf-8")
    languages = {path.stem.split("_")[0] for path in spellcheck.lexicon_files()}
    assert {"en", "es", "fr", "it", "ro", "de", "he"} <= languages
    for language in languages:
        module = morphology.language(language)
        assert module.HUNSPELL and f" {module.HUNSPELL_PACKAGE} " in setup.replace("\\\n", " ")
        assert morphology.function_words(language)
    assert set(morphology.LANGUAGES) >= languages


def test_a_language_without_its_morphology_module_is_named_not_skipped():
    with pytest.raises(ValueError, match=r"no morphology for language 'xx': .*builders/morphology/xx\.py is missing"):
        morphology.language("xx")
    with pytest.raises(ValueError, match=r"function_words/xx\.txt is missing"):
        morphology.function_words("xx")


def test_a_morphology_module_without_its_dictionary_is_named(tmp_path, monkeypatch):
    import sys
    import types

    (tmp_path / "zz.py").write_text("NOUN_FIELDS = ()\n")
    monkeypatch.setattr(morphology, "_HERE", tmp_path)
    monkeypatch.setitem(sys.modules, "builders.morphology.zz", types.ModuleType("builders.morphology.zz"))
    morphology.language.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"zz\.py: no HUNSPELL constant"):
            morphology.language("zz")
    finally:
        morphology.language.cache_clear()


def test_a_missing_dictionary_names_the_package_to_install(tmp_path, monkeypatch):
    if shutil.which("hunspell") is None:
        pytest.skip("hunspell not installed")
    monkeypatch.setattr(spellcheck, "DICT_DIR", tmp_path)
    with pytest.raises(SpellcheckUnavailable, match=r"es_ES\.dic for language 'es': apt-get install hunspell-es"):
        rejected(["carta"], "es")


@needs_hunspell
def test_spanish_spellcheck_rejects_a_misspelling():
    try:
        assert rejected(["abogado", "abogadso", "chóferes"], "es") == {"abogadso"}
    except SpellcheckUnavailable as err:  # pragma: no cover - CI installs the dictionaries
        pytest.fail(str(err))
