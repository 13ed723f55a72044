"""Shared helpers for the blm_models tests: a synthetic agreement BLM in the record schema and a tiny encoder.

The synthetic puzzles follow the Agr template (002 Fig. 3, 003 Fig. 5): subject number alternates every
sentence, the first attractor every two sentences, a second attractor appears in the second half; the
gold answer is the 8th step and the distractors corrupt one named rule each (duplicates dropped, so
answer sets vary in size). The encoder is a 2-layer BERT with hidden size 32 and random weights, with a
word-level tokenizer built offline.
"""

from __future__ import annotations

import random
from pathlib import Path

import datasets
import pytest
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

from blm_datasets.features import FEATURES

SUBJECTS = [("computer", "computers"), ("dog", "dogs"), ("student", "students"), ("car", "cars"),
            ("lamp", "lamps"), ("letter", "letters"), ("chair", "chairs"), ("song", "songs"),
            ("teacher", "teachers"), ("bottle", "bottles"), ("window", "windows"), ("garden", "gardens")]
ATTRACTORS_1 = [("program", "programs"), ("tree", "trees"), ("friend", "friends"), ("wheel", "wheels"),
                ("table", "tables"), ("stamp", "stamps"), ("leg", "legs"), ("singer", "singers")]
ATTRACTORS_2 = [("experiment", "experiments"), ("park", "parks"), ("school", "schools"), ("road", "roads"),
                ("room", "rooms"), ("office", "offices"), ("house", "houses"), ("concert", "concerts")]
PREPOSITIONS_1 = ["with", "near", "behind", "under"]
PREPOSITIONS_2 = ["of", "in", "from", "beside"]
VERBS = [("is broken", "are broken"), ("is barking", "are barking"), ("was old", "were old"),
         ("is new", "are new"), ("has fallen", "have fallen"), ("is ready", "are ready")]
SEQUENCE_LABELS = {"Coord", "WNA", "WN1", "WN2"}


def _render(seed: dict, subject: int, first: int, second: int | None, verb: int, coordinated: bool = False) -> str:
    """One sentence: subject NP, PP1 (and PP2 or a coordinated NP), verb phrase; numbers 0 = sg, 1 = pl."""
    words = ["The", seed["subject"][subject], seed["prep1"], "the", seed["attractor1"][first]]
    if second is not None:
        words += (["and"] if coordinated else [seed["prep2"]]) + ["the", seed["attractor2"][second]]
    return " ".join(words + [seed["verb"][verb]]) + " ."


def _pattern(subject: int, first: int, second: int | None, verb: int) -> str:
    number = "sg", "pl"
    parts = [f"NP-{number[subject]}", f"PP1-{number[first]}"]
    if second is not None:
        parts.append(f"PP2-{number[second]}")
    return " ".join(parts + [f"VP-{number[verb]}"])


