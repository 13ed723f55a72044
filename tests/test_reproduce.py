"""`blm reproduce` on a tiny grid (a tiny random BERT built from a config, tiny sizes): the report puts every
published number next to ours with its source and the protocol differences; runs resume; the papers file is
consistent with what is run; `--encoder auto` resolves from the measured table."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import pytest
from conftest_models import single_torch_thread  # noqa: F401 (fixture)
from test_grid import build_encoder

from blm_cli.main import main
from blm_datasets.sources import load_source
from blm_eval.reproduce import HEADS, load_papers, plan

AGR_FR = ["agr_fr_typeI", "agr_fr_typeII", "agr_fr_typeIII"]
SIZE = 200
FLAGS = ["--paper", "003", "--seeds", "2", "--epochs", "3", "--patience", "2", "--size", str(SIZE),
         "--max-train-instances", "50", "--max-test-instances", "20", "--threads", "1"]


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory) -> Path:
    sentences: set[str] = set()
    for config in AGR_FR:
        for split in load_source(None, config, size=SIZE).values():
            for row in split.select_columns(["context", "answers"]):
                sentences.update(row["context"] + row["answers"])
    return build_encoder(tmp_path_factory.mktemp("reproduce_encoder"), sentences)


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory, encoder_dir):
    out = tmp_path_factory.mktemp("reproduce")
    cache = tmp_path_factory.getbasetemp() / "reproduce_embeddings"
    argv = ["reproduce", "--out", str(out), "--encoder", str(encoder_dir), "--embedding-cache-dir", str(cache), *FLAGS]
    assert main(argv) == 0
    return out, argv, json.loads((out / "results.json").read_text())


def test_report_puts_each_published_number_next_to_ours_with_its_source(reproduced):
    out, _, results = reproduced
    report = (out / "report.md").read_text()
    family = results["families"][0]
    assert family["configs"] == AGR_FR and family["settings"]["head"] == "ffnn"
    published = load_papers()["papers"]["003"]["numbers"]
    rows = [line for line in report.splitlines() if line.startswith("| ") and "003 Table 1" in line]
    assert len(rows) == len(published) == 18
    for number in published:
        cell = family["cells"][f"{number['train']}|{number['test']}"]
        per_seed = [run["tests"][number["test"]]["accuracy"]
                    for run in family["runs"] if run["train"] == number["train"]]
        assert cell["mean"] == pytest.approx(statistics.fmean(per_seed))
        assert cell["std"] == pytest.approx(statistics.pstdev(per_seed))
        expected = (f"| {number['label']} | FFNN | {number['train']} → {number['test']} | {number['value']:.3f}"
                    + (f" ± {number['std']:.3f}" if number["std"] else "")
                    + f" | {number['source']} | {cell['mean']:.3f} ± {cell['std']:.3f} |")
        assert expected in rows


def test_report_states_the_protocol_differences_and_shows_the_figures(reproduced, encoder_dir):
    out, _, results = reproduced
    report = (out / "report.md").read_text()
    theirs = "bert-base-multilingual-cased sentence embeddings (§3.1 fn. 1)"
    assert f"- encoder: {theirs}; ours: frozen {encoder_dir}" in report
    assert "- score: cosine; ours: dot product" in report
    theirs = "all training data, or 2073 instances (1658 train / 415 validation) per type"
    assert f"- sizes: {theirs}; ours: 50 training" in report
    assert "at most 3 epochs with early stopping (patience 2), 2 seeds stacked" in report
    for name in ("heatmap", "picked_labels"):
        figure = out / "figures" / f"agr_fr_ffnn_{name}.png"
        assert figure.stat().st_size > 10_000
        assert f"(figures/agr_fr_ffnn_{name}.png)" in report
    assert "| train \\ test | typeI | typeII | typeIII |" in report
    runs = results["families"][0]["runs"]
    assert sorted((r["train"], r["seed"]) for r in runs) == sorted((c, s) for c in AGR_FR for s in (0, 1))
    assert all(1 <= r["epochs"] <= 3 and 1 <= r["best_epoch"] <= r["epochs"] for r in runs)


def copy_of(reproduced, tmp_path) -> tuple[Path, list[str]]:
    """A copy of the reproduced folder and the argv that writes into it (the module's folder stays as it is)."""
    out, argv, _ = reproduced
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    changed = list(argv)
    changed[changed.index("--out") + 1] = str(copy)
    return copy, changed


def refused_line(capsys, argv) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if line.startswith("blm reproduce: error: ")]
    return line


