"""Many small BLM heads trained at once: M heads of one architecture (different seeds, or different embedding
tables such as one per encoder layer) stacked with `torch.func.stack_module_state` and run with `vmap`, so each
step is a handful of batched matmuls instead of M separate Trainer runs.

Each head keeps what a separate run would have: its own initialisation (the seed before building the head),
its own batch order (a generator seeded the same way), Adam on its own parameters (Adam is elementwise, so a
stacked optimizer is M independent ones), its own early stopping on validation accuracy (a head that stops is
taken out of the stack) and its best epoch's weights. Same seeds give the same parameters and accuracies as
separate runs, within float tolerance (tests/test_stacked_heads.py).
"""

from __future__ import annotations

import copy
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap

from .configuration import BlmConfig
from .data import IndexedBlmDataset
from .errors import CorruptInputError, UsageError
from .heads import build_head
from .losses import CandidateScorer, MaxMarginLoss, centre_on_context


@dataclass
class InstanceIndex:
    """A split as tensors of sentence positions: context [N, C], answers [N, A] (-1 = padding), gold [N]."""

    context: torch.Tensor
    answers: torch.Tensor
    gold: torch.Tensor

    @classmethod
    def from_indexed(cls, indexed: IndexedBlmDataset) -> InstanceIndex:
        """From the rows `SentenceIndex.index` makes."""
        rows = [indexed[i] for i in range(len(indexed))]
        answers = torch.nn.utils.rnn.pad_sequence([r["answer_ids"] for r in rows], batch_first=True, padding_value=-1)
        return cls(torch.stack([r["context_ids"] for r in rows]), answers, torch.stack([r["labels"] for r in rows]))

    def __len__(self) -> int:
        return len(self.gold)


@dataclass
class StackSettings:
    """Training of the stack: the papers' optimiser settings (Adam, lr 0.001, batch 100), epochs and patience."""

    epochs: int = 120
    patience: int = 10  # evaluations without a better validation accuracy before a head stops; 0 = never
    batch_size: int = 100
    learning_rate: float = 1e-3
    eval_batch_size: int = 512


@dataclass
class StackResult:
    """Per head: the epoch of its best validation accuracy, that accuracy, the epochs it trained, and (after
    `evaluate`) test picks; `parameters` holds the best weights, stacked."""

    seeds: list[int]
    best_epoch: list[int]
    best_validation: list[float]
    epochs_trained: list[int]
    parameters: dict[str, torch.Tensor]
    buffers: dict[str, torch.Tensor]
    seconds: float
    history: list[list[float]] = field(default_factory=list)  # validation accuracy per epoch, per head


class StackedHeads:
    """M heads built from one BlmConfig, head m initialised after `torch.manual_seed(seeds[m])`, run under vmap."""

    def __init__(self, config: BlmConfig, seeds: Sequence[int]) -> None:
        if not seeds:
            raise UsageError("a stack needs at least one seed")
        self.config = config
        self.seeds = list(seeds)
        heads = []
        for seed in self.seeds:
            torch.manual_seed(seed)
            heads.append(build_head(config))
        params, buffers = stack_module_state(heads)
        # Linear weights are kept as [M, in, out]: vmap's batched matmul then reads and writes them in place,
        # where the [M, out, in] layout costs a transposing copy of every weight gradient at each step
        self.transposed = frozenset(f"{prefix}.weight" if prefix else "weight"
                                    for prefix, module in heads[0].named_modules() if isinstance(module, nn.Linear))
        self.params = {name: swap_layout(name, value, self.transposed).detach().clone().requires_grad_(True)
                       for name, value in params.items()}
        self.buffers = dict(buffers)
        self.base = copy.deepcopy(heads[0]).to("meta")
        self.scorer = CandidateScorer(config.score)
        self.margin_loss = MaxMarginLoss(config.margin, config.effective_margin_reduction)
        self.center = bool(config.center_context)

    def _predict_one(self, params, buffers, context):
        """One head's predicted answer embeddings [B, d] and its own loss term (0 when it has none)."""
        params = {name: value.T if name in self.transposed else value for name, value in params.items()}
        output = functional_call(self.base, (params, buffers), (context,))
        auxiliary = output.auxiliary_loss if output.auxiliary_loss is not None else context.new_zeros(())
        return output.prediction, auxiliary

    def losses_and_scores(self, params, buffers, context, answers, mask, gold, training: bool):
        """Per head: the batch-mean loss [M] and candidate scores [M, B, A] from embeddings [M, B, C, d] and
        [M, B, A, d], as BlmModel.forward computes them (centring, scores, max-margin; blm_models/losses.py)."""
        self.base.train(training)
        if self.center:
            context, answers = centre_on_context(context, answers)
        with warnings.catch_warnings():  # the VAE heads' own max-margin (scatter_) runs head by head under vmap
            warnings.filterwarnings("ignore", message="There is a performance drop")
            prediction, auxiliary = vmap(self._predict_one, randomness="different")(params, buffers, context)
        scores = self.scorer(prediction, answers, mask)
        loss = self.margin_loss.per_instance(scores, gold, mask).mean(dim=1)
        return loss + auxiliary, scores


