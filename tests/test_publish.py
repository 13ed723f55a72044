"""`blm publish`, card merging and model cards: one commit through HfApi, merged cards, clear offline errors."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest
from conftest_models import tiny_encoder_dir  # noqa: F401 (fixture)
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi, ModelCard
from huggingface_hub.errors import OfflineModeIsEnabled

from blm_cli.main import main
from blm_datasets.export import export
from blm_datasets.publish import publish
from builders import registry
from builders.generate import Options
from blm_models.push import push_checkpoint
from blm_models.remote_code import BUNDLE
from hub_cards.model_card import write_model_card
from hub_cards.schema import check_dataset_card_data, check_model_card_data
from hub_cards.sections import join_card, merge_body, merge_card, split_card

NAME = registry.config_names()[0]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("publish") / "blm"
    export([NAME], out, Options(size=30), audit=False, report=None, progress=False)
    return out


def fake_api(remote_files=(), remote_card=None, tmp_path=None):
    api = mock.create_autospec(HfApi, instance=True)
    api.list_repo_files.return_value = list(remote_files)
    if remote_card is not None:
        path = tmp_path / "remote_README.md"
        path.write_text(remote_card)
        api.hf_hub_download.return_value = str(path)
    return api


def committed(api):
    """(operations, kwargs) of the single create_commit call."""
    assert api.create_commit.call_count == 1
    call = api.create_commit.call_args
    return list(call.kwargs["operations"]), call


def card_of(operations):
    (card,) = [op for op in operations if isinstance(op, CommitOperationAdd) and op.path_in_repo == "README.md"]
    return card.path_or_fileobj.decode()


def test_publish_creates_the_repo_and_uploads_everything_in_one_commit(folder):
    api = fake_api()
    publish(folder, "org/blm", private=True, api=api)
    api.create_repo.assert_called_once_with("org/blm", repo_type="dataset", private=True, exist_ok=True)
    operations, call = committed(api)
    assert call.kwargs["repo_type"] == "dataset" and call.args[0] == "org/blm"
    paths = sorted(op.path_in_repo for op in operations)
    assert paths == sorted(["README.md", f"{NAME}/train-00000-of-00001.parquet", f"{NAME}/test-00000-of-00001.parquet"])
    card = card_of(operations)
    assert 'load_dataset("org/blm",' in card and "ORG/NAME" not in card
    api.upload_folder.assert_not_called()
    api.hf_hub_download.assert_not_called()  # no card in the repo yet


def test_publish_merges_an_existing_card_and_drops_stale_shards(folder, tmp_path):
    remote = join_card(
        {"license": "cc-by-4.0", "paperswithcode_id": "blm", "tags": ["ours"],
         "configs": [{"config_name": "their_data", "data_files": "their/*.csv", "default": True}]},
        "# Our BLM mirror\n\nWritten by hand.\n\n<!-- blm:begin configs -->\nOLD TABLE\n<!-- blm:end configs -->\n"
        "\nThanks to our annotators.\n",
    )
    stale = f"{NAME}/train-00001-of-00002.parquet"
    api = fake_api(["README.md", "their/a.csv", stale, f"{NAME}/train-00000-of-00001.parquet"], remote, tmp_path)
    publish(folder, "org/blm", api=api)
    operations, _ = committed(api)
    deletes = [op.path_in_repo for op in operations if isinstance(op, CommitOperationDelete)]
    assert deletes == [stale]
    data, body = split_card(card_of(operations))
    assert body.startswith("# Our BLM mirror\n\nWritten by hand.") and "Thanks to our annotators." in body
    assert "OLD TABLE" not in body and f"| `{NAME}` |" in body and "<!-- blm:begin citation -->" in body
    assert data["paperswithcode_id"] == "blm" and "ours" in data["tags"]  # their YAML kept …
    assert data["license"] == "apache-2.0"  # … generated keys win
    configs = {c["config_name"]: c for c in data["configs"]}
    assert set(configs) == {NAME, "their_data"} and configs[NAME]["default"] and "default" not in configs["their_data"]
    assert check_dataset_card_data(data) == []


def test_merge_body_replaces_generated_sections_and_keeps_the_rest():
    old = "intro\n<!-- blm:begin a -->\nold a\n<!-- blm:end a -->\nmiddle\n<!-- blm:begin gone -->\nx\n<!-- blm:end gone -->\nend\n"
    new = "<!-- blm:begin a -->\nnew a\n<!-- blm:end a -->\n<!-- blm:begin b -->\nnew b\n<!-- blm:end b -->\n"
    merged = merge_body(old, new)
    assert merged == ("intro\n<!-- blm:begin a -->\nnew a\n<!-- blm:end a -->\n<!-- blm:begin b -->\nnew b\n"
                      "<!-- blm:end b -->\nmiddle\nend\n")
    assert merge_body("hand-written only\n", new).startswith("hand-written only\n\n<!-- blm:begin a -->")
    assert merge_card(None, "---\na: 1\n---\nbody") == "---\na: 1\n---\nbody"


def test_card_header_reads_and_writes_the_same_with_or_without_libyaml(folder):
    """sections uses libyaml when PyYAML has it; a card must not depend on that (nor on the Hub's reader)."""
    import yaml

    text = (folder / "README.md").read_text(encoding="utf-8")
    data, body = split_card(text)
    header = text[:len(text) - len(body)]
    pure = yaml.load(header.split("---\n")[1], Loader=yaml.SafeLoader)
    assert data == pure and len(data["configs"]) == 1
    extra = {**pure, "pretty_name": "Blackbird — matrices « test » " + "long words " * 30, "language": ["he", "it"],
             "notes": "שלום " * 20}
    written = join_card(extra, body)
    assert yaml.load(written.split("---\n")[1], Loader=yaml.SafeLoader) == extra
    assert written.split("---\n")[1] == yaml.dump(extra, Dumper=yaml.SafeDumper, sort_keys=False,
                                                    allow_unicode=True, width=100, default_flow_style=False)


def test_publish_offline_fails_with_a_clear_message(folder, capsys):
    assert main(["publish", str(folder), "--repo", "org/blm"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Hugging Face Hub" in err and "HF_HUB_OFFLINE" in err and str(folder) in err
    assert "Traceback" not in err


def _network_failures() -> list[Exception]:
    failures = [OfflineModeIsEnabled("offline"), ConnectionError("[Errno -2] Name or service not known")]
    try:
        import httpx2  # the HTTP client huggingface_hub 2.x uses

        failures.append(httpx2.ConnectError("[Errno -2] Name or service not known"))
    except ImportError:
        pass
    return failures


@pytest.mark.parametrize("error", _network_failures())
def test_connection_errors_become_value_errors(folder, error):
    api = fake_api()
    api.create_repo.side_effect = error
    with pytest.raises(ValueError, match=r"cannot reach the Hugging Face Hub .*run again with network"):
        publish(folder, "org/blm", api=api)
    api.create_commit.assert_not_called()


def test_publish_rejects_a_folder_that_is_not_an_export(tmp_path, capsys):
    assert main(["publish", str(tmp_path), "--repo", "org/blm"]) == 2
    assert "not a `blm export` folder" in capsys.readouterr().err
    assert main(["publish", str(tmp_path), "--repo", "no-slash"]) == 2


FAKE_METRICS = {
    "test": {"accuracy": 0.75, "instances": 40, "loss": 0.4,
             "picks_per_label": {"Correct": 30, "AEV": 6, "WN1": 4},
             "picks_per_class": {"CORRECT": 30, "SEQUENCE": 4, "GRAMMAR": 6}},
    "validation": {"accuracy": 0.7, "instances": 10},
    "data": {"dataset_config": NAME, "dataset_path": None, "answer_labels": ["Correct", "AEV", "WN1"]},
    "config": {"encoder": {"encoder": "google/electra-base-discriminator", "pooling": "mean", "max_length": 128},
               "head": {"head": "ffnn", "score": "dot", "margin": 1.0},
               "training": {"learning_rate": 0.001, "num_train_epochs": 3, "per_device_train_batch_size": 100,
                            "seed": 42, "max_steps": -1}},
    "versions": {"python": "3.11.9", "torch": "2.13.0", "transformers": "5.23.0", "blm-toolkit": "0.1.0"},
}


def test_model_card_is_generated_from_the_run(tmp_path):
    from_hub = {**FAKE_METRICS, "data": {**FAKE_METRICS["data"], "dataset_path": "org/blm-data"}}
    path = write_model_card(tmp_path, from_hub, {"label_error_classes": {"AEV": "GRAMMAR", "WN1": "SEQUENCE"}})
    card = ModelCard.load(path)
    assert check_model_card_data(card.data.to_dict()) == []
    assert card.data.eval_results[0].metric_value == 0.75 and card.data.eval_results[0].dataset_config == NAME
    assert card.data.eval_results[0].dataset_type == "org/blm-data" and card.data.datasets == ["org/blm-data"]
    assert card.data.library_name == "transformers" and "pip install blm-toolkit" not in card.text
    assert card.data.base_model == "google/electra-base-discriminator"
    text = card.text
    assert "| `AEV` | GRAMMAR | 6 | 15.0% |" in text and "| SEQUENCE | 4 | 10.0% |" in text
    assert "| `learning_rate` | `0.001` |" in text and "| transformers | 5.23.0 |" in text
    assert "trust_remote_code" in text and "max_steps" not in text


def test_a_card_names_no_dataset_id_nor_local_path_for_data_not_from_the_hub(tmp_path):
    local = {**FAKE_METRICS, "data": {**FAKE_METRICS["data"], "dataset_path": str(tmp_path / "my_data")},
             "config": {**FAKE_METRICS["config"], "encoder": {"encoder": "all-MiniLM-L6-v2"},
                        # train.py's model config names the alias's Hub id
                        "model": {"encoder_name_or_path": "sentence-transformers/all-MiniLM-L6-v2"}}}
    for name, metrics in (("generated", FAKE_METRICS), ("local", local)):
        card = ModelCard.load(write_model_card(tmp_path / name, metrics))
        assert card.data.eval_results is None and card.data.datasets is None
        assert check_model_card_data(card.data.to_dict()) == []
    assert "| data | a local folder, `my_data` |" in card.text and str(tmp_path) not in card.text
    assert card.data.base_model == "sentence-transformers/all-MiniLM-L6-v2"


def test_model_card_tolerates_flat_or_partial_metrics(tmp_path):
    flat = {"test_accuracy": 0.5, "test_picks_label_Correct": 5, "test_picks_label_AEV": 5}
    card = ModelCard.load(write_model_card(tmp_path / "flat", flat))
    assert "| `AEV` | 5 | 50.0% |" in card.text and "| test accuracy | 0.5000 |" in card.text
    empty = ModelCard.load(write_model_card(tmp_path / "empty", {}))
    assert "not recorded" in empty.text and check_model_card_data(empty.data.to_dict()) == []


def test_push_checkpoint_uploads_folder_and_card_in_one_commit(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoint-10").mkdir(parents=True)
    (run / "checkpoint-10" / "optimizer.pt").write_bytes(b"x")
    (run / "config.json").write_text(json.dumps({"model_type": "blm"}))
    (run / "model.safetensors").write_bytes(b"weights")
    (run / "metrics.json").write_text(json.dumps(FAKE_METRICS))
    api = fake_api()
    push_checkpoint(run, "org/blm-solver", private=True, api=api)
    api.create_repo.assert_called_once_with("org/blm-solver", repo_type="model", private=True, exist_ok=True)
    operations, call = committed(api)
    assert call.kwargs["repo_type"] == "model"
    uploaded = sorted(op.path_in_repo for op in operations)
    assert uploaded == sorted(["README.md", "config.json", "model.safetensors", *BUNDLE.values()])  # no metrics.json
    assert 'AutoModel.from_pretrained("org/blm-solver", trust_remote_code=True)' in card_of(operations)
    assert (run / "README.md").exists()  # written from metrics.json when missing


def test_push_checkpoint_needs_a_saved_model(tmp_path):
    with pytest.raises(ValueError, match="no saved model"):
        push_checkpoint(tmp_path, "org/x", api=fake_api())


def test_a_pushed_checkpoint_loads_with_automodel_without_remote_code(tmp_path, tiny_encoder_dir):
    from transformers import AutoModel

    from blm_models import BlmModel

    run = tmp_path / "run"
    BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn").save_pretrained(run)
    write_model_card(run, FAKE_METRICS)
    api = fake_api()
    push_checkpoint(run, "org/blm-solver", api=api)
    downloaded = tmp_path / "downloaded"  # what a user gets back from the repo: exactly the committed files
    for op in committed(api)[0]:
        target = downloaded / op.path_in_repo
        target.parent.mkdir(parents=True, exist_ok=True)
        data = op.path_or_fileobj
        target.write_bytes(data if isinstance(data, bytes) else Path(data).read_bytes())
    assert type(AutoModel.from_pretrained(downloaded)) is BlmModel
