"""The lm-evaluation-harness task folder: generated per config and variant, grouped per phenomenon, and
runnable by the harness on an exported dataset folder with a tiny model."""

from __future__ import annotations

import importlib.util

import datasets
import pytest
import yaml

import blm_datasets  # noqa: F401  (the load_dataset("blm") hook)
from blm_eval.lm_eval_tasks import TASK_DIR, include_path
from blm_eval.lm_eval_tasks import utils as task_utils
from blm_eval.lm_eval_tasks.generate import write_tasks
from blm_eval.prompts import render_prompt
from test_llm_eval import build_tiny_causal_lm, single_torch_thread  # noqa: F401 (fixture)

CONFIG, SIZE = "agr_en_typeI", 120
HAS_LM_EVAL = importlib.util.find_spec("lm_eval") is not None


class _Loader(yaml.SafeLoader):
    """Reads task YAMLs without resolving ``!function`` (as the harness's index does)."""


_Loader.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")


def _read(path) -> dict:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)



@pytest.fixture(scope="module")
def export_dir(tmp_path_factory):
    """A folder shaped like `blm export` output: <config>/<split>-00000-of-00001.parquet + README configs."""
    root = tmp_path_factory.mktemp("export")
    dd = datasets.load_dataset("blm", CONFIG, size=SIZE)
    files = []
    for split, ds in dd.items():
        (root / CONFIG).mkdir(exist_ok=True)
        ds.to_parquet(str(root / CONFIG / f"{split}-00000-of-00001.parquet"))
        files.append({"split": split, "path": f"{CONFIG}/{split}-00000-of-00001.parquet"})
    card = yaml.safe_dump({"configs": [{"config_name": CONFIG, "data_files": files, "default": True}]})
    (root / "README.md").write_text(f"---\n{card}---\n# BLM\n", encoding="utf-8")
    return root


def test_generator_writes_one_task_per_config_and_variant_grouped_per_phenomenon(tmp_path):
    configs = ["agr_en_typeI", "agr_it_typeI", "agr_it_typeI_balanced"]
    written = write_tasks(tmp_path, configs, dataset_path="org/blm")
    agr = tmp_path / "agr"
    tasks = {_read(p)["task"]: _read(p) for p in agr.glob("blm_*.yaml")}
    assert set(tasks) == {"blm_agr_en_typeI_letter", "blm_agr_en_typeI_sentence", "blm_agr_it_typeI_letter",
                          "blm_agr_it_typeI_letter_it", "blm_agr_it_typeI_sentence",
                          "blm_agr_it_typeI_balanced_letter", "blm_agr_it_typeI_balanced_letter_it",
                          "blm_agr_it_typeI_balanced_sentence"}
    task = tasks["blm_agr_it_typeI_letter_it"]
    assert task["include"] == "../_blm_letter_it_template.yaml"
    assert task["dataset_kwargs"] == {"blm_config": "agr_it_typeI", "default_path": "org/blm"}
    assert _read(agr / "_blm_agr_letter.yaml")["task"] == ["blm_agr_en_typeI_letter", "blm_agr_it_typeI_letter"]
    assert _read(agr / "_blm_agr_balanced_sentence.yaml")["task"] == ["blm_agr_it_typeI_balanced_sentence"]
    assert "blm_agr_letter" in _read(agr / "_blm_agr.yaml")["task"]
    assert _read(tmp_path / "_blm.yaml")["task"] == ["blm_agr"]
    assert (tmp_path / "utils.py").exists() and len(written) == 8 + 6 + 1 + 1
    write_tasks(tmp_path, ["agr_en_typeI"])  # regenerating removes what is no longer generated
    assert not (agr / "blm_agr_it_typeI_letter.yaml").exists()


def test_shipped_task_folder_is_consistent():
    assert include_path() == str(TASK_DIR)
    names = {}
    for path in TASK_DIR.glob("*/*.yaml"):
        cfg = _read(path)
        names[cfg.get("task") if "include" in cfg else cfg["group"]] = cfg
        if "include" in cfg:
            assert (path.parent / cfg["include"]).exists()
    groups = [cfg for cfg in names.values() if "group" in cfg]
    assert groups and all(member in names for g in groups for member in g["task"])


def test_shipped_task_folder_is_what_the_generator_writes_for_the_registry(tmp_path):
    """Sync: regenerating the folder from the registry changes nothing (rerun generate.py if this fails)."""
    write_tasks(tmp_path)
    generated = {p.relative_to(tmp_path): p.read_text() for p in tmp_path.rglob("*.yaml")}
    shipped = {p.relative_to(TASK_DIR): p.read_text() for p in TASK_DIR.rglob("*.yaml")}
    assert sorted(generated) == sorted(shipped)
    assert [name for name in generated if generated[name] != shipped[name]] == []


def test_data_source_is_metadata_then_environment_then_default(export_dir, monkeypatch):
    monkeypatch.delenv(task_utils.ENV_VAR, raising=False)
    dd = task_utils.load_blm(CONFIG, default_path="/no/such/folder", blm_path=str(export_dir), version=1.0)
    assert set(dd) == {"train", "test"}
    monkeypatch.setenv(task_utils.ENV_VAR, str(export_dir))
    assert len(task_utils.load_blm(CONFIG, default_path="/no/such/folder")["test"]) == len(dd["test"])


def test_letter_task_renders_the_paper_prompt_and_scores_macro_f1(export_dir):
    doc = datasets.load_dataset(str(export_dir), CONFIG)["test"][0]
    assert task_utils.doc_to_text_en(doc) == render_prompt(doc, "en")
    results = [(-3.0, False)] * len(doc["answers"])
    results[doc["label"]] = (-1.0, True)
    assert task_utils.process_results_letter(doc, results)["acc"] == 1.0
    assert task_utils.macro_f1([("A", "A"), ("B", "A")]) == pytest.approx((2 / 3 + 0) / 2)


@pytest.mark.skipif(not HAS_LM_EVAL, reason="needs lm-eval (PyPI)")
def test_harness_loads_the_task_and_computes_metrics_with_a_tiny_model(export_dir, tmp_path):
    import lm_eval
    from lm_eval.tasks import TaskManager

    tasks_dir = tmp_path / "tasks"
    write_tasks(tasks_dir, [CONFIG], dataset_path=str(export_dir))
    manager = TaskManager(include_path=str(tasks_dir), include_defaults=False)
    assert {"blm_agr_en_typeI_letter", "blm_agr_en_typeI_sentence", "blm_agr_letter", "blm_agr"} <= set(
        manager.all_tasks)
    rows = datasets.load_dataset(str(export_dir), CONFIG)["train"].select(range(6))
    model_dir = build_tiny_causal_lm(tmp_path / "lm", [render_prompt(r) for r in rows])
    out = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={model_dir},dtype=float32", device="cpu",
                                  tasks=["blm_agr_letter", "blm_agr_en_typeI_sentence"], task_manager=manager,
                                  limit=3, batch_size=4, bootstrap_iters=0)
    letter, sentence = out["results"]["blm_agr_en_typeI_letter"], out["results"]["blm_agr_en_typeI_sentence"]
    assert 0 <= letter["acc,none"] <= 1 and 0 <= letter["f1_macro,none"] <= 1
    assert {"acc,none", "acc_norm,none", "f1_macro,none"} <= set(sentence)
    assert "acc,none" in out["results"]["blm_agr_letter"]
