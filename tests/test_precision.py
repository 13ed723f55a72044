"""`--bf16 auto` (the default): bfloat16 only where the hardware computes it natively, decided from the CPU's or
GPU's capability; the choice and its reason reach metrics.json."""

from __future__ import annotations

import json

import pytest
import torch
from conftest_models import embedding_cache_dir, small_agreement_dir, tiny_encoder_dir  # noqa: F401 (fixtures)

from blm_models import precision
from blm_models.arguments import parse_arguments
from blm_models.errors import UsageError
from blm_models.precision import choose_precision, cpu_bf16_flags, native_bf16
from blm_models.train_job import main

XEON_AVX512 = "processor\t: 0\nflags\t\t: fpu sse sse2 avx avx2 avx512f avx512bw avx512vl avx512_vnni\n"
SAPPHIRE_RAPIDS = "flags\t\t: fpu avx2 avx512f avx512_bf16 amx_bf16 amx_tile amx_int8\n"
GRAVITON3 = "Features\t: fp asimd evtstrm aes sve bf16 i8mm\n"


@pytest.fixture
def no_torch_cpu_detection(monkeypatch):
    """torch's own x86 detectors say nothing: only the cpuinfo text given to the function decides."""
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False, raising=False)
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture
def cpu_without_bf16(monkeypatch, no_torch_cpu_detection):
    monkeypatch.setattr(precision, "cpu_bf16_flags", lambda cpuinfo=None: [])


@pytest.fixture
def cpu_with_amx(monkeypatch, no_torch_cpu_detection):
    monkeypatch.setattr(precision, "cpu_bf16_flags", lambda cpuinfo=None: ["amx_bf16", "avx512_bf16"])


def test_cpu_flags_name_only_native_bfloat16(no_torch_cpu_detection):
    assert cpu_bf16_flags(XEON_AVX512) == []  # AVX-512 alone emulates bf16
    assert cpu_bf16_flags(SAPPHIRE_RAPIDS) == ["amx_bf16", "avx512_bf16"]
    assert cpu_bf16_flags(GRAVITON3) == ["bf16"]
    assert cpu_bf16_flags("") == []


def test_torch_detection_counts_when_cpuinfo_is_silent(monkeypatch, no_torch_cpu_detection):
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: True, raising=False)
    assert cpu_bf16_flags("") == ["avx512_bf16"]


def test_auto_is_fp32_on_an_avx512_cpu_without_bf16_and_bf16_with_amx(no_torch_cpu_detection):
    emulated = choose_precision("auto", cpuinfo=XEON_AVX512)
    assert (emulated.bf16, emulated.native) == (False, False)
    assert "no native bfloat16" in emulated.reason
    native = choose_precision("auto", cpuinfo=SAPPHIRE_RAPIDS)
    assert (native.bf16, native.native) == (True, True)
    assert "amx_bf16" in native.reason


def test_auto_follows_the_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "NVIDIA H100")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)
    assert native_bf16() == (True, "GPU NVIDIA H100 supports bfloat16")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: False)
    assert native_bf16()[0] is False
    # --use_cpu trains on the CPU even beside a GPU: the CPU decides
    assert native_bf16(use_cpu=True, cpuinfo=XEON_AVX512)[0] is False


def test_forced_values_are_kept_whatever_the_hardware(no_torch_cpu_detection):
    forced = choose_precision("true", cpuinfo=XEON_AVX512)
    assert (forced.requested, forced.bf16, forced.native) == ("true", True, False)
    assert choose_precision(False).bf16 is False
    assert choose_precision("no").requested == "false"
    with pytest.raises(UsageError, match="--bf16 sometimes: must be auto"):
        choose_precision("sometimes")


@pytest.mark.parametrize("flags, expected", [([], False), (["--bf16", "auto"], False), (["--bf16"], True),
                                             (["--bf16", "true"], True), (["--bf16", "false"], False)])
def test_train_py_defaults_to_auto(tmp_path, cpu_without_bf16, flags, expected):
    *_, training_args = parse_arguments(["--dataset_config", "agr_en_typeI", "--output_dir", str(tmp_path), *flags])
    assert training_args.bf16 is expected
    assert training_args.precision.requested == (flags[1] if len(flags) == 2 else "true" if flags else "auto")
    if expected:  # bfloat16 autocast without a GPU runs on the CPU
        assert training_args.use_cpu


def test_train_py_picks_bf16_on_a_cpu_with_amx(tmp_path, cpu_with_amx):
    *_, training_args = parse_arguments(["--dataset_config", "agr_en_typeI", "--output_dir", str(tmp_path)])
    assert training_args.bf16 and training_args.use_cpu
    assert training_args.precision.reason.startswith("CPU has native bfloat16 (amx_bf16, avx512_bf16")


def test_a_bad_bf16_value_is_one_line_naming_the_flag(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--dataset_config", "agr_en_typeI", "--output_dir", str(tmp_path), "--bf16", "fast"])
    assert stopped.value.code == 2
    assert "--bf16 fast: must be auto" in capsys.readouterr().err


def test_metrics_json_records_the_choice_and_why(tmp_path, cpu_without_bf16, small_agreement_dir, tiny_encoder_dir,
                                                 embedding_cache_dir, capsys):
    out = tmp_path / "run"
    main(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir),
          "--embedding_cache_dir", str(embedding_cache_dir), "--output_dir", str(out), "--num_train_epochs", "1",
          "--per_device_train_batch_size", "16", "--disable_tqdm", "true"])
    report = json.loads((out / "metrics.json").read_text())
    assert report["training"]["precision"]["requested"] == "auto"
    assert report["training"]["precision"]["bf16"] is False
    assert "no native bfloat16" in report["training"]["precision"]["reason"]
    assert report["config"]["training"]["bf16"] is False
    assert "precision: fp32 (--bf16 auto: CPU has no native bfloat16" in capsys.readouterr().out


def test_attention_leaves_out_cudnn_on_cuda_only():
    assert torch.backends.cuda.cudnn_sdp_enabled()
    with precision.attention_without_cudnn("cuda"):
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.mem_efficient_sdp_enabled()
    assert torch.backends.cuda.cudnn_sdp_enabled()
    with precision.attention_without_cudnn(torch.device("cpu")):
        assert torch.backends.cuda.cudnn_sdp_enabled()


def test_training_and_evaluation_steps_run_without_cudnn_attention_on_cuda(
        tmp_path, monkeypatch, cpu_without_bf16, small_agreement_dir, tiny_encoder_dir, embedding_cache_dir):
    """Every forward pass of a run on a CUDA device (faked: the steps' device is taken as CUDA) has cuDNN attention
    off, in training and in evaluation; none runs with it on."""
    from transformers import Trainer

    from blm_models import trainer as trainer_module

    monkeypatch.setattr(trainer_module, "attention_without_cudnn",
                        lambda device: precision.attention_without_cudnn("cuda"))
    seen = {True: 0, False: 0}

    def compute_loss(self, model, inputs, *args, **kwargs):
        seen[torch.backends.cuda.cudnn_sdp_enabled()] += 1
        return Trainer.compute_loss(self, model, inputs, *args, **kwargs)

    monkeypatch.setattr(trainer_module.BlmTrainer, "compute_loss", compute_loss)
    main(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir),
          "--embedding_cache_dir", str(embedding_cache_dir), "--output_dir", str(tmp_path / "run"),
          "--num_train_epochs", "1", "--per_device_train_batch_size", "16", "--disable_tqdm", "true"])
    assert seen[False] > 0 and seen[True] == 0
