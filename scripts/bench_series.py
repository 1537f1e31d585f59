"""Reading and grouping for scripts/plot-bench, kept apart from the drawing so
that it imports without matplotlib (tests/scripts/test_bench_series.py checks
it on the CI machine, which has none).

A row's series is every dimension in DIMENSIONS: the file's label (given on
the command line as LABEL=FILE), backend, sync, transfer, wait strategy,
texture, level of detail and overlay. Two rows share a line only when all of
them agree, so that texture on and off, or a build before and after a change,
never join into one line. Only the dimensions that vary among the inputs name
a series (varying_dimensions); the others are said once (constant_line).

A row without "texture" (a file written before bench rows had it) has the
texture UNKNOWN, unless the caller asks to take it from the file's name
(texture_from_name: "texture-on" or "texture-off" in the name, the texture the
run was asked for, not the one its path wrote). A row without "lod" or
"overlay" has that dimension UNKNOWN too; a dimension whose only other value
is UNKNOWN does not vary (the title line says "X or not given").
"""
import json
import math
import os
import re
import sys

PROGRAM = "plot-bench"
UNKNOWN = "unknown"
SYNC_VALUES = ("timeline", "binary", "none")
TRANSFER_VALUES = ("zero-copy", "copy")
WAIT_VALUES = ("poll", "enqueue", "none")
BACKEND_VALUES = ("cuda", "cuda-nvx", "vulkan", "opencl", "cpu")
TEXTURE_VALUES = ("on", "off", "placeholder")
ON_OFF = ("on", "off")
# The order of a series key; the legend names the varying ones in this order.
DIMENSIONS = ("label", "backend", "sync", "transfer", "waitStrategy", "texture", "lod", "overlay")
# Each dimension's values in a fixed order, so that a series keeps its place
# (and colour) from plot to plot; labels keep the command line's order.
VALUE_ORDER = {"sync": SYNC_VALUES, "transfer": TRANSFER_VALUES, "waitStrategy": WAIT_VALUES,
               "backend": BACKEND_VALUES, "texture": TEXTURE_VALUES, "lod": ON_OFF, "overlay": ON_OFF}
# A value alone ("poll", "cuda") reads well in a legend; in the title line,
# beside the other constant dimensions, these say what they are.
TITLE_NAMES = {"backend": "backend", "sync": "sync", "transfer": "transfer", "waitStrategy": "wait"}
TEXTURE_IN_NAME = re.compile(r"texture-(on|off)(?![a-z])")


def fail(message):
    print(f"{PROGRAM}: {message}", file=sys.stderr)
    sys.exit(2)


def is_number(value):
    # bool is an int in Python; true/false is not a count or a time.
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def parse_input(argument):
    """(label, path) from a command-line input: LABEL=FILE when the text
    before the first '=' is not empty and holds no '/', else (None, argument).
    A file whose name holds '=' is given with a directory: ./a=b.json."""
    label, separator, path = argument.partition("=")
    if separator and label and "/" not in label and path:
        return label, path
    return None, argument


def check_choice(where, result, key, allowed, required):
    value = result.get(key)
    if value is None and not required:
        return
    if value not in allowed:
        fail(f"{where}.{key} must be one of {', '.join(allowed)} (got {json.dumps(value)})")


def check_result(path, index, result):
    """Exits with one line when the row is not one that can be plotted;
    returns (vertices, meanMs)."""
    where = f"{path}: results[{index}]"
    if not isinstance(result, dict):
        fail(f"{where} is not an object")
    grid = result.get("grid")
    if not is_number(grid) or grid < 1 or int(grid) != grid:
        fail(f"{where}.grid must be a positive integer")
    vertices = result.get("vertices", grid * grid)
    if not is_number(vertices) or vertices < 1:
        fail(f"{where}.vertices must be a positive number")
    for key, allowed in (("sync", SYNC_VALUES), ("transfer", TRANSFER_VALUES), ("backend", BACKEND_VALUES)):
        check_choice(where, result, key, allowed, True)
    # Optional: files written before the bench had these keys lack them.
    for key, allowed in (("waitStrategy", WAIT_VALUES), ("texture", TEXTURE_VALUES), ("lod", ON_OFF),
                         ("overlay", ON_OFF)):
        check_choice(where, result, key, allowed, False)
    mean = result.get("meanMs")
    if not is_number(mean) or mean <= 0:
        fail(f"{where}.meanMs must be a number > 0 (a log axis has no room for 0)")
    for key in ("frames", "p99Ms", "unexplainedMs", "cpuFrameMs"):
        if key in result and not is_number(result[key]):
            fail(f"{where}.{key} must be a number")
    for key in ("simGpuMs", "renderGpuMs", "simWaitMs"):
        if result.get(key) is not None and not is_number(result[key]):
            fail(f"{where}.{key} must be a number or null")
    switch = result.get("switchUs")
    if switch is not None:
        if not isinstance(switch, dict) or not all(
                is_number(switch.get(key)) for key in ("vulkanToSim", "simToVulkan", "pair")):
            fail(f"{where}.switchUs must be null or an object with numbers vulkanToSim, simToVulkan and pair")
    return float(vertices), float(mean)


