"""The lm-evaluation-harness task folder: generated from the protocol `blm llm-eval` runs (same items, prompts,
scoring, macro-F1), bound to a dataset by its digest, grouped with aggregates, and giving `blm llm-eval`'s
numbers with a tiny model."""

from __future__ import annotations

import importlib.util
import json
import shlex

import pytest
import yaml

import blm_datasets  # noqa: F401  (the load_dataset("blm") hook)
from blm_cli.main import main
from blm_datasets.sources import load_source
from blm_eval import protocols
from blm_eval.lm_eval_tasks import TASK_DIR, include_path
from blm_eval.lm_eval_tasks import utils as task_utils
from blm_eval.lm_eval_tasks.generate import write_tasks
from blm_eval.llm_eval import build_prompts, sample_run
from blm_eval.shot_sets import fixed_shot_set
from test_llm_eval import build_tiny_causal_lm, single_torch_thread  # noqa: F401 (fixture)

CONFIG, SIZE, SAMPLES = "agr_it_typeII", 60, 8  # 11 test rows
SECOND = "agr_it_typeIII"  # exported too, for the group aggregates
HAS_LM_EVAL = importlib.util.find_spec("lm_eval") is not None
needs_lm_eval = pytest.mark.skipif(not HAS_LM_EVAL, reason="needs lm-eval (PyPI)")


class _Loader(yaml.SafeLoader):
    """Reads task YAMLs without resolving ``!function`` (as the harness's index does)."""


_Loader.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")


def _read(path) -> dict:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)


def _export(root, seed: int, *configs: str):
    assert main(["export", CONFIG, *configs, "--size", str(SIZE), "--seed", str(seed), "--out", str(root), "--quiet",
                 "--no-audit"]) == 0
    return root


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory):
    return _export(tmp_path_factory.mktemp("export"), 42, SECOND)


