"""What a rotary diagnosis may call *expected*: only what the user's expectation states.

A ``rope_parameters`` dict fills in what it does not say: the cache layout (no transformers key
names one) and, without ``rope_theta``, the base.  Neither is an expectation of the user's:

* :func:`stated_aspects` -- which aspects of the expected :class:`~peproof.rope.Rope` the user
  stated (a ``Rope`` states all; a dict its keys, ``layout`` included, and the ``layout=``
  argument / ``--rope-layout``);
* :func:`adopt_unstated` -- the expectation with an unstated layout taken from the artefact (the
  layout it shows, or the one its library applies it with), so that the comparisons and the
  verdict rest on the stated aspects;
* an unstated base stays transformers' ``default_theta`` 10000 (GPT-J's and CodeGen's code fix
  it so; a model class may set another, Qwen3-VL 500000): a diagnosis says it was *assumed*
  (:func:`unstated_text`), never expected;
* :func:`allowed` -- whether an expected parameter value is one the artefact does not rule
  out: inside an interval the identification itself derived for it, or fitting the artefact
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


def adopt_unstated(want: Rope | None, stated, layout: str | None) -> Rope | None:
    """``want`` with its layout, when unstated, set to ``layout`` (what the artefact shows, or
    the layout its library applies it with; None: nothing shown)."""
    if want is not None and "layout" not in stated and layout and layout != want.layout:
        want = replace(want, layout=layout)
    return want


def unstated_text(aspect: str, shown, assumed) -> str:
    """A difference in an aspect the user did not state: what the artefact shows, and the
    value assumed for it (None: nothing assumed), no expectation invented."""
    if aspect == "base" and assumed is not None:
        return (f"base {shown} where {assumed} was assumed (no rope_theta given: transformers' "
                "default_theta, which some model classes change; give rope_theta to check it)")
    return f"{aspect} {shown} (the expectation does not state one)"


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
