"""The report's figures, drawn with matplotlib from the run's data only, as vector PDF.

Conventions shared by every figure: one colour per ``d`` (:func:`colour`, the same ``d`` has the
same colour in every figure), squared or unsquared distances said on the axis, reference lines
labelled where they are drawn.  Reproducible output: fixed metadata (no creation date), fixed
fonts and sizes, data in a deterministic order; the same data give byte-identical files.
"""

from __future__ import annotations

import math
from pathlib import Path

WIDTH = 6.3  # inches, the text width of the document
VERDICT_COLOUR = {"proved": "#2b7a3d", "refuted": "#b3261e", "unknown": "#8a6d00"}
#: one colour per d (the CLI's dimensions in order); other d get the grey below
_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#17becf", "#bcbd22", "#7f7f7f")
_RECIPE_STYLE = ("-", "--", "-.", ":")


def colour(d: int) -> str:
    """The colour of dimension ``d`` in every figure."""
    from peproof.numeric import D_ALL

    return _PALETTE[D_ALL.index(d)] if d in D_ALL else "#444444"


def _mpl():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams.update({
        "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "legend.fontsize": 7,
        "xtick.labelsize": 7, "ytick.labelsize": 7, "font.family": "DejaVu Sans",
        "mathtext.fontset": "cm", "pdf.compression": 6, "svg.hashsalt": "peproof",
        "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.4, "lines.linewidth": 0.9,
        "path.simplify": False,
    })
    return plt


def _save(fig, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.pdf")
    fig.savefig(tmp, format="pdf", metadata={"CreationDate": None, "ModDate": None,
                                             "Creator": "peproof report"},
                bbox_inches="tight", pad_inches=0.02)
    tmp.replace(path)
    import matplotlib.pyplot as plt

    plt.close(fig)


def _thousands(n: int) -> str:
    return f"{n:,}"


def distance(data: dict, adjacent: dict[int, float], path: Path) -> None:
    """``D(k)`` against ``k``: a close-up and the whole range, with ``D(1)`` (dotted) and the
    mean value ``d`` (dashed) of each ``d`` as reference lines."""
    plt = _mpl()
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 2.3))
    for c in data["curves"]:
        col = colour(c["d"])
        close, full = c["panels"][0], c["panels"][-1]
        axes[0].plot(close["k"], close["lo"], color=col, label=f"d = {c['d']}")
        axes[1].fill_between(full["k"], full["lo"], full["hi"], color=col, alpha=0.3,
                             linewidth=0)
        axes[1].plot(full["k"], full["lo"], color=col, linewidth=0.5)
        for ax in axes:
            ax.axhline(c["d"], color=col, linewidth=0.6, linestyle="--")
            if c["d"] in adjacent:
                ax.axhline(adjacent[c["d"]], color=col, linewidth=0.6, linestyle=":")
    for ax, kmax in zip(axes, data["ks"], strict=False):
        ax.set_yscale("log")
        ax.set_xlabel("offset $k$")
        ax.set_xlim(0, kmax)
    axes[0].set_ylabel(r"squared distance $D(k) = \|PE(a) - PE(a+k)\|^2$")
    axes[0].set_title(f"close up, $k \\leq {data['ks'][0]}$")
    axes[1].set_title(f"every offset up to {_thousands(data['ks'][-1])} "
                      "(band: min and max per bin)")
    axes[0].legend(loc="lower right", ncol=2)
    fig.tight_layout()
    _save(fig, path)


def separation_vs_n(data: dict, path: Path) -> None:
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTH, 2.1))
    for c in data["curves"]:
        col = colour(c["d"])
        f = c["float64"]
        ax.plot(f["n"], f["min_dist"], linewidth=0.7, color=col, label=f"d = {c['d']}")
        pts = c["certified"]
        ax.plot([p["n"] for p in pts], [p["lo"] for p in pts], linestyle="none", marker="o",
                markersize=2.6, color=col)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of positions $N$ (positions $0, \\dots, N-1$)")
    ax.set_ylabel("distance (not squared)\n" + r"$\min_{a<b<N} \|PE(a)-PE(b)\|$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.18), ncol=len(data["curves"]),
              frameon=False)
    fig.tight_layout()
    _save(fig, path)


