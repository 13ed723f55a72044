"""blm augment: slot paths, proposers (a tiny fill-mask BERT, a tiny causal LM, lists), every filter
on words with known answers, the reviewable patch and its merge into a lexicon the checker accepts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from blm_augment import inflect, proposers, yaml_edit
from blm_augment.adapters import Candidate, adapter_for
from blm_augment.errors import AugmentError
from blm_augment.filters import Band, run_filters, zipf
from blm_augment.patch import apply
from blm_augment.run import Request, augment
from blm_cli.main import main

FIXTURES = Path(__file__).parent / "fixtures" / "augment"
MELT = "verbs.melt.patients"
# the tiny BERT's output bias: these win every masked slot, in this order
FAVOURITES = {"brie": 12.0, "sorbet": 11.0, "snow": 10.0, "butter": 9.0, "chef": 8.5, "xqzzy": 8.0}
needs_hunspell = pytest.mark.skipif(shutil.which("hunspell") is None and not os.environ.get("CI"),
                                    reason="hunspell not installed (CI installs it)")


@pytest.fixture()
def lexicon(tmp_path) -> Path:
    """A copy of the COS+ English lexicon as it was before augmentation (melt: 21 patients)."""
    folder = tmp_path / "lexicons"
    folder.mkdir()
    shutil.copy(FIXTURES / "cosplus" / "en.yaml", folder / "en.yaml")
    return folder / "en.yaml"


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    """A random 1-layer BertForMaskedLM and a WordPiece tokenizer over tests/fixtures/augment/vocab.txt,
    whose output bias makes FAVOURITES the top predictions in any context."""
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-bert")
    words = (FIXTURES / "vocab.txt").read_text(encoding="utf-8").split()
    tokenizer = BertTokenizerFast(vocab={w: i for i, w in enumerate(words)}, do_lower_case=True)
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1,
                                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=64))
    with torch.no_grad():
        for word, bias in FAVOURITES.items():
            model.cls.predictions.bias[words.index(word)] = bias
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _patch(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------ slot paths
def test_slot_path_selects_list_items_by_lemma_and_lists_what_exists(lexicon):
    text = lexicon.read_text(encoding="utf-8")
    root = yaml_edit.compose(text, str(lexicon))
    node = yaml_edit.find(root, MELT, str(lexicon))
    assert [n.value for n in node.value][:3] == ["butter", "chocolate", "cheese"]
    with pytest.raises(AugmentError, match=r"no 'melty' under verbs .*there: melt, thaw"):
        yaml_edit.find(root, "verbs.melty.patients", str(lexicon))
    with pytest.raises(AugmentError, match="COS\\+ slots are agents, or verbs.<lemma>.patients"):
        adapter_for(lexicon, "verbs.melt", "cosplus")


def test_append_adds_only_the_new_items_and_keeps_comments_and_layout():
    text = ("# comment kept\nlanguage: en\nflow: [a, b,\n  c]  # tail\nblock:\n  - {sg: x, gender: m}\n"
            "  - {sg: y, gender: f}\nafter: 1\n")
    root = yaml_edit.compose(text, "t.yaml")
    out = yaml_edit.append(text, yaml_edit.find(root, "flow", "t.yaml"), ["d", "e"], "t.yaml")
    root = yaml_edit.compose(out, "t.yaml")
    out = yaml_edit.append(out, yaml_edit.find(root, "block", "t.yaml"),
                           [yaml_edit.render({"sg": "l'olio", "gender": "m"})], "t.yaml")
    assert out == ("# comment kept\nlanguage: en\nflow: [a, b,\n  c, d, e]  # tail\nblock:\n  - {sg: x, gender: m}\n"
                   "  - {sg: y, gender: f}\n  - {sg: l'olio, gender: m}\nafter: 1\n")
    assert yaml.safe_load(out)["block"][-1] == {"sg": "l'olio", "gender": "m"}


# ------------------------------------------------------------------------------------------ mlm
@needs_hunspell
def test_mlm_proposes_the_models_top_words_and_each_filter_removes_what_it_should(lexicon, tiny_bert, tmp_path):
    out = tmp_path / "melt.patch.yaml"
    report = augment(Request(lexicon, MELT, 3, out, "mlm", str(tiny_bert), top_k=100, contexts=6, phenomenon="cosplus"))
    patch = _patch(out)
    assert [p["word"] for p in patch["proposals"]] == ["brie", "sorbet", "snow"]  # the bias order
    why = {r["word"]: r["filter"] for r in patch["rejected"]}
    assert why["butter"] == why["cheese"] == "novelty"          # already melt's patients
    assert why["chef"] == why["cook"] == "novelty"              # agents of this lexicon
    assert why["xqzzy"] == why["gouda"] == "spelling"           # not in Hunspell en_US
    assert why["the"] == why["who"] == "morphology"             # function words
    assert why["melts"] == why["melted"] == "stems"             # the verb's own stem
    assert "##s" not in why and "[MASK]" not in why             # word pieces and special tokens
    counts = report["counts"]
    assert counts["proposed"] == sum(counts[f] for f in ("novelty", "morphology", "spelling", "frequency",
                                                         "stems", "validator")) + counts["passed"]
    first = patch["proposals"][0]
    assert first["accept"] is None and first["contexts"] == 6 and 0 < first["score"] <= 1
    assert first["examples"][-1] == "The brie melts." and len(first["examples"]) == 5
    assert all("[MASK]" not in c for c in patch["contexts"]) and len(patch["contexts"]) == 6


def test_a_hub_name_offline_is_a_one_line_error(lexicon, tmp_path, capsys):
    code = main(["augment", str(lexicon), "--slot", MELT, "--method", "mlm", "--model",
                 "no-such-org/no-such-bert", "--phenomenon", "cosplus", "--out", str(tmp_path / "p.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "cannot load the fill-mask model 'no-such-org/no-such-bert'" in err and "HF_HUB_OFFLINE=1" in err
    assert not (tmp_path / "p.yaml").exists()


# ------------------------------------------------------------------------------------------ lm
def test_lists_are_parsed_with_bullets_numbers_glosses_and_articles():
    text = "1. der Käse\n2) die Butter - a dairy product\n* das Eis (ice)\nSahne, Quark\n# note\n"
    assert proposers.parse_list(text, "de") == [("Käse", {"gender": "m"}), ("Butter", {"gender": "f"}),
                                                ("Eis", {"gender": "n"}), ("Sahne", {}), ("Quark", {})]
    assert proposers.parse_list("l'olio\nil burro\nla panna", "it") == [
        ("olio", {}), ("burro", {"gender": "m"}), ("panna", {"gender": "f"})]


def test_lm_method_runs_a_causal_lm_and_accounts_for_every_word(lexicon, tmp_path):
    """A random 2-layer Llama writes noise: every word it makes is proposed and either filtered or kept."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    corpus = ["butter chocolate cheese melts the chef sorbet brie snow"] * 20
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=300, special_tokens=["<s>", "</s>", "<pad>"],
                                                        show_progress=False,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    torch.manual_seed(0)
    LlamaForCausalLM(LlamaConfig(vocab_size=len(fast), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                 num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048,
                                 bos_token_id=0, eos_token_id=1, pad_token_id=2)).save_pretrained(tmp_path / "lm")
    fast.save_pretrained(tmp_path / "lm")
    out = tmp_path / "p.yaml"
    report = augment(Request(lexicon, MELT, 5, out, "lm", str(tmp_path / "lm"), rounds=2, contexts=4, phenomenon="cosplus"),
                     spell=lambda words: set())
    counts, patch = report["counts"], _patch(out)
    assert patch["model"] == str(tmp_path / "lm") and patch["method"] == "lm"
    assert counts["proposed"] == len(patch["rejected"]) + len(patch["proposals"])
    assert all(0 < p["score"] <= 1 for p in patch["proposals"])


