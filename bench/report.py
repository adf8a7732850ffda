"""The load benchmark's report: the raw JSON, a plot, and the generated part of docs/benchmarks.md.

Only the text between the two markers in docs/benchmarks.md is rewritten, so the analysis around it stays.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

START = "<!-- bench load: generated, do not edit by hand -->"
END = "<!-- bench load: end -->"
STYLE = {"direct": "k", "railchat-api": "tab:blue", "railchat-ui": "tab:green", "nemo-server": "tab:red"}


def write_report(result: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "benchmarks.json").write_text(json.dumps(result, indent=1) + "\n")
    if result["levels"]:  # a soak alone has none
        plot(result, out / "benchmarks.png")
    page = out / "benchmarks.md"
    text = page.read_text() if page.exists() else f"# Benchmarks\n\n{START}\n{END}\n"
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    page.write_text(f"{head}{START}\n{markdown(result)}{END}{tail}")


def _fmt(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:,.0f}{unit}"


def _versus(row: dict[str, Any], direct: dict[str, Any] | None) -> str:
    if direct is None or row["system"] == "direct" or row["first_p50_ms"] is None:
        return ""
    diff = row["first_p50_ms"] - direct["first_p50_ms"]
    return f"{diff:+,.0f} ms, {row['first_p50_ms'] / direct['first_p50_ms']:.2f}x"


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    w = result["workload"]
    lines = [
        f"Command: `{result['command']}`",
        "",
        f"Run {result['date']} on {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, Python {m['python']}, "
        f"{m['os']}. Load average before / after: {_load(result['load_average_before'])} / "
        f"{_load(result.get('load_average_after'))} (a shared machine).",
        "",
        f"Workload: scripted upstream answering after {w['first_ms']:.0f} ms, then {w['chunks']} chunks "
        f"{w['gap_ms']:.0f} ms apart; {_answers(w)}; every client streams; times are as the client sees them.",
        "",
        "![first content and total time against concurrent streams](benchmarks.png)",
        "",
        "| streams | system | first content p50 | p99 | vs direct (p50) | total p50 | p99 | errors / turns "
        "| server CPU per turn |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    directs = {r["streams"]: r for r in result["levels"] if r["system"] == "direct"}
    for r in result["levels"]:
        lines.append(
            f"| {r['streams']} | {r['system']} | {_fmt(r['first_p50_ms'], ' ms')} | {_fmt(r['first_p99_ms'], ' ms')} "
            f"| {_versus(r, directs.get(r['streams']))} | {_fmt(r['total_p50_ms'], ' ms')} "
            f"| {_fmt(r['total_p99_ms'], ' ms')} | {r['errors']} / {r['turns']} "
            f"| {_cpu(r['cpu_ms_per_turn'])} |"
        )
    lines.append("")
    lines.append(
        "Server CPU for `direct` is the scripted upstream's own; railchat's API and UI share one process."
    )
    if "railchat_rss_mb_start" in result:
        lines.append(
            f"railchat resident memory after warm-up {result['railchat_rss_mb_start']:.0f} MiB, after the run "
            f"{result['railchat_rss_mb_end']:.0f} MiB."
        )
    soak = result.get("soak")
    if soak:
        lines += ["", _soak(soak)]
    return "\n".join(lines) + "\n"


def _soak(soak: dict[str, Any]) -> str:
    rss = soak["rss_mb"]
    text = (
        f"Soak: {soak['streams']} streams on railchat's API for {soak['minutes']:g} min, {soak['turns']} turns, "
        f"{soak['errors']} errors"
    )
    if soak.get("error_samples"):
        text += " (" + "; ".join(f"`{e}`" for e in soak["error_samples"]) + ")"
    text += (
        f"; resident memory {rss[0][1]:.0f} MiB at the start, {max(r for _, r in rss):.0f} MiB at most, "
        f"{rss[-1][1]:.0f} MiB at the end (samples every 15 s: {', '.join(f'{r:.0f}' for _, r in rss)})."
    )
    if soak.get("moderation_caches"):
        held = [
            f"{name} {c.get('entries', 0):,.0f} entries, {c.get('mib', 0):.1f} of {c.get('limit_mib', 0):.0f} MiB"
            for name, c in sorted(soak["moderation_caches"].items())
        ]
        text += " Moderation caches at the end (`/metrics`): " + "; ".join(held) + "."
    if "from" in soak:
        load = _load(soak.get("load_average_before"))
        text += f" Run apart: `{soak['from']['command']}`, {soak['from']['date']}, load average {load}."
    return text


def _cpu(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def _answers(workload: dict[str, Any]) -> str:
    # runs before the distinct answers existed repeated one answer, and their JSON does not say so
    if workload.get("answers", "repeat") == "repeat":
        return "**the same answer every turn** (`--answers repeat`: moderation's caches answer most checks)"
    return "a new answer every turn (`bench/answers.py`)"


def _load(values: Any) -> str:
    return "-" if not values else " ".join(f"{v:.1f}" for v in values)


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), dpi=90)
    systems = list(dict.fromkeys(r["system"] for r in result["levels"]))
    for ax, key, title in ((axes[0], "first", "first content"), (axes[1], "total", "answer complete")):
        for system in systems:
            rows = [r for r in result["levels"] if r["system"] == system and r[f"{key}_p50_ms"] is not None]
            xs = [r["streams"] for r in rows]
            color = STYLE.get(system)
            ax.plot(xs, [r[f"{key}_p50_ms"] for r in rows], "o-", color=color, label=f"{system} p50")
            ax.plot(
                xs, [r[f"{key}_p99_ms"] for r in rows], ":", color=color, alpha=0.7, label=f"{system} p99"
            )
        ax.set_xscale("log", base=2)
        ax.set_xticks([r["streams"] for r in result["levels"] if r["system"] == systems[0]])
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("concurrent streams")
        ax.set_ylabel("ms")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
