"""VAE latent analysis (002 §7): pattern-level evaluation of a VAE head's latent layer, latent traversal
(002 Fig. 21) and a 2-D projection of the latents coloured by pattern (002 Fig. 22).

A two-level VAE (`--head two_level_vae`) has sentence-level latents: each test sentence is encoded (mean mu,
no sampling), decoded, and scored against its instance's context sentences with the model's score; the
pattern of the best-scoring sentence is the predicted pattern. A sentence VAE (`--head sentence_vae`) has
one task latent per instance: decoding it picks an answer, and the "pattern" is the picked answer's label.
Traversal sets one latent unit, for every test item, to each of `steps` values spanning the unit's
min-max over the training items, and recomputes the confusion matrix.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from builders.errors import InputError

LATENT_HEADS = {
    "two_level_vae": "sentence-level latents; traversal changes the predicted chunk pattern of each sentence",
    "sentence_vae": "task latent; traversal changes the label of the picked answer",
}
METRICS_FILE = "metrics.json"


class NoLatentError(InputError):
    """The checkpoint's head has no latent layer to analyse."""


def require_latent_head(head: str, checkpoint: str | Path = "the checkpoint") -> None:
    """Fail clearly for heads without a latent (ffnn, cnn), listing the ones that have one."""
    if head not in LATENT_HEADS:
        choices = "; ".join(f"{name} ({what})" for name, what in LATENT_HEADS.items())
        raise NoLatentError(
            f"{checkpoint} holds a {head!r} head, which has no latent layer. Latent analysis needs one of: "
            f"{choices}. Train one with `python train.py --head two_level_vae ...`."
        )


# ------------------------------------------------------------------------------------------- probes
class SentenceLatentProbe:
    """The sentence level of a two-level VAE: one embedding [N, d] <-> one latent [N, latent_size]."""

    kind = "pattern"

    def __init__(self, head: torch.nn.Module) -> None:
        self.head = head
        self.latent_size = head.sentence_encoder.to_latent.out_features // 2

    def encode(self, inputs: torch.Tensor) -> torch.Tensor:
        """Latent means of sentence embeddings [N, d]."""
        return self.head.sentence_encoder(inputs.reshape(inputs.shape[0], 1, *self.head.grid))[0]

    def decode(self, latents: torch.Tensor) -> torch.Tensor:
        """Decoded sentence embeddings [N, d]."""
        return self.head.sentence_decoder(latents)


class TaskLatentProbe:
    """A sentence VAE: a context [N, C, d] <-> its task latent [N, latent_size], decoded into the answer."""

    kind = "answer label"

    def __init__(self, head: torch.nn.Module) -> None:
        self.head = head
        self.latent_size = head.encoder.to_latent.out_features // 2

    def encode(self, inputs: torch.Tensor) -> torch.Tensor:
        """Latent means of contexts [N, C, d]."""
        return self.head.encoder(inputs.reshape(inputs.shape[0], inputs.shape[1], *self.head.grid))[0]

    def decode(self, latents: torch.Tensor) -> torch.Tensor:
        """Predicted answer embeddings [N, d]."""
        return self.head.decoder(latents)


def build_probe(model: torch.nn.Module) -> SentenceLatentProbe | TaskLatentProbe:
    """The latent probe of a BlmModel's head."""
    require_latent_head(model.config.head, model.config.name_or_path or "the model")
    probe_class = SentenceLatentProbe if model.config.head == "two_level_vae" else TaskLatentProbe
    return probe_class(model.head)


# -------------------------------------------------------------------------------------------- items
class SentenceTable:
    """Embeddings of unique sentences, looked up by text."""

    def __init__(self, sentences: Sequence[str], embeddings: torch.Tensor) -> None:
        self.positions = {sentence: i for i, sentence in enumerate(sentences)}
        self.embeddings = embeddings

    def __call__(self, sentences: Sequence[str]) -> torch.Tensor:
        return self.embeddings[torch.tensor([self.positions[s] for s in sentences], dtype=torch.long)]


@dataclass
class ProbeItems:
    """What gets scored: encoder inputs, candidates with their class ids (-1 = padding), the gold class of each
    item, and the name it is coloured by in the projection."""

    inputs: torch.Tensor
    candidates: torch.Tensor
    candidate_classes: torch.Tensor
    gold: torch.Tensor
    colours: list[str]

    def __len__(self) -> int:
        return len(self.gold)


