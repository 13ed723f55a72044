"""`BlmTrainer`: the Hugging Face Trainer, taught that BLM batches carry per-candidate labels for the metrics."""

from __future__ import annotations

import copy
import hashlib
import logging
import math
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import torch
from accelerate import PartialState
from transformers import Trainer, TrainerCallback
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

from builders.atomic import share

from .checkpoints import write_checksums
from .data import ERROR_CLASSES
from .errors import CorruptInputError
from .metrics import BlmMetrics, pick_highest_score
from .precision import attention_without_cudnn
from .run_identity import write_identity

logger = logging.getLogger(__name__)

METADATA_KEYS = ("answer_label_ids", "answer_class_ids")
LABEL_NAMES = ["labels", *METADATA_KEYS]


class GroupedBatchSampler(torch.utils.data.Sampler[int]):
    """Instance order whose consecutive `batch_size` runs come from as few groups (lemmas) as possible: groups and
    their instances are shuffled, cut into batches, and the batches shuffled, anew each epoch (seeded). Instances of
    one lemma share most of their sentences, so a fine-tuning batch encodes far fewer unique sentences."""

    def __init__(self, groups: Sequence[str], batch_size: int, seed: int = 0) -> None:
        self.groups = list(groups)
        self.batch_size = batch_size
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Called by the Trainer at the start of every epoch: each epoch has its own order, replayed on resume."""
        self.epoch = int(epoch)

    def __len__(self) -> int:
        return len(self.groups)

    def __iter__(self) -> Iterator[int]:
        rng = random.Random(f"{self.seed}:{self.epoch}")
        members: dict[str, list[int]] = {}
        for position, group in enumerate(self.groups):
            members.setdefault(group, []).append(position)
        names = sorted(members)
        rng.shuffle(names)
        order = []
        for name in names:
            rng.shuffle(members[name])
            order += members[name]
        batches = [order[start:start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        rng.shuffle(batches)
        return iter([position for batch in batches for position in batch])


class ChecksumCheckpoints(TrainerCallback):
    """After the Trainer saves a checkpoint (every rank has written its part): the run's identity written into it
    (`identity`, when set), its files made readable as the umask says and SHA256SUMS written over them, so a resume
    can tell a complete checkpoint from a torn one and its run from another."""

    def __init__(self) -> None:
        self.identity: dict | None = None

    def on_save(self, args, state, control, **kwargs):
        PartialState().wait_for_everyone()  # each rank writes its own rng_state_N.pth
        folder = Path(args.output_dir) / f"{PREFIX_CHECKPOINT_DIR}-{state.global_step}"
        if args.should_save and folder.is_dir():
            if self.identity is not None:
                write_identity(folder, self.identity)
            share(folder)  # weights as the umask says (safetensors writes 0600)
            write_checksums(folder)


class FreshOptimizerState(TrainerCallback):
    """With --reset_optimizer_state: the optimizer and scheduler as first created (`fresh`, set by
    BlmTrainer.create_scheduler) put back at the start of training, after a resume has loaded the checkpoint's."""

    def __init__(self) -> None:
        self.fresh: tuple[dict, dict] | None = None

    def on_train_begin(self, args, state, control, optimizer=None, lr_scheduler=None, **kwargs):
        if self.fresh is not None and optimizer is not None and lr_scheduler is not None:
            optimizer.load_state_dict(copy.deepcopy(self.fresh[0]))
            lr_scheduler.load_state_dict(copy.deepcopy(self.fresh[1]))


