"""The report's figures, drawn with matplotlib from the run's data only, as vector PDF.

Reproducible output: fixed metadata (no creation date), fixed fonts and sizes, and data in a
deterministic order; the same data give byte-identical files.
"""

from __future__ import annotations

import math
from pathlib import Path

WIDTH = 6.3  # inches, the text width of the document
VERDICT_COLOUR = {"proved": "#2b7a3d", "refuted": "#b3261e", "unknown": "#8a6d00"}


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


def distance(data: dict, path: Path) -> None:
    plt = _mpl()
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 2.5))
    for c in data["curves"]:
        close, full = c["panels"][0], c["panels"][-1]
        (line,) = axes[0].plot(close["k"], close["lo"], label=f"d = {c['d']}")
        axes[1].fill_between(full["k"], full["lo"], full["hi"], color=line.get_color(),
                             alpha=0.35, linewidth=0)
        axes[1].plot(full["k"], full["lo"], color=line.get_color(), linewidth=0.5)
    for ax, kmax in zip(axes, data["ks"], strict=False):
        ax.set_yscale("log")
        ax.set_xlabel("offset $k$")
        ax.set_xlim(0, kmax)
    axes[0].set_ylabel(r"$D(k) = \|PE(a) - PE(a+k)\|^2$")
    axes[0].set_title(f"close up, $k \\leq {data['ks'][0]}$")
    axes[1].set_title(f"all offsets up to {data['ks'][-1]} (band: min and max per bin)")
    axes[0].legend(loc="lower right", ncol=2)
    fig.tight_layout()
    _save(fig, path)


def separation_vs_n(data: dict, path: Path) -> None:
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTH, 2.7))
    for c in data["curves"]:
        f = c["float64"]
        (line,) = ax.plot(f["n"], f["min_dist"], linewidth=0.7, label=f"d = {c['d']}")
        pts = c["certified"]
        ax.plot([p["n"] for p in pts], [p["lo"] for p in pts], linestyle="none", marker="o",
                markersize=2.6, color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of positions $N$ (positions $0, \\dots, N-1$)")
    ax.set_ylabel(r"$\min_{a<b<N} \|PE(a)-PE(b)\|$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.16), ncol=len(data["curves"]),
              frameon=False)
    fig.tight_layout()
    _save(fig, path)


def horizons(rows: list[dict], n: int, path: Path) -> None:
    """Positions of the first collision, error crossing and overflow per (dtype, recipe)."""
    plt = _mpl()
    fig, ax = plt.subplots(figsize=(WIDTH, 2.9))
    labels = [f"{r['dtype']}\n{r['recipe']}" for r in rows]
    xs = list(range(len(rows)))
    kinds = (("collision", "first collision", "x", "#1f4e9c"),
             ("error_crossing", "error > $\\delta/2$", "o", "#b3261e"),
             ("overflow", "overflow", "^", "#555555"))
    top = n * 4
    for key, label, marker, colour in kinds:
        if key == "overflow" and not any(r[key] is not None and r[key] < n for r in rows):
            continue
        found = [(x, r[key]) for x, r in zip(xs, rows, strict=True) if r[key] is not None
                 and r[key] < n]
        beyond = [x for x, r in zip(xs, rows, strict=True)
                  if r[key] is None or r[key] >= n]
        ax.plot([x for x, _ in found], [y for _, y in found], linestyle="none", marker=marker,
                color=colour, markersize=4, label=label,
                markerfacecolor=colour if marker != "x" else None)
        if key != "overflow":
            off = -0.15 if key == "collision" else 0.15
            ax.plot([x + off for x in beyond], [top] * len(beyond), linestyle="none",
                    marker=marker, color=colour, markersize=3.5, markerfacecolor="none",
                    alpha=0.7)
    ax.axhline(n, color="black", linewidth=0.6, linestyle="--")
    ax.text(len(rows) - 0.5, n * 1.25, f"N = {n} (scanned)", ha="right", va="bottom",
            fontsize=6)
    ax.text(len(rows) - 0.5, top * 1.25, "hollow: none below N", ha="right", va="bottom",
            fontsize=6)
    ax.set_yscale("log")
    ax.set_ylim(1, top * 6)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, rotation=90, fontsize=6)
    ax.set_ylabel("position")
    ax.legend(loc="lower left", ncol=3)
    fig.tight_layout()
    _save(fig, path)


def recipe_error(data: dict, half: dict[str, list[float]], path: Path) -> None:
    plt = _mpl()
    panels = data["panels"]
    fig, axes = plt.subplots(1, len(panels), figsize=(WIDTH, 2.4), sharey=True)
    if len(panels) == 1:
        axes = [axes]
    for ax, panel in zip(axes, panels, strict=True):
        for c in panel["curves"]:
            ys = [math.nan if v is None else v for v in c["max_error"]]
            ax.plot(c["p"], ys, linewidth=0.6, label=c["recipe"])
        h = half.get(panel["dtype"])
        if h:
            ax.axhline(h[0], color="black", linewidth=0.6, linestyle="--")
        ax.set_yscale("log")
        ax.set_xlabel("position $p$")
        ax.set_title(f"{panel['dtype']}, d = {panel['d']}")
    axes[0].set_ylabel(r"$\max\ \|PE_{\mathrm{recipe}}(p) - PE(p)\|$ per bin")
    axes[-1].legend(loc="lower right")
    fig.tight_layout()
    _save(fig, path)


def dependency_graph(nodes: list[dict], path: Path) -> None:
    """``nodes``: ``{"id", "status", "layer", "row", "uses"}`` (layout from :mod:`.content`)."""
    plt = _mpl()
    layers = max(n["layer"] for n in nodes) + 1
    rows = max(n["row"] for n in nodes) + 1
    fig, ax = plt.subplots(figsize=(9.3, 6.4))
    pos = {n["id"]: (n["layer"], rows - 1 - n["row"] * (rows - 1) / max(n["rows_in_layer"] - 1, 1)
                     if n["rows_in_layer"] > 1 else (rows - 1) / 2) for n in nodes}
    for n in nodes:
        x1, y1 = pos[n["id"]]
        for u in n["uses"]:
            x0, y0 = pos[u]
            ax.plot([x0 + 0.06, x1 - 0.06], [y0, y1], color="#999999", linewidth=0.25,
                    zorder=1)
    for n in nodes:
        x, y = pos[n["id"]]
        colour = VERDICT_COLOUR.get(n["status"], "black")
        ax.plot([x], [y], marker="o", markersize=2.2, color=colour, zorder=2)
        ax.text(x + 0.05, y, n["id"], fontsize=4.2, va="center", ha="left", color=colour,
                zorder=3)
    ax.set_xlim(-0.1, layers - 0.05 + 0.9)
    ax.set_ylim(-1, rows)
    ax.set_xticks(range(layers))
    ax.set_xticklabels([f"depth {k}" for k in range(layers)])
    ax.set_yticks([])
    ax.grid(False)
    for s in ("top", "right", "left"):
        ax.spines[s].set_visible(False)
    fig.tight_layout()
    _save(fig, path)
