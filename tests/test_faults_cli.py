"""Faults a user can make with `blm`: each ends in one line, exit status 2, and nothing written or touched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from blm_cli import data_cmds
from blm_cli.main import main
from blm_datasets.export import export
from blm_datasets.sources import load_source
from builders.generate import Options

A, B = "agr_en_typeI", "agr_fr_typeII"
ROOT = Path(__file__).resolve().parent.parent


def fails(capsys, argv: list[str], *parts: str) -> str:
    """Run `blm argv`: exit status 2, one error line on stderr naming every part, no traceback."""
    with pytest.raises(SystemExit) as exited:
        code = main(argv)
        raise SystemExit(code)
    err = capsys.readouterr().err
    assert exited.value.code == 2, err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"blm {argv[0]}: error: "), err
    for part in parts:
        assert part in lines[0], (part, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("faults") / "export"
    export([A, B], out, Options(size=40), audit=False, report=None, progress=False)
    return out


# -------------------------------------------------------------------------------------- arguments
@pytest.mark.parametrize("argv", [
    ["list", "--phenomenon", "agreement"],
    ["generate", "--phenomenon", "agreement", "--size", "40"],
    ["validate", "--all", "--phenomenon", "agreement", "--size", "40"],
    ["audit", "--phenomenon", "agreement"],
    ["export", "--phenomenon", "agreement", "--out", "unused"],
])
def test_unknown_phenomenon_is_refused_with_the_close_match(capsys, argv):
    fails(capsys, argv, "unknown phenomenon 'agreement'", "did you mean agr?", "known: agr")


@pytest.mark.parametrize("argv, parts", [
    (["generate", A, "--size", "1"], ["--size", "at least 2", "got 1"]),
    (["generate", A, "--size", "-3"], ["--size", "got -3"]),
    (["validate", A, "--size", "40", "--test-size", "1.5"], ["--test-size", "between 0 and 1", "1.5"]),
    (["generate", A, "--test-size", "0"], ["--test-size", "got 0"]),
    (["generate", A, "--num-proc", "0"], ["--num-proc", "at least 1", "got 0"]),
    (["export", A, "--num-proc", "0", "--out", "x"], ["--num-proc", "got 0"]),
    (["export", A, "--size", "1", "--out", "x"], ["--size", "got 1"]),
    (["audit", "--phenomenon", "agr", "--size", "0"], ["--size", "got 0"]),
    (["show", A, "--size", "two"], ["--size", "'two' is not a whole number"]),
])
def test_bad_sizes_quote_the_flag_and_the_value(capsys, argv, parts):
    fails(capsys, argv, *parts)


def test_impossible_size_says_what_to_do(capsys):
    fails(capsys, ["generate", A, "--size", "999999"], f"blm generate: error: {A}:", "--size")


def test_names_and_phenomenon_together_are_refused(capsys):
    fails(capsys, ["generate", A, "--phenomenon", "agr"], "not both")
    fails(capsys, ["export", A, "--phenomenon", "agr", "--out", "x"], "not both")


def test_typo_in_a_config_name_suggests_it(capsys):
    fails(capsys, ["validate", "agr_en_typei", "--size", "40"], "Did you mean: agr_en_typeI")


@pytest.mark.parametrize("index", ["999", "-1"])
def test_show_index_out_of_range_says_the_range(capsys, index):
    n = len(load_source(None, A, size=40)["test"])
    fails(capsys, ["show", A, "--size", "40", "--index", index], f"--index {index} is out of range",
          f"has {n} instances (0 to {n - 1})")


def test_show_missing_split_lists_the_splits(capsys):
    fails(capsys, ["show", A, "--size", "40", "--split-name", "validation"], "no 'validation' split",
          "it has: train, test")


def test_every_config_skipped_is_an_error_not_a_success(capsys, monkeypatch):
    from builders.base import SourceUnavailable

    def unavailable(name, args):
        raise SourceUnavailable(f"{name}: no CoNLL-U sources given")

    monkeypatch.setattr(data_cmds, "_load", unavailable)
    fails(capsys, ["validate", "--phenomenon", "caush", "--size", "40"], "every config was skipped")


# -------------------------------------------------------------------------------------- output paths
def test_generate_out_that_is_a_file_is_refused_and_untouched(capsys, tmp_path):
    target = tmp_path / "afile"
    target.write_text("precious")
    fails(capsys, ["generate", A, "--size", "40", "--out", str(target)], f"--out {target} is a file")
    fails(capsys, ["generate", A, "--size", "40", "--out", str(target / "sub")], f"{target} is a file, not a folder")
    assert target.read_text() == "precious"


def test_generate_never_replaces_a_config_folder_without_overwrite(capsys, tmp_path):
    old = tmp_path / A / "train.parquet"
    old.parent.mkdir()
    old.write_text("precious")
    fails(capsys, ["generate", A, "--size", "40", "--out", str(tmp_path)], f"already holds {A}", "--overwrite")
    assert old.read_text() == "precious"
    assert main(["generate", A, "--size", "40", "--out", str(tmp_path), "--overwrite"]) == 0
    assert old.stat().st_size > 1000 and sorted(p.name for p in tmp_path.iterdir()) == [A]


def test_export_out_file_parent_file_and_foreign_folder(capsys, tmp_path):
    target = tmp_path / "afile"
    target.write_text("precious")
    fails(capsys, ["export", A, "--size", "40", "--out", str(target)], f"--out {target} is a file")
    fails(capsys, ["export", A, "--size", "40", "--out", str(target / "sub")], f"{target} is a file, not a folder")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    fails(capsys, ["export", A, "--size", "40", "--out", str(busy)], "not empty", "no previous `blm export`")
    assert target.read_text() == "precious" and [p.name for p in busy.iterdir()] == ["notes.txt"]


def test_export_out_that_cannot_be_created(capsys):
    fails(capsys, ["export", A, "--size", "40", "--out", "/proc/blm_out"], "--out /proc/blm_out cannot be created")


def test_calamita_out_folder_parent_file_and_existing_file(capsys, tmp_path):
    eight = "seqtense_it_typeI_balanced"  # 8 candidates per item, as CALAMITA's harness needs
    base = ["export", eight, "--size", "40", "--format", "calamita", "--quiet", "--out"]
    fails(capsys, base + [str(tmp_path)], f"--out {tmp_path} is a folder; give a file name")
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    fails(capsys, base + [str(blocker / "x.json")], f"{blocker} is a file, not a folder")
    old = tmp_path / "old.json"
    old.write_text("precious")
    fails(capsys, base + [str(old)], f"--out {old} exists; pass --overwrite")
    assert old.read_text() == "precious"
    assert main(base + [str(old), "--overwrite"]) == 0
    assert len(json.loads(old.read_text())) == len(load_source(None, eight, size=40)["test"])


def test_grid_out_file_fails_before_any_training(capsys, tmp_path, monkeypatch):
    import blm_eval.grid

    monkeypatch.setattr(blm_eval.grid, "run_grid", lambda *a, **k: pytest.fail("trained before checking --out"))
    target = tmp_path / "afile"
    target.write_text("x")
    fails(capsys, ["grid", A, "--out", str(target), "--seeds", "1"], f"--out {target} is a file")
    fails(capsys, ["latent", str(tmp_path), "--out", str(target / "sub")], f"{target} is a file, not a folder")


def test_grid_never_replaces_results_in_out_without_overwrite(capsys, tmp_path, monkeypatch):
    import blm_eval.grid
    from blm_eval.out_folder import mark_out

    monkeypatch.setattr(blm_eval.grid, "run_grid", lambda *a, **k: pytest.fail("trained before checking --out"))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "results.json").write_text("{}")
    fails(capsys, ["grid", A, "--out", str(mine), "--seeds", "1"],
          f"--out {mine} already holds files not written by blm grid (results.json); pass --overwrite")
    earlier = tmp_path / "earlier"
    mark_out(earlier, "grid", {})
    (earlier / "report.md").write_text("an earlier grid")
    fails(capsys, ["grid", A, "--out", str(earlier), "--seeds", "1"],
          f"--out {earlier} holds the results of an earlier blm grid; pass --overwrite")
    mark_out(earlier, "reproduce", {})
    fails(capsys, ["grid", A, "--out", str(earlier), "--seeds", "1"],
          f"--out {earlier} holds the results of blm reproduce; pass --overwrite")
    assert (mine / "results.json").read_text() == "{}" and (earlier / "report.md").read_text() == "an earlier grid"
    class Trained(BaseException):
        pass

    def train(*args, **kwargs):
        raise Trained

    monkeypatch.setattr(blm_eval.grid, "run_grid", train)
    with pytest.raises(Trained):  # --overwrite passes the check and reaches training
        main(["grid", A, "--out", str(mine), "--seeds", "1", "--overwrite"])


# -------------------------------------------------------------------------------------- input files
@pytest.mark.parametrize("make, part", [
    (lambda p: p, "is a folder; give the CoNLL-U files in it"),
    (lambda p: p / "missing.conllu", "missing.conllu: no such file"),
    (lambda p: (p / "bin.conllu").write_bytes(b"# ok\n\xff\xfe bad\n") and p / "bin.conllu", "bin.conllu:2: not UTF-8"),
    (lambda p: (p / "empty.conllu").write_text("\n") and p / "empty.conllu", "empty.conllu is empty"),
])
def test_bad_sources_name_the_file(capsys, tmp_path, make, part):
    fails(capsys, ["generate", "caush_he_natural_typeIII", "--sources", str(make(tmp_path))], "--sources", part)


def test_truncated_datasets_cache_names_it_and_a_fresh_cache_works(capsys, tmp_path):
    cache = tmp_path / "cache"
    assert main(["validate", A, "--size", "40", "--cache-dir", str(cache)]) == 0
    for arrow in cache.rglob("*.arrow"):
        arrow.write_bytes(arrow.read_bytes()[:100])
    capsys.readouterr()
    fails(capsys, ["validate", A, "--size", "40", "--cache-dir", str(cache)], "the datasets cache at", "is corrupt",
          "--cache-dir")
    for info in cache.rglob("dataset_info.json"):
        info.write_text("{trunc")
    fails(capsys, ["show", A, "--size", "40", "--cache-dir", str(cache)], "the datasets cache at", "is corrupt")
    assert main(["validate", A, "--size", "40", "--cache-dir", str(tmp_path / "new")]) == 0


# -------------------------------------------------------------------------------------- data sources
def test_validate_show_audit_read_an_export_folder(capsys, exported):
    assert main(["validate", "--dataset", str(exported)]) == 0
    out = capsys.readouterr().out
    n = len(load_source(exported, A)["test"])
    assert f"{A} test: {n} rows" in out and f"{B} train" in out and "all checks passed" in out
    assert main(["show", B, "--dataset", str(exported), "--index", "1"]) == 0
    assert capsys.readouterr().out.startswith(f"{B}-test-")
    assert main(["audit", A, "--dataset", str(exported), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[A]["n_test"] == n


def test_data_commands_on_a_missing_config_list_the_folders_configs(capsys, exported):
    fails(capsys, ["validate", "agr_it_typeI", "--dataset", str(exported)], "has no config 'agr_it_typeI'",
          f"it has: {A}, {B}")
    fails(capsys, ["show", A, "--dataset", str(exported / "nope")], "no such folder")


def test_llm_eval_and_grid_on_an_offline_hub_repo(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fails(capsys, ["llm-eval", A, "--show-prompt", "--dataset", "some-org/blm"], "Hub is offline", "local folder")
    fails(capsys, ["grid", A, "--dataset", "some-org/blm", "--out", str(tmp_path / "g"), "--seeds", "1"],
          "Hub is offline")


def test_publish_refuses_an_unfinished_export(capsys, exported, tmp_path):
    copy = shutil.copytree(exported, tmp_path / "copy")
    (copy / ".blm-tmp-agr_it_typeI-4242").mkdir()
    fails(capsys, ["publish", str(copy), "--repo", "org/blm"], f"the export in {copy} did not finish",
          ".blm-tmp-agr_it_typeI-4242", "run the same `blm export")
    fails(capsys, ["publish", str(copy / "README.md"), "--repo", "org/blm"], "is not a `blm export` folder")


# -------------------------------------------------------------------------------------- the wrapper
def test_blm_debug_adds_the_traceback(capsys, monkeypatch):
    monkeypatch.setenv("BLM_DEBUG", "1")
    assert main(["show", "agr_xx_typeI"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and err.strip().splitlines()[-1].startswith("blm show: error: unknown BLM config")


def test_a_bug_keeps_its_traceback(monkeypatch):
    def broken(*_args):
        return json.loads("{")  # a ValueError raised inside a library: not the user's fault

    monkeypatch.setattr(data_cmds, "configs_of", broken)
    with pytest.raises(json.JSONDecodeError):
        main(["list"])


def test_full_disk_is_one_line_naming_the_path(capsys, monkeypatch):
    def full(*_args):
        raise OSError(28, "No space left on device", "/data/blm/agr_en_typeI")

    monkeypatch.setattr(data_cmds, "configs_of", full)
    fails(capsys, ["list"], "No space left on device: /data/blm/agr_en_typeI", "free some space")


def test_ctrl_c_is_one_line_and_status_130(capsys, monkeypatch):
    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(data_cmds, "configs_of", interrupted)
    assert main(["list"]) == 130
    assert capsys.readouterr().err.strip() == "blm list: interrupted; finished outputs are complete, rerun the command to go on"


def test_console_command_prints_one_line_and_no_traceback():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "blm_cli", "list", "--phenomenon", "agreement"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "did you mean agr?" in run.stderr