def test_a_second_run_reuses_finished_train_configs(reproduced, capsys):
    out, argv, results = reproduced
    capsys.readouterr()
    assert main(argv) == 0
    assert capsys.readouterr().out.count("reused from") == 3
    again = json.loads((out / "results.json").read_text())
    assert again["families"][0]["cells"] == results["families"][0]["cells"]


def test_other_settings_in_the_same_out_are_refused_and_trained_again_with_overwrite(reproduced, tmp_path, capsys):
    copy, argv = copy_of(reproduced, tmp_path)
    argv[argv.index("--seeds") + 1] = "1"
    before = (copy / "results.json").read_bytes()
    line = refused_line(capsys, argv)
    assert "holds a blm reproduce run with other settings (--seeds 2 -> 1)" in line and "--overwrite" in line
    assert (copy / "results.json").read_bytes() == before
    assert main([*argv, "--overwrite"]) == 0
    assert "reused from" not in capsys.readouterr().out
    assert len(json.loads((copy / "results.json").read_text())["families"][0]["runs"]) == 3


def test_saved_runs_on_other_data_are_refused_and_trained_again_with_overwrite(reproduced, tmp_path, capsys,
                                                                              monkeypatch):
    """Changed data (here one training instance fewer per config, as an edited lexicon would give) under the same
    settings must not reuse the saved runs, nor silently replace them."""
    import blm_eval.reproduce as reproduce

    copy, argv = copy_of(reproduced, tmp_path)
    loaded = reproduce.load_family

    def one_fewer(task, settings):
        data = loaded(task, settings)
        return {c: {**parts, "train": parts["train"].select(range(len(parts["train"]) - 1))}
                for c, parts in data.items()}

    digest = reproduce.runs_code_digest()  # the data changes, the code does not (load_family's source is in it)
    monkeypatch.setattr(reproduce, "runs_code_digest", lambda: digest)
    monkeypatch.setattr(reproduce, "load_family", one_fewer)
    line = refused_line(capsys, argv)
    assert "was trained on other data or another encoder" in line
    assert main([*argv, "--overwrite"]) == 0
    assert "reused from" not in capsys.readouterr().out


def test_saved_runs_made_by_other_code_are_refused(reproduced, tmp_path, capsys, monkeypatch):
    import blm_eval.reproduce as reproduce

    _, argv = copy_of(reproduced, tmp_path)
    monkeypatch.setattr(reproduce, "runs_code_digest", lambda: "edited")
    line = refused_line(capsys, argv)
    assert "with other settings (code (a digest) '" in line and "-> 'edited')" in line


def test_a_folder_of_someone_elses_files_is_not_written_into(reproduced, tmp_path, capsys):
    out, argv, _ = reproduced
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.md").write_text("my notes\n")
    argv = list(argv)
    argv[argv.index("--out") + 1] = str(mine)
    line = refused_line(capsys, argv)
    assert line.endswith(f"--out {mine} already holds files not written by blm reproduce (report.md); pass "
                         "--overwrite to replace them, or choose a new --out")
    assert (mine / "report.md").read_text() == "my notes\n" and sorted(p.name for p in mine.iterdir()) == ["report.md"]


def test_every_published_number_names_settings_the_papers_tables_run():
    papers = load_papers()
    tasks = plan(papers, None, list(HEADS))
    trained = {(task.head, config) for task in tasks for config in task.configs}
    for paper, spec in papers["papers"].items():
        for number in spec["numbers"]:
            head = number.get("head", "ffnn")
            for train, test in number.get("compare_with") or [[number["train"], number["test"]]]:
                assert (head, train) in trained and (head, test) in trained, (paper, number["label"])
            assert number["source"].startswith(paper)


