#!/usr/bin/env python3
"""scripts/plot-capture on generated captures: the PNG exists and is not
blank, and the printed table's statistics and ratios to the first capture are
the ones worked out here by hand. Usage: test_plot_capture.py  (exit 0 = pass)"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "plot-capture")
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def write_capture(path, frame_times, warmup_rows=()):
    with open(path, "w") as file:
        file.write("Application,Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange\n")
        time = 0.0
        for ms in list(warmup_rows) + list(frame_times):
            time += ms / 1000.0
            file.write(f"vkcuda-sim,NA,{time:.6f},{ms:.4f},NA\n")


def png_is_not_blank(path):
    """Decodes the PNG (matplotlib's reader, as the script uses matplotlib) and
    asks for more than one colour."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image
    pixels = matplotlib.image.imread(path)
    return pixels.ndim == 3 and pixels.shape[0] > 100 and float(pixels[..., :3].std()) > 0.01


def table_rows(stdout):
    lines = stdout.strip().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("capture"))
    rows = {}
    for line in lines[header + 1:-1]:  # the last line is the PNG's path
        fields = line.split()
        rows[fields[0]] = fields[1:]
    return rows


def check_reads_as_a(work, name):
    """Plotted beside a.csv, the file `name` in `work` (a's frames in another
    layout) must give a's row of the table."""
    result = subprocess.run([SCRIPT, f"{work}/a.csv", f"{work}/{name}", "-o", f"{work}/{name}.png"],
                            capture_output=True, text=True, timeout=120)
    check(result.returncode == 0, f"plot-capture on {name} exited {result.returncode}: {result.stderr}")
    if result.returncode == 0:
        rows = table_rows(result.stdout)
        check(rows.get(name) == ["100", "50.500", "99.010", "10.10", "1.000", "1.000", "1.000"],
              f"{name}, a's frames in another layout, reads as a: {result.stdout}")


def main():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        # Debian's python3-matplotlib belongs to /usr/bin/python3; a python3
        # earlier on PATH may not see it (the plot scripts do the same).
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + sys.argv[1:])
        raise
    with tempfile.TemporaryDirectory(prefix="vksim-plot-capture.") as work:
        # a: 1, 2, ..., 100 ms. P50 = 50.5 (h = 49.5), P99 = 99.01 (h = 98.01),
        # 1% low = 1000 / 99.01 = 10.10 fps.
        a = [float(k) for k in range(1, 101)]
        # b: every frame twice as long: P50 and P99 double, the 1% low halves.
        b = [2.0 * t for t in a]
        # c: 10 ms frames with one 100 ms spike among 100, after 5 warm-up rows
        # of 500 ms that its summary tells the script to leave out:
        # P50 = 10, P99 = 10 + 0.01 * 90 = 10.9 (h = 98.01 lands between the
        # last 10 and the spike).
        c = [10.0] * 99 + [100.0]
        write_capture(f"{work}/a.csv", a)
        write_capture(f"{work}/b.csv", b)
        write_capture(f"{work}/c.csv", c, warmup_rows=[500.0] * 5)
        with open(f"{work}/c.summary.json", "w") as file:
            file.write('{"warmupFramesExcluded": 5}\n')

        result = subprocess.run([SCRIPT, f"{work}/a.csv", f"{work}/b.csv", f"{work}/c.csv", "-o",
                                 f"{work}/compare.png"], capture_output=True, text=True, timeout=120)
        check(result.returncode == 0, f"plot-capture exited {result.returncode}: {result.stderr}")
        if result.returncode == 0:
            check(result.stdout.strip().splitlines()[-1] == f"{work}/compare.png",
                  f"the last line is not the PNG's path: {result.stdout!r}")
            check(os.path.getsize(f"{work}/compare.png") > 0, "the PNG is empty")
            check(png_is_not_blank(f"{work}/compare.png"), "the PNG is blank")
            rows = table_rows(result.stdout)
            expected = {
                # frames, P50, P99, 1% low, then the ratios to a's
                "a.csv": ["100", "50.500", "99.010", "10.10", "1.000", "1.000", "1.000"],
                "b.csv": ["100", "101.000", "198.020", "5.05", "2.000", "2.000", "0.500"],
                "c.csv": ["100", "10.000", "10.900", "91.74", "0.198", "0.110", "9.083"],
            }
            check(rows == expected, f"table:\n{result.stdout}\nexpected rows {expected}")

        # --warmup overrides the summary: c's 5 slow rows count again.
        result = subprocess.run([SCRIPT, f"{work}/c.csv", "--warmup", "0", "-o", f"{work}/c.png"],
                                capture_output=True, text=True, timeout=120)
        check(result.returncode == 0, f"plot-capture --warmup 0 exited {result.returncode}: {result.stderr}")
        if result.returncode == 0:
            rows = table_rows(result.stdout)
            check(rows.get("c.csv", [None])[0] == "105", f"--warmup 0 should count 105 frames: {result.stdout}")

        # PresentMon 2.x's names (--capture-columns v2): time in TimeInMs.
        with open(f"{work}/v2.csv", "w") as file:
            file.write("Application,TimeInMs,MsBetweenPresents\n")
            time = 0.0
            for ms in a:
                time += ms
                file.write(f"vkcuda-sim,{time:.4f},{ms:.4f}\n")
        check_reads_as_a(work, "v2.csv")

        # MangoHud logs of a's frames: 0.6.8's (frametime in whole microseconds)
        # and a later version's (milliseconds), both read as a.
        for name, unit in (("mangohud-us.csv", 1000.0), ("mangohud-ms.csv", 1.0)):
            with open(f"{work}/{name}", "w") as file:
                file.write("os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
                           "Debian GNU/Linux 12 (bookworm),AMD EPYC,llvmpipe,24683584,6.1.0,Mesa 22.3.6,\n"
                           "fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,"
                           "gpu_vram_used,gpu_power,ram_used,elapsed\n")
                elapsed_ns = 0
                for ms in a:
                    elapsed_ns += int(ms * 1e6)
                    frame_time = f"{ms * unit:g}"
                    file.write(f"{1000.0 / ms:g},{frame_time},0,0,0,0,0,0,0,0,0,{elapsed_ns}\n")
            check_reads_as_a(work, name)

    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    print("test_plot_capture: " + ("passed" if not failures else f"{len(failures)} failure(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