@pytest.fixture(scope="module")
def tasks_dir(tmp_path_factory, export_dir):
    out = tmp_path_factory.mktemp("tasks")
    write_tasks(out, [CONFIG, SECOND], dataset_path=str(export_dir), samples=SAMPLES)
    return out


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory, export_dir):
    """A random 2-layer Llama whose picks vary with the item (weights drawn with std 0.5) and whose greedy answers
    are often a letter (the output rows of A-F and EOS scaled ×4), so the compared numbers are not all equal."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    splits = load_source(str(export_dir), CONFIG)
    rows = splits["train"]
    corpus = [p for lang in ("en", "it") for p in build_prompts(rows, range(8), prompt_lang=lang, shots=1,
                                                                 shot_rows=rows, same_split=True)]
    folder = build_tiny_causal_lm(tmp_path_factory.mktemp("lm"), corpus)
    model, tokenizer = AutoModelForCausalLM.from_pretrained(folder), AutoTokenizer.from_pretrained(folder)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for param in model.parameters():
            if param.dim() == 2:
                param.copy_(torch.randn(param.shape, generator=generator) * 0.5)
        model.lm_head.weight[[*tokenizer.convert_tokens_to_ids(list("ABCDEF")), tokenizer.eos_token_id]] *= 4
    model.save_pretrained(folder)
    return folder


# ------------------------------------------------------------------------------------------ generation
def test_generator_writes_the_protocol_variants_grouped_per_phenomenon_and_language(tmp_path):
    configs = ["agr_en_typeI", "agr_it_typeI", "agr_it_typeI_balanced"]
    written = write_tasks(tmp_path, configs, samples=7)
    agr = tmp_path / "agr"
    tasks = {_read(p)["task"]: _read(p) for p in agr.glob("blm_*.yaml")}
    en = {f"blm_agr_en_typeI_{v}" for v in ("letter", "letter_gen", "letter_1shot", "letter_1shot_gen", "sentence")}
    it = {f"blm_agr_it_typeI_{v}" for v in ("letter", "letter_gen", "letter_1shot", "letter_1shot_gen",
                                             "letter_it", "letter_it_gen", "letter_it_1shot", "letter_it_1shot_gen",
                                             "sentence")}
    assert en <= set(tasks) and it <= set(tasks) and len(tasks) == 5 + 9 + 9
    fig9 = tasks["blm_agr_it_typeI_letter_it_1shot_gen"]
    assert fig9["include"] == "../_blm_letter_gen_template.yaml"
    assert fig9["dataset_kwargs"] == {"blm_config": "agr_it_typeI", "samples": 7, "item_seed": 0,
                                      "prompt_lang": "it", "shots": 1}
    assert fig9["generation_kwargs"] == {"until": [], "max_gen_toks": protocols.MAX_NEW_TOKENS, "do_sample": False}
    assert fig9["metadata"]["version"].endswith("-unbound")
    assert _read(agr / "_blm_agr_letter.yaml")["task"] == ["blm_agr_en_typeI_letter", "blm_agr_it_typeI_letter"]
    assert _read(agr / "_blm_agr_balanced_sentence.yaml")["task"] == ["blm_agr_it_typeI_balanced_sentence"]
    per_language = _read(tmp_path / "languages" / "_blm_lang_it_letter_it_1shot_gen.yaml")
    assert per_language["task"] == ["blm_agr_it_typeI_letter_it_1shot_gen"]  # papers' answer sets only
    for group in (per_language, _read(agr / "_blm_agr_letter_gen.yaml")):
        assert [(m["metric"], m["aggregation"]) for m in group["aggregate_metric_list"]] == [
            ("acc", "mean"), ("f1_macro", "mean"), ("invalid", "mean")]
    assert [m["metric"] for m in _read(agr / "_blm_agr_letter.yaml")["aggregate_metric_list"]] == ["acc", "f1_macro"]
    assert "blm_agr_letter_it_1shot_gen" in _read(agr / "_blm_agr.yaml")["task"]
    assert _read(tmp_path / "_blm.yaml")["task"] == ["blm_agr"]
    assert (tmp_path / "utils.py").exists() and len(written) == 23 + 9 + 9 + (5 + 9) + 1 + 1  # tasks, agr, agr balanced, en+it, blm_agr, blm
    write_tasks(tmp_path, ["agr_en_typeI"])  # regenerating removes what is no longer generated
    assert not (agr / "blm_agr_it_typeI_letter.yaml").exists()
    assert not (tmp_path / "languages" / "_blm_lang_it_letter_it.yaml").exists()


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


# ---------------------------------------------------------------------------------------- data binding
def test_bound_tasks_carry_the_data_digest_and_version_derived_from_it(tmp_path, export_dir, tasks_dir):
    task = _read(tasks_dir / "agr" / f"blm_{CONFIG}_letter_it_1shot_gen.yaml")
    digest = protocols.data_digest(load_source(str(export_dir), CONFIG), CONFIG)
    assert task["dataset_kwargs"]["data_digest"] == digest and task["dataset_kwargs"]["default_path"] == str(
        export_dir)
    assert task["metadata"]["version"] == f"{protocols.protocol_version(SAMPLES, 0)}-{digest[:8]}"
    other = _export(tmp_path / "other", 7)  # other data: another digest, another version
    write_tasks(tmp_path / "t", [CONFIG], dataset_path=str(other), samples=SAMPLES)
    version = _read(tmp_path / "t" / "agr" / f"blm_{CONFIG}_letter.yaml")["metadata"]["version"]
    assert version.split("-")[0] == task["metadata"]["version"].split("-")[0] and version != task["metadata"]["version"]
    assert protocols.protocol_version(SAMPLES + 1, 0) != protocols.protocol_version(SAMPLES, 0)


def test_a_bound_task_refuses_other_data_in_one_line(tmp_path, export_dir, monkeypatch):
    monkeypatch.delenv(task_utils.ENV_VAR, raising=False)
    digest = protocols.data_digest(load_source(str(export_dir), CONFIG), CONFIG)
    kwargs = {"blm_config": CONFIG, "samples": SAMPLES, "data_digest": digest, "default_path": str(export_dir)}
    assert len(task_utils.load_task_data(**kwargs)["test"]) == SAMPLES
    other = _export(tmp_path / "other", 7)
    with pytest.raises(SystemExit) as refused:
        task_utils.load_task_data(**kwargs, blm_path=str(other), version="x")
    message = str(refused.value.code)
    assert "\n" not in message and f"generated for {digest}" in message and str(other) in message
    monkeypatch.setenv(task_utils.ENV_VAR, str(other))  # the environment variable is checked the same way
    with pytest.raises(SystemExit):
        task_utils.load_task_data(**kwargs)
    with pytest.raises(SystemExit) as missing:
        task_utils.load_task_data(CONFIG, blm_path=str(tmp_path / "nowhere"))
    assert "\n" not in str(missing.value.code) and CONFIG in str(missing.value.code)


# ------------------------------------------------------------------------------------- items and prompts
def test_items_and_prompts_are_those_blm_llm_eval_draws(export_dir):
    splits = load_source(str(export_dir), CONFIG)
    docs = task_utils.load_task_data(CONFIG, prompt_lang="it", shots=1, samples=SAMPLES, item_seed=3,
                               blm_path=str(export_dir))["test"]
    indices = sample_run(len(splits["test"]), SAMPLES, 3)
    assert docs["id"] == [splits["test"][i]["id"] for i in indices]
    fixed = fixed_shot_set(splits["train"], CONFIG, 3)[0]   # a BLM-It config: 001's fixed one-shot set
    assert docs["prompt"] == build_prompts(splits["test"], indices, prompt_lang="it", shots=1, shot_rows=fixed,
                                           run_seed=3)
    assert protocols.protocol_of(CONFIG) == "blm-it" and len(fixed) == 10 < len(splits["train"])
    assert docs["prompt"][0].count("# ESEMPIO 1") == 1 and task_utils.doc_to_prefix(docs[0]).endswith(
        "**La tua scelta**\n")


def test_generation_results_read_the_letter_and_count_invalid_answers_wrong():
    doc = {"answers": ["Il gatto dorme.", "I gatti dormono.", "Il cane corre."], "label": 1}
    assert task_utils.process_results_generation(doc, ["La risposta è B"]) == {
        "acc": 1.0, "f1_macro": ("B", "B"), "invalid": 0.0}
    invalid = task_utils.process_results_generation(doc, ["non lo so"])
    assert invalid["invalid"] == 1.0 and invalid["acc"] == 0.0
    # an invalid answer is wrong and is no label: F1 of B is 1/2 (P 1, R 1/3), of A 0 (predicted, never gold)
    assert task_utils.macro_f1([("B", "B"), ("B", None), ("B", "A")]) == pytest.approx((1 / 2 + 0) / 2)


# --------------------------------------------------------------------------- lm_eval == blm llm-eval
def _both_routes(tasks_dir, export_dir, tiny_lm, tmp_path, capsys, variant: str):
    """(lm-eval's results and samples, `blm llm-eval`'s report) of one task and its recorded command."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    name = f"blm_{CONFIG}_{variant}"
    task = _read(tasks_dir / "agr" / f"{name}.yaml")
    manager = TaskManager(include_path=str(tasks_dir), include_defaults=False)
    out = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={tiny_lm},dtype=float32", device="cpu",
                                  tasks=[name], task_manager=manager, batch_size=1, bootstrap_iters=0,
                                  log_samples=True)
    command = shlex.split(task["metadata"]["blm_llm_eval"].replace("MODEL", str(tiny_lm)))
    assert command[:2] == ["blm", "llm-eval"]
    report = tmp_path / f"{variant}.json"
    assert main([*command[1:], "--out", str(report), "--quiet"]) == 0
    capsys.readouterr()
    assert out["versions"][name] == task["metadata"]["version"]
    return out["results"][name], out["samples"][name], json.loads(report.read_text())["results"][0]["runs"][0]


