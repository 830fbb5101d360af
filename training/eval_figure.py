"""The evaluation report's figure: overall F1 against average lookahead for the entropy-threshold
sweep, with the fixed lookaheads, the offline decoder and the default setting as references."""

from __future__ import annotations

from pathlib import Path

from training.metrics import f1_of


def plot(report: dict, path: Path, title: str = "") -> None:
    """Overall F1 against average lookahead for the h sweep (Minixhofer 2021, Fig. 4.3), with references."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = report["text"]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    sweep = text["etd_sweep"]["rows"]
    xs, ys = [r["avg_lookahead"] for r in sweep], [r["f1"] for r in sweep]
    ax.plot(
        xs,
        ys,
        "o-",
        color="tab:blue",
        label=f"ETD, l_min={text['etd_sweep']['l_min']}, l_max={text['etd_sweep']['l_max']} (h in bits)",
    )
    for r in sweep:
        ax.annotate(
            f"{r['threshold']:g}",
            (r["avg_lookahead"], r["f1"]),
            textcoords="offset points",
            xytext=(3, 5),
            fontsize=7,
            color="tab:blue",
        )
    ls = sorted(int(l) for l in text["fixed"])
    fs = [f1_of(text["fixed"][str(l)]) for l in ls]
    ax.plot(ls, fs, "s--", color="gray", label="fixed lookahead l")
    for l, f in zip(ls, fs):
        ax.annotate(f"l={l}", (l, f), textcoords="offset points", xytext=(4, -11), fontsize=7, color="gray")
    ax.axhline(fs[-1], color="gray", ls=":", lw=1)
    off = text["offline"]
    ax.axhline(
        f1_of(off),
        color="tab:green",
        ls="-.",
        lw=1.2,
        label=f"offline mask-combine, W {off['window']}, s {off['stride']}",
    )
    # one point each: the default live setting, and the same h with no minimum lookahead
    for key, marker, size, color, label in (
        ("live_default", "*", 15, "tab:red", "recommended h={threshold:g}, l_min={l_min}, l_max={l_max}"),
        ("etd_l_min_0", "^", 8, "tab:orange", "ETD l_min=0, h={threshold:g}"),
    ):
        row = text[key]
        ax.plot(
            [row["overall"]["avg_lookahead"]],
            [f1_of(row)],
            marker,
            ms=size,
            color=color,
            label=label.format(**row),
        )
    ax.set_xlabel("average lookahead (words)")
    ax.set_ylabel("overall F1 (%), comma + period + question")
    ax.set_title(title or "F1 vs average lookahead, no pause tokens", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
