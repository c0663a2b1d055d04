"""The benchmarks of ``theorems bench all`` as a table, for bench.md, report.md and the HTML
report (the measurements themselves are ``theorems.bench``'s)."""

from __future__ import annotations

BENCHMARK_COLUMNS = ("benchmark", "size", "time", "baseline", "ratio")


def benchmark_rows(bench: dict) -> list[tuple[str, ...]]:
    """One row per measurement (columns ``BENCHMARK_COLUMNS``)."""
    rows = [("exact certificate (det mod p)", f"{row['size']}², {row['threads']} BLAS thread(s)",
             f"{row['certificate_s']:.2f} s, peak {_peak(row)}", _lu(row), _certificate_ratio(row))
            for row in bench["certificate"]]
    chain = bench["chain"]
    rows.append(("BN chain layers", f"d = {chain['d']}, N = {chain['n']}, {chain['chains']} chains",
                 f"{chain['layers_per_second']} layers/s", f"batched matmul {chain['matmul_per_second']} /s",
                 f"{chain['ratio']:.2f} of matmul"))
    rows += [(f"build_source ({row['method']})", f"d = {row['d']} (width {row['source_width']})",
              f"{row['total_s']:.2f} s",
              f"linear solves {row['solve_s']:.2f} s", f"{100 * row['solve_share']:.0f}% in solves; max error "
              f"{row['max_abs_error']:.1e}") for row in bench["construction"]]
    # (absent from a bench.json written before `bench startup` existed)
    rows += [(f"startup: {row['command']}", f"a new process, median of {row['repeat']}",
              f"{row['seconds']:.2f} s, peak {row['peak_bytes'] / 2**20:.0f} MiB",
              f"python -c pass {row['bare_s']:.2f} s, peak {row['bare_peak_bytes'] / 2**20:.0f} MiB",
              f"+{row['difference_s']:.2f} s ({row['ratio']:.1f}×)") for row in bench.get("startup", [])]
    return rows


def _peak(row: dict) -> str:
    return "not measured" if row["peak_bytes"] is None else f"{row['peak_per_copy']:.2f} × 8n²"


def _lu(row: dict) -> str:
    lu = f"float64 LU {row['lu_s']:.2f} s"
    return lu if row["lu_measured_at"] == row["size"] else f"{lu} (n³ from {row['lu_measured_at']}²)"


def _certificate_ratio(row: dict) -> str:
    flint = "flint not run" if row["flint_ratio"] is None else f"flint {row['flint_ratio']:.1f}×"
    return f"{row['ratio']:.2f}× ({flint})"


def benchmarks_caption(bench: dict) -> str:
    env = bench["environment"]
    return (f"theorems bench all on {bench['device']} ({env['cpu']}, {env['cpu_count']} cores), commit "
            f"{env['git_commit']}; every ratio is against a baseline measured in the same run.")


def render_benchmarks_markdown(bench: dict) -> str:
    lines = ["## Performance", "", benchmarks_caption(bench), "", "| " + " | ".join(BENCHMARK_COLUMNS) + " |",
             "|" + "---|" * len(BENCHMARK_COLUMNS)]
    lines += ["| " + " | ".join(row) + " |" for row in benchmark_rows(bench)]
    return "\n".join(lines) + "\n"