# ------------------------------------------------------------------------------------------ filters
def test_frequency_band_is_the_seed_range_widened_by_the_margin():
    band = Band.of(["butter", "cheese"], "en", 0.5)
    lo, hi = sorted([zipf("butter", "en"), zipf("cheese", "en")])
    assert (band.low, band.high) == (round(lo - 0.5, 2), round(hi + 0.5, 2))
    assert band.holds(lo) and band.holds(hi + 0.5) and not band.holds(hi + 0.51) and not band.holds(0.0)


@needs_hunspell
def test_list_words_outside_the_band_or_sharing_the_verbs_stem_are_filtered(lexicon, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("brie\nthe\nmelted cheese\nwater\nsnow\nfondue\nchef\nand cocoa butter\nPunchy\n",
                     encoding="utf-8")
    out = tmp_path / "p.yaml"
    augment(Request(lexicon, MELT, 10, out, "list", candidates=words, zipf_margin=0.0, phenomenon="cosplus"))
    patch = _patch(out)
    band = patch["frequency"]["band"]
    why = {r["word"]: (r["filter"], r["why"]) for r in patch["rejected"]}
    assert why["melted cheese"][0] == "stems" and "'melt'" in why["melted cheese"][1]
    assert why["water"][0] == "frequency"  # Zipf 5.5+, above melt's most frequent patient
    assert zipf("water", "en") > band[1]
    assert why["chef"][0] == "novelty" and why["the"][0] == "morphology"
    assert why["and cocoa butter"][0] == why["Punchy"][0] == "morphology"  # SmolLM2's debris
    assert {p["word"] for p in patch["proposals"]} == {"brie", "snow", "fondue"} - set(why)


def test_gender_comes_from_the_article_the_compound_head_or_a_decisive_suffix():
    assert inflect.split_article("der Käse", "de") == ("Käse", "m")
    assert inflect.split_article("l'olio", "it") == ("olio", None)
    assert inflect.guess_gender("Ziegenkäse", "de", {"Käse": "m", "Eis": "n"}) == ("m", "head of the compound (Käse)")
    assert inflect.guess_gender("Zubereitung", "de", {})[0] == "f"
    assert inflect.guess_gender("Milch", "de", {}) == (None, "no decisive suffix")
    assert inflect.guess_gender("mozzarella", "it", {})[0] == "f"
    assert inflect.guess_gender("latte", "it", {})[0] is None         # -e: either gender
    assert inflect.guess_gender("barista", "it", {})[0] is None
    assert inflect.weak_accusative("Junge", "m", "agent") == "Jungen"
    assert inflect.weak_accusative("Praktikant", "m", "agent") == "Praktikanten"
    assert inflect.weak_accusative("Käse", "m", "patient") is None
    assert [inflect.plural(w, "en") for w in ("berry", "peach", "ice cream")] == ["berries", "peaches", "ice creams"]
    assert [inflect.plural(w, "en") for w in ("chairman", "human", "analysis", "bus")] == [
        "chairmen", "humans", "analyses", "buses"]
    assert [inflect.plural(w, "fr") for w in ("pot-de-vin", "chef-d'œuvre", "bal", "cheval", "mi-temps")] == [
        "pots-de-vin", "chefs-d'œuvre", "bals", "chevaux", "mi-temps"]
    assert [inflect.plural(w, "it", g) for w, g in [("amica", "f"), ("cuoco", "m"), ("città", "f")]] == [
        "amiche", None, "città"]  # -co: amici but cuochi, not a rule


def test_italian_and_german_entries_carry_gender_article_and_weak_forms():
    it = adapter_for(Path("builders/cosplus/lexicons/it.yaml"), "agents")
    entry, note = it.make_entry(Candidate("hamburger", 1.0, {"gender": "m"}))
    assert entry == {"sg": "hamburger", "gender": "m", "article": {"sg": "l'"}} and "silent h" in note
    assert it.make_entry(Candidate("pasticcera", 1.0))[0] == {"sg": "pasticcera", "gender": "f"}
    assert it.make_entry(Candidate("custode", 1.0))[0] is None  # -e without an article: unknown
    de = adapter_for(Path("builders/cosplus/lexicons/de.yaml"), "agents")
    assert de.make_entry(Candidate("Lehrling", 1.0))[0] == {"sg": "Lehrling", "gender": "m"}
    assert de.make_entry(Candidate("Kollege", 1.0, {"gender": "m"}))[0] == {
        "sg": "Kollege", "gender": "m", "acc_sg": "Kollegen"}


# ------------------------------------------------------------------------------------------ the patch
@needs_hunspell
def test_a_reviewed_patch_merges_into_a_lexicon_the_checker_accepts(lexicon, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("brie\nsnow\nsorbet\n", encoding="utf-8")
    out = tmp_path / "p.yaml"
    before = lexicon.read_text(encoding="utf-8")
    assert main(["augment", str(lexicon), "--slot", MELT, "--method", "list", "--candidates", str(words),
                 "--phenomenon", "cosplus", "--out", str(out)]) == 0
    with pytest.raises(AugmentError, match=r"p.yaml:\d+: proposal 'brie' is not reviewed"):
        apply(out, lexicon)
    text = out.read_text(encoding="utf-8")
    for word, verdict in (("brie", "true"), ("snow", "false"), ("sorbet", "true")):
        text = text.replace(f"- word: {word}\n  accept: null", f"- word: {word}\n  accept: {verdict}")
    out.write_text(text, encoding="utf-8")
    assert apply(out, lexicon) == {"accepted": 2, "added": 2, "already_present": 0, "declined": 1}
    after = lexicon.read_text(encoding="utf-8")
    data = yaml.safe_load(after)
    melt = next(v for v in data["verbs"] if v["lemma"] == "melt")
    assert melt["patients"][-2:] == ["brie", "sorbet"] and "snow" not in melt["patients"]
    assert {"brie", "sorbet"} <= set(data["patients"])
    removed = [line for line in before.splitlines() if line not in after.splitlines()]
    assert all(line.rstrip("]") in after for line in removed)  # lines only grew at their end
    # the cosplus checker accepts the merged file
    from builders.cosplus import lexicon as cosplus_lexicon
    from builders.lexicon import load_yaml
    parsed = cosplus_lexicon.parse(load_yaml(lexicon), lexicon)
    assert "brie" in parsed.verbs["melt"].patients
    with pytest.raises(AugmentError, match="changed since"):
        apply(out, lexicon)
    assert apply(out, lexicon, force=True)["added"] == 0  # nothing twice
    assert lexicon.read_text(encoding="utf-8") == after


def test_an_existing_patch_is_not_overwritten_without_force(lexicon, tmp_path, capsys):
    out = tmp_path / "p.yaml"
    out.write_text("keep\n", encoding="utf-8")
    code = main(["augment", str(lexicon), "--slot", MELT, "--method", "list", "--candidates", str(out),
                 "--phenomenon", "cosplus", "--out", str(out)])
    assert code == 2 and "already exists; pass --force" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "keep\n"


# ------------------------------------------------------------------------------------------ agr
@needs_hunspell
def test_agreement_alternatives_get_a_plural_and_pass_the_validator(tmp_path):
    folder = tmp_path / "lexicons"
    folder.mkdir()
    shutil.copy(FIXTURES / "agr" / "en.yaml", folder / "en.yaml")
    lexicon = folder / "en.yaml"
    seed = yaml.safe_load(lexicon.read_text(encoding="utf-8"))["seeds"][0]
    words = tmp_path / "words.txt"
    words.write_text(f"receipt\n{seed['alternatives']['subject'][0]}\n{seed['subject']}\n", encoding="utf-8")
    out = tmp_path / "p.yaml"
    augment(Request(lexicon, f"seeds.{seed['id']}.alternatives.subject", 5, out, "list", candidates=words,
                    phenomenon="agr", zipf_margin=-1))
    patch = _patch(out)
    assert [p["entry"] for p in patch["proposals"]] == [{"receipt": {"sg": "receipt", "pl": "receipts"}}]
    assert len(patch["proposals"][0]["examples"]) == 4
    assert all("receipt" in s for s in patch["proposals"][0]["examples"])
    assert {r["filter"] for r in patch["rejected"]} == {"novelty"}


def test_french_agreement_entries_mark_the_aspirated_h_and_flag_other_h_words():
    fr = adapter_for(Path("builders/agr/lexicons/fr.yaml"), "seeds.letter.alternatives.attractor1")
    entry, note = fr.make_entry(Candidate("héros", 1.0, {"gender": "m"}))
    assert entry == {"héros": {"gender": "m", "sg": "héros", "pl": "héros", "elide": False}} and "aspirated" in note
    entry, note = fr.make_entry(Candidate("horloger", 1.0, {"gender": "m"}))
    assert "elide" not in entry["horloger"] and "CHECK the h" in note  # l'horloger: mute h, but a reviewer looks


def test_romanian_candidates_are_frequency_scored_on_their_lemma_not_the_definite_form():
    ro = adapter_for(Path("builders/agr/lexicons/ro.yaml"), "seeds.letter.alternatives.attractor1")
    entry = {"pompier": {"gender": "m", "sg": "pompierul", "pl": "pompierii", "gen_sg": "pompierului",
                         "gen_pl": "pompierilor", "bare_sg": "pompier", "bare_pl": "pompieri"}}
    assert ro.frequency_form(entry) == "pompier" and zipf("pompier", "ro") > 3 > zipf("pompierul", "ro")


def test_spanish_plurals_and_genders_agree_with_the_reviewed_lexicon():
    """On the 643 hand-written Spanish nouns the rules never give a wrong form: they give the
    plural or None (examen/exámenes), the gender or None (el/la atleta: the article decides)."""
    nouns = yaml.safe_load((Path(__file__).parents[1] / "builders/agr/lexicons/es.yaml").read_text(encoding="utf-8"))["nouns"]
    plurals = {k: inflect.plural(k, "es", v["gender"]) for k, v in nouns.items()}
    genders = {k: inflect.guess_gender(k, "es", {})[0] for k in nouns}
    assert all(plurals[k] in (None, v["pl"]) for k, v in nouns.items())
    assert all(genders[k] in (None, v["gender"]) for k, v in nouns.items())
    assert sum(p is not None for p in plurals.values()) > 600 and sum(g is not None for g in genders.values()) > 400
    assert [inflect.plural(w, "es") for w in ("camión", "actriz", "joven", "lunes")] == ["camiones", "actrices", None, None]
    assert inflect.split_article("la pianista", "es") == ("pianista", "f")
    es = adapter_for(Path("builders/agr/lexicons/es.yaml"), "seeds.letter.alternatives.subject")
    assert es.make_entry(Candidate("camión", 1.0, {"gender": "m"}))[0] == \
        {"camión": {"gender": "m", "sg": "camión", "pl": "camiones"}}