def _instance(seed: dict, rng: random.Random, lemma: str, index: str) -> dict:
    """One puzzle: 7 context steps, the 8th as gold, distractors each breaking one rule."""
    s0, a0, a2 = rng.randint(0, 1), rng.randint(0, 1), rng.randint(0, 1)
    steps = [(s0 ^ (i % 2), a0 ^ ((i // 2) % 2), a2 if i >= 4 else None) for i in range(8)]
    context = [_render(seed, s, a, b, s) for s, a, b in steps[:7]]
    s, a, b = steps[7]
    candidates = [
        ("Correct", "CORRECT", (s, a, b, s, False)),
        ("Coord", "SEQUENCE", (s, a, b, s, True)),
        ("WNA", "SEQUENCE", (s, a, None, s, False)),
        ("WN1", "SEQUENCE", (s, 1 - a, b, s, False)),
        ("WN2", "SEQUENCE", (s, a, 1 - b, s, False)),
        ("AEV", "GRAMMAR", (s, a, b, 1 - s, False)),
        ("AEN1", "GRAMMAR", (s, 1 - s, b, 1 - s, False)),
        ("AEN2", "GRAMMAR", (s, a, 1 - s, 1 - s, False)),
    ]
    answers: dict[str, tuple[str, str, str]] = {}
    for label, error_class, (subject, first, second, verb, coordinated) in candidates:
        text = _render(seed, subject, first, second, verb, coordinated)
        if text not in answers and text not in context:
            answers[text] = (label, error_class, _pattern(subject, first, second, verb))
    texts = list(answers)
    rng.shuffle(texts)
    return {
        "id": index, "phenomenon": "agr", "language": "en", "lexical_type": "I", "template": "main", "lemma": lemma,
        "context": context,
        "context_patterns": [_pattern(s, a, b, s) for s, a, b in steps[:7]],
        "context_chunks": [[sentence] for sentence in context],
        "answers": texts,
        "answer_labels": [answers[t][0] for t in texts],
        "answer_error_classes": [answers[t][1] for t in texts],
        "answer_patterns": [answers[t][2] for t in texts],
        "label": [answers[t][0] for t in texts].index("Correct"),
    }


def _seeds(rng: random.Random, count: int) -> list[dict]:
    seeds = []
    for i in range(count):
        seeds.append({"name": f"seed{i}", "subject": rng.choice(SUBJECTS), "attractor1": rng.choice(ATTRACTORS_1),
                      "attractor2": rng.choice(ATTRACTORS_2), "prep1": rng.choice(PREPOSITIONS_1),
                      "prep2": rng.choice(PREPOSITIONS_2), "verb": rng.choice(VERBS)})
    return seeds


def make_agreement_dataset(n_train: int = 320, n_test: int = 120, seed: int = 0) -> datasets.DatasetDict:
    """A synthetic `agr`-like DatasetDict (train/test, test seeds unseen in train) in the toolkit's record schema."""
    rng = random.Random(seed)
    seeds = _seeds(rng, 40)
    train_seeds, test_seeds = seeds[:30], seeds[30:]
    splits = {}
    for split, count, pool in (("train", n_train, train_seeds), ("test", n_test, test_seeds)):
        rows = []
        for i in range(count):
            chosen = rng.choice(pool)
            rows.append(_instance(chosen, rng, chosen["name"], f"synthetic_agr_en_typeI-{split}-{i}"))
        splits[split] = datasets.Dataset.from_list(rows, features=FEATURES)
    return datasets.DatasetDict(splits)


def vocabulary() -> list[str]:
    """Every word the synthetic generator can produce, plus BERT's special tokens."""
    words = {"The", "the", "and", "."}
    for pairs in (SUBJECTS, ATTRACTORS_1, ATTRACTORS_2, VERBS):
        for pair in pairs:
            for form in pair:
                words.update(form.split())
    words.update(PREPOSITIONS_1 + PREPOSITIONS_2)
    return ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + sorted({w.lower() for w in words})


def build_tiny_encoder(directory: Path, hidden_size: int = 32, seed: int = 0) -> Path:
    """Save a 2-layer random BERT (hidden 32) and a word-level tokenizer for it into `directory`."""
    import torch

    vocab = {word: i for i, word in enumerate(vocabulary())}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    backend.normalizer = normalizers.Lowercase()
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])]
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="[PAD]", unk_token="[UNK]",
                                        cls_token="[CLS]", sep_token="[SEP]")
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=len(vocab), hidden_size=hidden_size, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=2 * hidden_size, max_position_embeddings=32)
    BertModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory) -> Path:
    """A saved tiny random BERT + tokenizer, loadable with AutoModel/AutoTokenizer.from_pretrained."""
    return build_tiny_encoder(tmp_path_factory.mktemp("tiny_encoder"))


@pytest.fixture(scope="session")
def agreement_dir(tmp_path_factory) -> Path:
    """The synthetic agreement DatasetDict saved with save_to_disk (what train.py --dataset_path reads)."""
    directory = tmp_path_factory.mktemp("agreement") / "data"
    make_agreement_dataset().save_to_disk(str(directory))
    return directory


@pytest.fixture(scope="session")
def small_agreement_dir(tmp_path_factory) -> Path:
    """A smaller synthetic agreement DatasetDict (80 train, 30 test) for runs that check behaviour, not learning."""
    directory = tmp_path_factory.mktemp("small_agreement") / "data"
    make_agreement_dataset(n_train=80, n_test=30).save_to_disk(str(directory))
    return directory


@pytest.fixture(scope="session")
def embedding_cache_dir(tmp_path_factory) -> Path:
    """One embedding cache shared by the session's runs, as real runs share one."""
    return tmp_path_factory.mktemp("embedding_cache")


@pytest.fixture(autouse=True, scope="module")
def single_torch_thread():
    """Tiny models gain nothing from intra-op threads and lose a lot when the CPU is shared: use one, for the
    module's fixtures (trained models, analyses) as well as its tests."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