def pattern_order(patterns: set[str] | Sequence[str]) -> list[str]:
    """Patterns grouped by structure (chunk names without features), then by features: readable matrix axes."""
    def key(pattern: str) -> tuple:
        chunks = pattern.split()
        return len(chunks), [chunk.split("-")[0] for chunk in chunks], pattern
    return sorted(set(patterns), key=key)


def sample_positions(total: int, limit: int | None, seed: int) -> list[int]:
    """All positions, or `limit` of them drawn without replacement (seeded, in order)."""
    if limit is None or limit <= 0 or limit >= total:
        return list(range(total))
    return sorted(np.random.default_rng(seed).choice(total, size=limit, replace=False).tolist())


def centred(embeddings: torch.Tensor, context: torch.Tensor, center: bool) -> torch.Tensor:
    """`embeddings` in the frame the model sees: minus the instance's mean context embedding with center_context."""
    return embeddings - context.mean(dim=0, keepdim=True) if center else embeddings


def context_frame(table: SentenceTable, context: Sequence[str], center: bool) -> torch.Tensor:
    """An instance's context embeddings as the head sees them."""
    embeddings = table(context)
    return centred(embeddings, embeddings, center)


def sentence_items(rows, table: SentenceTable, classes: Sequence[str], limit: int | None = None,
                   seed: int = 0, center: bool = False) -> ProbeItems:
    """One item per context sentence of each instance; candidates are that instance's context sentences."""
    class_ids = {name: i for i, name in enumerate(classes)}
    contexts, patterns = list(rows["context"]), list(rows["context_patterns"])
    pairs = [(i, j) for i, context in enumerate(contexts) for j in range(len(context))]
    pairs = [pairs[k] for k in sample_positions(len(pairs), limit, seed)]
    chosen = sorted({i for i, _ in pairs})
    candidates = {i: context_frame(table, contexts[i], center) for i in chosen}
    candidate_ids = {i: torch.tensor([class_ids[p] for p in patterns[i]]) for i in chosen}
    return ProbeItems(
        inputs=torch.stack([candidates[i][j] for i, j in pairs]),
        candidates=torch.stack([candidates[i] for i, _ in pairs]),
        candidate_classes=torch.stack([candidate_ids[i] for i, _ in pairs]),
        gold=torch.tensor([class_ids[patterns[i][j]] for i, j in pairs], dtype=torch.long),
        colours=[patterns[i][j] for i, j in pairs],
    )


def instance_items(rows, table: SentenceTable, classes: Sequence[str], limit: int | None = None,
                   seed: int = 0, center: bool = False) -> ProbeItems:
    """One item per instance; candidates are its answers (padded), classes their labels, colour the gold pattern."""
    class_ids = {name: i for i, name in enumerate(classes)}
    chosen = sample_positions(len(rows), limit, seed)
    width = max(len(rows[i]["answers"]) for i in chosen)
    dim = table.embeddings.shape[-1]
    candidates = torch.zeros(len(chosen), width, dim)
    candidate_classes = torch.full((len(chosen), width), -1, dtype=torch.long)
    inputs, gold, colours = [], [], []
    for k, i in enumerate(chosen):
        row = rows[i]
        count = len(row["answers"])
        context = table(row["context"])
        candidates[k, :count] = centred(table(row["answers"]), context, center)
        candidate_classes[k, :count] = torch.tensor([class_ids[label] for label in row["answer_labels"]])
        inputs.append(centred(context, context, center))
        gold.append(class_ids[row["answer_labels"][row["label"]]])
        colours.append(row["answer_patterns"][row["label"]])
    return ProbeItems(torch.stack(inputs), candidates, candidate_classes, torch.tensor(gold), colours)


# ------------------------------------------------------------------------------------------ analysis
@torch.no_grad()
def encode_latents(probe, inputs: torch.Tensor, batch_size: int = 1024) -> torch.Tensor:
    """Latent means [N, latent_size], in batches."""
    device = next(probe.head.parameters()).device
    parts = [probe.encode(inputs[s : s + batch_size].to(device)).cpu() for s in range(0, len(inputs), batch_size)]
    return torch.cat(parts) if parts else torch.empty(0, probe.latent_size)


@torch.no_grad()
def predict_classes(probe, scorer, items: ProbeItems, latents: torch.Tensor, batch_size: int = 1024) -> torch.Tensor:
    """Class id of the best-scoring candidate of each item after decoding `latents` [N, latent_size]."""
    device = next(probe.head.parameters()).device
    picked = []
    for s in range(0, len(items), batch_size):
        classes = items.candidate_classes[s : s + batch_size]
        decoded = probe.decode(latents[s : s + batch_size].to(device))
        scores = scorer(decoded, items.candidates[s : s + batch_size].to(device), (classes >= 0).to(device))
        picks = scores.argmax(dim=-1).cpu()
        picked.append(classes.gather(1, picks.unsqueeze(1)).squeeze(1))
    return torch.cat(picked) if picked else torch.empty(0, dtype=torch.long)


