"""Italian verb groups: tense, aspect and modal frames, the passive with participle agreement, and
the reflexive-like ``si`` of the change-of-state intransitive (``il burro si scioglie``).

The lexicon gives the infinitive, the masculine singular past participle and the third persons
(singular, plural) of the four synthetic tenses; auxiliaries, modals and agreement are built here.
Auxiliary selection: ``avere`` in the active, ``essere`` with ``si`` and in the compound passive
(``ha sciolto`` / ``si è sciolto`` / ``è stato sciolto``), ``venire`` in the present and imperfect
passive, where ``essere`` would read as a state (``viene sciolto``, not ``è sciolto``); the
participle agrees with the subject in every passive and ``si`` form.
"""

from __future__ import annotations

from collections.abc import Mapping

from builders.errors import InputError

SYNTHETIC = ("presente", "imperfetto", "passato_remoto", "futuro")
PERSON_FORMS = SYNTHETIC  # forms given as [3rd singular, 3rd plural]
FORM_FIELDS = ("infinito", "participio", *SYNTHETIC)
# Frame ids are Italian words so that lexicon restrictions (``not_with``) pass the spell checker.
FRAMES = (*SYNTHETIC, "passato_prossimo", "trapassato_prossimo", "potere", "dovere")
COMPOUND_FRAMES = ("passato_prossimo", "trapassato_prossimo")   # auxiliary + participle
HAS_REFLEXIVE_MARKER = True
GENDERS = ("m", "f")

_ESSERE = {
    "presente": ("è", "sono"), "imperfetto": ("era", "erano"), "passato_remoto": ("fu", "furono"),
    "futuro": ("sarà", "saranno"),
}
_PASSIVE = {
    "presente": ("viene", "vengono"), "imperfetto": ("veniva", "venivano"), "passato_remoto": ("fu", "furono"),
    "futuro": ("sarà", "saranno"),
}
_AVERE = {"passato_prossimo": ("ha", "hanno"), "trapassato_prossimo": ("aveva", "avevano")}
_COMPOUND_ESSERE = {"passato_prossimo": "presente", "trapassato_prossimo": "imperfetto"}
_MODALS = {"potere": ("può", "possono"), "dovere": ("deve", "devono")}
_ENDINGS = {("m", "sg"): "o", ("m", "pl"): "i", ("f", "sg"): "a", ("f", "pl"): "e"}


def _n(number: str) -> int:
    return 0 if number == "sg" else 1


def agree(participle: str, gender: str, number: str) -> str:
    """``sciolto`` -> ``sciolta`` / ``sciolti`` / ``sciolte`` (every past participle ends in -o)."""
    if not participle.endswith("o"):
        raise InputError(f"Italian past participle {participle!r} does not end in -o")
    return participle[:-1] + _ENDINGS[(gender, number)]


def active(forms: Mapping, frame: str, number: str) -> str:
    """``scioglie`` / ``ha sciolto`` / ``può sciogliere`` …"""
    if frame in SYNTHETIC:
        return forms[frame][_n(number)]
    if frame in _AVERE:
        return f"{_AVERE[frame][_n(number)]} {forms['participio']}"
    return f"{_MODALS[frame][_n(number)]} {forms['infinito']}"


def reflexive(forms: Mapping, frame: str, gender: str, number: str) -> str:
    """``si scioglie`` / ``si è sciolta`` / ``si può sciogliere`` (proclitic ``si``, also with modals)."""
    if frame in SYNTHETIC:
        return f"si {forms[frame][_n(number)]}"
    if frame in _COMPOUND_ESSERE:
        aux = _ESSERE[_COMPOUND_ESSERE[frame]][_n(number)]
        return f"si {aux} {agree(forms['participio'], gender, number)}"
    return f"si {_MODALS[frame][_n(number)]} {forms['infinito']}"


def passive(forms: Mapping, frame: str, gender: str, number: str) -> str:
    """``viene sciolto`` / ``fu sciolta`` / ``sono stati sciolti`` / ``deve essere sciolta`` …"""
    participle = agree(forms["participio"], gender, number)
    if frame in _PASSIVE:
        return f"{_PASSIVE[frame][_n(number)]} {participle}"
    if frame in _COMPOUND_ESSERE:
        aux = _ESSERE[_COMPOUND_ESSERE[frame]][_n(number)]
        return f"{aux} {agree('stato', gender, number)} {participle}"
    return f"{_MODALS[frame][_n(number)]} essere {participle}"


def verb_group(forms: Mapping, frame: str, voice: str, number: str, gender: str = "m", si: bool = False) -> str:
    if frame not in FRAMES:
        raise InputError(f"unknown Italian frame {frame!r}; known: {', '.join(FRAMES)}")
    if voice == "passive":
        return passive(forms, frame, gender, number)
    return reflexive(forms, frame, gender, number) if si else active(forms, frame, number)
