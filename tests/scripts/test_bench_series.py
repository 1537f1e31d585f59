#!/usr/bin/env python3
"""scripts/bench_series.py (plot-bench's reading and grouping) on two small
bench files, one written before rows had "texture" and one after, given with
labels as a before/after sweep gives them: every row lands in the series of
its own label, backend, configuration and texture, the legend and title name
what varies and what does not, inputs told apart by nothing are refused, and
--texture-from-name reads the texture from the file's name. Needs no
matplotlib. Usage: test_bench_series.py  (exit 0 = pass)"""
import contextlib
import io
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_series  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def row(grid, mean, backend="cuda", sync="timeline", **extra):
    result = {"grid": grid, "sync": sync, "transfer": "zero-copy", "waitStrategy": "poll", "backend": backend,
              "frames": 20, "meanMs": mean, "simGpuMs": mean / 4, "renderGpuMs": mean / 2, "lod": "on"}
    result.update(extra)
    return result


def write(directory, name, rows):
    path = os.path.join(directory, name)
    with open(path, "w") as file:
        json.dump({"machine": {"gpu": "synthetic"}, "results": rows}, file)
    return path


def refusal(arguments, **options):
    """The one line that read_inputs + group_series print when they refuse, or None."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            _, rows, labels = bench_series.read_inputs(arguments, **options)
            bench_series.group_series(rows, labels)
    except SystemExit as exit_:
        return stderr.getvalue().strip() if exit_.code == 2 else f"exit {exit_.code}"
    return None


def check_before_after(directory):
    # Before: no "texture" key (the run's --texture was on). After: texture on
    # and off in one file, the same grids, and an OpenCL row that wrote none.
    before = write(directory, "A-cuda-texture-on.json", [row(64, 2.0), row(128, 4.0)])
    after = write(directory, "N-cuda.json", [row(64, 1.5, texture="on"), row(128, 3.0, texture="on"),
                                             row(64, 1.0, texture="off"), row(128, 2.0, texture="off"),
                                             row(64, 1.8, backend="opencl", sync="binary", texture="placeholder")])
    machine, rows, labels = bench_series.read_inputs([f"before={before}", f"after={after}"])
    check(machine == {"gpu": "synthetic"}, f"machine: {machine}")
    check(labels == ["before", "after"], f"labels: {labels}")
    varying = bench_series.varying_dimensions(rows)
    check(varying == ["label", "backend", "sync", "texture"], f"varying dimensions: {varying}")
    message = refusal([f"before={before}", f"after={after}"])
    check(message is None, f"before/after with labels refused: {message}")
    if message:
        return before, after
    series = bench_series.group_series(rows, labels)
    expected = {
        ("before", "cuda", "timeline", "zero-copy", "poll", "unknown", "on", "unknown"): [(4096.0, 2.0),
                                                                                         (16384.0, 4.0)],
        ("after", "cuda", "timeline", "zero-copy", "poll", "on", "on", "unknown"): [(4096.0, 1.5), (16384.0, 3.0)],
        ("after", "cuda", "timeline", "zero-copy", "poll", "off", "on", "unknown"): [(4096.0, 1.0), (16384.0, 2.0)],
        ("after", "opencl", "binary", "zero-copy", "poll", "placeholder", "on", "unknown"): [(4096.0, 1.8)],
    }
    check(series == expected, f"series: {json.dumps(list(series.items()))}")
    check(list(series) == list(expected), f"series order: {list(series)}")
    names = [bench_series.series_name(key, varying) for key in series]
    check(names == ["before · cuda · timeline · texture unknown", "after · cuda · timeline · texture on",
                    "after · cuda · timeline · texture off", "after · opencl · binary · texture placeholder"],
          f"legend names: {names}")
    constants = bench_series.constant_line(rows, varying)
    check(constants == "transfer zero-copy · wait poll · lod on", f"title line: {constants}")
    bars = bench_series.budget_bars(rows, varying)
    check(sorted(bars) == [(64, "cuda", ("after", "off")), (64, "cuda", ("after", "on")),
                           (64, "cuda", ("before", "unknown")), (64, "opencl", ("after", "placeholder")),
                           (128, "cuda", ("after", "off")), (128, "cuda", ("after", "on")),
                           (128, "cuda", ("before", "unknown"))], f"bars: {sorted(bars)}")
    check(bars.get((128, "cuda", ("after", "off")), (None,) * 5)[4] == 2.0, "the 128 after/off bar's mean")
    return before, after


def check_texture_from_name(directory, before, after):
    _, rows, labels = bench_series.read_inputs([f"before={before}", f"after={after}"], texture_from_name=True)
    textures = sorted({(r.value("label"), r.value("texture")) for r in rows})
    check(textures == [("after", "off"), ("after", "on"), ("after", "placeholder"), ("before", "on")],
          f"--texture-from-name: {textures}")
    check(bench_series.texture_in_name("x/A-vulkan-texture-off.json") == "off", "texture-off in a name")
    check(bench_series.texture_in_name("x/texture-only.json") is None, "texture-only is no texture")
    unnamed = write(directory, "A-cuda.json", [row(64, 2.0)])
    message = refusal([unnamed], texture_from_name=True)
    check(message is not None and "neither texture-on nor texture-off" in message,
          f"--texture-from-name on a name without it: {message}")


def check_refusals(directory, before):
    # The same configuration twice, told apart by nothing: refused, not joined.
    again = write(directory, "A-cuda-again.json", [row(64, 2.5)])
    message = refusal([before, again])
    check(message is not None and message.startswith("plot-bench: ") and "at 4096 vertices" in message,
          f"two files of one configuration without labels: {message}")
    check(refusal([f"one={before}", f"two={again}"]) is None, "the same two files with labels are refused")
    bad = write(directory, "bad.json", [row(64, 1.0, texture="sometimes")])
    message = refusal([bad])
    check(message is not None and "texture must be one of on, off, placeholder" in message,
          f"a texture value outside the schema: {message}")


def check_parse_input():
    cases = {"before=A.json": ("before", "A.json"), "A.json": (None, "A.json"),
             "./a=b.json": (None, "./a=b.json"), "=A.json": (None, "=A.json"),
             "x=dir/A.json": ("x", "dir/A.json")}
    for argument, expected in cases.items():
        got = bench_series.parse_input(argument)
        check(got == expected, f"parse_input({argument!r}) = {got}, expected {expected}")


def main():
    with tempfile.TemporaryDirectory(prefix="vksim-bench-series.") as directory:
        before, after = check_before_after(directory)
        check_texture_from_name(directory, before, after)
        check_refusals(directory, before)
    check_parse_input()
    check("matplotlib" not in sys.modules, "bench_series imported matplotlib")
    for message in failures:
        print(f"FAIL: {message}", file=sys.stderr)
    if failures:
        print(f"test_bench_series: {len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("test_bench_series: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