def confusion_matrix(gold: torch.Tensor, predicted: torch.Tensor, n_classes: int) -> np.ndarray:
    """Counts [gold class, predicted class]."""
    flat = gold.long() * n_classes + predicted.long()
    return np.bincount(flat.numpy(), minlength=n_classes * n_classes).reshape(n_classes, n_classes)


def with_unit(latents: torch.Tensor, unit: int, values: torch.Tensor | float) -> torch.Tensor:
    """A copy of `latents` with column `unit` set to `values` (one value, or one per item)."""
    changed = latents.clone()
    changed[:, unit] = torch.as_tensor(values, dtype=latents.dtype)
    return changed


def traversal_values(train_latents: torch.Tensor, steps: int) -> np.ndarray:
    """[latent_size, steps] values evenly spanning each unit's min..max over the training latents."""
    if steps < 2:
        raise InputError(f"--steps must be at least 2 (min and max of each unit), got {steps}")
    low, high = train_latents.min(dim=0).values, train_latents.max(dim=0).values
    fractions = torch.linspace(0, 1, steps, dtype=torch.float64)
    values = low.double()[:, None] + (high - low).double()[:, None] * fractions[None, :]
    values[:, 0], values[:, -1] = low.double(), high.double()  # exactly the extremes, no rounding
    return values.float().numpy()


def project_2d(latents: np.ndarray, method: str = "pca", seed: int = 0) -> np.ndarray:
    """[N, 2] projection of latents with PCA or t-SNE (sklearn); a 1-unit latent is padded with zeros."""
    if latents.shape[1] < 2:
        return np.concatenate([latents, np.zeros((len(latents), 2 - latents.shape[1]))], axis=1)
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed).fit_transform(latents)
    if method == "tsne":
        from sklearn.manifold import TSNE

        perplexity = float(min(30, max(2, len(latents) - 1) / 3))
        return TSNE(n_components=2, init="pca", perplexity=perplexity, random_state=seed).fit_transform(latents)
    raise InputError(f"unknown projection {method!r}: use pca or tsne")


def accuracy_of(confusion: np.ndarray) -> float:
    """Share of items on the diagonal."""
    total = confusion.sum()
    return float(np.trace(confusion) / total) if total else 0.0


@dataclass
class LatentAnalysis:
    """Everything the figures, report.md and results.json are made from."""

    head: str
    kind: str
    classes: list[str]
    confusion: np.ndarray
    latent_min: np.ndarray
    latent_max: np.ndarray
    traversal_values: np.ndarray
    traversal_confusions: np.ndarray
    latents: np.ndarray
    projection: np.ndarray
    colours: list[str]
    projection_method: str = "pca"
    n_train_items: int = 0
    details: dict = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return accuracy_of(self.confusion)

    @property
    def traversal_accuracy(self) -> np.ndarray:
        """[latent_size, steps] accuracy after each traversal step."""
        units, steps = self.traversal_values.shape
        return np.array([[accuracy_of(self.traversal_confusions[u, s]) for s in range(steps)] for u in range(units)])

    @property
    def gold_rows(self) -> list[int]:
        """Classes that occur as gold among the items (the rows worth drawing)."""
        return [k for k in range(len(self.classes)) if self.confusion[k].sum() > 0]


def analyse_latents(probe, scorer, items: ProbeItems, train_inputs: torch.Tensor, classes: Sequence[str],
                    steps: int = 10, projection: str = "pca", seed: int = 0, batch_size: int = 1024,
                    head: str = "", progress: bool = True) -> LatentAnalysis:
    """Pattern-level confusion, traversal of every unit over its training range, and the 2-D projection."""
    from tqdm.auto import tqdm

    train_latents = encode_latents(probe, train_inputs, batch_size)
    latents = encode_latents(probe, items.inputs, batch_size)
    n = len(classes)
    confusion = confusion_matrix(items.gold, predict_classes(probe, scorer, items, latents, batch_size), n)
    values = traversal_values(train_latents, steps)
    grid = np.zeros((probe.latent_size, steps, n, n), dtype=np.int64)
    with tqdm(total=probe.latent_size * steps, desc="latent traversal", disable=not progress) as bar:
        for unit in range(probe.latent_size):
            for step in range(steps):
                changed = with_unit(latents, unit, float(values[unit, step]))
                grid[unit, step] = confusion_matrix(items.gold, predict_classes(probe, scorer, items, changed,
                                                                                batch_size), n)
                bar.update()
    return LatentAnalysis(
        head=head, kind=probe.kind, classes=list(classes), confusion=confusion,
        latent_min=train_latents.min(dim=0).values.numpy(), latent_max=train_latents.max(dim=0).values.numpy(),
        traversal_values=values, traversal_confusions=grid, latents=latents.numpy(),
        projection=project_2d(latents.numpy(), projection, seed), colours=list(items.colours),
        projection_method=projection, n_train_items=len(train_inputs),
    )