@needs_lm_eval
@pytest.mark.parametrize("variant", ["letter", "letter_it_1shot"])
def test_loglik_task_gives_blm_llm_eval_numbers(variant, tasks_dir, export_dir, tiny_lm, tmp_path, capsys):
    results, samples, run = _both_routes(tasks_dir, export_dir, tiny_lm, tmp_path, capsys, variant)
    assert [s["doc"]["id"] for s in samples] == [p["id"] for p in run["predictions"]]
    letters = [chr(ord("A") + max(range(len(s["filtered_resps"])), key=lambda i: s["filtered_resps"][i][0]))
               for s in samples]
    assert letters == [p["predicted"] for p in run["predictions"]] and len(set(letters)) > 2
    assert results["acc,none"] == run["accuracy"] and results["f1_macro,none"] == run["macro_f1"]


@needs_lm_eval
def test_generation_task_gives_blm_llm_eval_numbers(tasks_dir, export_dir, tiny_lm, tmp_path, capsys):
    results, samples, run = _both_routes(tasks_dir, export_dir, tiny_lm, tmp_path, capsys, "letter_gen")
    assert 0 < run["invalid"] < run["n"] and run["accuracy"] > 0  # some answers read, some not
    assert [s["doc"]["id"] for s in samples] == [p["id"] for p in run["predictions"]]
    assert [s["filtered_resps"][0] for s in samples] == [p["output"] for p in run["predictions"]]
    assert results["acc,none"] == run["accuracy"] and results["f1_macro,none"] == run["macro_f1"]
    assert results["invalid,none"] == run["invalid"] / run["n"]


@needs_lm_eval
def test_groups_report_aggregates(tasks_dir, tiny_lm):
    import lm_eval
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(tasks_dir), include_defaults=False)
    out = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={tiny_lm},dtype=float32", device="cpu",
                                  tasks=["blm_lang_it_letter", "blm_agr_sentence"], task_manager=manager,
                                  batch_size=4, bootstrap_iters=0)
    tasks = [out["results"][f"blm_{c}_letter"] for c in (CONFIG, SECOND)]
    group = out["results"]["blm_lang_it_letter"]
    for metric in ("acc,none", "f1_macro,none"):  # the mean over the configs
        assert group[metric] == pytest.approx((tasks[0][metric] + tasks[1][metric]) / 2)
    assert tasks[0]["acc,none"] != tasks[1]["acc,none"] or tasks[0]["f1_macro,none"] != tasks[1]["f1_macro,none"]
    assert {"acc,none", "acc_norm,none", "f1_macro,none"} <= set(out["results"]["blm_agr_sentence"])
