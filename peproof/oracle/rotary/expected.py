"""What a rotary diagnosis may call *expected*: only what the user's expectation states.

A ``rope_parameters`` dict fills in what it does not say: the cache layout (no transformers key
names one) and, without ``rope_theta``, the base (transformers takes the model class's
``default_theta``: 10000 for most, 500000 or 1e6 for others).  A filled-in value is no
expectation, so a diagnosis never says "X where Y was expected" of it:

* :func:`stated_aspects` -- which aspects of the expected :class:`~peproof.rope.Rope` the user
  stated (a ``Rope`` states all; a dict its keys, ``layout`` included, and the ``layout=``
  argument / ``--rope-layout``);
* :func:`adopt_unstated` -- the expectation with each unstated aspect taken from the artefact
  (the layout it shows, the base it was identified with), each adoption named in a note, so
  that the comparisons and the verdict rest on the stated aspects alone;
* :func:`allowed` -- whether an expected parameter value is one the artefact does not rule
  out: inside an interval the identification itself printed for it, or fitting the artefact
  when put into the identified RoPE (:mod:`.diagnose` names only the parameters it rules out).
"""

from __future__ import annotations

from dataclasses import replace

from peproof.rope import Rope

#: the aspects of an expected RoPE a diagnosis can name
ASPECTS = ("layout", "base", "scaling", "exponent_dim", "rotated_pairs", "attention")


def stated_aspects(expect, layout=None) -> frozenset:
    """The aspects of ``expect`` (a :class:`Rope`, a ``rope_parameters`` dict or a rope_type
    name) the user stated; ``layout``: the layout asked for separately (``--rope-layout``)."""
    if expect is None:
        return frozenset()
    if isinstance(expect, Rope):
        return frozenset(ASPECTS)
    out = set(ASPECTS) - {"layout", "base"}
    if layout:
        out.add("layout")
    if isinstance(expect, dict):
        from .config import is_keras_hub

        if expect.get("layout"):
            out.add("layout")
        key = "max_wavelength" if is_keras_hub(expect) else "rope_theta"
        if expect.get(key) is not None:
            out.add("base")
    return frozenset(out)


def adopt_unstated(want: Rope | None, stated, ident: Rope | None, layout: str | None,
                   notes: list) -> Rope | None:
    """``want`` with its unstated layout set to ``layout`` (what the artefact shows, or the
    layout its library applies it with; None: nothing shown) and its unstated base to the
    identified RoPE's; a note names each adoption that changes ``want``."""
    if want is None:
        return None
    if "layout" not in stated and layout and layout != want.layout:
        want = replace(want, layout=layout)
    if "base" not in stated and ident is not None and ident._base != want._base:
        notes.append(f"no rope_theta given: the base {ident._base} the artefact was identified "
                     f"with is taken (transformers uses the model class's default_theta, "
                     "10000 for most models but not all)")
        want = replace(want, base=ident.base)
    return want


def unstated_text(aspect: str, shown) -> str:
    """A difference in an aspect the user did not state: what the artefact shows, no
    expectation invented."""
    return f"the artefact's {aspect} is {shown} (the expectation does not state one)"


def allowed(name: str, value, intervals: dict, fits=None) -> bool:
    """Whether the expected ``value`` of parameter ``name`` is not ruled out by the artefact:
    it lies in the interval the identification derived for it (``intervals[name]``), or
    ``fits()`` (the identified RoPE with that value put in fits the artefact)."""
    iv = intervals.get(name) if intervals else None
    try:
        if iv is not None and iv[0] <= float(value) <= iv[1]:
            return True
    except (TypeError, ValueError):
        pass
    return bool(fits is not None and fits())