def test_an_unknown_paper_is_a_one_line_error(tmp_path, capsys):
    assert main(["reproduce", "--paper", "009", "--out", str(tmp_path / "out")]) == 2
    assert "--paper 009: unknown; the papers are 000, 001, 002, 003, 004" in capsys.readouterr().err


def test_auto_encoder_uses_the_measured_family_then_phenomenon_and_language_then_minilm(capsys):
    from types import SimpleNamespace

    from blm_models.encoder_choice import apply_auto_encoder, choose_encoder

    table = {"cosplus_decase_t2i": {"phenomenon": "cosplus", "language": "decase", "encoder": "multilingual-e5-small",
                                    "layer": 6}}
    own = choose_encoder("cosplus_decase_t2i_typeIII_balanced", table)
    assert (own.encoder, own.layer, own.matched) == ("multilingual-e5-small", 6, "cosplus_decase_t2i")
    sibling = choose_encoder("cosplus_decase_i2t_typeI", table)
    assert sibling.matched == "cosplus_decase_t2i" and "same phenomenon and language" in sibling.note
    fallback = choose_encoder("roll_en_typeI", table)
    assert (fallback.encoder, fallback.layer, fallback.matched) == ("all-MiniLM-L6-v2", -1, None)

    args = SimpleNamespace(encoder="auto", hidden_layer=-1)
    choice = apply_auto_encoder(SimpleNamespace(dataset_config="no_such_config_typeI"), args)
    assert (args.encoder, args.hidden_layer) == ("all-MiniLM-L6-v2", -1)
    assert args.encoder_choice["note"] == choice.note
    assert capsys.readouterr().out.strip() == choice.note  # the fallback's one-line note
    kept = SimpleNamespace(encoder="some/encoder", hidden_layer=-1)
    assert apply_auto_encoder(SimpleNamespace(dataset_config="agr_fr_typeI"), kept) is None
    assert kept.encoder == "some/encoder"


def test_train_py_resolves_encoder_auto_from_the_shipped_table(tmp_path):
    from blm_models.arguments import parse_arguments
    from blm_models.encoder_choice import load_table

    entry = load_table()["cos_it"]
    flags = ["--dataset_config", "cos_it_typeII", "--encoder", "auto", "--output_dir", str(tmp_path)]
    _, encoder_args, *_ = parse_arguments(flags)
    assert (encoder_args.encoder, encoder_args.hidden_layer) == (entry["encoder"], entry["layer"])
    assert encoder_args.encoder_choice["matched"] == "cos_it"  # recorded in metrics.json (config.encoder)
    _, explicit, *_ = parse_arguments([*flags, "--hidden_layer", "1"])
    assert (explicit.encoder, explicit.hidden_layer) == (entry["encoder"], 1)  # a given layer wins


def test_a_family_whose_data_cannot_be_loaded_is_reported_as_not_run(tmp_path, monkeypatch):
    from blm_eval import reproduce
    from blm_eval.reproduce_report import write_outputs
    from builders.base import SourceUnavailable

    def unavailable(task, settings, out, log, overwrite):
        raise SourceUnavailable(f"{task.family}: no CoNLL-U sources given")

    monkeypatch.setattr(reproduce, "run_task", unavailable)
    settings = reproduce.ReproduceSettings(papers=["000"], families=["caush_he_natural", "cosplus_en_t2i"])
    results = reproduce.reproduce(settings, tmp_path, log=lambda message: None)
    assert [item["family"] for item in results["skipped"]] == ["cosplus_en_t2i", "caush_he_natural"]
    report = write_outputs(results, tmp_path)["report"].read_text()
    assert "- caush_he_natural (FFNN): caush_he_natural: no CoNLL-U sources given" in report
    assert "| En COS+ T2I | FFNN | cosplus_en_t2i_typeI → cosplus_en_t2i_typeI | 0.983 |" in report
    assert report.count("| not run |") == 9  # every setting of the four published 000 numbers
