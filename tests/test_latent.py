"""VAE latent analysis (blm_eval.latent): pattern-level confusion, traversal over the training range, 2-D
projection, figures and outputs, on a tiny two-level VAE trained on the synthetic agreement BLM."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest_models import (  # noqa: F401 (fixtures)
    embedding_cache_dir, make_agreement_dataset, single_torch_thread, tiny_encoder_dir,
)

from blm_eval import latent
from blm_eval.latent_figures import FIGURE_FILES, build_figures
from blm_models import BlmModel
from blm_models.train_job import main as train

LATENT_SIZE, STEPS, N_TEST = 4, 6, 24



@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("latent_data") / "data"
    make_agreement_dataset(n_train=120, n_test=N_TEST, seed=5).save_to_disk(str(directory))
    return directory


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory, data_dir, tiny_encoder_dir, embedding_cache_dir) -> Path:
    """A two-level VAE trained for a few epochs by train.py."""
    output = tmp_path_factory.mktemp("tlvae")
    train(["--dataset_path", str(data_dir), "--encoder", str(tiny_encoder_dir), "--embedding_cache_dir",
           str(embedding_cache_dir), "--output_dir", str(output), "--head", "two_level_vae", "--latent_size",
           str(LATENT_SIZE), "--num_train_epochs", "6", "--learning_rate", "1e-2", "--per_device_train_batch_size",
           "16", "--disable_tqdm", "true", "--logging_strategy", "no", "--seed", "0"])
    return output


@pytest.fixture(scope="module")
def analysis(checkpoint, tmp_path_factory) -> latent.LatentAnalysis:
    out = tmp_path_factory.mktemp("latent_out")
    result = latent.run_latent_analysis(checkpoint, out, steps=STEPS, progress=False)
    result.details["out"] = str(out)
    return result


@pytest.fixture(scope="module")
def test_split(data_dir):
    import datasets

    return datasets.load_from_disk(str(data_dir))["test"]


def _head_inputs(checkpoint, sentences):
    """The trained model and the embeddings of `sentences` as training made them."""
    model = BlmModel.from_pretrained(str(checkpoint)).eval()
    cache = latent.recorded_run(checkpoint)["data"]["embedding_cache_dir"]
    return model, latent.embed_sentences(model, sentences, cache, progress=False)


def test_outputs_are_written_with_report_and_results(analysis):
    out = Path(analysis.details["out"])
    for name in [*FIGURE_FILES.values(), "report.md", "results.json"]:
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    results = json.loads((out / "results.json").read_text())
    assert results["accuracy"] == pytest.approx(analysis.accuracy)
    assert np.array(results["traversal_confusions"]).shape == analysis.traversal_confusions.shape
    report = (out / "report.md").read_text()
    assert f"**{analysis.accuracy:.3f}**" in report
    assert sum(line.startswith(f"| {u + 1} | ") for u in range(LATENT_SIZE) for line in report.splitlines()) \
        >= LATENT_SIZE
    assert "metrics.json" in report  # latent ranges from the exact training split


def test_confusion_rows_count_the_test_sentences_of_each_gold_pattern(analysis, test_split):
    gold = Counter(p for patterns in test_split["context_patterns"] for p in patterns)
    k = len(gold)
    assert analysis.confusion.shape == (k, k) and sorted(analysis.classes) == sorted(gold)
    assert {name: int(analysis.confusion[i].sum()) for i, name in enumerate(analysis.classes)} == dict(gold)
    assert analysis.confusion.sum() == 7 * N_TEST
    for unit in range(LATENT_SIZE):
        for step in range(STEPS):
            np.testing.assert_array_equal(analysis.traversal_confusions[unit, step].sum(axis=1),
                                          analysis.confusion.sum(axis=1))


def test_pattern_accuracy_equals_the_heads_own_sentence_level_pick(checkpoint, analysis, test_split):
    contexts = list(test_split["context"])
    model, table = _head_inputs(checkpoint, [s for c in contexts for s in c])
    head = model.head
    with torch.no_grad():
        context = torch.stack([table(c) for c in contexts])  # [B, 7, d]
        mu, _ = head.sentence_encoder(context.reshape(-1, 1, *head.grid))
        decoded = head.sentence_decoder(mu).view(context.shape)
        scores = torch.einsum("bid,bkd->bik", head._normalise(decoded), head._normalise(context))
    own = (scores.argmax(dim=-1) == torch.arange(7)).float().mean().item()  # patterns are distinct per instance
    assert analysis.accuracy == pytest.approx(own)


def test_traversal_has_one_matrix_per_unit_and_value_spanning_the_training_range(checkpoint, analysis, data_dir):
    from blm_models.arguments import DataArguments
    from blm_models.train_job import prepare_splits

    assert analysis.traversal_confusions.shape[:2] == (LATENT_SIZE, STEPS) == analysis.traversal_values.shape
    train_split = prepare_splits(DataArguments(dataset_path=str(data_dir)), seed=0)["train"]
    sentences = sorted({s for context in train_split["context"] for s in context})
    model, table = _head_inputs(checkpoint, sentences)
    with torch.no_grad():
        mu, _ = model.head.sentence_encoder(table(sentences).reshape(len(sentences), 1, *model.head.grid))
    assert analysis.n_train_items == len(sentences)
    np.testing.assert_array_equal(analysis.traversal_values[:, 0], mu.min(dim=0).values.numpy())
    np.testing.assert_array_equal(analysis.traversal_values[:, -1], mu.max(dim=0).values.numpy())
    assert (np.diff(analysis.traversal_values, axis=1) > 0).all()
    assert not (analysis.traversal_confusions == analysis.confusion).all()  # the traversal changes predictions


def test_setting_a_unit_to_its_own_value_leaves_the_confusion_unchanged(checkpoint, test_split):
    model, table = _head_inputs(checkpoint, [s for c in test_split["context"] for s in c])
    probe = latent.build_probe(model)
    classes = latent.pattern_order({p for ps in test_split["context_patterns"] for p in ps})
    items = latent.sentence_items(test_split, table, classes)
    latents = latent.encode_latents(probe, items.inputs)
    base = latent.confusion_matrix(items.gold, latent.predict_classes(probe, model.scorer, items, latents),
                                   len(classes))
    changed_somewhere = False
    for unit in range(probe.latent_size):
        same = latent.with_unit(latents, unit, latents[:, unit])
        own = latent.predict_classes(probe, model.scorer, items, same)
        np.testing.assert_array_equal(latent.confusion_matrix(items.gold, own, len(classes)), base)
        shifted = latent.predict_classes(probe, model.scorer, items, latent.with_unit(latents, unit, 50.0))
        changed_somewhere |= not np.array_equal(latent.confusion_matrix(items.gold, shifted, len(classes)), base)
    assert changed_somewhere


def test_projection_has_one_point_per_sentence(analysis):
    n = int(analysis.confusion.sum())
    assert analysis.projection.shape == (n, 2) and len(analysis.colours) == n
    assert analysis.latents.shape == (n, LATENT_SIZE)
    assert latent.project_2d(analysis.latents[:60], "tsne").shape == (60, 2)
    assert np.allclose(analysis.projection.mean(axis=0), 0, atol=1e-4)  # PCA: centred


def test_figures_have_titles_axis_labels_and_legends(analysis):
    figures = build_figures(analysis)
    assert set(figures) == set(FIGURE_FILES)
    for name in ("confusion", "traversal_accuracy", "projection"):
        ax = figures[name].axes[0]
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel(), name
    cells = [ax for ax in figures["traversal"].axes if ax.images]
    assert len(cells) == LATENT_SIZE * STEPS and all(ax.get_title() for ax in cells)
    assert figures["traversal"]._suptitle.get_text().startswith("Latent traversal")
    assert all(cells[u * STEPS].get_ylabel().startswith(f"unit {u + 1}") for u in range(LATENT_SIZE))
    legend = figures["projection"].axes[0].get_legend()
    assert legend is not None and len(legend.get_texts()) == len(set(analysis.colours))
    assert len(figures["traversal_accuracy"].axes[0].get_legend().get_texts()) == LATENT_SIZE + 1


def _cli(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="blm")
    latent.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["latent", *argv])


def test_a_checkpoint_without_latent_is_a_clear_error(tmp_path, tiny_encoder_dir, data_dir):
    BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn").save_pretrained(tmp_path / "ffnn")
    args = _cli(str(tmp_path / "ffnn"), "--dataset-path", str(data_dir))
    with pytest.raises(latent.NoLatentError, match="'ffnn' head, which has no latent.*two_level_vae.*sentence_vae"):
        args.func(args)


def test_sentence_vae_traversal_tracks_the_picked_answer_label(tmp_path, tiny_encoder_dir, data_dir, capsys):
    torch.manual_seed(0)
    BlmModel.from_encoder(str(tiny_encoder_dir), head="sentence_vae").save_pretrained(tmp_path / "vae")
    with pytest.raises(ValueError, match="--dataset-config NAME or --dataset-path"):
        latent.run_latent_analysis(tmp_path / "vae")
    args = _cli(str(tmp_path / "vae"), "--dataset-path", str(data_dir), "--out", str(tmp_path / "out"),
                "--steps", "3", "--max-sentences", "10", "--quiet")
    assert args.func(args) == 0 and "answer label accuracy" in capsys.readouterr().out
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    confusion = np.array(results["confusion"])
    correct = results["classes"].index("Correct")
    assert confusion.sum() == confusion[correct].sum() == 10
    assert np.array(results["traversal_confusions"]).shape == (5, 3, len(results["classes"]), len(results["classes"]))
    assert (tmp_path / "out" / "traversal.png").is_file()


def test_centred_items_are_in_the_frame_a_center_context_model_sees(checkpoint, test_split):
    _, table = _head_inputs(checkpoint, [s for c in test_split["context"] for s in c])
    classes = latent.pattern_order({p for ps in test_split["context_patterns"] for p in ps})
    plain = latent.sentence_items(test_split, table, classes)
    centred = latent.sentence_items(test_split, table, classes, center=True)
    context = table(test_split[0]["context"])
    width = len(test_split[0]["context"])
    torch.testing.assert_close(centred.inputs[:width], context - context.mean(dim=0, keepdim=True))
    torch.testing.assert_close(centred.candidates[0].mean(dim=0), torch.zeros(context.shape[-1]), atol=1e-5, rtol=0)
    assert torch.equal(plain.gold, centred.gold) and not torch.allclose(plain.inputs, centred.inputs)
