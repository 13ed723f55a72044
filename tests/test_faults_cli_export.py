"""`blm export` under faults: killed runs, dead workers, interrupted writes; every config on disk stays complete."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import datasets
import pytest

from blm_cli.main import main
from blm_datasets import export as export_module
from blm_datasets.export import WorkerDied, export, write_configs
from blm_datasets.export_folder import MANIFEST, OLD_PREFIX, TMP_PREFIX, ExportFolderError
from blm_datasets.sources import load_source
from builders.generate import Options
from hub_cards.sections import split_card

A, B = "agr_en_typeI", "agr_fr_typeII"
SIZE = 40
ROOT = Path(__file__).resolve().parent.parent
INJECT = '''
import os, signal
import pyarrow.parquet as pq
_real, _count = pq.write_table, [0]
def write_table(*args, **kwargs):
    _count[0] += 1
    if _count[0] == {before}:
        os.kill(os.getpid(), signal.SIGKILL)
    out = _real(*args, **kwargs)
    if _count[0] == {after}:
        os.kill(os.getpid(), signal.SIGKILL)
    return out
pq.write_table = write_table
'''


def quick(names, out, seed=42, **kwargs):
    return export(names, out, Options(size=SIZE, seed=seed), audit=False, report=None, progress=False, **kwargs)


def card_configs(out: Path) -> list[str]:
    return [c["config_name"] for c in split_card((out / "README.md").read_text())[0]["configs"]]


def first_ids(out: Path) -> dict[str, str]:
    """The first test id and context sentence of every config the card lists (each must load)."""
    return {n: load_source(out, n)["test"][0]["context"][0] for n in card_configs(out)}


def killed_export(tmp_path: Path, out: Path, *args: str, before: int = 0, after: int = 0) -> int:
    """`blm export` in a subprocess that SIGKILLs itself around the n-th parquet write."""
    inject = tmp_path / "inject"
    inject.mkdir(exist_ok=True)
    (inject / "sitecustomize.py").write_text(INJECT.format(before=before, after=after))
    env = dict(os.environ, PYTHONPATH=f"{inject}{os.pathsep}{ROOT}")
    run = subprocess.run([sys.executable, "-m", "blm_cli", "export", A, B, "--size", str(SIZE), "--no-audit",
                          "--quiet", "--num-proc", "1", "--out", str(out), *args], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    return run.returncode


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """An export of A and B (seed 42) to copy."""
    out = tmp_path_factory.mktemp("base") / "blm"
    quick([A, B], out)
    return out


@pytest.fixture
def old(base, tmp_path):
    return Path(shutil.copytree(base, tmp_path / "blm"))


def leftovers(out: Path) -> list[str]:
    return [p.name for p in out.iterdir() if p.name.startswith((TMP_PREFIX, OLD_PREFIX))]


# -------------------------------------------------------------------------------------- killed processes
def test_reexport_killed_between_configs_keeps_every_config_loadable(old, tmp_path):
    before = first_ids(old)
    assert killed_export(tmp_path, old, "--seed", "7", "--overwrite", before=3) == -signal.SIGKILL
    after = first_ids(old)  # both still listed and loadable: the first one new, the second one old
    assert card_configs(old) == [A, B]
    assert after[A] != before[A] and after[B] == before[B]
    assert main(["export", A, B, "--size", str(SIZE), "--no-audit", "--quiet", "--seed", "7", "--out", str(old),
                 "--overwrite"]) == 0
    assert first_ids(old)[B] != before[B] and leftovers(old) == []


def test_fresh_export_killed_mid_config_is_one_listed_config_never_a_mixed_default(tmp_path):
    out = tmp_path / "fresh"
    assert killed_export(tmp_path, out, after=3) == -signal.SIGKILL  # A complete, B half written
    assert card_configs(out) == [A]
    default = datasets.load_dataset(str(out), split="test", cache_dir=str(tmp_path / "cache"))
    assert {row["id"].rsplit("-", 2)[0] for row in default} == {A}
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["README.md", A]


def test_rerun_finishes_a_killed_export_exactly_as_an_uninterrupted_one(base, tmp_path):
    out = tmp_path / "fresh"
    assert killed_export(tmp_path, out, after=3) == -signal.SIGKILL
    assert main(["export", A, B, "--size", str(SIZE), "--no-audit", "--quiet", "--num-proc", "1",
                 "--out", str(out)]) == 0
    files = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file() and ".blm" not in p.name}
    reference = {p.relative_to(base): p.read_bytes() for p in base.rglob("*") if p.is_file() and ".blm" not in p.name}
    assert files.keys() == reference.keys()
    assert all(files[k] == reference[k] for k in files), [str(k) for k in files if files[k] != reference[k]]
    assert leftovers(out) == []


def test_rerun_keeps_the_configs_a_killed_run_finished(old, tmp_path, monkeypatch):
    manifest = json.loads((old / MANIFEST).read_text())
    del manifest["configs"][B]  # as if killed after A
    (old / MANIFEST).write_text(json.dumps(manifest))
    made = []
    real = export_module.export_group
    monkeypatch.setattr(export_module, "export_group", lambda names, *a, **k: made.extend(names) or real(names, *a, **k))
    quick([A, B], old)
    assert made == [B] and card_configs(old) == [A, B]


# -------------------------------------------------------------------------------------- in-process faults
def test_error_in_the_second_config_leaves_the_first_complete_and_listed(tmp_path, monkeypatch):
    real = export_module.write_split

    def fail_on_b(records, folder, split, *args, **kwargs):
        if kwargs.get("config") == B:
            raise OSError(28, "No space left on device")
        return real(records, folder, split, *args, **kwargs)

    monkeypatch.setattr(export_module, "write_split", fail_on_b)
    with pytest.raises(OSError, match="No space left"):
        quick([A, B], tmp_path / "out")
    assert card_configs(tmp_path / "out") == [A] and leftovers(tmp_path / "out") == []
    assert load_source(tmp_path / "out", A)["train"].to_list() == load_source(None, A, size=SIZE)["train"].to_list()


def test_ctrl_c_during_export_exits_130_and_keeps_finished_configs(tmp_path, monkeypatch, capsys):
    real = export_module.write_split

    def interrupt_on_b(records, folder, split, *args, **kwargs):
        if kwargs.get("config") == B:
            raise KeyboardInterrupt
        return real(records, folder, split, *args, **kwargs)

    monkeypatch.setattr(export_module, "write_split", interrupt_on_b)
    out = tmp_path / "out"
    assert main(["export", A, B, "--size", str(SIZE), "--no-audit", "--quiet", "--num-proc", "1",
                 "--out", str(out)]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert card_configs(out) == [A] and leftovers(out) == []


def test_dead_worker_fails_at_once_naming_its_config(tmp_path, monkeypatch, capsys):
    real, parent = export_module.export_group, os.getpid()

    def killed_in_worker(names, *args, **kwargs):
        if B in names and os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(names, *args, **kwargs)

    monkeypatch.setattr(export_module, "export_group", killed_in_worker)
    start = time.perf_counter()
    with pytest.raises(WorkerDied, match=f"the export worker of {B} died \\(signal SIGKILL; out of memory\\?\\)"):
        export([A, B], tmp_path / "out", Options(size=SIZE), num_proc=2, audit=False, report=None, progress=False)
    assert time.perf_counter() - start < 30
    assert leftovers(tmp_path / "out") == []
    line = None
    assert main(["export", A, B, "--size", str(SIZE), "--no-audit", "--quiet", "--num-proc", "2",
                 "--out", str(tmp_path / "cli")]) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"blm export: error: the export worker of {B} died") and "run the same command" in line


def test_a_config_caught_between_its_two_renames_is_put_back(old):
    shutil.move(old / B, old / f"{OLD_PREFIX}{B}-12345")
    (old / f"{TMP_PREFIX}{B}-12345").mkdir()
    quick([A, B], old)
    assert leftovers(old) == [] and card_configs(old) == [A, B]


# -------------------------------------------------------------------------------------- replacing exports
def test_other_options_or_fewer_configs_need_overwrite_and_touch_nothing(old):
    stamp = {p: p.stat().st_mtime_ns for p in old.rglob("*")}
    with pytest.raises(ExportFolderError, match=r"other options: seed 42 \(now 7\); pass --overwrite"):
        quick([A, B], old, seed=7)
    with pytest.raises(ExportFolderError, match=f"configs this one leaves out \\({B}\\)"):
        quick([A], old)
    assert {p: p.stat().st_mtime_ns for p in old.rglob("*")} == stamp
    quick([A], old, overwrite=True)
    assert card_configs(old) == [A] and not (old / B).exists()


def test_export_from_before_manifests_needs_overwrite(old):
    (old / MANIFEST).unlink()
    with pytest.raises(ExportFolderError, match="from an older toolkit .* pass --overwrite"):
        quick([A, B], old)
    quick([A, B], old, overwrite=True)
    assert card_configs(old) == [A, B]


def test_damaged_manifest_is_named(old):
    (old / MANIFEST).write_text("{trunc")
    with pytest.raises(ExportFolderError, match=f"{MANIFEST} is damaged"):
        quick([A, B], old)


def test_foreign_files_in_an_export_folder_are_left_alone(old):
    (old / "notes.txt").write_text("mine")
    quick([A, B], old)
    assert (old / "notes.txt").read_text() == "mine"


# -------------------------------------------------------------------------------------- the public writer
def test_write_configs_writes_records_and_card_extras_atomically(tmp_path, monkeypatch):
    records = load_source(None, A, size=SIZE)
    configs = {A: {s: records[s].to_list() for s in records}, "agr_en_imported": {"test": records["test"].to_list()}}
    result = write_configs(tmp_path / "out", configs, card_extras={"source_datasets": ["extended"]},
                           card_notes="Imported from the original release.")
    card = (tmp_path / "out" / "README.md").read_text()
    assert card_configs(tmp_path / "out") == [A, "agr_en_imported"] and "Imported from the original release." in card
    assert split_card(card)[0]["source_datasets"] == ["extended"]
    assert load_source(tmp_path / "out", A)["train"].to_list() == configs[A]["train"]
    assert [c.name for c in result.configs] == [A, "agr_en_imported"]

    real = export_module.write_split
    monkeypatch.setattr(export_module, "write_split",
                        lambda recs, folder, split, *a, **k: (_ for _ in ()).throw(OSError(5, "I/O error"))
                        if k.get("config") == "agr_en_imported" else real(recs, folder, split, *a, **k))
    with pytest.raises(OSError):
        write_configs(tmp_path / "again", configs)
    assert card_configs(tmp_path / "again") == [A] and leftovers(tmp_path / "again") == []