def _gather(tables: torch.Tensor, table_of: torch.Tensor, index: InstanceIndex, rows: torch.Tensor):
    """Embeddings of instances `rows` [M, B] for every head: context [M, B, C, d], answers [M, B, A, d], mask, gold."""
    heads = table_of.view(-1, 1, 1)
    context_ids, answer_ids = index.context[rows], index.answers[rows]
    mask = answer_ids >= 0
    context = tables[heads, context_ids]
    answers = tables[heads, answer_ids.clamp(min=0)]
    return context, answers, mask, index.gold[rows]


@torch.no_grad()
def predict(stack: StackedHeads, params, buffers, tables: torch.Tensor, table_of: torch.Tensor,
            index: InstanceIndex, batch_size: int = 512) -> torch.Tensor:
    """Picked candidate per head and instance [M, N] (the highest score; padded candidates never win)."""
    picks = []
    heads = len(table_of)
    for start in range(0, len(index), batch_size):
        rows = torch.arange(start, min(start + batch_size, len(index))).expand(heads, -1)
        context, answers, mask, gold = _gather(tables, table_of, index, rows)
        _, scores = stack.losses_and_scores(params, buffers, context, answers, mask, gold, training=False)
        picks.append(scores.argmax(dim=-1))
    return torch.cat(picks, dim=1) if picks else torch.empty(heads, 0, dtype=torch.long)


def swap_layout(name: str, stacked: torch.Tensor, transposed: frozenset[str]) -> torch.Tensor:
    """A stacked parameter [M, ...] from its module's layout to the one the stack trains it in (Linear weights as
    [M, in, out]), or back."""
    return stacked.transpose(1, 2).contiguous() if name in transposed else stacked


def _select(tensors: dict[str, torch.Tensor], keep: torch.Tensor) -> dict[str, torch.Tensor]:
    return {name: value.detach()[keep].clone() for name, value in tensors.items()}