class BlmTrainer(Trainer):
    """Trainer whose evaluation yields picks (argmax over candidates) and whose metrics count picks per label and
    per error class; the per-candidate label ids travel with the batch (the model accepts and ignores them).

    With `train_groups` (one group name per training instance) batches are drawn group by group.
    It also stops at the first non-finite training loss (`input_hint` names where corrupt input would come
    from), writes `run_identity` and SHA256SUMS into every checkpoint it saves (ChecksumCheckpoints), and with
    `reset_optimizer_state` resumes the
    weights of a checkpoint but not its optimizer and scheduler."""

    def __init__(
        self,
        *args,
        compute_metrics=None,
        preprocess_logits_for_metrics=None,
        encoder_learning_rate: float | None = None,
        reset_optimizer_state: bool = False,
        input_hint: str | None = None,
        train_groups: Sequence[str] | None = None,
        **kwargs,
    ) -> None:
        model = kwargs.get("model") if "model" in kwargs else (args[0] if args else None)
        if compute_metrics is None and model is not None:
            label_names = model.config.answer_label_names or ["Correct"]
            compute_metrics = BlmMetrics(label_names, model.config.error_class_names or ERROR_CLASSES)
        super().__init__(
            *args,
            compute_metrics=compute_metrics,
            preprocess_logits_for_metrics=preprocess_logits_for_metrics or pick_highest_score,
            **kwargs,
        )
        self.label_names = list(LABEL_NAMES)
        self.can_return_loss = True
        self.encoder_learning_rate = encoder_learning_rate
        self.reset_optimizer_state = reset_optimizer_state
        self.input_hint = input_hint
        self.train_groups = train_groups
        self.fresh_optimizer_state = FreshOptimizerState()
        self.checkpoint_files = ChecksumCheckpoints()
        self.add_callback(self.checkpoint_files)
        self.add_callback(self.fresh_optimizer_state)

    @property
    def run_identity(self) -> dict | None:
        """What the run computes, written into every checkpoint (blm_models/run_identity.py)."""
        return self.checkpoint_files.identity

    @run_identity.setter
    def run_identity(self, identity: dict | None) -> None:
        self.checkpoint_files.identity = identity

    # One private method is overridden, because no public hook reaches it: `_get_train_sampler`. The Trainer offers
    # no argument or callback to choose the training sampler (only `group_by_length`), and overriding the public
    # `get_train_dataloader` would copy its accelerate and worker set-up. It is what the transformers ceiling in
    # setup.cfg protects; CI runs the tests on the lowest and the newest supported transformers.

    def _get_train_sampler(self, train_dataset=None):
        """Batches grouped by lemma when `train_groups` is given (--group_by_lemma), else the Trainer's sampler."""
        if self.train_groups is None:
            return super()._get_train_sampler(train_dataset)
        seed = self.args.data_seed if self.args.data_seed is not None else self.args.seed
        return GroupedBatchSampler(self.train_groups, self.args.per_device_train_batch_size, seed)

    def create_optimizer(self, model=None):
        """The Trainer's optimizer, with the fine-tuned encoder's parameters in groups of their own learning rate
        (a pretrained encoder needs a far smaller step than a freshly initialised head)."""
        optimizer = super().create_optimizer(model)
        encoder = getattr(self.model, "encoder", None)
        if self.encoder_learning_rate is None or encoder is None:
            return optimizer
        in_encoder = {id(parameter) for parameter in encoder.parameters()}
        groups = []
        for group in optimizer.param_groups:
            settings = {key: value for key, value in group.items() if key != "params"}
            head = [p for p in group["params"] if id(p) not in in_encoder]
            body = [p for p in group["params"] if id(p) in in_encoder]
            groups += [{**settings, "params": head}] if head else []
            groups += [{**settings, "params": body, "lr": self.encoder_learning_rate}] if body else []
        optimizer.param_groups.clear()
        for group in groups:
            optimizer.add_param_group(group)
        return optimizer

    def training_step(self, model, inputs, num_items_in_batch=None):
        """The Trainer's step, stopped at a non-finite loss before the optimizer applies its gradients (the
        Trainer alone would log around it and train on to a model at chance level)."""
        with attention_without_cudnn(self.args.device):  # bf16 on CUDA: no cuDNN plan per batch shape
            loss = super().training_step(model, inputs, num_items_in_batch)
        if not bool(torch.isfinite(loss).all()):
            raise CorruptInputError(self.non_finite_loss_message(float(loss.detach().float().mean())))
        return loss

    def prediction_step(self, model, inputs, prediction_loss_only, ignore_keys=None):
        """The Trainer's evaluation step, with attention as in training (`attention_without_cudnn`)."""
        with attention_without_cudnn(self.args.device):
            return super().prediction_step(model, inputs, prediction_loss_only, ignore_keys=ignore_keys)

    def non_finite_loss_message(self, value: float) -> str:
        """What a non-finite loss means and what to try."""
        step = self.state.global_step + 1
        epoch = self.state.epoch or 0.0
        kind = "nan" if math.isnan(value) else "infinite"
        hint = self.input_hint or "the input data"
        return (f"training loss became {kind} at step {step} (epoch {epoch:.2f}); stopped, no metrics or model card "
                f"written. Likely causes: corrupt input ({hint}) or too high a learning rate (--learning_rate "
                f"{self.args.learning_rate:g}); try a lower --learning_rate, and rerun after deleting the cache if "
                "the input is suspect")

    def create_scheduler(self, num_training_steps: int, optimizer=None):
        """The Trainer's scheduler; with --reset_optimizer_state, the fresh optimizer and scheduler states are kept
        for FreshOptimizerState (the Trainer creates both before a resume loads the checkpoint's)."""
        scheduler = super().create_scheduler(num_training_steps, optimizer)
        if self.reset_optimizer_state:
            self.fresh_optimizer_state.fresh = (copy.deepcopy(self.optimizer.state_dict()),
                                                copy.deepcopy(scheduler.state_dict()))
        return scheduler


def parameter_digest(model: torch.nn.Module) -> str:
    """Digest of all trainable parameters: equal digests on every rank show data-parallel replicas agree."""
    digest = hashlib.blake2b(digest_size=16)
    for name, parameter in sorted(model.named_parameters()):
        digest.update(name.encode())
        digest.update(parameter.detach().to("cpu").contiguous().view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()