# -------------------------------------------------------------------------------------- checkpoint
def load_latent_model(checkpoint: str | Path, device: str | None = None):
    """A BlmModel with a latent head, from a train.py output folder (safetensors only), in eval mode."""
    from blm_models import BlmConfig, BlmModel

    if not (Path(checkpoint) / "config.json").is_file():
        raise InputError(f"{checkpoint} has no config.json: give the --output_dir of a train.py run")
    require_latent_head(BlmConfig.from_pretrained(str(checkpoint)).head, checkpoint)
    model = BlmModel.from_pretrained(str(checkpoint), use_safetensors=True)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    return model.to(device).eval()


def embed_sentences(model, sentences: Sequence[str], cache_dir: str | None = None, batch_size: int = 64,
                    progress: bool = True) -> SentenceTable:
    """Sentence embeddings as training made them: the embedding cache under the same key for a frozen encoder
    (see train_job.build_collator), the checkpoint's own fine-tuned encoder otherwise."""
    from blm_models.embedding_cache import EmbeddingCache, EncoderKey, SentenceEmbedder
    from blm_models.encoders import encoder_revision_id, resolve_encoder_name

    config = model.config
    sentences = list(dict.fromkeys(sentences))
    embedder = SentenceEmbedder(model.sentence_encoder(), model.tokenizer(), config.pooling, config.max_length,
                                batch_size, config.hidden_layer)
    if config.train_encoder:
        return SentenceTable(sentences, embedder.embed(sentences, progress=progress))
    name = config.encoder_name_or_path
    key = EncoderKey(name=name, revision=encoder_revision_id(resolve_encoder_name(name), config.encoder_revision,
                                                             embedder.model),
                     pooling=config.pooling, max_length=config.max_length, layer=config.hidden_layer)
    table, _ = EmbeddingCache(cache_dir, key).embed(sentences, embedder, progress=progress)
    return SentenceTable(sentences, table)


def recorded_run(checkpoint: str | Path) -> dict:
    """Data arguments and seed train.py recorded in metrics.json ({} without one)."""
    path = Path(checkpoint) / METRICS_FILE
    if not path.is_file():
        return {}
    config = json.loads(path.read_text()).get("config", {})
    return {"data": config.get("data", {}), "seed": config.get("training", {}).get("seed", 42)}


def analysis_splits(checkpoint: str | Path, dataset_config: str | None = None, dataset_path: str | None = None):
    """(train, test, details): the training instances exactly as train.py sampled them when the data is the
    checkpoint's own (metrics.json), else the whole train split; the test split; where both came from."""
    from blm_models.arguments import DataArguments
    from blm_models.data import load_splits
    from blm_models.train_job import prepare_splits

    recorded = recorded_run(checkpoint)
    data = recorded.get("data", {})
    if dataset_config is None and dataset_path is None:
        dataset_config, dataset_path = data.get("dataset_config"), data.get("dataset_path")
        if dataset_config is None and dataset_path is None:
            raise InputError(f"{checkpoint} has no {METRICS_FILE} naming its data: pass --dataset-config NAME "
                             "or --dataset-path DIR")
    if data and (dataset_config, dataset_path) == (data.get("dataset_config"), data.get("dataset_path")):
        fields = {k: v for k, v in data.items() if k in DataArguments.__dataclass_fields__}
        splits = prepare_splits(DataArguments(**fields), recorded["seed"])
        train, test, note = splits["train"], splits["test"], "train split as sampled by train.py (metrics.json)"
    else:
        loaded = load_splits(dataset_config, dataset_path)
        train, test, note = loaded["train"], loaded["test"], "whole train split"
    return train, test, {"dataset_config": dataset_config, "dataset_path": dataset_path, "training_items_from": note}


