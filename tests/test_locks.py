"""Two writers at once: the second one fails at once in one line naming the flag and the owner, and the first
one's result is untouched; a lock left by a killed process is taken over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest_models import embedding_cache_dir, small_agreement_dir, tiny_encoder_dir  # noqa: F401 (fixtures)

from blm_cli.main import main as blm
from blm_models.train_job import main as train
from builders.locks import LockedError, lock_path, locked

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(sys.platform.startswith("win"), reason="flock locks (POSIX)")


def test_a_second_writer_is_refused_until_the_first_is_done(tmp_path):
    target = tmp_path / "out"
    with locked(target, "--out"):
        with pytest.raises(LockedError, match=rf"--out {target}: pid {os.getpid()} \(.*\) is writing there now"):
            with locked(target, "--out"):
                pass
        assert list(target.parent.iterdir()) == [lock_path(target)]  # beside the target, never inside it
    with locked(target, "--out"):  # released: the next writer goes ahead
        pass


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path):
    target = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from builders.locks import locked\n"
                               f"with locked({str(target)!r}, '--out'):\n    print('held', flush=True); time.sleep(60)"],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LockedError, match=f"pid {holder.pid}"):
            with locked(target, "--out"):
                pass
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
        with locked(target, "--out"):
            assert f"pid {os.getpid()}" in lock_path(target).read_text()
    finally:
        if holder.poll() is None:
            holder.kill()


def test_train_py_refuses_an_output_dir_another_run_is_writing(tmp_path, capsys, small_agreement_dir,
                                                                tiny_encoder_dir, embedding_cache_dir):
    out = tmp_path / "run"
    with locked(out, "--output_dir"):
        with pytest.raises(SystemExit) as stopped:
            train(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir),
                   "--embedding_cache_dir", str(embedding_cache_dir), "--output_dir", str(out),
                   "--num_train_epochs", "1", "--disable_tqdm", "true"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"train.py: error: --output_dir {out}: pid {os.getpid()}" in err and "Traceback" not in err
    assert not out.exists()  # nothing written


@pytest.mark.parametrize("command", [["export", "agr_en_typeI", "--size", "30", "--no-audit"],
                                     ["generate", "agr_en_typeI", "--size", "30"]])
def test_blm_refuses_an_out_folder_another_command_is_writing(tmp_path, capsys, command):
    out = tmp_path / "blm"
    with locked(out, "--out"):
        assert blm([*command, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"blm {command[0]}: error: --out {out}: pid {os.getpid()}" in err and "Traceback" not in err
    assert not out.exists() or not any(out.iterdir())  # nothing written
    assert blm([*command, "--out", str(out)]) == 0  # once free, the same command runs
    assert (out / "agr_en_typeI").is_dir()


def test_blm_augment_apply_refuses_a_lexicon_being_written(tmp_path):
    from blm_augment.patch import apply

    lexicon = tmp_path / "en.yaml"
    lexicon.write_text("seeds: []\n")
    start = time.perf_counter()
    with locked(lexicon, "blm augment --apply"), pytest.raises(LockedError, match="blm augment --apply"):
        apply(tmp_path / "patch.yaml", lexicon)
    assert time.perf_counter() - start < 5 and lexicon.read_text() == "seeds: []\n"
