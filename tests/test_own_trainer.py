"""The README's "Your own `Trainer`" example runs as written with a plain `transformers.Trainer` (its data and encoder
swapped for tiny ones), trains, and reports a loss and an accuracy that agree with the model's own predictions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest_models import make_agreement_dataset, tiny_encoder_dir  # noqa: F401 (fixture)

README = Path(__file__).resolve().parents[1] / "README.md"
DATA_LINE = 'data = load_blm("agr_en_typeI", size=1000)'
MODEL_LINE = 'model = BlmModel.from_encoder("sentence-transformers/all-MiniLM-L6-v2", head="ffnn")'


def readme_example() -> str:
    section = README.read_text(encoding="utf-8").split("### Your own `Trainer`", 1)[1]
    return re.search(r"```python\n(.*?)```", section, flags=re.DOTALL).group(1)


def run_example(tmp_path, monkeypatch, encoder: Path, **model_kwargs) -> dict:
    code = readme_example()
    lines = code.splitlines()
    data_line = next(i for i, line in enumerate(lines) if line.startswith(DATA_LINE))
    model_line = lines.index(MODEL_LINE)
    # the same two statements on tiny inputs: 60 synthetic agreement puzzles and a 2-layer random BERT
    lines[data_line] = "data = make_agreement_dataset(n_train=60, n_test=20)"
    lines[model_line] = f"model = BlmModel.from_encoder({str(encoder)!r}, head='ffnn'{model_kwargs.get('extra', '')})"
    monkeypatch.chdir(tmp_path)
    namespace = {"make_agreement_dataset": make_agreement_dataset}
    exec(compile("\n".join(lines), str(README), "exec"), namespace)  # noqa: S102 (the README's own example)
    return namespace


def test_the_readme_example_is_plain_transformers_and_public_helpers():
    code = readme_example()
    assert DATA_LINE in code and MODEL_LINE in code
    assert "from transformers import Trainer, TrainingArguments" in code and "BlmTrainer" not in code
    imports = set(re.findall(r"^from (\S+) import (.+)$", code, flags=re.MULTILINE))
    assert imports == {("transformers", "Trainer, TrainingArguments"), ("blm_datasets", "load_blm"),
                       ("blm_models", "BlmModel, prepare_for_trainer")}
    assert len(code.strip().splitlines()) <= 22


@pytest.mark.parametrize("extra", ["", ", train_encoder=True"], ids=["frozen", "fine-tuned"])
def test_the_readme_example_trains_with_a_plain_trainer(tmp_path, monkeypatch, tiny_encoder_dir, extra):
    from transformers import Trainer

    namespace = run_example(tmp_path, monkeypatch, tiny_encoder_dir, extra=extra)
    trainer, metrics, data, model = namespace["trainer"], namespace["metrics"], namespace["data"], namespace["model"]
    assert type(trainer) is Trainer
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    train_loss = next(entry["train_loss"] for entry in trainer.state.log_history if "train_loss" in entry)
    assert train_loss > 0 and all(loss == loss for loss in losses)
    assert metrics["eval_loss"] > 0
    # the Trainer's accuracy is the share of test instances whose pick (from raw text) is the gold answer
    picks = model.predict(data["test"])
    gold = data["test"]["label"]
    assert metrics["eval_accuracy"] == pytest.approx(sum(p == g for p, g in zip(picks, gold)) / len(gold))
    label_counts = {key: value for key, value in metrics.items() if key.startswith("eval_picks_label_")}
    assert sum(label_counts.values()) == len(gold) and label_counts["eval_picks_label_Correct"] == sum(
        p == g for p, g in zip(picks, gold))
    assert (tmp_path / "runs" / "own_trainer" / "modeling_blm.py").is_file()


def test_a_trainer_that_drops_the_rows_fields_gets_the_fix_in_one_line(tiny_encoder_dir):
    from blm_models import BlmModel, prepare_for_trainer

    data = make_agreement_dataset(n_train=4, n_test=2)
    blm = prepare_for_trainer(data, BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn"))
    rows = [{"labels": row["labels"]} for row in blm["train"]]  # what remove_unused_columns=True leaves
    with pytest.raises(ValueError, match=r"remove_unused_columns=False"):
        blm.data_collator(rows)


def test_data_with_another_context_length_names_the_fix(tiny_encoder_dir):
    from blm_models import BlmModel, prepare_for_trainer
    from blm_models.errors import DataError

    data = make_agreement_dataset(n_train=4, n_test=2)
    with pytest.raises(DataError, match="context_length=7"):
        prepare_for_trainer(data, BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn", context_length=4))
