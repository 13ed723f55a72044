"""`blm export`: a script-free Hub folder that loads back to exactly the generated rows, with a valid card."""

from __future__ import annotations

import datasets
import pytest
from huggingface_hub import DatasetCard

import blm_datasets  # noqa: F401  (installs the load_dataset("blm") hook)
from blm_datasets import export as export_module
from blm_cli.main import main
from blm_datasets.export import export
from blm_datasets.features import FEATURES
from builders import registry
from builders.base import SourceUnavailable
from builders.generate import Options, generate
from hub_cards.dataset_card import COLUMN_DOCS
from hub_cards.schema import DATASET_REQUIRED, check_dataset_card_data
from hub_cards.sections import join_card, split_card

SIZE = 60
# A handful of configs taken from the registry, never typed: three languages, a balanced twin and
# more than one lexical type.
NAMES = []
for spec in registry.all_specs():
    key = (spec.lexical_type, spec.balanced)
    if key in {(s.lexical_type, s.balanced) for s in map(registry.get_spec, NAMES)}:
        continue
    if len(NAMES) < 3 and spec.language not in {registry.get_spec(n).language for n in NAMES}:
        NAMES.append(spec.name)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "blm"
    return export(NAMES, out, Options(size=SIZE), num_proc=2, report=None, progress=False)


def test_every_config_loads_back_to_the_generated_rows_and_features(exported, tmp_path):
    for name in NAMES:
        loaded = datasets.load_dataset(str(exported.out), name, cache_dir=str(tmp_path / name))
        expected = generate(registry.get_spec(name), Options(size=SIZE), progress=False)
        assert set(loaded) == set(expected)
        for split, output in expected.items():
            assert loaded[split].features == FEATURES
            assert loaded[split].to_list() == output.records


def test_rows_equal_what_the_blm_builder_serves(exported, tmp_path):
    name = NAMES[0]
    built = datasets.load_dataset("blm", name, size=SIZE, cache_dir=str(tmp_path / "builder"))
    loaded = datasets.load_dataset(str(exported.out), name, cache_dir=str(tmp_path / "folder"))
    for split in built:
        assert loaded[split].features == built[split].features
        assert loaded[split].to_list() == built[split].to_list()


def test_config_names_and_default_config(exported, tmp_path):
    assert datasets.get_dataset_config_names(str(exported.out)) == NAMES
    default = datasets.load_dataset(str(exported.out), split="test", cache_dir=str(tmp_path))
    assert default[0]["id"].startswith(NAMES[0] + "-test-")


def test_shards_follow_the_hub_naming(exported):
    names = sorted(p.relative_to(exported.out).as_posix() for p in exported.out.rglob("*.parquet"))
    assert names == sorted(f"{n}/{s}-00000-of-00001.parquet" for n in NAMES for s in ("train", "test"))


def test_card_parses_and_passes_the_schema_check(exported):
    card = DatasetCard.load(exported.out / "README.md")
    data = card.data.to_dict()
    assert check_dataset_card_data(data) == []
    assert set(DATASET_REQUIRED) <= set(data)
    assert [c["config_name"] for c in data["configs"]] == NAMES
    assert sum(bool(c.get("default")) for c in data["configs"]) == 1
    info = {i["config_name"]: i for i in data["dataset_info"]}
    assert info[NAMES[0]]["splits"][0]["num_examples"] + info[NAMES[0]]["splits"][1]["num_examples"] == SIZE
    text = card.text
    for name in NAMES:
        assert f"| `{name}` |" in text  # one table row per config
    assert exported.generation["digest"] in text and "answer-only audit" in text
    assert "@inproceedings{an2023blmagrf" in text and "chance" in text


def test_card_table_reports_the_audit_and_label_taxonomy(exported):
    summary = exported.configs[0]
    assert summary.audit is not None and set(summary.audit["baselines"]) >= {"medoid", "classifier"}
    assert summary.labels[0] == ("Correct", "CORRECT")
    assert sum(s.num_examples for s in summary.splits) == SIZE


def test_export_is_byte_reproducible(exported, tmp_path):
    again = export(NAMES, tmp_path / "again", Options(size=SIZE), num_proc=1, report=None, progress=False)
    first = {p.relative_to(exported.out): p.read_bytes() for p in exported.files}
    second = {p.relative_to(again.out): p.read_bytes() for p in again.files}
    assert first.keys() == second.keys()
    assert all(first[k] == second[k] for k in first), [str(k) for k in first if first[k] != second[k]]


def test_reexport_keeps_text_written_outside_generated_sections(tmp_path):
    out, name = tmp_path / "blm", NAMES[0]
    export([name], out, Options(size=30), audit=False, report=None, progress=False)
    readme = out / "README.md"
    data, body = split_card(readme.read_text())
    body = body.replace("<!-- blm:begin configs -->", "## Our notes\n\nHand-written.\n\n<!-- blm:begin configs -->")
    readme.write_text(join_card({**data, "viewer": False}, body))
    with pytest.raises(ValueError, match=r"other options: seed 42 \(now 7\); pass --overwrite"):
        export([name], out, Options(size=30, seed=7), audit=False, report=None, progress=False)
    export([name], out, Options(size=30, seed=7), audit=False, report=None, progress=False, overwrite=True)
    new_data, new_body = split_card(readme.read_text())
    assert "## Our notes\n\nHand-written.\n\n<!-- blm:begin configs -->" in new_body
    assert new_data["viewer"] is False
    assert "| seed | 7 |" in new_body and "| seed | 42 |" not in new_body