def train_stack(
    config: BlmConfig,
    seeds: Sequence[int],
    tables: torch.Tensor,
    train: InstanceIndex,
    validation: InstanceIndex,
    settings: StackSettings | None = None,
    table_of: Sequence[int] | None = None,
) -> StackResult:
    """Train len(seeds) heads at once on sentence tables [T, S, d]; head m reads table `table_of[m]` (default:
    all read table 0) and is initialised and shuffled with `seeds[m]`. Each epoch every active head is evaluated
    on `validation`; a head whose accuracy has not improved for `patience` epochs, or has reached 1, stops and
    leaves the stack (with `patience` 0 every head trains every epoch).
    Returns every head's best weights (its best validation epoch, earliest on ties)."""
    settings = settings or StackSettings()
    start_time = time.perf_counter()
    torch.set_flush_denormal(True)  # as train.py: tiny gradients late in training otherwise slow CPU training
    heads = len(seeds)
    table_of = torch.as_tensor(list(table_of) if table_of is not None else [0] * heads, dtype=torch.long)
    if tables.dim() != 3 or len(table_of) != heads or int(table_of.max()) >= len(tables):
        raise UsageError(f"tables must be [T, S, d] and table_of name one table per head; got {tuple(tables.shape)} "
                         f"and {table_of.tolist()}")
    stack = StackedHeads(config, seeds)
    generators = [torch.Generator().manual_seed(int(seed)) for seed in seeds]
    active = list(range(heads))  # stack position -> head
    params, buffers = stack.params, stack.buffers
    optimizer = torch.optim.Adam(params.values(), lr=settings.learning_rate, fused=True)
    best_params = _select(params, torch.arange(heads))
    best_epoch, best_accuracy = [0] * heads, [-math.inf] * heads
    waited, epochs_trained = [0] * heads, [0] * heads
    history: list[list[float]] = [[] for _ in range(heads)]
    for epoch in range(1, settings.epochs + 1):
        stack.base.train()
        orders = torch.stack([torch.randperm(len(train), generator=generators[h]) for h in active])
        head_tables = table_of[active]
        for begin in range(0, len(train), settings.batch_size):
            rows = orders[:, begin: begin + settings.batch_size]
            context, answers, mask, gold = _gather(tables, head_tables, train, rows)
            losses, _ = stack.losses_and_scores(params, buffers, context, answers, mask, gold, training=True)
            loss = losses.sum()  # each head's batch mean; heads share no parameter
            if not torch.isfinite(loss):
                raise CorruptInputError(f"non-finite training loss at epoch {epoch}: check the embeddings")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        picks = predict(stack, params, buffers, tables, head_tables, validation, settings.eval_batch_size)
        accuracy = (picks == validation.gold.unsqueeze(0)).float().mean(dim=1).tolist()
        keep = []
        for position, head in enumerate(active):
            epochs_trained[head] = epoch
            history[head].append(accuracy[position])
            if accuracy[position] > best_accuracy[head]:
                best_accuracy[head], best_epoch[head], waited[head] = accuracy[position], epoch, 0
                for name, value in params.items():
                    best_params[name][head] = value.detach()[position]
            else:
                waited[head] += 1
            # a head at validation accuracy 1 cannot improve, so stopping it changes none of its results
            if not (settings.patience and (waited[head] >= settings.patience or best_accuracy[head] >= 1.0)):
                keep.append(position)
        if not keep:
            break
        if len(keep) < len(active):  # stopped heads leave the stack with their optimizer state
            params, optimizer = _shrink(params, optimizer, keep, settings.learning_rate)
            buffers = _select(buffers, torch.as_tensor(keep))
            active = [active[p] for p in keep]
    return StackResult(list(seeds), best_epoch, best_accuracy, epochs_trained,
                       {n: swap_layout(n, v.detach(), stack.transposed) for n, v in best_params.items()}, stack.buffers,
                       round(time.perf_counter() - start_time, 2), history)


def _shrink(params: dict[str, torch.Tensor], optimizer: torch.optim.Adam, keep: list[int], lr: float):
    """The stack without the stopped heads: parameters and Adam's moments sliced, the step count kept."""
    index = torch.as_tensor(keep)
    new_params = {name: value.detach()[index].clone().requires_grad_(True) for name, value in params.items()}
    new_optimizer = torch.optim.Adam(new_params.values(), lr=lr, fused=True)
    for (name, old), new in zip(params.items(), new_params.values()):
        state = optimizer.state.get(old)
        if state:
            new_optimizer.state[new] = {key: (value[index].clone() if key != "step" else value.clone())
                                        for key, value in state.items()}
    return new_params, new_optimizer


def evaluate_stack(config: BlmConfig, result: StackResult, tables: torch.Tensor, index: InstanceIndex,
                   table_of: Sequence[int] | None = None, batch_size: int = 512) -> torch.Tensor:
    """Picks [M, N] of every head's best weights on a split."""
    stack = StackedHeads.__new__(StackedHeads)
    stack.config, stack.seeds = config, result.seeds
    torch.manual_seed(0)
    stack.base = build_head(config).to("meta")
    stack.scorer = CandidateScorer(config.score)
    stack.margin_loss = MaxMarginLoss(config.margin, config.effective_margin_reduction)
    stack.center = bool(config.center_context)
    stack.transposed = frozenset()  # result.parameters are in the modules' own layout
    table_of = torch.as_tensor(list(table_of) if table_of is not None else [0] * len(result.seeds))
    return predict(stack, result.parameters, result.buffers, tables, table_of, index, batch_size)