def run_latent_analysis(checkpoint: str | Path, out: str | Path | None = None, *, dataset_config: str | None = None,
                        dataset_path: str | None = None, steps: int = 10, projection: str = "pca",
                        max_sentences: int | None = None, embedding_cache_dir: str | None = None, seed: int = 0,
                        device: str | None = None, progress: bool = True) -> LatentAnalysis:
    """Load, embed, analyse; with `out`, write the figures, report.md and results.json there."""
    from blm_models.data import answer_label_vocabulary

    start = time.perf_counter()
    model = load_latent_model(checkpoint, device)
    train, test, source = analysis_splits(checkpoint, dataset_config, dataset_path)
    cache_dir = embedding_cache_dir or recorded_run(checkpoint).get("data", {}).get("embedding_cache_dir")
    sentences = [s for split in (train, test) for context in split["context"] for s in context]
    if model.config.head == "sentence_vae":
        sentences += [s for answers in test["answers"] for s in answers]
    table = embed_sentences(model, sentences, cache_dir, progress=progress)
    center = bool(model.config.center_context)
    if model.config.head == "two_level_vae":
        classes = pattern_order({p for patterns in test["context_patterns"] for p in patterns})
        items = sentence_items(test, table, classes, max_sentences, seed, center)
        if center:  # the sentence encoder saw each sentence relative to its instance
            train_inputs = torch.cat([context_frame(table, c, True) for c in train["context"]])
        else:
            train_inputs = table(sorted({s for context in train["context"] for s in context}))
    else:
        classes = list(model.config.answer_label_names or answer_label_vocabulary([test]))
        items = instance_items(test, table, classes, max_sentences, seed, center)
        train_inputs = torch.stack([context_frame(table, c, center) for c in train["context"]])
    analysis = analyse_latents(build_probe(model), model.scorer, items, train_inputs, classes, steps, projection,
                               seed, head=model.config.head, progress=progress)
    analysis.details = {"checkpoint": str(checkpoint), **source, "test_instances": len(test),
                        "max_sentences": max_sentences, "seed": seed, "seconds": round(time.perf_counter() - start, 1)}
    if out is not None:
        from .latent_figures import write_outputs

        write_outputs(analysis, Path(out))
    return analysis


# --------------------------------------------------------------------------------------------- CLI
def cmd_latent(args: argparse.Namespace) -> int:
    """`blm latent`: run the analysis and say where the outputs are."""
    out = Path(args.out) if args.out else Path(args.checkpoint) / "latent"
    analysis = run_latent_analysis(
        args.checkpoint, out, dataset_config=args.dataset_config, dataset_path=args.dataset_path, steps=args.steps,
        projection=args.projection, max_sentences=args.max_sentences, embedding_cache_dir=args.embedding_cache_dir,
        seed=args.seed, device=args.device, progress=not args.quiet,
    )
    print(f"{analysis.kind} accuracy {analysis.accuracy:.3f} over {int(analysis.confusion.sum())} items "
          f"({len(analysis.classes)} classes); traversal of {analysis.traversal_values.shape[0]} units x "
          f"{analysis.traversal_values.shape[1]} values; wrote {out}/report.md")
    return 0


def register(sub) -> None:
    """Add the `latent` subcommand to an argparse subparsers object."""
    p = sub.add_parser(
        "latent", help="VAE latent analysis: pattern-level evaluation, latent traversal, 2-D projection",
        description="Analyse the latent layer of a two_level_vae (sentence latents) or sentence_vae (task latent) "
                    "checkpoint written by train.py: pattern-level confusion matrix, traversal of each latent unit "
                    "over its training range (002 Fig. 21) and a 2-D projection coloured by pattern (Fig. 22).")
    p.add_argument("checkpoint", help="a train.py --output_dir (config.json + model.safetensors)")
    p.add_argument("--dataset-config", help="BLM config, e.g. agr_en_typeI (default: the one in metrics.json)")
    p.add_argument("--dataset-path", help="a DatasetDict saved with save_to_disk, instead of --dataset-config")
    p.add_argument("--out", help="output folder (default: CHECKPOINT/latent)")
    p.add_argument("--steps", type=int, default=10, help="values per latent unit, min to max of training (default 10)")
    p.add_argument("--projection", choices=("pca", "tsne"), default="pca", help="2-D projection (default pca)")
    p.add_argument("--max-sentences", type=int, help="analyse at most this many test sentences (instances for "
                   "sentence_vae), sampled with --seed (default: all)")
    p.add_argument("--embedding-cache-dir", help="embedding cache (default: the run's, else $BLM_EMBEDDING_CACHE)")
    p.add_argument("--seed", type=int, default=0, help="sampling and projection seed (default 0)")
    p.add_argument("--device", help="cpu, cuda, cuda:1 ... (default: cuda if available)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_latent)