def read_bench(path):
    """(machine, results) of one bench JSON; exits with one line when it is
    missing or malformed."""
    try:
        with open(path, encoding="utf-8") as file:
            bench = json.load(file)
    except OSError as error:
        fail(f"{path}: {error.strerror or error}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        fail(f"{path}: not valid JSON ({error})")
    if not isinstance(bench, dict):
        fail(f"{path}: the top level must be an object with \"results\"")
    results = bench.get("results")
    if not isinstance(results, list) or not results:
        fail(f"{path}: \"results\" must be a non-empty array")
    machine = bench.get("machine", {})
    if not isinstance(machine, dict):
        fail(f"{path}: \"machine\" must be an object")
    return machine, results


def texture_in_name(path):
    """"on" or "off" from "texture-on" / "texture-off" in the file's name, else None."""
    match = TEXTURE_IN_NAME.search(os.path.basename(path))
    return match.group(1) if match else None


def series_key(result, label, name_texture):
    """The row's value of every dimension in DIMENSIONS, as a tuple."""
    texture = result.get("texture") or name_texture or UNKNOWN
    return (label or "", result["backend"], result["sync"], result["transfer"],
            result.get("waitStrategy", "none"), texture, result.get("lod", UNKNOWN),
            result.get("overlay", UNKNOWN))


class Row:
    """One bench row with its series key (a tuple over DIMENSIONS)."""

    def __init__(self, key, vertices, mean, result, path):
        self.key, self.vertices, self.mean, self.result, self.path = key, vertices, mean, result, path

    def value(self, dimension):
        return self.key[DIMENSIONS.index(dimension)]


def read_inputs(arguments, texture_from_name=False):
    """(machine of the first file, [Row], [label in command-line order]) from
    the command line's inputs (FILE or LABEL=FILE)."""
    machine, rows, labels = {}, [], []
    for argument in arguments:
        label, path = parse_input(argument)
        if label and label not in labels:
            labels.append(label)
        file_machine, results = read_bench(path)
        machine = machine or file_machine
        name_texture = texture_in_name(path) if texture_from_name else None
        for index, result in enumerate(results):
            vertices, mean = check_result(path, index, result)
            if texture_from_name and "texture" not in result and name_texture is None:
                fail(f"{path}: --texture-from-name: its rows have no \"texture\" and its name holds "
                     "neither texture-on nor texture-off")
            rows.append(Row(series_key(result, label, name_texture), vertices, mean, result, path))
    return machine, rows, labels


def known_values(rows, dimension):
    return {row.value(dimension) for row in rows} - {UNKNOWN}


def varying_dimensions(rows):
    """The dimensions with more than one value among the rows, in DIMENSIONS'
    order. UNKNOWN counts as a value only beside two or more others, or for
    the texture (where it stands for a whole build's rows)."""
    varying = []
    for dimension in DIMENSIONS:
        values = {row.value(dimension) for row in rows}
        known = values - {UNKNOWN}
        if len(known) > 1 or (dimension == "texture" and len(values) > 1):
            varying.append(dimension)
    return varying


def value_text(dimension, value):
    """How a value reads in a legend or title: on/off/placeholder/unknown say
    what they are about; "none" (the copy path's sync and wait) says nothing."""
    if dimension in ("texture", "lod", "overlay"):
        return f"{dimension} {value}"
    return "" if value == "none" else value


def series_name(key, dimensions):
    """The key's values of `dimensions`, joined with " · " ("none" left out)."""
    texts = [value_text(d, key[DIMENSIONS.index(d)]) for d in dimensions]
    return " · ".join(text for text in texts if text)


def constant_line(rows, varying):
    """The dimensions that do not vary, said once: "sync timeline · wait poll
    · lod on or not given"."""
    parts = []
    for dimension in DIMENSIONS:
        if dimension in varying or dimension == "label":
            continue
        values = {row.value(dimension) for row in rows}
        known = sorted(values - {UNKNOWN})
        if not known:
            continue
        text = value_text(dimension, known[0])
        if dimension in TITLE_NAMES:
            text = f"{TITLE_NAMES[dimension]} {known[0]}"
        parts.append(text + (" or not given" if UNKNOWN in values else ""))
    return " · ".join(parts)


def sort_key(key, labels):
    """Keys in DIMENSIONS' order, each value by VALUE_ORDER (labels by the
    command line's order; UNKNOWN last)."""
    ranks = []
    for dimension, value in zip(DIMENSIONS, key):
        order = labels if dimension == "label" else VALUE_ORDER[dimension]
        ranks.append(order.index(value) if value in order else len(order))
    return ranks


def group_series(rows, labels=()):
    """{key: [(vertices, meanMs)] sorted by vertices}, keys in sort_key's
    order. Two rows with one key and one vertex count mean that the inputs
    were not told apart (two files of one configuration, no label): exits."""
    series, seen = {}, {}
    for row in rows:
        where = (row.key, row.vertices)
        if where in seen:
            known = [d for d in DIMENSIONS if row.value(d) != UNKNOWN]
            which = f"{row.path} has two rows" if seen[where] == row.path else \
                f"{seen[where]} and {row.path} both have a row"
            advice = "labels (LABEL=FILE)"
            if row.value("texture") == UNKNOWN:
                advice += " or, where their names say it, --texture-from-name"
            fail(f"{which} of {series_name(row.key, known)} at {row.vertices:.0f} vertices: "
                 f"tell the files apart with {advice}")
        seen[where] = row.path
        series.setdefault(row.key, []).append((row.vertices, row.mean))
    return {key: sorted(series[key]) for key in sorted(series, key=lambda k: sort_key(k, list(labels)))}


GROUP_DIMENSIONS = ("label", "texture", "lod", "overlay")


def group_dimensions(varying):
    """The varying dimensions that are not a backend's configuration: the
    budget line's and the bars' groups are told apart by these."""
    return [d for d in varying if d in GROUP_DIMENSIONS]


def group_of(row, varying):
    """The row's values of group_dimensions(varying), as a tuple."""
    return tuple(row.value(d) for d in group_dimensions(varying))


def group_sort_key(group, varying, labels):
    """Groups in the order of their values (VALUE_ORDER; labels by the command
    line's order; UNKNOWN last)."""
    ranks = []
    for dimension, value in zip(group_dimensions(varying), group):
        order = list(labels) if dimension == "label" else VALUE_ORDER[dimension]
        ranks.append(order.index(value) if value in order else len(order))
    return ranks


def group_name(group, varying):
    """A group (group_of) as it reads in a legend: "before · texture off"."""
    texts = [value_text(d, value) for d, value in zip(group_dimensions(varying), group)]
    return " · ".join(text for text in texts if text)


def budget_points(rows, varying):
    """{group: [(vertices, render + sim + 2 switches in ms)]}: for each vertex
    count that has zero-copy rows with both GPU spans and switchUs, the mean
    over them, apart for each group (group_of)."""
    sums = {}
    for row in rows:
        result, switch = row.result, row.result.get("switchUs")
        if (result["transfer"] != "zero-copy" or switch is None or result.get("renderGpuMs") is None
                or result.get("simGpuMs") is None):
            continue
        budget = result["renderGpuMs"] + result["simGpuMs"] + switch["pair"] / 1000.0
        total, count = sums.setdefault(group_of(row, varying), {}).get(row.vertices, (0.0, 0))
        sums[group_of(row, varying)][row.vertices] = (total + budget, count + 1)
    return {group: sorted((v, total / count) for v, (total, count) in points.items())
            for group, points in sums.items()}


def budget_bars(rows, varying):
    """{(grid, backend, group): (render, sim, switches, rest, mean, sync)} in
    ms, one zero-copy configuration per grid, backend and group: poll,
    timeline where present, else binary."""
    chosen = {}
    for row in rows:
        result = row.result
        if result["transfer"] != "zero-copy" or result.get("waitStrategy", "poll") != "poll":
            continue
        if result.get("renderGpuMs") is None or result.get("simGpuMs") is None:
            continue
        key = (int(result["grid"]), result["backend"], group_of(row, varying))
        # timeline sorts before binary: the bar shows timeline where both ran.
        rank = 0 if result["sync"] == "timeline" else 1
        if key not in chosen or rank < chosen[key][0]:
            chosen[key] = (rank, result)
    bars = {}
    for key, (_, result) in chosen.items():
        switch = result.get("switchUs")
        switches = switch["pair"] / 1000.0 if switch else 0.0
        render, sim, mean = result["renderGpuMs"], result["simGpuMs"], result["meanMs"]
        bars[key] = (render, sim, switches, max(0.0, mean - render - sim - switches), mean, result["sync"])
    return bars