def wrap_and_span(rows: list[dict], n_turn: int, marked: list[int], path: Path) -> None:
    """Left: ``2 pi / omega_min`` against ``d`` with the sources' ``2 pi 10^4`` (``n_turn``)
    marked; right: the span ``4(d-2)/d`` in decades, with the sources' ``d/2`` and ``4``."""
    plt = _mpl()
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 2.2))
    ds = [r["d"] for r in rows]
    wraps = [r["wrap_mid"] for r in rows]
    spans = [r["span_value"] for r in rows]
    ax = axes[0]
    ax.plot(ds, wraps, color="black", linewidth=0.8)
    ax.axhline(n_turn, color="#b3261e", linewidth=0.7, linestyle="--")
    ax.text(ds[-1], n_turn / 1.6, f"the sources' {_thousands(n_turn)}", ha="right", va="top",
            fontsize=6.5, color="#b3261e")
    for r in rows:
        if r["d"] in marked:
            ax.plot([r["d"]], [r["wrap_mid"]], marker="o", markersize=3.2, color=colour(r["d"]))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("dimension $d$")
    ax.set_ylabel(r"first turn of the slowest pair, $2\pi/\omega_{\min}$")
    ax = axes[1]
    ax.plot(ds, spans, color="black", linewidth=0.8, label=r"exact: $4(d-2)/d$")
    ax.plot(ds, [d / 2 for d in ds], color="#b3261e", linewidth=0.7, linestyle="--",
            label="the sources: $d/2$")
    ax.axhline(4, color="#8a6d00", linewidth=0.7, linestyle=":", label="the sources: $4$")
    for r in rows:
        if r["d"] in marked:
            ax.plot([r["d"]], [r["span_value"]], marker="o", markersize=3.2, color=colour(r["d"]))
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 6)
    ax.set_xlabel("dimension $d$")
    ax.set_ylabel(r"span of the frequencies, decades: $\log_{10}(\omega_0/\omega_{\min})$")
    ax.legend(loc="lower right")
    fig.tight_layout()
    _save(fig, path)


def recipe_error(data: dict, half: dict[str, list[float]], path: Path) -> None:
    plt = _mpl()
    panels = data["panels"]
    fig, axes = plt.subplots(1, len(panels), figsize=(WIDTH, 2.1), sharey=True)
    if len(panels) == 1:
        axes = [axes]
    for ax, panel in zip(axes, panels, strict=True):
        for n, c in enumerate(panel["curves"]):
            ys = [math.nan if v is None else v for v in c["max_error"]]
            ax.plot(c["p"], ys, linewidth=0.6, color=colour(panel["d"]),
                    linestyle=_RECIPE_STYLE[n % len(_RECIPE_STYLE)], label=c["recipe"])
        h = half.get(panel["dtype"])
        if h:
            ax.axhline(h[0], color="black", linewidth=0.6, linestyle="--")
            ax.text(panel["curves"][0]["p"][-1], h[0] * 1.2, r"$\delta/2$", ha="right",
                    va="bottom", fontsize=6.5)
        ax.set_yscale("log")
        ax.set_xlabel("position $p$")
        ax.set_title(f"{panel['dtype']}, d = {panel['d']}")
    axes[0].set_ylabel("error, not squared:\n" + r"$\max\ \|PE_{\mathrm{recipe}}(p) - PE(p)\|$")
    axes[-1].legend(loc="lower right")
    fig.tight_layout()
    _save(fig, path)


#: a family's dependency graph is printed at its natural size (the report includes it
#: unscaled): labels of GRAPH_FONT points, one row of a layer every GRAPH_PITCH inches
GRAPH_FONT = 7
GRAPH_PITCH = 0.15


def dependency_graph(view: dict, number: dict[str, str], status: dict[str, str], path: Path,
                     labels: str = "number", width: float = WIDTH) -> None:
    """A layered drawing of ``view`` (from :mod:`.graph`): a claim (right) joined to the claims it
    uses (left), coloured by verdict; claims of other families in grey.  ``labels``:
    ``number`` (``3.4``, for a family's figure) or ``full`` (number and id, for the whole
    graph on one page)."""
    _save(graph_figure(view, number, status, labels, width), path)


#: a family graph's columns: at least GRAPH_COLUMN inches apart (a label and its edges)
GRAPH_COLUMN = 0.8
#: a layer of more claims than this is wrapped into several columns (when the width allows)
GRAPH_MAX_ROWS = 20