def test_configs_without_their_input_files_are_skipped_and_listed(monkeypatch, tmp_path):
    real_generate = export_module.generate

    def generate_without_sources(spec, opts, **kwargs):
        if spec.name == NAMES[1]:
            raise SourceUnavailable(f"{spec.name}: no CoNLL-U sources given; pass --sources")
        return real_generate(spec, opts, **kwargs)

    monkeypatch.setattr(export_module, "generate", generate_without_sources)
    result = export(NAMES[:2], tmp_path / "all", Options(size=30), audit=False, skip_unavailable=True,
                    report=None, progress=False)
    assert [c.name for c in result.configs] == NAMES[:1] and [s.name for s in result.skipped] == NAMES[1:2]
    assert f"`{NAMES[1]}`" in result.card.read_text().split("Not in this export")[1]
    with pytest.raises(ValueError, match="pass --sources"):
        export(NAMES[:2], tmp_path / "named", Options(size=30), audit=False, report=None, progress=False)


def test_every_record_column_is_documented_in_the_card():
    assert set(FEATURES) <= set(COLUMN_DOCS)


def test_schema_check_catches_misspelt_missing_and_wrong_keys():
    errors = check_dataset_card_data({"lisence": "mit", "pretty_name": "x", "size_categories": ["huge"],
                                      "configs": [{"config_name": "a", "data_files": "a/*", "default": True},
                                                  {"config_name": "b", "data_file": "b/*", "default": True}]})
    text = "\n".join(errors)
    assert "unknown key 'lisence' (did you mean 'license'?)" in text
    assert "missing required key 'dataset_info'" in text and "size_categories" in text
    assert "exactly one config must have default" in text and "'data_file'" in text


def test_cli_export_reports_progress_and_errors(capsys, tmp_path):
    assert main(["export", NAMES[0], "--size", "30", "--out", str(tmp_path / "o"), "--quiet", "--no-audit"]) == 0
    out = capsys.readouterr().out
    assert f"[1/1] {NAMES[0]}: train" in out and "wrote" in out
    assert main(["export", "--out", str(tmp_path / "p")]) == 2
    assert "name at least one config" in capsys.readouterr().err
    assert main(["export", "agr_xx_typeI", "--out", str(tmp_path / "q")]) == 2
    assert "unknown BLM config 'agr_xx_typeI'" in capsys.readouterr().err
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    assert main(["export", NAMES[0], "--size", "30", "--out", str(tmp_path / "busy"), "--quiet"]) == 2
    assert "not empty" in capsys.readouterr().err
    assert main(["export", NAMES[0], "--size", "9999999", "--out", str(tmp_path / "r"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"blm export: error: {NAMES[0]}: ") and "--size" in err and not (tmp_path / "r" / NAMES[0]).exists()


def test_a_config_and_its_twin_are_exported_together_as_generated_alone(tmp_path, monkeypatch):
    paper, twin = "agr_ro_typeII", "agr_ro_typeII_balanced"
    groups = []
    real = export_module.export_group
    monkeypatch.setattr(export_module, "export_group", lambda names, *a, **k: groups.append(names) or real(names, *a, **k))
    result = export([twin, "agr_en_typeI", paper], tmp_path / "out", Options(size=SIZE), audit=False, report=None,
                    progress=False)
    assert groups == [(paper, twin), ("agr_en_typeI",)]
    assert [c.name for c in result.configs] == [twin, "agr_en_typeI", paper]
    for name in (paper, twin):
        loaded = datasets.load_dataset(str(result.out), name, cache_dir=str(tmp_path / name))
        alone = generate(registry.get_spec(name), Options(size=SIZE), progress=False)
        assert loaded["test"].to_list() == alone["test"].records


@pytest.mark.parametrize("extras", [False, True])
def test_card_writer_gives_the_text_of_a_full_merge_after_every_config(exported, tmp_path, extras):
    """The writer keeps the header it wrote parsed; its text is what merging the freshly rendered card into the
    file gives, config after config, over a hand-edited card (the same YAML round trips, skipped)."""
    import json

    from hub_cards.dataset_card import render_dataset_card
    from hub_cards.sections import merge_card

    manifest = json.loads((exported.out / ".blm_export.json").read_text())
    summaries = {n: c["summary"] for n, c in manifest["configs"].items()}
    kwargs = dict(card_extras={"viewer": False}, card_notes="Notes.") if extras else {}
    write = export_module._card_writer(exported.generation, None, "apache-2.0", lambda: [], **kwargs)
    card = tmp_path / "README.md"
    card.write_text("---\ntags:\n- mine\n---\n# Ours\n\nHand-written.\n")
    for n in range(1, len(summaries) + 1):
        done = dict(list(summaries.items())[:n])
        rendered = render_dataset_card([export_module.summary_from_dict(s) for s in done.values()],
                                       exported.generation, FEATURES, None, export_module.BlmBuilder.DEFAULT_CONFIG_NAME,
                                       (export_module.AUDIT_TEST_SAMPLE, export_module.AUDIT_TRAIN_SAMPLE))
        if extras:
            data, body = split_card(rendered)
            rendered = join_card({**data, "viewer": False},
                                 body + "\n<!-- blm:begin notes -->\nNotes.\n<!-- blm:end notes -->\n")
        expected = merge_card(card.read_text(), rendered, keep_foreign_configs=False)
        text = write(tmp_path, done)
        assert text == expected
        assert "Hand-written." in text and "- mine" in text
        card.write_text(text)
    card.write_text(card.read_text().replace("Hand-written.", "Edited meanwhile."))  # not the text it wrote
    assert "Edited meanwhile." in write(tmp_path, summaries)
