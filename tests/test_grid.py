"""`blm grid`: train on each lexical type, test on each, over seeds; the report, results.json and the figures.

Runs generate small agr_en and CausH configs and train on a tiny random BERT whose word-level vocabulary is
built from the generated sentences (no download), for a few epochs.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path

import datasets
import pytest
from conftest_models import single_torch_thread  # noqa: F401 (fixture)
from matplotlib.colors import to_hex
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

from blm_cli.main import main
from blm_eval import grid, grid_figures
from blm_datasets.sources import load_source

AGR = ["agr_en_typeI", "agr_en_typeII", "agr_en_typeIII"]
CAUSH = "caush_he_synthetic_typeIII"
SIZE, TRAIN, TEST, SEEDS = 200, 60, 30, 2
FLAGS = ["--seeds", str(SEEDS), "--epochs", "3", "--size", str(SIZE), "--max-train-instances", str(TRAIN),
         "--max-test-instances", str(TEST), "--train-args", "--per_device_train_batch_size 16", "--quiet"]


def build_encoder(directory: Path, sentences: set[str]) -> Path:
    """A 2-layer random BERT (hidden 32) with a word-level tokenizer over the words of `sentences`."""
    import torch

    words = sorted({word.lower() for sentence in sentences for word in sentence.split()})
    vocab = {word: i for i, word in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *words])}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    backend.normalizer = normalizers.Lowercase()
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="[PAD]", unk_token="[UNK]",
                                        cls_token="[CLS]", sep_token="[SEP]")
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    BertModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory) -> Path:
    sentences: set[str] = set()
    for config in [*AGR, CAUSH]:
        for split in load_source(None, config, size=SIZE).values():
            for row in split.select_columns(["context", "answers"]):
                sentences.update(row["context"] + row["answers"])
    return build_encoder(tmp_path_factory.mktemp("grid_encoder"), sentences)


def run_cli(tmp_path_factory, encoder_dir: Path, name: str, *configs: str) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp(name)
    cache = tmp_path_factory.getbasetemp() / "grid_embeddings"
    assert main(["grid", *configs, "--out", str(out), "--encoder", str(encoder_dir),
                 "--embedding-cache-dir", str(cache), *FLAGS]) == 0
    return out, json.loads((out / "results.json").read_text())


@pytest.fixture(scope="module")
def agr_grid(tmp_path_factory, encoder_dir):
    return run_cli(tmp_path_factory, encoder_dir, "grid_agr", "agr_en")


@pytest.fixture(scope="module")
def caush_grid(tmp_path_factory, encoder_dir):
    return run_cli(tmp_path_factory, encoder_dir, "grid_caush", CAUSH)


def test_a_prefix_expands_to_its_lexical_types_and_unknown_names_list_the_valid_ones():
    assert grid.expand_configs(["agr_en"]) == AGR
    assert grid.expand_configs(["agr_en"], balanced=True) == [f"{c}_balanced" for c in AGR]
    assert grid.expand_configs(["agr_en_typeIII", "agr_en"]) == ["agr_en_typeIII", "agr_en_typeI", "agr_en_typeII"]
    assert grid.expand_configs([CAUSH]) == [CAUSH]
    with pytest.raises(ValueError, match="unknown BLM config or prefix 'agr_xx'") as error:
        grid.expand_configs(["agr_xx"])
    assert "Valid prefixes: agr_en, agr_es, agr_fr" in str(error.value) and "agr_en_typeI_balanced" in str(error.value)


def test_unknown_config_and_empty_split_are_clear_cli_errors(tmp_path, capsys, monkeypatch):
    assert main(["grid", "agr_en_typeIV", "--out", str(tmp_path)]) == 2
    assert "grid: error: unknown BLM config or prefix 'agr_en_typeIV'. Did you mean" in capsys.readouterr().err
    empty = datasets.DatasetDict(train=load_source(None, "agr_en_typeI", size=SIZE)["train"],
                                 test=load_source(None, "agr_en_typeI", size=SIZE)["test"].select([]))
    monkeypatch.setattr("blm_datasets.sources.load_source", lambda *args, **kwargs: empty)
    assert main(["grid", "agr_en_typeI", "--out", str(tmp_path)]) == 2
    assert "the 'test' split of agr_en_typeI is empty" in capsys.readouterr().err
    assert not (tmp_path / "report.md").exists()


def test_flags_the_grid_sets_itself_are_refused_in_train_args():
    with pytest.raises(ValueError, match="--output_dir is set by `blm grid` itself"):
        grid.GridSettings(train_args=["--output_dir", "x"]).train_argv("out", 0)
    argv = grid.GridSettings(train_args=["--num_train_epochs", "7"]).train_argv("out", 3)
    assert argv[-4:] == ["--output_dir", "out", "--seed", "3"] and argv.index("7") > argv.index("30")


def test_the_grid_writes_report_results_and_readable_figures(agr_grid):
    out, results = agr_grid
    assert {p.name for p in out.iterdir()} == {"report.md", "results.json", "heatmap.png", "picked_labels.png",
                                                ".blm-out.json"}
    assert all((out / name).read_bytes().startswith(b"\x89PNG") for name in ("heatmap.png", "picked_labels.png"))
    report = (out / "report.md").read_text()
    assert "| train \\ test | typeI | typeII | typeIII |" in report
    assert "![accuracy heatmap](heatmap.png)" in report and "![picked answer labels](picked_labels.png)" in report
    assert len(results["runs"]) == 3 * SEEDS and results["labels"]["agr_en_typeII"] == "typeII"


def test_table_cells_are_mean_and_std_of_the_per_seed_accuracies(agr_grid):
    out, results = agr_grid
    report = (out / "report.md").read_text()
    for train in AGR:
        runs = [r for r in results["runs"] if r["train"] == train]
        assert [r["seed"] for r in runs] == [0, 1]
        for test in AGR:
            accuracies = [r["tests"][test]["accuracy"] for r in runs]
            cell = results["cells"][f"{train}|{test}"]
            assert cell["accuracies"] == accuracies
            assert cell["mean"] == pytest.approx(statistics.mean(accuracies))
            assert cell["std"] == pytest.approx(statistics.pstdev(accuracies))
            assert f"{cell['mean']:.3f} ± {cell['std']:.3f}" in report
            for result in (r["tests"][test] for r in runs):  # accuracy is the share of Correct picks
                assert result["accuracy"] == pytest.approx(result["picks_per_label"].get("Correct", 0) / TEST)


def test_picked_label_counts_sum_to_the_test_instances(agr_grid):
    _, results = agr_grid
    for run in results["runs"]:
        assert run["train_instances"] + run["validation_instances"] == TRAIN
        for result in run["tests"].values():
            assert sum(result["picks_per_label"].values()) == result["instances"] == TEST
            assert sum(result["picks_per_class"].values()) == TEST
            assert result["picks_per_label"].get("Correct", 0) == result["picks_per_class"].get("CORRECT", 0)
    for cell in results["cells"].values():
        assert sum(cell["picks_per_label"].values()) == SEEDS * TEST


def test_figures_have_titles_axis_labels_colour_scale_and_legend(agr_grid):
    _, results = agr_grid
    figures = grid_figures.grid_figures(results)
    assert set(figures) == {"heatmap", "picked_labels"}
    heatmap, colourbar = figures["heatmap"].axes
    assert heatmap.get_xlabel() == "test data" and heatmap.get_ylabel() == "train data"
    assert "Accuracy" in heatmap.get_title() and "2 seeds" in heatmap.get_title()
    assert [t.get_text() for t in heatmap.get_xticklabels()] == ["typeI", "typeII", "typeIII"]
    assert "accuracy" in colourbar.get_ylabel()
    cell = results["cells"]["agr_en_typeII|agr_en_typeIII"]
    assert f"{cell['mean']:.2f}\n± {cell['std']:.2f}" in [t.get_text() for t in heatmap.texts]

    bars = figures["picked_labels"].axes[0]
    assert bars.get_xlabel() and bars.get_ylabel() == "share of picked answers" and bars.get_title()
    legend = [t.get_text() for t in bars.get_legend().get_texts()]
    assert legend[0] == "Correct" and "WN1 (SEQUENCE)" in legend and "AEV (GRAMMAR)" in legend
    assert len(bars.get_xticklabels()) == 9
    heights = Counter()
    for patch in bars.patches:
        heights[round(patch.get_x(), 6)] += patch.get_height()
    assert len(heights) == 9 and all(h == pytest.approx(1.0) for h in heights.values())
    correct = bars.containers[0]
    assert to_hex(correct.patches[0].get_facecolor()) == grid_figures.CORRECT_COLOUR
    first = results["cells"]["agr_en_typeI|agr_en_typeI"]
    assert correct.patches[0].get_height() == pytest.approx(first["picks_per_label"].get("Correct", 0) / (SEEDS * TEST))


def test_caush_confusion_rows_sum_to_the_instances_of_each_gold_binyan(caush_grid):
    out, results = caush_grid
    assert (out / "confusion.png").exists() and "## Confusions" in (out / "report.md").read_text()
    _, test = grid.load_grid_data([CAUSH], grid.GridSettings(size=SIZE, max_test_instances=TEST))[CAUSH]
    per_binyan = Counter(template.split("-")[1] for template in test["template"])  # `synthetic-HUFAL`
    for run in results["runs"]:
        confusion = run["tests"][CAUSH]["confusion"]
        assert confusion["attribute"] == "binyan" and confusion["order"] == ["PAAL", "NIFAL", "HIFIL", "HUFAL"]
        assert {gold: sum(row.values()) for gold, row in confusion["counts"].items()} == dict(per_binyan)
        diagonal = sum(row.get(gold, 0) for gold, row in confusion["counts"].items())
        assert diagonal == run["tests"][CAUSH]["picks_per_label"].get("Correct", 0)
    cell = results["cells"][f"{CAUSH}|{CAUSH}"]["confusion"]["counts"]
    assert {gold: sum(row.values()) for gold, row in cell.items()} == {b: SEEDS * n for b, n in per_binyan.items()}

    figure = grid_figures.grid_figures(results)["confusion"]
    matrix = figure.axes[0]
    assert matrix.get_xlabel() == "picked binyan" and matrix.get_ylabel() == "gold binyan" and matrix.get_title()
    assert "Confusion" in figure.get_suptitle() and "share" in figure.axes[-1].get_ylabel()