def wrap_rows(counts: list[int], columns: int) -> int:
    """The rows of a family graph whose layers hold ``counts`` claims: the tallest layer's,
    unless that is more than ``GRAPH_MAX_ROWS``; then the fewest rows (from that bound up)
    with which the layers, each wrapped into columns of that many rows, take at most
    ``columns`` columns."""
    tallest = max(counts)
    for r in range(min(GRAPH_MAX_ROWS, tallest), tallest + 1):
        if sum(-(-n // r) for n in counts) <= columns:
            return r
    return tallest


def graph_height(view: dict, width: float = WIDTH) -> float:
    """The height in inches of a family's graph (:func:`graph_figure`)."""
    lay = view["layout"]
    layers = max(k for k, _, _ in lay.values()) + 1
    counts = [max((n for k2, _, n in lay.values() if k2 == k), default=1)
              for k in range(layers)]
    return GRAPH_PITCH * wrap_rows(counts, max(layers, int(width // GRAPH_COLUMN))) + 0.45


def graph_figure(view: dict, number: dict[str, str], status: dict[str, str],
                 labels: str = "number", width: float = WIDTH, links: dict | None = None):
    """The figure of :func:`dependency_graph` (not saved).  In a family's graph a layer taller
    than the page's width allows is wrapped into several columns (``wrap_rows``), and the
    figure is as tall as its rows need for labels of ``GRAPH_FONT`` points ``GRAPH_PITCH``
    inches apart, so it is legible at print size however many claims a layer holds.  Labels
    sit on a white ground: an edge passing behind one does not cross it out.  ``links``
    (node -> URL) makes each node's label a link (in SVG output)."""
    links = links or {}
    plt = _mpl()
    lay = view["layout"]
    layers = max(k for k, _, _ in lay.values()) + 1
    counts = [max((n for k2, _, n in lay.values() if k2 == k), default=1)
              for k in range(layers)]
    full = labels == "full"
    rows = max(counts) if full else wrap_rows(counts, max(layers, int(width // GRAPH_COLUMN)))
    # column of each layer's first block of rows, and of each claim
    first = [0]
    for n in counts[:-1]:
        first.append(first[-1] + (1 if full else -(-n // rows)))
    ncols = first[-1] + (1 if full else -(-counts[-1] // rows))
    if full:
        fig, ax = plt.subplots(figsize=(width, width * 0.68))
    else:
        fig, ax = plt.subplots(figsize=(width, graph_height(view, width)))

    def xy(a):
        k, i, n = lay[a]
        # a wrapped layer is staggered: claim i (in the layer's order) in column i mod c, row
        # i div c, so the order from top to bottom is kept and edges stay short
        c = -(-n // rows)
        col, i, n = first[k] + i % c, i // c, -(-n // c)
        return col, (rows - 1) / 2 if n == 1 else (rows - 1) * (1 - i / (n - 1))

    # an edge leaves a claim after its label (numbers are short; ids in the whole graph long)
    gap = 0.06 if full else 0.03 + 0.035 * max((len(number.get(a, a)) for a in view["nodes"]),
                                               default=3)
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path as MPath

    for u, a in view["edges"]:
        (x0, y0), (x1, y1) = xy(u), xy(a)
        if full or x1 - x0 <= 1:
            ax.plot([x0 + gap, x1 - 0.03], [y0, y1], color="#9a9a9a",
                    linewidth=0.25 if full else 0.5, zorder=1)
            continue
        # an edge skipping a column bows half a row (towards the middle) so that it passes
        # between the labels of the columns it crosses, not along one of them
        bend = 1.0 if (y0 + y1) / 2 < (rows - 1) / 2 else -1.0
        ctrl = ((x0 + gap + x1) / 2, (y0 + y1) / 2 + bend)
        ax.add_patch(PathPatch(MPath([(x0 + gap, y0), ctrl, (x1 - 0.03, y1)],
                                     [MPath.MOVETO, MPath.CURVE3, MPath.CURVE3]),
                               fill=False, edgecolor="#9a9a9a", linewidth=0.5, zorder=1))
    outside = set(view["outside"])
    for a in view["nodes"]:
        x, y = xy(a)
        col = "#888888" if a in outside else VERDICT_COLOUR.get(status.get(a, ""), "black")
        ax.plot([x], [y], marker="o", markersize=2.2 if full else 3.5, color=col, zorder=2)
        text = f"{number.get(a, '')} {a}" if full or a not in number else number[a]
        ax.text(x + 0.06, y, text, fontsize=3.6 if full else GRAPH_FONT, va="center",
                ha="left", color=col, zorder=3, url=links.get(a),
                bbox=None if full else {"facecolor": "white", "edgecolor": "none",
                                        "pad": 0.3})
    ax.set_xlim(-0.15, ncols - 1 + (1.0 if full else 0.45))
    ax.set_ylim(-0.6, rows - 0.4)
    # a layer's label under the middle of its columns
    ax.set_xticks([(first[k] + (first[k + 1] if k + 1 < layers else ncols) - 1) / 2
                   for k in range(layers)])
    ax.set_xticklabels([f"depth {k}" for k in range(layers)])
    ax.set_yticks([])
    ax.grid(False)
    for s in ("top", "right", "left"):
        ax.spines[s].set_visible(False)
    fig.tight_layout()
    return fig


def whole_graph(view: dict, number: dict[str, str], status: dict[str, str], path: Path) -> None:
    """Every claim that cites or is cited, on one landscape page (ids readable when zoomed)."""
    dependency_graph(view, number, status, path, labels="full", width=10.5)


def rope_decay(data: dict, path: Path) -> None:
    """RoPE's bound ``B(k)`` (certified band) per ``d``: a close-up with the first rise marked
    (a circle), and the whole range with the certified minimum marked (a triangle); the
    landmarks are named in the legend."""
    plt = _mpl()
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 2.5), gridspec_kw={"width_ratios": [1, 1.5]})
    for c in data["curves"]:
        col = colour(c["d"])
        lm = c["landmarks"]
        close, b = c["close"], c["binned"]
        axes[0].fill_between(close["k"], close["lo"], close["hi"], color=col, alpha=0.5,
                             linewidth=0)
        axes[0].plot(close["k"], close["hi"], color=col, marker="o", markersize=1.4,
                     linewidth=0.6)
        rise = lm["first_rise"]
        label = f"d = {c['d']}"
        if rise is not None and rise <= data["close"]:
            axes[0].plot([rise], [lm["rise"]["at"]["hi"]], marker="o", markersize=6,
                         markerfacecolor="none", color=col, linestyle="none")
            label += f": first rise at k = {rise}"
        axes[0].plot([], [], color=col, marker="o", markersize=5, markerfacecolor="none",
                     label=label)
        ks = [max(a, 1) * (e / max(a, 1)) ** 0.5 for a, e in zip(b["start"], b["end"],
                                                                  strict=True)]
        axes[1].fill_between(ks, b["lo"], b["hi"], color=col, alpha=0.35, linewidth=0)
        axes[1].plot(ks, b["hi"], color=col, linewidth=0.4)
        mn = lm["minimum"]
        axes[1].plot([mn["k"]], [mn["lo"]], marker="v", markersize=5, color=col,
                     linestyle="none", label=f"d = {c['d']}: least B at k = {_thousands(mn['k'])}")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("relative distance $k$")
    axes[0].set_ylabel(r"$B(k) = \frac{2}{d}\sum_{j=1}^{d/2} |S_j(k)|$")
    axes[0].set_title(f"close up, $k \\leq {data['close']}$")
    axes[0].legend(loc="upper right", fontsize=6.2)
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    axes[1].set_xlim(1, data["n_end"])
    axes[1].set_xlabel("relative distance $k$ (log)")
    axes[1].set_title(f"every offset up to {_thousands(data['n_end'])} (band per bin)")
    axes[1].legend(loc="lower left", fontsize=6.2)
    fig.tight_layout()
    _save(fig, path)


_METHOD_STYLE = {"linear": ("#1f77b4", "-"), "ntk": ("#ff7f0e", "-"),
                 "dynamic": ("#ff7f0e", ":"), "yarn": ("#2ca02c", "-"),
                 "llama3": ("#d62728", "-"), "longrope": ("#9467bd", "-")}


def rope_scaling(data: dict, path: Path) -> None:
    """The frequency multiplier ``theta'_j / theta_j`` of each scaling method against the pair's
    wavelength ``2 pi / theta_j`` (log axes), with the original context length marked."""
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTH, 2.9))
    wave = data["wavelength"]
    seen: dict[str, int] = {}
    for m in data["methods"]:
        col, ls = _METHOD_STYLE.get(m["kind"], ("#444444", "-"))
        n = seen.get(m["kind"], 0)
        seen[m["kind"]] = n + 1
        if n:
            ls = "--"
        ax.plot(wave, m["multiplier"], color=col, linestyle=ls, marker="o", markersize=1.3,
                linewidth=0.8, label=m["label"])
    ax.axvline(data["length"], color="black", linewidth=0.6, linestyle="--")
    ax.text(data["length"] * 0.93, 1.02, f"original context L = {_thousands(data['length'])}",
            fontsize=6.5, va="bottom", ha="right")
    ax.axhline(1.0 / data["factor"], color="#888888", linewidth=0.5, linestyle=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"wavelength of the pair, $2\pi/\theta_j$ (positions; log)")
    ax.set_ylabel(r"frequency multiplier $\theta'_j/\theta_j$ (log)")
    ax.set_title(f"d = {data['d']}, base {data['base']:,}, factor s = {data['factor']}; "
                 f"dotted: 1/s")
    ax.set_ylim(0.5 / data["factor"], 1.6)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), fontsize=6.2, ncol=4,
              frameon=False)
    fig.tight_layout()
    _save(fig, path)
