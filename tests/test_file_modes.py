"""Every file the toolkit writes is readable as the umask says (0644 and folders 0755 under umask 022): a lab-mate
can read an export's card and a checkpoint's weights. Atomic writes go through one helper (builders.atomic)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest_models import embedding_cache_dir, small_agreement_dir, tiny_encoder_dir  # noqa: F401 (fixtures)

from blm_datasets.export import export
from blm_models.train_job import main
from builders.atomic import atomic_path, atomic_write_text, umask_mode
from builders.generate import Options


@pytest.fixture
def umask_022():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def modes(folder: Path) -> dict[str, str]:
    """Permission bits of everything under ``folder`` (hidden temp files would show up too)."""
    return {str(path.relative_to(folder)): oct(stat.S_IMODE(path.stat().st_mode)) for path in folder.rglob("*")}


def test_the_helper_writes_atomically_with_umask_permissions(tmp_path, umask_022):
    target = atomic_write_text(tmp_path / "out" / "card.md", "text")
    assert target.read_text() == "text" and oct(stat.S_IMODE(target.stat().st_mode)) == "0o644"
    os.umask(0o077)
    assert umask_mode() == 0o600
    private = atomic_write_text(tmp_path / "private.txt", "secret")
    assert oct(stat.S_IMODE(private.stat().st_mode)) == "0o600"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path):
    target = atomic_write_text(tmp_path / "metrics.json", "old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed while writing")
    assert target.read_text() == "old"
    assert [path.name for path in tmp_path.iterdir()] == ["metrics.json"]


def test_an_export_is_readable_by_others(tmp_path, umask_022):
    out = tmp_path / "blm"
    export(["agr_en_typeI"], out, Options(size=30), audit=False, report=None, progress=False)
    found = modes(out)
    assert found["README.md"] == "0o644" and found["agr_en_typeI"] == "0o755"
    files = {name: mode for name, mode in found.items() if (out / name).is_file()}
    folders = {name: mode for name, mode in found.items() if (out / name).is_dir()}
    assert set(files.values()) == {"0o644"}, files
    assert set(folders.values()) == {"0o755"}, folders


def test_a_checkpoint_is_readable_by_others(tmp_path, umask_022, small_agreement_dir, tiny_encoder_dir,
                                            embedding_cache_dir):
    out = tmp_path / "run"
    main(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir), "--embedding_cache_dir",
          str(embedding_cache_dir), "--output_dir", str(out), "--num_train_epochs", "1",
          "--per_device_train_batch_size", "16", "--disable_tqdm", "true"])
    found = modes(out)
    for name in ("metrics.json", "README.md", "model.safetensors", "config.json"):
        assert found[name] == "0o644", (name, found)
    checkpoint = next(name for name in found if name.startswith("checkpoint-") and "/" not in name)
    assert found[f"{checkpoint}/SHA256SUMS"] == "0o644"
    assert {mode for name, mode in found.items() if (out / name).is_file()} == {"0o644"}, found
